"""Property tests: random matches under random options, with invariants checked after every event.

Invariants: the 52 cards are conserved across hands, stock, turn-up, set-aside, trick and
tricks won (A2); exposed cards are held (A14); hand sizes fit the tricks played (A5, A16);
trick winners follow A10; scores change only by the defined awards (A6, A7, A11); the
match ends exactly when an award reaches the target (A12); every legal command is accepted.
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardgames.engine.all_fours import State
from cardgames.engine.all_fours.events import MatchWon, PointsScored, TrickWon, TrumpFixed
from cardgames.engine.core.cards import STANDARD_PACK
from cardgames.engine.core.replay import fold
from tests.all_fours.helpers import GAME, random_match
from tests.drawn import DrawnGame, play_drawn
from tests.profiles import examples
from tests.soundness import assert_listed_accepted, new_state

ORDER = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]

OPTIONS = st.fixed_dictionaries(
    {},
    optional={
        "target_score": st.sampled_from([1, 3, 7, 14]),
        "deal_style": st.sampled_from(["threes", "ones"]),
        "kick_values": st.sampled_from([{"A": 1, "2": 2, "J": 3}, {}, {"A": 1, "6": 2, "J": 3, "10": 1}]),
        "give_one_points": st.integers(0, 2),
        "jack_scoring": st.sampled_from(["hang_jack", "capture_only", "none"]),
        "hang_jack_points": st.integers(0, 4),
        "game_point_value": st.integers(0, 2),
        "game_tie": st.sampled_from(["none", "non_dealer_side", "dealer_side"]),
        "void_must_trump": st.booleans(),
        "no_undertrump": st.booleans(),
        "out_of_turn_play": st.sampled_from(["expose", "reject"]),
        "callers": st.sampled_from(["opponents", "any_other"]),
        "beg_phase_hand_visibility": st.sampled_from(["all", "dealer_and_eldest_only"]),
        "stand_requires_trump": st.booleans(),
        "give_one_requires_trump": st.booleans(),
        "no_give_one_for_match": st.booleans(),
    },
)


def cards_everywhere(state: State) -> list[str]:
    cards = [card for hand in state.hands for card in hand]
    cards += list(state.stock) + list(state.set_aside) + [played.card for played in state.trick]
    cards += [card for won in state.tricks_won for card in won]
    if state.turn_up is not None:
        cards.append(state.turn_up)
    return cards


def expected_winner(state: State) -> int:
    """The winner of the full trick in ``state`` by A10, computed independently."""
    led = state.trick[0].card[-1]
    trumps = [p for p in state.trick if p.card[-1] == state.trump]
    pool = trumps or [p for p in state.trick if p.card[-1] == led]
    return max(pool, key=lambda p: ORDER.index(p.card[:-1])).seat


def award_value(state: State, event: PointsScored) -> int:
    config = state.config
    return {
        "kick": config.kick_values.get((event.card or "")[:-1], 0),
        "give_one": config.give_one_points,
        "high": 1,
        "low": 1,
        "jack": 1,
        "hang_jack": config.hang_jack_points,
        "game": config.game_point_value,
    }[event.reason]


def check_event(before: State, event: Any, after: State) -> None:
    cards = cards_everywhere(after)
    assert len(cards) == 52 and set(cards) == set(STANDARD_PACK), "cards not conserved"
    for seat in range(after.players):
        assert set(after.exposed[seat]) <= set(after.hands[seat])
    if isinstance(event, PointsScored):
        assert event.amount > 0 and event.amount == award_value(before, event)
        expected = list(before.scores)
        expected[event.side] += event.amount
        assert after.scores == tuple(expected) == event.totals
        assert max(before.scores) < before.config.target_score
    else:
        assert after.scores == before.scores or before.phase == "created"
    if isinstance(event, TrickWon):
        assert len(before.trick) == before.players
        assert event.seat == expected_winner(before)
    if isinstance(event, MatchWon):
        target = before.config.target_score
        assert after.scores[event.side] >= target and after.scores[1 - event.side] < target
    if isinstance(event, TrumpFixed):
        runs = after.run_no
        assert after.hand_size == 6 + 3 * runs
        assert after.players * after.hand_size + 1 + runs + len(after.stock) == 52  # A16
        assert runs <= (2 if after.players == 4 else 5)
    if after.phase == "play" and before.phase == "play":
        played = {p.seat for p in after.trick}
        for seat in range(after.players):
            assert len(after.hands[seat]) == after.hand_size - (after.trick_no - 1) - (seat in played)


def check_match(state: State, rules: Any = GAME) -> None:
    """Between commands: the match is over exactly when a side reached the target (A12)."""
    target = state.config.target_score
    assert (state.phase == "over") == (max(state.scores) >= target)
    assert state.phase in ("beg", "dealer_choice", "play", "over")
    if state.phase != "over":
        assert state.turn is not None and rules.to_act(state) == (state.turn,)
    else:
        assert rules.to_act(state) == ()
        assert rules.outcome(state).count(0) == state.players // 2


def check_position(state: State) -> None:
    """Between commands: :func:`check_match`, and every command listed for the seat to act is
    accepted on a copy of the state the listing never saw."""
    check_match(state)
    if state.phase != "over":
        assert state.turn is not None
        assert_listed_accepted(GAME, state, state.turn)


@settings(max_examples=examples(1000), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**63),
    players=st.sampled_from([2, 4]),
    options=OPTIONS,
    chaos=st.sampled_from([0.0, 0.1, 0.3]),
)
def test_random_matches_keep_every_invariant(seed: int, players: int, options: dict[str, Any], chaos: float) -> None:
    rng = random.Random(seed)
    last: State | None = None
    for before, event, after, end_of_command in random_match(rng, options, players, f"{seed:064x}", chaos):
        check_event(before, event, after)
        if end_of_command:
            check_position(after)
        last = after
    assert last is not None and last.phase == "over"


@settings(max_examples=examples(50), deadline=None)
@given(seed=st.integers(0, 2**63), players=st.sampled_from([2, 4]))
def test_full_default_matches_replay_to_the_same_state(seed: int, players: int) -> None:
    """A whole default match (to 14): folding its log from the start gives the same final state."""
    rng = random.Random(seed)
    config = GAME.make_config({}, players)
    log: list[Any] = []
    last: State | None = None
    for _before, event, after, _end in random_match(rng, {}, players, f"{seed:064x}", 0.1):
        log.append(event)
        last = after
    assert last is not None and max(last.scores) >= 14
    assert fold(GAME, GAME.initial(config), log) == last


#: Commands of a drawn match: several deals, a whole match under the smaller targets.
DRAWN_COMMANDS = 100


def drawn_matches(data: st.DataObject, rules: Any = GAME, record: DrawnGame | None = None) -> None:
    """A match under drawn options, players and seed, every command drawn (tests/drawn.py): at every
    position every seat's listed commands are accepted on a copy, no view shows a hidden card and the
    match is over exactly when a side reached the target; after every event the invariants of
    :func:`check_event`. (Out-of-turn plays and their calls are the seed-based property's.)"""
    players = data.draw(st.sampled_from([2, 4]), label="players")
    options = data.draw(OPTIONS, label="options")
    seed = data.draw(st.integers(0, 2**64 - 1), label="seed")
    state = new_state(rules, options, players, seed)
    last = play_drawn(data, "all_fours", rules, state, players, DRAWN_COMMANDS, check_event, record,
                      position=lambda position: check_match(position, rules))
    check_match(last, rules)


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_drawn_matches_keep_every_invariant(data: st.DataObject) -> None:
    drawn_matches(data)
