"""The FORMAT.md snapshot (A17 snapshot fields): export, and positions built from (partial) snapshots."""

from __future__ import annotations

import random
from typing import Any

import pytest

from cardgames.engine.core.protocol import ScenarioError, Setup
from tests.all_fours.helpers import GAME, SEED, act, make_deck, play, random_match, snap, start

KEYS = {
    "dealer", "phase", "to_act", "hand_size", "hands", "stock", "turn_up", "trump", "set_aside",
    "trick", "tricks_won", "exposed", "scores", "hand_no", "redeal_no", "last_hand",
}  # fmt: skip
HANDS = {
    0: ["5S", "KS", "2C", "2D", "3D", "9D"],
    1: ["QS", "3H", "9C", "4D", "7C", "8D"],
    2: ["9S", "QH", "KH", "4C", "7D", "2S"],
    3: ["AS", "JH", "10D", "QC", "AD", "5C"],
}


def rebuild(snapshot: dict[str, Any], players: int = 4, options: dict[str, Any] | None = None) -> Any:
    return GAME.from_snapshot(GAME.make_config(options or {}, players), snapshot, Setup(seed=SEED))


def test_snapshot_has_every_key_of_format_md() -> None:
    s = snap(start(make_deck(HANDS, "4H")))
    assert set(s) == KEYS
    assert s["dealer"] == 3 and s["phase"] == "beg" and s["to_act"] == 0 and s["hand_size"] == 6
    assert s["trick"] == [] and s["tricks_won"] == [[], []] and s["exposed"] == [[], [], [], []]
    assert s["hand_no"] == 1 and s["redeal_no"] == 0 and s["last_hand"] is None and s["trump"] is None


@pytest.mark.parametrize("players", [2, 4])
def test_snapshots_round_trip_along_random_matches(players: int) -> None:
    for match in range(6):
        rng = random.Random(match)
        for _before, _event, after, end in random_match(rng, {}, players, f"{match + 5:064x}", 0.2):
            if end:
                s = snap(after)
                assert snap(rebuild(s, players)) == s


def test_a_rebuilt_position_plays_on_like_the_original() -> None:
    state = play(act(start(make_deck(HANDS, "4H")), 0, {"type": "stand"}), "5S", "QS")
    rebuilt = rebuild(snap(state))
    for card in ("9S", "AS"):
        state, rebuilt = play(state, card), play(rebuilt, card)
        assert snap(state) == snap(rebuilt)
    assert rebuilt.turn == 3 and rebuilt.trick_no == 2


def test_partial_snapshot_defaults_and_stock_fill() -> None:
    hands = [HANDS[seat] for seat in range(4)]
    state = rebuild({"dealer": 3, "hands": hands, "turn_up": "4H"})
    s = snap(state)
    assert s["phase"] == "beg" and s["to_act"] == 0 and s["hand_size"] == 6 and len(s["stock"]) == 27
    assert s["scores"] == [0, 0] and s["hand_no"] == 1
    state = act(state, 0, {"type": "stand"})
    assert state.trump == "H"


def test_a_play_snapshot_finishes_its_hand_and_deals_the_next() -> None:
    hands = [["5S"], ["QS"], ["9S"], ["AS"]]
    taken = [c for seat in range(4) for c in HANDS[seat] if c not in ("5S", "QS", "9S", "AS")]
    snapshot = {
        "dealer": 3, "phase": "play", "hands": hands, "turn_up": "4H", "trump": "H",
        "tricks_won": [taken[:12], taken[12:]], "scores": [3, 4],
    }  # fmt: skip
    state = rebuild(snapshot)
    assert state.hand_size == 6 and state.turn == 0 and state.trick_no == 6
    state = play(state, "5S", "QS", "9S", "AS")
    assert state.hand_no == 2 and state.dealer == 0 and state.last_hand is not None


@pytest.mark.parametrize(
    "bad",
    [
        {"hands": [["AS"], ["AS"], [], []], "turn_up": "4H"},  # a card twice
        {"hands": [["ZZ"], [], [], []], "turn_up": "4H"},
        {"hands": [HANDS[0], HANDS[1], HANDS[2], HANDS[3]], "turn_up": "4H", "stock": ["2H"]},  # cards missing
        {"hands": [HANDS[0], HANDS[1], HANDS[2]], "turn_up": "4H"},  # three hands for four seats
        {"hands": [HANDS[0], HANDS[1], HANDS[2], HANDS[3]], "turn_up": "4H", "exposed": [["AS"], [], [], []]},
        {"hands": [HANDS[0], HANDS[1], HANDS[2], HANDS[3]], "turn_up": "4H", "phase": "bidding"},
        {"hands": [HANDS[0], HANDS[1], HANDS[2], HANDS[3]], "turn_up": "4H", "to_act": 2},
        {"hands": [HANDS[0], HANDS[1], HANDS[2], HANDS[3][:5]], "turn_up": "4H"},  # uneven hands
        {"hands": [HANDS[0], HANDS[1], HANDS[2], HANDS[3]], "turn_up": "4H", "trump": "H"},  # trump in beg
        {
            "phase": "play",
            "trump": "H",
            "turn_up": "4H",
            "hands": [HANDS[0][1:], HANDS[1], HANDS[2][1:], HANDS[3]],
            "trick": [{"seat": 0, "card": "5S"}, {"seat": 2, "card": "9S"}],
        },
        {"hands": [HANDS[0], HANDS[1], HANDS[2], HANDS[3]], "turn_up": "4H", "colour": "red"},
    ],
)
def test_broken_snapshots_are_scenario_errors(bad: dict[str, Any]) -> None:
    with pytest.raises(ScenarioError):
        rebuild({"dealer": 3, **bad})
