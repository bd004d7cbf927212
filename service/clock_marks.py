"""A game's time control in the application layer: sealing batches with their clock mark, the
seats' clocks in a view, late commands (the timer that writes timeouts is service/table_clocks.py).

Every batch of a game with a time control ends with a ``clock_marked`` event (the server's time,
each seat's bank, when each pending decision began: engine/core/time_control.py), so every
deadline can be rebuilt from the log by any process. :func:`seal` adds it; a command that comes
after its seat's deadline is refused (:class:`DeadlinePassed`, the timeout applies instead); a
seat's own command while a bot plays it takes the seat back (``seat_handed_over`` with no bot).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from cardgames.engine.core.events import SeatHandedOver
from cardgames.engine.core.protocol import GameRules
from cardgames.engine.core.replay import fold
from cardgames.engine.core.seat_events import Seated
from cardgames.engine.core.time_control import TimeControl, deadline, mark_after, parse_time_control, remaining


def wall_ms() -> int:
    """The server's time, Unix milliseconds (what clock marks record)."""
    return time.time_ns() // 1_000_000


@dataclass(frozen=True)
class SeatClock:
    """One seat's clock and presence in a view (the wire's ``SeatStatus``)."""

    seat: int
    remaining_ms: int = 0
    running: bool = False
    deadline_ms: int = 0
    bot: str = ""
    connected: bool = False


def control_of(plain: Mapping[str, Any] | None) -> TimeControl | None:
    """The time control a header holds (checked when the game was created)."""
    return parse_time_control(plain) if plain is not None else None


def seal(
    rules: GameRules,
    control: TimeControl,
    players: int,
    before: Any,
    events: Sequence[Any],
    acted: int | None,
    charged: bool,
    now_ms: int,
) -> tuple[list[Any], Any]:
    """The batch with its clock mark at the end, and the state after it (``before``: the state
    the batch applies to, a Seated one; ``acted``/``charged``: see :func:`mark_after`)."""
    after = fold(rules, before, events)
    mark = mark_after(control, players, before.clock, events, acted, charged, rules.to_act(after), now_ms)
    return [*events, mark], rules.evolve(after, mark)


def late(control: TimeControl, state: Any, seat: int, now_ms: int) -> int | None:
    """How late (ms) a command of ``seat`` is at ``now_ms``, None when it is in time (or no clock runs
    for the seat: a bot plays it, or it is not to act)."""
    if seat in state.bots:
        return None
    end = deadline(control, state.clock, seat)
    return now_ms - end if end is not None and now_ms > end else None


def taking_back(state: Any, seat: int, by_bot: bool) -> list[Any]:
    """The event of a seat taking its seat back from a bot with a command of its own (none otherwise)."""
    return [SeatHandedOver(seat, "")] if not by_bot and seat in state.bots else []


def seat_clocks(
    control: TimeControl | None, state: Any, players: int, now_ms: int, presence: Sequence[int], over: bool
) -> tuple[SeatClock, ...]:
    """Every seat's clock as of ``now_ms`` (remaining time, deadline), who plays it, whether it is connected."""
    seated = state if isinstance(state, Seated) else None
    bots: dict[int, str] = seated.bots if seated is not None else {}
    mark = seated.clock if seated is not None else None
    clocks = []
    for seat in range(players):
        connected = seat < len(presence) and presence[seat] > 0
        if control is None:
            clocks.append(SeatClock(seat, bot=bots.get(seat, ""), connected=connected))
            continue
        end = None if over or seat in bots else deadline(control, mark, seat)
        clocks.append(
            SeatClock(
                seat,
                remaining(control, mark, seat, now_ms) if not over else remaining(control, mark, seat, 0),
                end is not None,
                end or 0,
                bots.get(seat, ""),
                connected,
            )
        )
    return tuple(clocks)
