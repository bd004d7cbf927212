"""The timer of games with a time control, and the built-in bots that play handed-over seats.

One :class:`TableClocks` per process. It follows every game with a time control (or with a seat a
bot plays) that this process knows: the ones created or loaded here (``Games.on_clocked``) and,
by a scan of the store's notification log for their marker record (``EventStore.clocked_games``),
every other one: at start (after a restart, nothing is lost) and every ``scan_every`` seconds
(games another replica created). For each it keeps one timer, armed for the earliest deadline of
the seats the game waits for, rebuilt from the game's latest clock mark (engine/core/time_control.py):
no deadline lives only in memory.

When a deadline passes, the timer writes the timeout batch (``seat_timed_out`` and its
consequence, then the batch's clock mark) with ``Games.record`` at the sequence it saw: the
store's unique (game, sequence) key lets exactly one writer win, so two replicas racing, or a
process that restarts while another already wrote, produce one timeout. A command that comes
after its deadline is refused (DEADLINE_PASSED) and the timeout applies.

A seat a bot plays (``bot_plays`` after a timeout, or HandOver) is played here: whenever it is to
act, its bot (random, heuristic or search: engine/bots) decides from the seat's view, in a worker
process for a search or a costly position (``Games.choose``), and its command is written as the
seat's, with no time charged. Each decision's randomness comes from the match's seed, the seat and
the sequence. Two replicas may both decide; the store keeps one command.
"""

from __future__ import annotations

import asyncio
import logging
import time
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any

import msgspec

from cardgames.engine.core.events import DISCONNECTED, TIMEOUT
from cardgames.engine.core.protocol import GameRules
from cardgames.engine.core.seat_events import timeout_events
from cardgames.engine.core.time_control import TimeControl, deadline
from cardgames.service import seat_store
from cardgames.service.games import Games, LiveGame, ServiceError, StoreUnavailable
from cardgames.service.tournament.players import decision_rng, policy_for

log = logging.getLogger(__name__)

#: Seconds between scans of the store for clocked games created by other processes.
SCAN_EVERY = 1.0
#: The search bot's budget (iterations per decision) when it plays a handed-over seat.
SEARCH_ITERATIONS = 200
#: Seconds before retrying a timeout the store did not take (it was down).
RETRY_DELAY = 0.5
#: Bots' policies kept (by game, strength and configuration; the oldest made goes first).
POLICIES_KEPT = 64
#: The engine/bots kind of each strength.
KINDS = {"random": "random", "heuristic": "heuristic", "search": f"ismcts:{SEARCH_ITERATIONS}"}


@dataclass(eq=False)
class _Table:
    game_id: str
    timer: asyncio.TimerHandle | None = None
    expiring: asyncio.Task[None] | None = None
    bot: asyncio.Task[None] | None = None
    over: bool = False
    #: The timeouts this process wrote (for tests and the bench).
    written: list[int] = field(default_factory=list)


class TableClocks:
    """The clocks and bots of one process's games (see the module's docstring)."""

    def __init__(self, games: Games, *, scan_every: float = SCAN_EVERY) -> None:
        self.games = games
        self.scan_every = scan_every
        self._tables: dict[str, _Table] = {}
        self._cursor = 0
        self._scanner: asyncio.Task[None] | None = None
        self._policies: dict[tuple[str, str, str], Any] = {}
        #: Each timeout written here: (game id, seat, its deadline, when it was decided: its batch's clock mark
        #: holds that time to the millisecond), in Unix ms.
        self.timeouts: list[tuple[str, int, int, float]] = []
        games.on_clocked = self.touch

    # -- which games -----------------------------------------------------------------

    async def start(self) -> None:
        """Follow every clocked game of the store, then keep scanning for new ones."""
        await self.scan()
        if self.scan_every > 0:
            self._scanner = asyncio.create_task(self._scan_forever(), name="table-clocks-scan")

    async def scan(self) -> int:
        """Follow the clocked games written since the last scan; returns how many were new here."""
        new = 0
        while True:
            ids, cursor = await self.games.read(seat_store.clocked_games, self.games.store, self._cursor)
            self._cursor = cursor
            for game_id in ids:
                if str(game_id) not in self._tables:
                    new += 1
                    with suppress(ServiceError):
                        await self.games.game(str(game_id))  # loading it calls touch
            if len(ids) < 1000:
                return new

    async def _scan_forever(self) -> None:
        while True:
            await asyncio.sleep(self.scan_every)
            try:
                await self.scan()
            except ServiceError as error:
                log.warning("scan for clocked games failed: %s", error)

    async def close(self) -> None:
        if self._scanner is not None:
            self._scanner.cancel()
            with suppress(asyncio.CancelledError):
                await self._scanner
        tables = list(self._tables.values())
        self._tables.clear()
        for table in tables:
            await self._stop(table)

    async def _stop(self, table: _Table) -> None:
        table.over = True
        if table.timer is not None:
            table.timer.cancel()
        current = asyncio.current_task()
        live = self.games.cached(table.game_id)
        if live is not None:
            live.followed = False
        tasks = [task for task in (table.expiring, table.bot) if task is not None and task is not current]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with suppress(asyncio.CancelledError, Exception):
                await task

    def touch(self, live: LiveGame) -> None:
        """A clocked game was created, loaded or written here: follow it, arm its timer again."""
        game_id = str(live.game_id)
        table = self._tables.get(game_id)
        if table is None:
            if live.rules.is_over(live.state):
                return
            table = self._tables[game_id] = _Table(game_id)
            live.followed = True  # other processes' writes reach this one: touch is called again
        self._arm(table)

    def following(self, game_id: str) -> bool:
        return game_id in self._tables

    # -- the timer -------------------------------------------------------------------

    def _live(self, table: _Table) -> Any:
        live = self.games.cached(table.game_id)
        return live if live is not None and live.state is not None else None

    def _arm(self, table: _Table) -> None:
        """Arm the game's timer for its earliest deadline; start its bot's move when a bot is to act."""
        if table.timer is not None:
            table.timer.cancel()
            table.timer = None
        live = self._live(table)
        if table.over or live is None:
            return
        rules, state = live.rules, live.state
        if rules.is_over(state):  # the match ended: nothing more to time or to play
            table.over = True
            live.followed = False
            if self._tables.get(table.game_id) is table:
                del self._tables[table.game_id]
            return
        to_act = rules.to_act(state)
        bots = state.bots
        for seat in to_act:
            if seat in bots and (table.bot is None or table.bot.done()):
                table.bot = asyncio.get_running_loop().create_task(
                    self._bot_move(table, seat, live.sequence, bots[seat]), name=f"bot-{table.game_id}-{seat}"
                )
                break
        control = live.control
        if control is None:
            return
        ends = [end for seat in to_act if seat not in bots and (end := deadline(control, state.clock, seat))]
        if not ends:
            return
        delay = max(0.0, (min(ends) - self.games.now_ms()) / 1000)
        table.timer = asyncio.get_running_loop().call_later(delay, self._due, table)

    def _due(self, table: _Table) -> None:
        table.timer = None
        if table.expiring is None or table.expiring.done():
            table.expiring = asyncio.get_running_loop().create_task(self._expire_now(table.game_id))

    async def _expire_now(self, game_id: str) -> None:
        await self.expire(game_id)

    async def expire_due(self) -> int:
        """Write the timeouts due now in every game followed (tests with a controllable time call it)."""
        written = 0
        for game_id in list(self._tables):
            written += bool(await self.expire(game_id))
        return written

    async def expire(self, game_id: str) -> int | None:
        """Write the timeout of the first seat whose deadline has passed (None: none had, or another
        writer came first); the game's timer is armed again either way."""
        table = self._tables.get(game_id)
        live = self._live(table) if table is not None else None
        if table is None or live is None or live.control is None:
            return None
        control: TimeControl = live.control
        now = self.games.now_ms()
        presence = list(live.presence)
        timed: list[tuple[int, int]] = []
        decided: list[float] = []

        def decide(rules: GameRules, state: Any) -> list[Any] | None:
            if rules.is_over(state):
                return None
            for seat in rules.to_act(state):
                end = None if seat in state.bots else deadline(control, state.clock, seat)
                if end is not None and end <= now:
                    decided.append(time.time_ns() / 1e6)
                    reason = TIMEOUT if seat < len(presence) and presence[seat] else DISCONNECTED
                    timed.append((seat, end))
                    return timeout_events(
                        rules, state, seat, control.on_timeout, reason, now - state.clock.since[seat], bot=control.bot
                    )
            return None

        try:
            written = await self.games.record(game_id, live.sequence, decide)
        except StoreUnavailable as error:
            log.warning("game %s: a timeout not written (%s): trying again", game_id, error)
            await asyncio.sleep(RETRY_DELAY)
            written = None
        except ServiceError as error:
            log.warning("game %s: a timeout not written (%s)", game_id, error)
            written = None
        if written is not None and timed:
            seat, end = timed[-1]
            table.written.append(written)
            self.timeouts.append((game_id, seat, end, decided[-1]))
            log.info("game %s: seat %d ran out of time: %s", game_id, seat, control.on_timeout)
        self._arm(table)
        return written

    # -- the bots --------------------------------------------------------------------

    def _policy(self, game: str, strength: str, config: Any) -> Any:
        key = (game, strength, msgspec.json.encode(config).decode())
        policy = self._policies.get(key)
        if policy is None:
            if len(self._policies) >= POLICIES_KEPT:
                del self._policies[next(iter(self._policies))]
            policy = self._policies[key] = policy_for(game, KINDS.get(strength, "heuristic"), config)
        return policy

    async def _bot_move(self, table: _Table, seat: int, sequence: int, strength: str) -> None:
        """The bot's command for ``seat`` at ``sequence`` (nothing when the game moved on meanwhile)."""
        try:
            live = await self.games.game(table.game_id)
            if live.sequence != sequence:
                return
            config = msgspec.convert(live.header.config, live.rules.Config)
            policy = self._policy(live.header.game, strength, config)
            view = live.rules.view(live.state, seat)
            rng = decision_rng(live.header.seed or "", seat, sequence)
            command = await self.games.choose(
                table.game_id,
                None,
                sequence,
                policy,
                view,
                rng,
                searches=strength == "search",
                fallback=self._policy(live.header.game, "random", config),
                seat=seat,
            )
            if command is not None:
                await self.games.submit_for_bot(table.game_id, seat, msgspec.to_builtins(command), sequence)
        except ServiceError as error:  # the game moved on (another process's bot, the seat came back), or ended
            log.debug("game %s: seat %d's bot did not play at %d (%s)", table.game_id, seat, sequence, error)
        finally:
            if asyncio.current_task() is table.bot:
                table.bot = None
            self._arm(table)
