"""Match clocks: a per-move time plus a time bank per seat, and what happens when they run out.

The engine has no clock; this module is the service's. For each match it keeps (given its
seat tokens and :class:`~cardgames.service.tournament.log.ClockOptions`) it follows the match as a
spectator and, for every seat the match waits for, times the decision from the moment the
seat is to act:

* a seat has ``move_ms`` per decision, then its bank (``bank_ms`` at the start of the match);
* a command that took longer than ``move_ms`` spends the difference from the bank, and the
  command's batch ends with a ``clock_charged`` event saying so (one insert: the log always
  knows each bank, so a restarted server resumes the banks from it);
* when ``move_ms`` and the bank are spent, the keeper writes a ``seat_timed_out`` batch with
  the match's consequence (``forfeit`` or ``auto_move``: the events of the seat's first legal
  command follow, engine/core/seat_events.py; it is listed as a page of one command, so in an
  engine worker on a costly position, and a seat whose first command cannot be found within the
  workers' deadline forfeits) and the seat's bank is empty from then on;
* a command that arrives after its deadline is refused (DEADLINE_PASSED) and the timeout
  applies: nothing is ever substituted silently;
* a seat counts as connected while it has a Decisions stream open (or is played in process);
  with ``reconnect_ms`` set, a seat with no connection times out (reason ``disconnected``)
  ``reconnect_ms`` after it went (or after the keeper started, if it never came), unless its
  clock runs out first. A seat that reconnects in time simply goes on.

After a restart the pending decision's time starts again from when the keeper resumes the
match; the banks are those of the log.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from contextlib import aclosing, suppress
from dataclasses import dataclass, field
from typing import Any

import msgspec

from cardgames.engine.core.events import AUTO_MOVE, DISCONNECTED, FORFEIT, TIMEOUT, ClockCharged
from cardgames.engine.core.protocol import RejectionCode, reject
from cardgames.engine.core.seat_events import timeout_events
from cardgames.service.games import Games, Rejected, ServiceError, WorkDeadline, WorkerFailed, WorkersBusy
from cardgames.service.tournament.log import ClockOptions

log = logging.getLogger(__name__)


class DeadlinePassed(Rejected):
    """A command that came after its seat's deadline: refused, and the timeout applies."""

    def __init__(self, seat: int, waited_ms: int) -> None:
        super().__init__(reject(
            RejectionCode.NOT_YOUR_TURN,
            f"seat {seat} answered after {waited_ms} ms, past its deadline: the clock's consequence applies",
            "clock",
        ))
        self.reason = "DEADLINE_PASSED"  # type: ignore[misc]


class ClockInfo(msgspec.Struct, frozen=True):
    """A seat's clock for the decision at hand (the bot protocol's ``Clock``)."""

    move_ms: int
    bank_ms: int
    deadline_unix_ms: int
    on_timeout: str
    per_move_ms: int
    initial_bank_ms: int


@dataclass
class _Seat:
    since: float | None = None  #: when the pending decision started (None: not to act)
    connections: int = 0
    gone_since: float = 0.0  #: when the seat last lost its connection (or the keeper started)


@dataclass(eq=False)
class _Match:
    game_id: str
    tokens: tuple[str, ...]
    options: ClockOptions
    banks: list[int]
    seats: list[_Seat]
    sequence: int = -1
    over: bool = False
    task: asyncio.Task[None] | None = None
    timer: asyncio.TimerHandle | None = None
    expiring: asyncio.Task[None] | None = None
    pending_tasks: set[asyncio.Task[None]] = field(default_factory=set)


class ClockKeeper:
    """The clocks of the matches of one process (see the module's docstring)."""

    def __init__(self, games: Games, *, now: Callable[[], float] = time.monotonic,
                 wall: Callable[[], float] = time.time) -> None:
        self.games = games
        self.now = now
        self.wall = wall
        self._matches: dict[str, _Match] = {}
        games.clock_hook = self.before_write

    # -- which matches ---------------------------------------------------------------------

    async def keep(self, game_id: str, tokens: Sequence[str], options: ClockOptions) -> None:
        """Keep the clock of a match (again after a restart: the banks come from its log)."""
        if game_id in self._matches and not self._matches[game_id].over:
            return
        live = await self.games.game(game_id)
        banks_now: dict[int, int] = getattr(live.state, "banks", {}) or {}
        players = len(tokens)
        now = self.now()
        match = _Match(
            game_id, tuple(tokens), options,
            [banks_now.get(seat, options.bank_ms) for seat in range(players)],
            [_Seat(gone_since=now) for _ in range(players)],
        )
        self._matches[game_id] = match
        items = await self.games.watch(game_id, None)
        match.task = asyncio.create_task(self._follow(match, items), name=f"clock-{game_id}")

    def keeps(self, game_id: str) -> bool:
        return game_id in self._matches

    async def close(self) -> None:
        for match in list(self._matches.values()):
            await self._stop(match)
        self._matches.clear()

    async def _stop(self, match: _Match) -> None:
        match.over = True
        if match.timer is not None:
            match.timer.cancel()
        tasks = [task for task in (match.task, match.expiring) if task is not None]
        current = asyncio.current_task()
        for task in tasks:
            if task is not current:
                task.cancel()
        for task in tasks:
            if task is not current:
                with suppress(asyncio.CancelledError):
                    await task

    # -- connections -----------------------------------------------------------------------

    def connected(self, game_id: str, seat: int) -> None:
        match = self._matches.get(game_id)
        if match is not None and 0 <= seat < len(match.seats):
            match.seats[seat].connections += 1
            self._arm(match)

    def disconnected(self, game_id: str, seat: int) -> None:
        match = self._matches.get(game_id)
        if match is not None and 0 <= seat < len(match.seats):
            state = match.seats[seat]
            state.connections = max(0, state.connections - 1)
            if state.connections == 0:
                state.gone_since = self.now()
                if not match.over:
                    log.info("game %s: seat %d disconnected", game_id, seat)
            self._arm(match)

    # -- the clock of a decision -----------------------------------------------------------

    def _deadline(self, match: _Match, seat: int) -> float:
        state = match.seats[seat]
        since = state.since if state.since is not None else self.now()
        deadline = since + (match.options.move_ms + match.banks[seat]) / 1000
        if match.options.reconnect_ms is not None and state.connections == 0:
            deadline = min(deadline, max(since, state.gone_since) + match.options.reconnect_ms / 1000)
        return deadline

    def clock_for(self, game_id: str, seat: int) -> ClockInfo | None:
        """The seat's clock now (None when the match has no clock here)."""
        match = self._matches.get(game_id)
        if match is None or not 0 <= seat < len(match.seats):
            return None
        now = self.now()
        since = match.seats[seat].since
        used = 0.0 if since is None else now - since
        move_left = max(0, match.options.move_ms - int(used * 1000))
        bank = match.banks[seat] - max(0, int(used * 1000) - match.options.move_ms)
        deadline = self._deadline(match, seat)
        return ClockInfo(
            move_ms=move_left,
            bank_ms=max(0, bank),
            deadline_unix_ms=int((self.wall() + deadline - now) * 1000),
            on_timeout=match.options.on_timeout,
            per_move_ms=match.options.move_ms,
            initial_bank_ms=match.options.bank_ms,
        )

    def before_write(self, live: Any, seat: int, events: list[Any]) -> list[Any]:
        """The application layer's hook before a seat's command is written (game lock held).

        Refuses a command past its deadline; charges the bank of a slow one (a
        ``clock_charged`` event at the end of the command's batch).
        """
        match = self._matches.get(str(live.game_id))
        if match is None or match.over or not 0 <= seat < len(match.seats):
            return events
        state = match.seats[seat]
        if state.since is None:
            return events
        now = self.now()
        used_ms = int((now - state.since) * 1000)
        if now > self._deadline(match, seat):
            log.info("game %s: seat %d answered after %d ms, past its deadline: refused", match.game_id, seat, used_ms)
            raise DeadlinePassed(seat, used_ms)
        state.since = None  # the seat answered; its next decision starts when it is to act again
        if used_ms <= match.options.move_ms:
            return events
        match.banks[seat] = max(0, match.banks[seat] - (used_ms - match.options.move_ms))
        return [*events, ClockCharged(seat=seat, used_ms=used_ms, bank_ms=match.banks[seat])]

    # -- following the match ---------------------------------------------------------------

    async def _follow(self, match: _Match, items: Any) -> None:
        try:
            async with aclosing(items):
                async for item in items:
                    self._saw(match, item.sequence, set(item.view.to_act))
                    if item.view.over:
                        break
        except ServiceError as error:
            log.warning("game %s: the clock stops following it (%s)", match.game_id, error)
        finally:
            match.over = True
            if match.timer is not None:
                match.timer.cancel()
            if self._matches.get(match.game_id) is match:
                del self._matches[match.game_id]

    def _saw(self, match: _Match, sequence: int, to_act: set[int]) -> None:
        now = self.now()
        match.sequence = sequence
        for seat, state in enumerate(match.seats):
            if seat in to_act:
                if state.since is None:
                    state.since = now
            elif state.since is not None:
                # it left without a command of its own through the hook (e.g. an automatic move)
                used_ms = int((now - state.since) * 1000)
                match.banks[seat] = max(0, match.banks[seat] - max(0, used_ms - match.options.move_ms))
                state.since = None
        self._arm(match)

    def _arm(self, match: _Match) -> None:
        if match.timer is not None:
            match.timer.cancel()
            match.timer = None
        if match.over:
            return
        pending = [seat for seat, state in enumerate(match.seats) if state.since is not None]
        if not pending:
            return
        delay = max(0.0, min(self._deadline(match, seat) for seat in pending) - self.now())
        loop = asyncio.get_running_loop()
        match.timer = loop.call_later(delay, self._expire_soon, match)

    def _expire_soon(self, match: _Match) -> None:
        match.timer = None
        if match.expiring is None or match.expiring.done():
            match.expiring = asyncio.create_task(self._expire(match))

    async def _expire(self, match: _Match) -> None:
        now = self.now()
        for seat, state in enumerate(match.seats):
            if match.over or state.since is None or self._deadline(match, seat) > now:
                continue
            reason = TIMEOUT if state.connections else DISCONNECTED
            waited_ms = int((now - state.since) * 1000)
            consequence = match.options.on_timeout
            first = None
            if consequence == AUTO_MOVE:
                current, first = await self._first_command(match, seat)
                if not current:
                    continue  # the match moved on meanwhile: its watcher arms the next deadline
                if first is None:
                    consequence = FORFEIT

            def decide(rules: Any, game_state: Any, seat: int = seat, reason: str = reason,
                       waited_ms: int = waited_ms, consequence: str = consequence, first: Any = first,
                       ) -> list[Any] | None:
                if seat not in rules.to_act(game_state):
                    return None
                return timeout_events(rules, game_state, seat, consequence, reason, waited_ms, first)

            try:
                written = await self.games.record(match.game_id, match.sequence, decide)
            except ServiceError as error:
                log.warning("game %s: seat %d's timeout not written (%s)", match.game_id, seat, error)
                written = None
            if written is not None:
                log.info("game %s: seat %d %s after %d ms: %s", match.game_id, seat,
                         "timed out" if reason == TIMEOUT else "was gone", waited_ms, consequence)
                match.banks[seat] = 0
                state.since = None
                return  # the watcher sees the new state and arms the next deadline
        self._arm(match)

    async def _first_command(self, match: _Match, seat: int) -> tuple[bool, Any]:
        """For the seat's automatic move: whether the match is still at the sequence its clock ran out
        at, and the seat's first legal command there (listed in a worker on a costly position), or
        None when it has none or it cannot be had within the workers' deadline (the seat forfeits)."""
        try:
            page = await self.games.legal_commands(match.game_id, match.tokens[seat], 0, 1)
        except (WorkDeadline, WorkersBusy, WorkerFailed) as error:
            log.warning("game %s: seat %d's first legal command not found in time (%s): it forfeits",
                        match.game_id, seat, error)
            return True, None
        except ServiceError:
            return False, None  # the match ended or moved on
        return page.sequence == match.sequence, page.commands[0] if page.commands else None
