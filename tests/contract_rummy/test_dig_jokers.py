"""Digs that go out by laying off the jokers they would leave (A.8 D3 with ``discard_jokers = false``).

A hand of jokers only cannot end a turn when jokers may not be discarded (A.8, no dead ends), but
a dig is judged as a whole: its ``then`` list may lay the jokers off and go out (A.11 (b)), so
``legal_commands`` must list such a dig.
"""

from __future__ import annotations

from typing import Any

from cardgames.engine.contract_rummy.commands import Dig, LayOff, Meld
from cardgames.engine.contract_rummy.events import PlayerWentOut
from cardgames.engine.core.protocol import Rejection
from tests.contract_rummy.helpers import game, position

RUN_5_7H = {"owner": 1, "kind": "run", "cards": ["5H", "6H", "7H"]}


def _digs(state: Any, depth: int) -> list[Dig]:
    return [c for c in game.legal_commands(state, 0) if isinstance(c, Dig) and c.depth == depth]


def _goes_out(state: Any, dig: Dig) -> bool:
    outcome = game.decide(state, 0, dig)
    assert not isinstance(outcome, Rejection), outcome
    return any(isinstance(event, PlayerWentOut) for event in outcome)


def _down_seat(options: dict[str, Any]) -> Any:
    """Seat 0 is down (a set of kings) and holds one joker; the pile is 8H over 9H, and seat 1's
    run 5H-7H takes both: after a dig to 9H only the joker is left."""
    melds = [RUN_5_7H, {"owner": 0, "kind": "set", "cards": ["KS", "KH", "KD"]}]
    return position([["JK"], [], [], []], deal=2, dealer=3, phase="draw", to_act=0, melds=melds,
                    discard=["8H", "9H", "2C"], options=options)


def _placed(dig: Dig) -> list[tuple[str, int]]:
    return [(step.card, step.meld) for step in dig.then if isinstance(step, LayOff)]


def test_a_seat_that_is_down_digs_and_lays_off_its_last_joker() -> None:
    state = _down_seat({"discard_jokers": False})
    [dig] = _digs(state, 2)
    placed = _placed(dig)
    assert placed[:2] == [("8H", 0), ("9H", 0)]
    assert len(placed) == 3 and placed[2][0] in ("JK=4H", "JK=10H")
    assert _goes_out(state, dig)


def test_the_joker_stays_in_the_hand_when_it_may_be_discarded() -> None:
    state = _down_seat({})
    [dig] = _digs(state, 2)
    assert _placed(dig) == [("8H", 0), ("9H", 0)]
    assert not _goes_out(state, dig)


def test_no_joker_lay_off_when_going_out_needs_a_discard() -> None:
    state = _down_seat({"discard_jokers": False, "must_discard_to_go_out": True})
    [dig] = _digs(state, 2)  # the joker stands for 8H, and 8H stays in the hand
    assert _placed(dig) == [("JK=8H", 0), ("9H", 0)]
    assert not _goes_out(state, dig)


def _five_jokers(options: dict[str, Any]) -> Any:
    """Seat 0 is not down; six players with the pagat deck (two packs, five jokers), a meld holding
    no more jokers than natural cards. A dig to QD gives 9S 9D QS QD and five jokers: each set
    needs two of the naturals and takes at most two jokers, so one joker is left, which seat 1's
    run 5H-7H takes."""
    hands = [["9S", "9D", "QS", "JK", "JK", "JK", "JK"], [], [], [], [], []]
    return position(hands, deal=1, dealer=5, phase="draw", to_act=0, melds=[RUN_5_7H], discard=["JK", "QD", "2C"],
                    options={"deck_policy": "pagat", "allow_six_to_eight": True,
                             "min_naturals_per_meld": "at_least_jokers", **options})


def test_a_seat_going_down_in_a_dig_lays_off_a_joker_its_sets_cannot_take() -> None:
    state = _five_jokers({"discard_jokers": False})
    [dig] = _digs(state, 2)
    assert isinstance(dig.then[0], Meld)
    assert {meld for card, meld in _placed(dig)} == {0}
    assert _goes_out(state, dig)


def test_going_down_in_a_dig_lays_off_nothing_when_lay_offs_wait_a_turn() -> None:
    assert _digs(_five_jokers({"discard_jokers": False, "layoff_same_turn_as_contract": False}), 2) == []
    # with jokers that may be discarded, the contract alone will do
    [dig] = _digs(_five_jokers({"layoff_same_turn_as_contract": False}), 2)
    assert len(dig.then) == 1 and isinstance(dig.then[0], Meld)
