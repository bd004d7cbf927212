"""Property tests over random games of seven deals (A.13 invariants, A.11 scoring, D visibility).

Every command a seat sends comes from ``legal_commands`` and must be accepted; after every
event the cards are conserved card by physical card (also with two packs), every meld is a
legal set or run, and each deal's scores are the penalty values of the hands left.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardgames.engine.contract_rummy.commands import Dig, DrawDiscard, DrawStock, LayOff, Meld, SwapJoker
from cardgames.engine.contract_rummy.events import (
    CardLaidOff,
    ContractMelded,
    DealScored,
    JokerSwapped,
    MeldsAdded,
)
from cardgames.engine.contract_rummy.melds import penalty
from cardgames.engine.core.protocol import Rejection
from tests.contract_rummy.helpers import conserved, game, melds_valid, new
from tests.drawn import DrawnGame, play_drawn
from tests.profiles import examples
from tests.soundness import new_state, unseen

PLACING = (ContractMelded, MeldsAdded, CardLaidOff, JokerSwapped)

OPTIONS = st.fixed_dictionaries(
    {},
    optional={
        "deck_policy": st.sampled_from(["baseline", "classic", "pagat"]),
        "first_dealer": st.sampled_from(["draw_lowest", "random", 0, 2]),
        "min_run_length": st.sampled_from([3, 4]),
        "same_suit_runs_in_contract": st.sampled_from(["forbidden", "need_gap", "allowed"]),
        "same_rank_sets_in_contract": st.sampled_from(["allowed", "forbidden"]),
        "contract_meld_count": st.sampled_from(["exact", "at_least"]),
        "allow_new_melds_after_contract": st.booleans(),
        "layoff_same_turn_as_contract": st.booleans(),
        "joker_layoff_targets": st.sampled_from(["runs_only", "runs_and_sets"]),
        "joker_swap": st.booleans(),
        "joker_swap_from_own_melds": st.booleans(),
        "min_naturals_per_meld": st.sampled_from(["one", "at_least_jokers"]),
        "discard_dig": st.booleans(),
        "top_discard_return_rule": st.sampled_from(["face", "physical_card"]),
        "discard_jokers": st.booleans(),
        "must_discard_to_go_out": st.booleans(),
        "final_deal_mode": st.sampled_from(["all_at_once_no_discard", "all_at_once_with_discard", "normal"]),
        "stock_exhaustion": st.sampled_from(["reshuffle_except_top", "turn_over_no_shuffle"]),
        "blocked_deal": st.sampled_from(["score_hands", "void"]),
        "max_stock_refills": st.sampled_from([0, 1, 3, 6]),
        "ace_value": st.integers(1, 20),
        "joker_value": st.integers(0, 50),
    },
)

ORDER = (Dig, Meld, SwapJoker, LayOff)


def greedy_choices(listed: Sequence[Any]) -> Sequence[Any]:
    """What a greedy player draws from: the first kind of :data:`ORDER` it may play, or a draw (else anything)."""
    for kind in (*ORDER, DrawStock | DrawDiscard):
        options = [command for command in listed if isinstance(command, kind)]
        if options:
            return options
    return listed


def choose(rng: random.Random, legal: list[Any], greedy: bool) -> Any:
    """A random legal command; a greedy player goes down, swaps and lays off whenever it can."""
    return rng.choice(greedy_choices(legal) if greedy else legal)


def check_event(before: Any, event: Any, after: Any) -> None:
    """After every event: the cards conserved card by physical card, the melds legal, a deal's
    scores the penalty values of the hands left (A.11, A.13)."""
    if isinstance(event, DealScored):
        _check_scoring(before, event)
    assert conserved(after), event
    if isinstance(event, PLACING):
        assert melds_valid(after), event


def play_game(seed: int, players: int, options: dict[str, Any], greedy: float) -> dict[str, int]:
    rng = random.Random(seed)
    state, _ = new(options, players, seed=f"{seed:064x}")
    assert conserved(state)
    seen: Counter[str] = Counter()
    while not game.is_over(state):
        (seat,) = game.to_act(state)
        legal = game.legal_commands(state, seat)
        assert legal, "a seat to act always has a legal command"
        command = choose(rng, legal, rng.random() < greedy)
        outcome = game.decide(unseen(state), seat, command)  # not the state listed for: every check runs
        assert not isinstance(outcome, Rejection), f"legal {command} rejected: {outcome}"
        for event in outcome:
            after = game.evolve(state, event)
            check_event(state, event, after)
            state = after
            seen[type(event).__name__] += 1
    assert state.winners == tuple(s for s, t in enumerate(state.scores) if t == min(state.scores))
    assert game.outcome(state)[state.winners[0]] == 0
    return seen


def _check_scoring(state: Any, event: DealScored) -> None:
    """A.11: the seat out scores 0, the others the penalty values of their hands (A.12 void: 0)."""
    config = state.config
    assert event.hands == state.hands
    for seat, hand in enumerate(state.hands):
        value = sum(penalty(card, config.ace_value, config.joker_value) for card in hand)
        if seat == event.out:
            assert hand == () and event.penalties[seat] == 0
        elif event.out is None and config.blocked_deal == "void":
            assert event.penalties[seat] == 0
        else:
            assert event.penalties[seat] == value
        assert event.totals[seat] == state.scores[seat] + event.penalties[seat]


PLAYERS = st.sampled_from([3, 4, 4, 5, 6, 8])


def _fit(options: dict[str, Any], players: int) -> tuple[dict[str, Any], int]:
    options = {**options, "allow_six_to_eight": True}
    if isinstance(options.get("first_dealer"), int) and options["first_dealer"] >= players:
        options["first_dealer"] = 0
    return options, players


@pytest.mark.slow
@settings(max_examples=examples(500), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32), PLAYERS, OPTIONS, st.sampled_from([0.0, 0.7, 1.0]))
def test_500_random_games_keep_every_invariant(seed: int, players: int, options: dict[str, Any],
                                               greedy: float) -> None:
    """A.13 invariants over 500 games of seven deals: conservation, legal melds, scores."""
    options, players = _fit(options, players)
    seen = play_game(seed, players, options, greedy)
    assert seen["DealScored"] == 7 and seen["GameEnded"] == 1


@settings(max_examples=examples(15), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32), PLAYERS, OPTIONS, st.sampled_from([0.0, 0.7, 1.0]))
def test_random_games_keep_every_invariant(seed: int, players: int, options: dict[str, Any], greedy: float) -> None:
    """The same as the 500-game test on a few games, in the default (fast) run."""
    options, players = _fit(options, players)
    seen = play_game(seed, players, options, greedy)
    assert seen["DealScored"] == 7 and seen["GameEnded"] == 1


@pytest.mark.parametrize("policy, players", [("baseline", 5), ("classic", 4), ("pagat", 4)])
def test_two_packs_conserve_every_physical_card(policy: str, players: int) -> None:
    """A.2 with two or three packs: codes repeat, and every copy is conserved."""
    for seed in range(3):
        seen = play_game(seed, players, {"deck_policy": policy}, greedy=0.8)
        assert seen["GameEnded"] == 1


def test_greedy_players_go_down_and_go_out() -> None:
    """legal_commands offers the contract when the hand allows it, so a simple bot finishes games
    (going down, laying off and going out) (A.6, A.11)."""
    total: Counter[str] = Counter()
    for seed in range(6):
        total += play_game(seed, 4, {}, greedy=1.0)
    assert total["ContractMelded"] > 10
    assert total["CardLaidOff"] > 10
    assert total["PlayerWentOut"] >= 1


#: Commands of a drawn game: a deal or two (a deal ends when a seat goes out or the stock runs dry).
DRAWN_COMMANDS = 150


def drawn_games(data: st.DataObject, rules: Any = game, record: DrawnGame | None = None) -> None:
    """A game under drawn options, players and seed, every command drawn (tests/drawn.py): at every
    position every listed command is accepted on a copy and no view shows a hidden card; after every
    event the invariants of :func:`check_event`."""
    options, players = _fit(data.draw(OPTIONS, label="options"), data.draw(PLAYERS, label="players"))
    seed = data.draw(st.integers(0, 2**64 - 1), label="seed")
    among = greedy_choices if data.draw(st.booleans(), label="greedy") else None
    state = new_state(rules, options, players, seed)
    assert conserved(state)
    play_drawn(data, "contract_rummy", rules, state, players, DRAWN_COMMANDS, check_event, record, among=among)


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_drawn_games_keep_every_invariant(data: st.DataObject) -> None:
    drawn_games(data)
