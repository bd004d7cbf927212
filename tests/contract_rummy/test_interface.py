"""A.13 the engine interface: rejections and their order, bad input, snapshots; D: what each seat sees."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardgames.engine.contract_rummy.events import CardsDealt, StockDrawn
from cardgames.engine.core.events import MatchSeeded, Shuffled
from cardgames.engine.core.protocol import HIDDEN, PUBLIC, Malformed, ScenarioError, Setup
from cardgames.service.conformance import run_scenario
from tests.conftest import CONFORMANCE
from tests.contract_rummy.helpers import act, config, game, new, position, refused
from tests.profiles import examples

TABLE = [
    {"owner": 1, "kind": "set", "cards": ["8S", "8H", "8D"]},
    {"owner": 1, "kind": "run", "cards": ["2C", "JK=3C", "4C"]},
]


def fresh(**snapshot: Any) -> Any:
    hand = ["5S", "5H", "5D", "9C", "9D", "9H", "KS", "QS", "7H", "8C"]
    snapshot.setdefault("deal", 1)
    return position([hand, ["3D"], [], []], dealer=3, to_act=0, melds=TABLE,
                    contract_met=[False, True, False, False], **snapshot)


def test_A13_rejection_order_game_over_then_turn_then_form_then_rules() -> None:
    state = fresh()
    refused(state, 1, {"type": "meld", "melds": [["ZZ"]]}, "not_your_turn")
    refused(state, 1, {"type": "nonsense"}, "not_your_turn")
    refused(state, 0, {"type": "nonsense"}, "invalid_command")
    refused(state, 0, {"type": "meld", "melds": [["5S", "5H", "ZZ"]]}, "invalid_command")  # before "draw first"
    refused(state, 0, {"type": "meld", "melds": [["5S", "5H", "5D"]]}, "illegal_move")
    over = position([["KD"], ["2S"], ["2H"]], deal=7, dealer=2, to_act=0, phase="play", scores=[1, 2, 3],
                    melds=[{"owner": 0, "kind": "run", "cards": ["10D", "JD", "QD"]}],
                    options={"final_deal_mode": "normal"})
    over, _ = act(over, 0, {"type": "lay_off", "card": "KD", "meld": 0})
    refused(over, 1, {"type": "nonsense"}, "game_over")


def test_A13_malformed_commands_are_invalid() -> None:
    state = fresh(phase="play")
    for raw in (
        {"type": "lay_off", "card": "8C"},
        {"type": "lay_off", "card": "8C", "meld": "0"},
        {"type": "lay_off", "card": "8C", "meld": 0, "end": "middle"},
        {"type": "meld", "melds": "5S 5H 5D"},
        {"type": "swap_joker", "card": "3C", "meld": 1},
        {"type": "discard"},
        {"type": "discard", "card": "XX"},
        {"type": "discard", "card": "JK=5H"},
        {"type": "lay_off", "card": "8C", "meld": 7},
        {"type": "lay_off", "card": "JK", "meld": 1},
        {"type": "lay_off", "card": "8H", "meld": 0},
        {"type": "meld", "melds": [["5S", "5S", "5H"]]},
    ):
        refused(state, 0, raw, "invalid_command")
    assert isinstance(game.decide(state, 0, Malformed("broken")), msgspec.Struct)


def test_A13_extra_fields_in_a_command_are_ignored() -> None:
    act(fresh(), 0, {"type": "draw_stock", "please": True})


BAD_INPUT = [
    ("an invalid meld", {"type": "meld", "melds": [["5S", "5H", "9C"], ["9D", "9H", "KS"]]}, "A.7"),
    ("a contract with the wrong melds", {"type": "meld", "melds": [["5S", "5H", "5D"]]}, "A.6"),
    ("a lay-off before the contract", {"type": "lay_off", "card": "8C", "meld": 0}, "A.6"),
    ("a joker swap before the contract", {"type": "swap_joker", "card": "KS", "meld": 1,
                                          "joker_to": {"meld": 1, "as": "5C"}}, "A.10"),
]


@pytest.mark.parametrize("what, raw, rule", BAD_INPUT, ids=[case[0] for case in BAD_INPUT])
def test_bad_input_is_refused_naming_the_rule_and_nothing_changes(what: str, raw: dict[str, Any], rule: str) -> None:
    state = fresh(phase="play")
    rejection = refused(state, 0, raw, "illegal_move")
    assert rule in rejection.rule, rejection


def test_bad_input_same_suit_runs_swap_without_the_natural_card_returning_the_top_card_digging_without_placing(
) -> None:
    runs = position([["3S", "4S", "5S", "9S", "10S", "JS", "KC"], [], [], []], deal=3, dealer=3, to_act=0,
                    phase="play")
    assert "A.6" in refused(runs, 0, {"type": "meld", "melds": [["3S", "4S", "5S"], ["9S", "10S", "JS"]]},
                            "illegal_move").rule
    down = position([["KS", "7H"], [], [], []], deal=2, dealer=3, to_act=0, phase="play", melds=TABLE,
                    contract_met=[True, True, False, False])
    assert "A.10" in refused(down, 0, {"type": "swap_joker", "card": "7H", "meld": 1,
                                       "joker_to": {"meld": 1, "as": "5C"}}, "illegal_move").rule
    took = position([["KS", "QD"], [], [], []], deal=2, dealer=3, to_act=0, discard=["7H", "2D"])
    took, _ = act(took, 0, {"type": "draw_discard"})
    assert "R1" in refused(took, 0, {"type": "discard", "card": "7H"}, "illegal_move").rule
    dig = position([["5S", "5H", "5D", "9C", "9D", "9H", "KS"], [], [], []], deal=1, dealer=3, to_act=0,
                   discard=["QS", "2D", "7H"])
    keeps = {"type": "dig", "depth": 2, "then": [{"type": "meld", "melds": [["5S", "5H", "5D"], ["9C", "9D", "9H"]]}]}
    assert "D3" in refused(dig, 0, keeps, "illegal_move").rule


def test_A13_snapshot_shape_and_round_trip() -> None:
    state, _ = new({}, 4, dealer=0)
    state, _ = act(state, 1, {"type": "draw_discard"})
    snap = game.snapshot(state)
    assert set(snap) == {"deal", "dealer", "phase", "to_act", "hands", "stock", "discard", "melds", "contract_met",
                         "scores", "turn", "last_deal_scores", "winners"}
    assert snap["turn"] == {"drew": "discard", "taken": [state.hands[1][-1]], "went_down": False}
    again = game.from_snapshot(config(), json.loads(json.dumps(snap)), Setup(seed="ab" * 32))
    assert game.snapshot(again) == snap
    assert game.legal_commands(again, 1) == game.legal_commands(state, 1)


def test_A13_a_state_start_in_play_without_turn_drew_from_the_stock() -> None:
    state = fresh(phase="play")
    assert game.snapshot(state)["turn"] == {"drew": "stock", "taken": [], "went_down": False}


@pytest.mark.parametrize(
    "change, message",
    [
        ({"hands": [["5S", "5S"], [], [], []]}, "deck"),
        ({"melds": [{"owner": 1, "kind": "run", "cards": ["4C", "3C", "2C"]}]}, "low to high"),
        ({"melds": [{"owner": 1, "kind": "set", "cards": ["8S", "8H"]}]}, "legal meld"),
        ({"melds": [{"owner": 2, "kind": "set", "cards": ["8S", "8H", "8D"]}]}, "contract_met"),
        ({"phase": "fight"}, "phase"),
        ({"surprise": 1}, "unknown"),
    ],
)
def test_A13_snapshots_that_break_the_invariants_are_scenario_errors(change: dict[str, Any], message: str) -> None:
    snap = game.snapshot(fresh())
    snap.update(change)
    if "hands" in change or "melds" in change:
        snap["stock"] = [c for c in snap["stock"] if c not in {"8S", "8H", "8D", "2C", "3C", "4C"}]
    with pytest.raises(ScenarioError, match=message):
        game.from_snapshot(config(), snap, Setup(seed="ab" * 32))


def test_A13_a_snapshot_of_a_blocked_deal_is_refused() -> None:
    with pytest.raises(ScenarioError, match="blocked"):
        position([["KS"], [], [], []], stock=[], discard=["2D"], rest_to=1, deal=1, dealer=3, to_act=0)


def test_A13_a_finished_deal_shows_the_next_one() -> None:
    state = position([["KD"], ["2S"], ["KS"], ["AH"]], deal=2, dealer=3, to_act=0, phase="play",
                     melds=[{"owner": 0, "kind": "run", "cards": ["10D", "JD", "QD"]}])
    state, _ = act(state, 0, {"type": "lay_off", "card": "KD", "meld": 0})
    snap = game.snapshot(state)
    assert (snap["deal"], snap["dealer"], snap["phase"], snap["to_act"]) == (3, 0, "draw", 1)
    assert snap["melds"] == [] and snap["contract_met"] == [False] * 4
    assert snap["last_deal_scores"] == [0, 2, 10, 15] and snap["winners"] is None


VECTORS = sorted((CONFORMANCE / "contract-rummy").glob("*.json"))


@pytest.mark.parametrize("path", VECTORS, ids=[path.stem for path in VECTORS])
def test_A13_public_vectors(path: Path) -> None:
    """Every public vector, through the conformance runner (snapshot, from_snapshot, decide)."""
    run_scenario(json.loads(path.read_text(encoding="utf-8")))


def test_D_a_seat_sees_its_own_hand_and_the_public_facts() -> None:
    state = fresh(phase="play")
    mine = game.view(state, 0)
    theirs = game.view(state, 1)
    spectator = game.view(state, None)
    assert mine.hand == state.hands[0] and theirs.hand == ("3D",) and spectator.hand == ()
    assert mine.hand_sizes == (10, 1, 0, 0) and mine.stock_size == len(state.stock)
    assert mine.discard == state.discard and mine.melds[1].placed_by == (1, 1, 1)
    assert mine.contract_met == (False, True, False, False)


def test_D_cards_taken_from_the_pile_are_known_while_they_stay_in_the_hand() -> None:
    state = position([["KS", "QD"], [], [], []], deal=2, dealer=3, to_act=0, discard=["7H", "2D"])
    state, _ = act(state, 0, {"type": "draw_discard"})
    assert game.view(state, 2).known[0] == ("7H",)
    state, _ = act(state, 0, {"type": "discard", "card": "KS"})
    assert game.view(state, 2).known[0] == ("7H",)
    state = position([["KS", "QD"], [], [], []], deal=2, dealer=3, to_act=0, discard=["7H", "2D"])
    top = state.stock[0]
    state, _ = act(state, 0, {"type": "draw_stock"})
    assert game.view(state, 2).turn is not None and game.view(state, 2).turn.taken == ()
    assert game.view(state, 0).turn is not None and game.view(state, 0).turn.taken == (top,)


def test_D_dealt_and_stock_cards_are_private_and_chance_is_hidden() -> None:
    _, events = new({}, 4, dealer=0)
    for event in events:
        if isinstance(event, CardsDealt):
            assert game.audience(event) == event.seat
            hidden = game.redact(event, (event.seat + 1) % 4)
            assert hidden.cards == () and hidden.count == 10
            assert game.redact(event, event.seat) == event
        elif isinstance(event, MatchSeeded | Shuffled):
            assert game.audience(event) == HIDDEN
            assert game.redact(event, None) != event or not getattr(event, "order", ())
        else:
            assert game.audience(event) == PUBLIC
    drawn = StockDrawn(seat=1, card="AS")
    assert game.audience(drawn) == 1 and game.redact(drawn, 0).card == ""


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32))
def test_D_no_view_shows_another_seats_unknown_cards(seed: int) -> None:
    rng = random.Random(seed)
    state, _ = new({}, 4, seed=f"{seed:064x}")
    for _ in range(400):
        if game.is_over(state):
            break
        (seat,) = game.to_act(state)
        command = rng.choice(game.legal_commands(state, seat))
        state, _ = act(state, seat, command)
        for viewer in (None, 0, 1, 2, 3):
            seen = game.view(state, viewer)
            assert b"seed" not in msgspec.json.encode(seen)
            assert seen.hand == (() if viewer is None else state.hands[viewer])
            assert seen.hand_sizes == tuple(len(hand) for hand in state.hands)
            assert seen.stock_size == len(state.stock) and seen.discard == state.discard
            for other, known in enumerate(seen.known):
                assert not Counter(known) - Counter(state.hands[other])  # only cards still held
            turn = seen.turn
            if turn is not None and turn.drew == "stock" and viewer != state.to_act:
                assert turn.taken == ()


def test_describe_and_outcome() -> None:
    state, events = new({}, 4)
    lines = [game.describe(event) for event in events]
    assert any(line and "Deal 1" in line for line in lines)
    assert all(line is None for line, event in zip(lines, events, strict=True) if isinstance(event, Shuffled))
    rng = random.Random(3)
    kinds = set()
    while not game.is_over(state):
        (seat,) = game.to_act(state)
        legal = game.legal_commands(state, seat)
        state, new_events = act(state, seat, rng.choice(legal))
        for event in new_events:
            line = game.describe(event)
            if not isinstance(event, MatchSeeded | Shuffled):
                assert line, event
                kinds.add(type(event).__name__)
    assert {"DealScored", "GameEnded", "Discarded"} <= kinds
    ranks = game.outcome(state)
    assert min(ranks) == 0 and all(0 <= rank < 4 for rank in ranks)
