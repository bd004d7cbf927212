"""The seat lifecycle in the engine: resignation, abort, hand-over, token reissue, time controls (pure)."""

from __future__ import annotations

from typing import Any

import pytest

from cardgames.engine.core.events import (
    ABORT,
    BOT_PLAYS,
    FORFEIT,
    ClockMarked,
    GameAborted,
    SeatHandedOver,
    SeatResigned,
    SeatTimedOut,
    TokenReissued,
)
from cardgames.engine.core.protocol import Rejection, RejectionCode, Setup
from cardgames.engine.core.registry import get_game
from cardgames.engine.core.replay import fold
from cardgames.engine.core.seat_events import Seated, side_seats, timeout_events, with_seat_events
from cardgames.engine.core.time_control import (
    TimeControl,
    TimeControlError,
    deadline,
    mark_after,
    parse_time_control,
    remaining,
    return_bank,
)

SEED = "ab" * 32


def _start(name: str, players: int | None = None) -> tuple[Any, Seated]:
    rules = with_seat_events(get_game(name))
    config = rules.make_config({}, players)
    return rules, fold(rules, rules.initial(config), rules.start(config, Setup(seed=SEED)))


@pytest.mark.parametrize(
    ("name", "players", "losers"),
    [("seep", None, {1, 3}), ("all_fours", 4, {1, 3}), ("all_fours", 2, {1}), ("contract_rummy", None, {1})],
)
def test_a_resignation_ranks_the_seat_and_its_side_last(name: str, players: int | None, losers: set[int]) -> None:
    rules, state = _start(name, players)
    assert set(side_seats(rules, state.players, 1)) == losers
    state = rules.evolve(state, SeatResigned(1))
    assert rules.is_over(state) and rules.to_act(state) == ()
    assert rules.outcome(state) == [1 if seat in losers else 0 for seat in range(state.players)]
    refused = rules.decide(state, 0, None)
    assert isinstance(refused, Rejection) and refused.code is RejectionCode.GAME_OVER


@pytest.mark.parametrize("name", ["seep", "all_fours", "contract_rummy"])
def test_an_abort_ends_the_match_with_no_result(name: str) -> None:
    rules, state = _start(name)
    for event in (GameAborted(None), SeatTimedOut(0, ABORT)):
        ended = rules.evolve(state, event)
        assert rules.is_over(ended) and rules.outcome(ended) == [0] * state.players
        assert rules.legal_commands(ended, rules.to_act(state)[0]) == []


def test_hand_over_and_back_and_a_bot_plays_timeout() -> None:
    rules, state = _start("all_fours")
    seat = rules.to_act(state)[0]
    events = timeout_events(rules, state, seat, BOT_PLAYS, waited_ms=2000, bot="random")
    assert events == [SeatTimedOut(seat, BOT_PLAYS, "timeout", 2000), SeatHandedOver(seat, "random")]
    state = fold(rules, state, events)
    assert state.bots == {seat: "random"} and not rules.is_over(state)
    state = rules.evolve(state, SeatHandedOver(seat, ""))
    assert state.bots == {}
    state = rules.evolve(state, TokenReissued(seat))
    assert state.reissued == {seat: 1} and rules.describe(TokenReissued(seat)) == f"Seat {seat} gets a new token"
    with pytest.raises(ValueError, match="names the bot"):
        timeout_events(rules, state, seat, BOT_PLAYS)


@pytest.mark.parametrize(
    "data",
    [
        {"initial_ms": -1},
        {"move_ms": -5},
        {"initial_ms": 10**12},
        {"move_ms": 50},
        {},
        {"increment_ms": 1000, "move_ms": 1000},
        {"move_ms": 1000, "on_timeout": "explode"},
        {"move_ms": 1000, "bot": "genius"},
        {"move_ms": 1000, "extra": 1},
        {"move_ms": "1000"},
    ],
)
def test_bad_time_controls_are_refused(data: dict[str, Any]) -> None:
    with pytest.raises(TimeControlError):
        parse_time_control(data)


def test_fischer_banks_and_deadlines_follow_from_the_marks() -> None:
    control = parse_time_control({"initial_ms": 10_000, "increment_ms": 1_000, "move_ms": 4_000, "on_timeout": FORFEIT})
    assert control == TimeControl(10_000, 1_000, 4_000, FORFEIT)
    first = mark_after(control, 2, None, [], None, False, {0}, 1_000)
    assert first == ClockMarked(1_000, (10_000, 10_000), (1_000, 0))
    assert deadline(control, first, 0) == 5_000  # the move limit comes before the bank
    assert deadline(control, first, 1) is None and remaining(control, first, 1, 2_000) == 10_000
    assert remaining(control, first, 0, 2_500) == 2_500
    # seat 0 took 3 s: 10 - 3 + 1 = 8 s left; seat 1 is to act from now
    second = mark_after(control, 2, first, [], 0, True, {1}, 4_000)
    assert second == ClockMarked(4_000, (8_000, 10_000), (0, 4_000))
    # a bot's move spends nothing; a seat that timed out has an empty bank, and gets some back with its seat
    assert mark_after(control, 2, second, [], 1, False, {0}, 9_000).banks == (8_000, 10_000)
    timed = mark_after(control, 2, second, [SeatTimedOut(1, BOT_PLAYS)], None, False, {1}, 9_000)
    assert timed.banks == (8_000, 0) and timed.since == (0, 9_000)
    back = mark_after(control, 2, timed, [SeatHandedOver(1, "")], None, False, {1}, 9_500)
    assert back.banks[1] == return_bank(control) == 10_000 and back.since == (0, 9_000)
    only_moves = parse_time_control({"move_ms": 2_000})
    assert only_moves is not None and mark_after(only_moves, 3, None, [], None, False, {2}, 7).banks == (0, 0, 0)
