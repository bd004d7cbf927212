"""Seat events (engine/core/seat_events.py): what a timeout means for any game."""

from __future__ import annotations

from typing import Any

import msgspec

from cardgames.engine.core.events import AUTO_MOVE, FORFEIT, ClockCharged, SeatTimedOut
from cardgames.engine.core.protocol import Rejection, RejectionCode, Setup
from cardgames.engine.core.registry import get_game
from cardgames.engine.core.replay import fold
from cardgames.engine.core.seat_events import Seated, timeout_events, with_seat_events

SEED = "ab" * 32


def _start(name: str = "all_fours") -> tuple[Any, Seated]:
    rules = with_seat_events(get_game(name))
    config = rules.make_config({}, None)
    events = rules.start(config, Setup(seed=SEED))
    return rules, fold(rules, rules.initial(config), events)


def test_forfeit_ends_the_match_and_ranks_the_seat_last() -> None:
    rules, state = _start()
    seat = rules.to_act(state)[0]
    events = timeout_events(rules, state, seat, FORFEIT, waited_ms=1500)
    assert events == [SeatTimedOut(seat, FORFEIT, "timeout", 1500)]
    state = fold(rules, state, events)
    assert rules.is_over(state) and rules.to_act(state) == () and rules.legal_commands(state, seat) == []
    # 4-player All Fours is played in partnerships: the seat's side (seat mod 2) ranks last
    assert rules.outcome(state) == [1 if s % 2 == seat % 2 else 0 for s in range(4)]
    refused = rules.decide(state, seat, rules.rules.legal_commands(state.game, seat)[0])
    assert isinstance(refused, Rejection) and refused.code is RejectionCode.GAME_OVER


def test_auto_move_is_the_first_legal_command_recorded_after_the_timeout() -> None:
    rules, state = _start()
    seat = rules.to_act(state)[0]
    first = rules.legal_commands(state, seat)[0]
    events = timeout_events(rules, state, seat, AUTO_MOVE, reason="disconnected")
    assert events[0] == SeatTimedOut(seat, AUTO_MOVE, "disconnected", 0)
    assert list(events[1:]) == list(rules.decide(state, seat, first))
    assert not rules.is_over(fold(rules, state, events))


def test_clock_charged_keeps_the_bank_and_plain_rules_fold_seat_events() -> None:
    rules, state = _start()
    state = rules.evolve(state, ClockCharged(seat=2, used_ms=900, bank_ms=100))
    assert state.banks == {2: 100}
    plain = get_game("all_fours")
    inner = plain.evolve(state.game, SeatTimedOut(0, FORFEIT))
    assert inner == state.game  # the game's own evolve leaves its state unchanged
    assert rules.audience(SeatTimedOut(0, FORFEIT)) == "public"
    assert "forfeits" in (rules.describe(SeatTimedOut(0, FORFEIT, waited_ms=3)) or "")


def test_seat_events_round_trip_through_the_games_event_union() -> None:
    rules = with_seat_events(get_game("all_fours"))
    for event in (SeatTimedOut(1, AUTO_MOVE, "timeout", 12), ClockCharged(3, 1200, 800)):
        assert msgspec.json.decode(msgspec.json.encode(event), type=rules.Event) == event
