"""Bad input (A15): each refusal has the FORMAT.md code, names the rule and changes nothing."""

from __future__ import annotations

from typing import Any

import pytest

from cardgames.engine import seep
from cardgames.engine.core.commands import parse_command
from cardgames.engine.core.protocol import Rejection
from cardgames.engine.seep.state import State
from tests.seep.helpers import GAME, new_match, position, refuse, table


def _houses() -> list[dict[str, Any]]:
    return [
        {"value": 9, "components": [["6H", "3S"]], "owners": [1]},
        {"value": 12, "components": [["7D", "5C"], ["QC"]], "owners": [0]},
    ]


@pytest.fixture
def state() -> State:
    """Seat 1 to act: 9D 2C JD 4S; loose 4H 5S 8D; its own 9-house, seat 0's cemented 12-house."""
    return table({1: ["9D", "2C", "JD", "4S"], 0: ["QS"]}, ["4H", "5S", "8D"], _houses())


def _check(state: State, seat: int, raw: dict[str, Any], code: str, rule: str, words: str) -> None:
    before = seep.snapshot(state)
    rejection = refuse(state, seat, parse_command(GAME, raw))
    assert rejection.code == code, rejection
    assert rejection.rule == rule, rejection
    assert words in rejection.message, rejection
    assert seep.snapshot(state) == before


@pytest.mark.parametrize(
    ("raw", "code", "rule", "words"),
    [
        ({"type": "capture", "card": "9D", "groups": [["4H", "8D"]]}, "illegal_move", "A8.1", "adds up to 12, not 9"),
        ({"type": "capture", "card": "9D", "groups": [["4H", "5S"], ["4H", "5S"]]}, "illegal_move", "A8.1", "twice"),
        ({"type": "capture", "card": "9D", "groups": [[]]}, "illegal_move", "A8.1", "empty"),
        ({"type": "capture", "card": "4S", "groups": [["4H"], ["QC"]]}, "illegal_move", "A8.1", "not a loose card"),
        ({"type": "capture", "card": "2C", "groups": []}, "illegal_move", "A8.1", "captures nothing"),
        ({"type": "build", "card": "2C", "value": 10, "groups": [["2C", "8D"]]}, "illegal_move", "A8.3",
         "keep a card of value 10"),
        ({"type": "build", "card": "4S", "value": 12, "groups": [["4S", "8D"]]}, "illegal_move", "A8.3",
         "keep a card of value 12"),
        ({"type": "build", "card": "2C", "value": 11, "groups": [["2C", "8D"], ["2C"]]}, "illegal_move", "A8.3",
         "exactly one group"),
        ({"type": "build", "card": "2C", "value": 11, "groups": [["8D", "4H"]]}, "illegal_move", "A8.3",
         "exactly one group"),
        ({"type": "build", "card": "4S", "value": 14, "groups": [["4S", "5S", "4H"]]}, "illegal_move", "A8.3",
         "9..13"),
        ({"type": "build", "card": "2C", "value": 11, "groups": [["2C", "9D"]]}, "illegal_move", "A8.3",
         "not a loose card"),
        ({"type": "break", "card": "2C", "house": 9}, "illegal_move", "A8.4", "your own"),
        ({"type": "break", "card": "2C", "house": 12}, "illegal_move", "A8.4", "cemented"),
        ({"type": "break", "card": "2C", "house": 10}, "illegal_move", "A8.4", "no 10-house"),
        ({"type": "throw", "card": "9D"}, "illegal_move", "A8.2", "9-house"),
        ({"type": "throw", "card": "4S"}, "illegal_move", "A8.2", "can capture"),
        ({"type": "bid", "value": 9}, "illegal_move", "A5.4", "already"),
        ({"type": "throw", "card": "KH"}, "invalid_command", "A15", "do not hold KH"),
        ({"type": "capture", "card": "1X", "groups": []}, "invalid_command", "A15", "unknown card code"),
        ({"type": "capture", "card": "9D", "groups": [["4H", "ZZ"]]}, "invalid_command", "A15", "unknown card"),
        ({"type": "capture", "card": "9D"}, "invalid_command", "A15", "groups"),
        ({"type": "break", "card": "2C", "house": "9"}, "invalid_command", "A15", "house"),
        ({"type": "build", "card": "2C", "value": 11.5, "groups": []}, "invalid_command", "A15", "value"),
        ({"type": "pass"}, "invalid_command", "A15", "unknown command type"),
    ],
)
def test_bad_commands_are_refused_with_the_rule(state: State, raw: dict, code: str, rule: str, words: str) -> None:
    _check(state, 1, raw, code, rule, words)


def test_wrong_seat_comes_before_a_malformed_command(state: State) -> None:
    _check(state, 2, {"type": "throw", "card": "9D"}, "not_your_turn", "A5.7", "seat 1")
    _check(state, 0, {"type": "pass"}, "not_your_turn", "A5.7", "seat 1")
    _check(state, 7, {"type": "throw", "card": "9D"}, "not_your_turn", "A5.7", "seat 1")


def test_bid_out_of_range_and_not_held() -> None:
    state = new_match()
    held = {seep.cards.VALUE[card] for card in state.hands[1]}
    for value in (8, 14, 0, -3):
        _check(state, 1, {"type": "bid", "value": value}, "illegal_move", "A5.4", "9..13")
    for value in set(range(9, 14)) - held:
        _check(state, 1, {"type": "bid", "value": value}, "illegal_move", "A5.4", "you hold")
    card = state.hands[1][0]
    _check(state, 1, {"type": "throw", "card": card}, "illegal_move", "A5.4", "before the bid")
    _check(state, 2, {"type": "bid", "value": 9}, "not_your_turn", "A5.7", "seat 1")
    _check(state, 1, {"type": "bid", "value": "9"}, "invalid_command", "A15", "value")


def test_game_over_comes_first() -> None:
    state = table({0: ["5C"], 1: ["2H"], 2: ["3C"], 3: ["4D"]}, ["KC"], extra={"difference": -95})
    snap = seep.snapshot(state)
    snap["piles"] = [[c for c in snap["piles"][0] if c not in ("7S", "5H")], ["7S", "5H"]]
    state = position(snap)
    last_round: list[tuple[int, Any]] = [
        (1, seep.Throw(card="2H")),
        (2, seep.Throw(card="3C")),
        (3, seep.Throw(card="4D")),
        (0, seep.Capture(card="5C", groups=(("2H", "3C"),))),
    ]
    for seat, command in last_round:
        events = seep.decide(state, seat, command)
        assert not isinstance(events, Rejection)
        for event in events:
            state = seep.evolve(state, event)
    assert seep.is_over(state)
    after: list[tuple[int, dict[str, Any]]] = [
        (1, {"type": "bid", "value": 9}),
        (3, {"type": "pass"}),
        (9, {"type": "throw"}),
    ]
    for seat, raw in after:
        _check(state, seat, raw, "game_over", "A12", "over")

