"""A game's time control: what it is, and how a match's clocks follow from its log (pure).

A time control is chosen at creation and kept in the log's header (docs/log-format.md):

* ``initial_ms`` / ``increment_ms``: a bank per seat, ``initial_ms`` at the start; each of the
  seat's decisions spends the time it took from it, then adds ``increment_ms`` (Fischer);
* ``move_ms``: a limit per decision (alone, or beside a bank: whichever ends first);
* ``on_timeout``: what a seat whose time ran out gets: ``bot_plays`` (a built-in bot of
  strength ``bot`` plays for it until it acts again or is handed back), ``forfeit`` (the
  match ends, the seat and its side rank last) or ``abort`` (the match ends, no result).

The engine has no clock: time enters the log as :class:`~cardgames.engine.core.events.ClockMarked`
events, one at the end of every batch of a clocked match, written by the service with the
server's time. :func:`mark_after` says what that mark must hold given the previous one, the
batch and the time it was written at; the service writes it, the verifier recomputes it, and
:func:`deadline` tells from the latest mark when each seat's time runs out. Any process can
rebuild every deadline from the log: nothing about a clock lives only in memory.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any, Final

import msgspec

from cardgames.engine.core.events import (
    ABORT,
    BOT_PLAYS,
    FORFEIT,
    ClockMarked,
    SeatHandedOver,
    SeatTimedOut,
)

#: The consequences a game's time control may choose.
ON_TIMEOUT: Final = (BOT_PLAYS, FORFEIT, ABORT)
#: The built-in bots' strengths (service/players.py plays them).
BOT_STRENGTHS: Final = ("random", "heuristic", "search")
DEFAULT_BOT: Final = "heuristic"
#: The bounds of a time control: a bank of at most a week, a decision of at most a day, an
#: increment of at most an hour; a bank or a per-decision limit of at least 100 ms.
MAX_INITIAL_MS: Final = 7 * 24 * 3600 * 1000
MAX_MOVE_MS: Final = 24 * 3600 * 1000
MAX_INCREMENT_MS: Final = 3600 * 1000
MIN_LIMIT_MS: Final = 100
#: The bank a seat gets back when it takes its seat back from a bot, if it has less: 30 s, or its
#: whole initial bank when that is smaller (a seat that timed out has an empty bank).
RETURN_BANK_MS: Final = 30_000


class TimeControl(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A game's time control (see the module's docstring); all times in milliseconds."""

    initial_ms: int = 0
    increment_ms: int = 0
    move_ms: int = 0
    on_timeout: str = BOT_PLAYS
    bot: str = DEFAULT_BOT


class TimeControlError(ValueError):
    """A time control out of bounds (negative, absurd, an unknown consequence or bot)."""


def parse_time_control(data: Mapping[str, Any] | TimeControl | None) -> TimeControl | None:
    """A checked time control from its plain form (None: no clock); raises TimeControlError."""
    if data is None:
        return None
    plain: Any = msgspec.to_builtins(data) if isinstance(data, TimeControl) else dict(data)
    try:
        control = msgspec.convert(plain, TimeControl, strict=True)
    except (msgspec.ValidationError, TypeError) as error:
        raise TimeControlError(f"not a time control: {error}") from None
    _check(control)
    return control


def _check(control: TimeControl) -> None:
    for name, most in (("initial_ms", MAX_INITIAL_MS), ("increment_ms", MAX_INCREMENT_MS), ("move_ms", MAX_MOVE_MS)):
        value = getattr(control, name)
        if isinstance(value, bool) or not 0 <= value <= most:
            raise TimeControlError(f"{name} is 0 to {most:,} ms, not {value}")
    if not control.initial_ms and not control.move_ms:
        raise TimeControlError("a time control sets initial_ms (a bank per seat) or move_ms (a limit per decision)")
    if control.increment_ms and not control.initial_ms:
        raise TimeControlError("increment_ms adds to a bank: set initial_ms too")
    for name in ("initial_ms", "move_ms"):
        value = getattr(control, name)
        if value and value < MIN_LIMIT_MS:
            raise TimeControlError(f"{name} is at least {MIN_LIMIT_MS} ms when set, not {value}")
    if control.on_timeout not in ON_TIMEOUT:
        raise TimeControlError(f"on_timeout is one of {', '.join(ON_TIMEOUT)}, not {control.on_timeout!r}")
    if control.bot not in BOT_STRENGTHS:
        raise TimeControlError(f"the bot is one of {', '.join(BOT_STRENGTHS)}, not {control.bot!r}")


def return_bank(control: TimeControl) -> int:
    """The least bank of a seat taken back from a bot."""
    return min(control.initial_ms, RETURN_BANK_MS)


def mark_after(
    control: TimeControl,
    players: int,
    previous: ClockMarked | None,
    batch: Sequence[Any],
    acted: int | None,
    charged: bool,
    to_act: Collection[int],
    now_ms: int,
) -> ClockMarked:
    """The clocks after a batch written at ``now_ms`` (the mark that ends it).

    ``previous``: the mark before (None for the match's first batch); ``batch``: the batch's
    events; ``acted``: the seat whose command started it (None for the service's own: a
    start, a timeout, a resignation); ``charged``: whether that command spends the seat's
    bank (not when a bot played for the seat); ``to_act``: the seats the match waits for
    after the batch. The acting seat's bank loses the time since its decision began, then
    gains the increment; a timed-out seat's bank is empty; a seat taken back from a bot has
    at least :func:`return_bank`; a seat's decision begins when it is newly to act (or acted
    and is to act again).
    """
    banks = list(previous.banks) if previous is not None else [control.initial_ms] * players
    since = list(previous.since) if previous is not None else [0] * players
    if acted is not None and charged and since[acted] and control.initial_ms:
        banks[acted] = max(0, banks[acted] - max(0, now_ms - since[acted])) + control.increment_ms
    for event in batch:
        if type(event) is SeatTimedOut and 0 <= event.seat < players:
            banks[event.seat] = 0
            since[event.seat] = 0
        elif type(event) is SeatHandedOver and not event.bot and 0 <= event.seat < players:
            banks[event.seat] = max(banks[event.seat], return_bank(control)) if control.initial_ms else 0
    for seat in range(players):
        if seat not in to_act:
            since[seat] = 0
        elif not since[seat] or seat == acted:
            since[seat] = now_ms
    if not control.initial_ms:
        banks = [0] * players
    return ClockMarked(at_ms=now_ms, banks=tuple(banks), since=tuple(since))


def deadline(control: TimeControl, mark: ClockMarked | None, seat: int) -> int | None:
    """When ``seat``'s time runs out (Unix ms) as of ``mark``; None when it is not to act."""
    if mark is None or not 0 <= seat < len(mark.since) or not mark.since[seat]:
        return None
    since = mark.since[seat]
    ends = []
    if control.initial_ms:
        ends.append(since + mark.banks[seat])
    if control.move_ms:
        ends.append(since + control.move_ms)
    return min(ends)


def remaining(control: TimeControl, mark: ClockMarked | None, seat: int, now_ms: int) -> int:
    """The seat's time left at ``now_ms`` (ms, not below 0): to its deadline when it is to act,
    else its bank (or ``move_ms`` without a bank)."""
    end = deadline(control, mark, seat)
    if end is not None:
        return max(0, end - now_ms)
    if control.initial_ms:
        return mark.banks[seat] if mark is not None and 0 <= seat < len(mark.banks) else control.initial_ms
    return control.move_ms


def running(mark: ClockMarked | None, bots: Collection[int]) -> list[int]:
    """The seats whose clocks run as of ``mark``: to act and not played by a bot."""
    if mark is None:
        return []
    return [seat for seat, since in enumerate(mark.since) if since and seat not in bots]
