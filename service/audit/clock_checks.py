"""The verifier's checks of a log's clocks and seat events (docs/log-format.md, "Clocks")."""

from __future__ import annotations

from typing import Any

from cardgames.engine.core.events import GameAborted, SeatHandedOver, SeatTimedOut
from cardgames.engine.core.protocol import GameRules
from cardgames.engine.core.time_control import BOT_STRENGTHS, TimeControl, deadline
from cardgames.service.audit.header import Failure


def timeout_in_time(
    control: TimeControl | None, event: SeatTimedOut, state: Any, where: str, seq: int, line: int | None
) -> int:
    """Check a clocked match's timeout: the header's consequence, a seat no bot plays, its deadline
    reached; the time it was recorded at (the batch's mark may not be earlier)."""
    assert control is not None
    if event.consequence != control.on_timeout:
        raise Failure(
            where, f"a {event.consequence!r} timeout, the header's time control says {control.on_timeout!r}", seq, line
        )
    if event.seat in state.bots:
        raise Failure(where, f"seat {event.seat} timed out while a bot played for it", seq, line)
    end = deadline(control, state.clock, event.seat)
    if end is None:
        raise Failure(where, f"seat {event.seat} timed out, but no clock ran for it", seq, line)
    at = int(state.clock.since[event.seat]) + event.waited_ms
    if at < end:
        raise Failure(where, f"seat {event.seat} timed out {end - at} ms before its deadline", seq, line)
    return at


def seat_fact(
    rules: GameRules, players: int, event: Any, state: Any, commands: int, where: str, seq: int, line: int | None
) -> None:
    """A resignation, abort, hand-over or token reissue: a seat of the match, while it runs."""
    seat = event.seat
    if seat is not None and not (isinstance(seat, int) and 0 <= seat < players):
        raise Failure(where, f"seat {seat!r} is not a seat of this match", seq, line)
    tag = type(event).__struct_config__.tag
    if rules.is_over(state):
        raise Failure(where, f"a {tag!r} event after the match ended", seq, line)
    if type(event) is GameAborted and commands:
        raise Failure(where, "the match was aborted after a seat had played", seq, line)
    if type(event) is SeatHandedOver and event.bot and event.bot not in BOT_STRENGTHS:
        raise Failure(where, f"seat {seat} handed over to an unknown bot {event.bot!r}", seq, line)
