"""The live games of a process: loaded from the store when first asked for, kept up to date, bounded.

A live game is cached with its folded state and sequence, so a command costs one ``decide`` and
one insert, not a replay; loading one is its latest snapshot and the events after it
(service/snapshots.py). At most ``max_live`` games are kept (the least recently used idle ones
are dropped), and of the finished ones only the ``max_finished`` latest. A game no call asked for
in ``idle_evict_seconds`` leaves memory too (:meth:`LiveGames.evict_idle`, every few seconds once
:meth:`LiveGames.start` ran); the next call loads it again. A dropped game whose events since its
latest snapshot are more than ``EVICTION_TAIL`` gets a snapshot first, so that loading it is cheap
(an idle one whose snapshot could not be written stays: the store is failing).

Only an idle game leaves (:attr:`LiveGame.busy` is false): nobody watches it, no call holds its lock,
and the table clocks do not follow it. A game with a time control or a seat a bot plays is followed
from its creation to its end (service/table_clocks.py arms its timer from the cached state and
finds it with ``peek``): it stays in memory while its match runs, so its deadlines fire on time.
Every call asks for its game first (:meth:`LiveGames.get` marks it used) and a write holds the
game's lock, so a game a call is working on is never idle.

:meth:`LiveGames.catch_up` folds in what the store holds past the cache: another process's writes
(a shared store), or a write whose outcome was unknown.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from contextlib import suppress
from dataclasses import dataclass
from functools import lru_cache
from itertools import islice
from typing import Any
from uuid import UUID

import msgspec

from cardgames.engine.core.echo import clip, echo
from cardgames.engine.core.events import TokenReissued
from cardgames.engine.core.protocol import GameRules
from cardgames.engine.core.registry import UnknownGame, get_game
from cardgames.engine.core.seat_events import with_seat_events
from cardgames.service import seat_store
from cardgames.service.audit.logfile import seat_values
from cardgames.service.clock_marks import wall_ms
from cardgames.service.errors import GameNotFoundError, InvalidRequest, NotNow, StoreUnavailable, UnknownGameError
from cardgames.service.games.executor import StoreExecutor
from cardgames.service.games.live import LiveGame
from cardgames.service.games.results import split_notes
from cardgames.service.snapshots import SnapshotStore
from cardgames.service.store import GameNotFound, Header

#: How many games a process keeps folded in memory (least recently used ones are dropped first).
MAX_LIVE = 20_000
#: How many finished games stay cached (for the GetLog/GetView calls that follow the end).
MAX_FINISHED = 256
#: Seconds after its last call that an idle game leaves memory (0: never; it loads again when asked for).
IDLE_EVICT_SECONDS = 300.0
#: A game leaving memory with more events than this since its latest snapshot gets a snapshot first.
EVICTION_TAIL = 16
#: The longest pause between two looks for idle games (a quarter of the idle time when that is less).
SWEEP_EVERY = 30.0
#: Snapshots of leaving games written at once.
SNAPSHOTS_AT_ONCE = 64
#: How often :meth:`LiveGames.cached` tries to copy the cache while another thread changes it.
COPY_ATTEMPTS = 20
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class CacheSizes:
    """The bounds of a process's live games (``cardgames serve --max-live-games`` etc.)."""

    #: Games kept folded in memory (the least recently used idle ones leave first).
    max_live: int = MAX_LIVE
    #: Finished games kept among them.
    max_finished: int = MAX_FINISHED
    #: Seconds without a call after which an idle game leaves memory (0: only ``max_live`` bounds them).
    idle_evict_seconds: float = IDLE_EVICT_SECONDS

    def problem(self) -> str | None:
        """What is wrong with these sizes, in one line (None: nothing)."""
        if self.max_live < 1:
            return f"--max-live-games must be 1 or more, not {self.max_live}"
        if self.max_finished < 0:
            return f"--max-finished-games must be 0 or more, not {self.max_finished}"
        if not 0 <= self.idle_evict_seconds < float("inf"):
            return f"--idle-evict-seconds must be 0 (never) or a number of seconds, not {self.idle_evict_seconds:g}"
        return None


class LiveGames:
    """The cache of live games (see the module's docstring)."""

    def __init__(
        self, executor: StoreExecutor, snapshots: SnapshotStore, *, shared: bool,
        max_live: int = MAX_LIVE, max_finished: int = MAX_FINISHED, idle_evict_seconds: float = IDLE_EVICT_SECONDS,
    ) -> None:
        """``shared``: other processes write to the store, so :meth:`fresh` always catches up first."""
        self.executor = executor
        self.store = executor.store
        self.snapshots = snapshots
        self.shared = shared
        self.max_live = max_live
        self.max_finished = max_finished
        self.idle_evict_seconds = idle_evict_seconds
        #: The clock of idle eviction (monotonic seconds; tests set a controllable one).
        self.clock: Callable[[], float] = time.monotonic
        #: Games evicted for being idle so far, and dropped beyond ``max_live`` (for operators and tests).
        self.evicted = 0
        self.dropped = 0
        self._sweeper: asyncio.Task[None] | None = None
        self._live: OrderedDict[UUID, LiveGame] = OrderedDict()
        #: The server's time in Unix ms (clock marks, deadlines, views; tests set a controllable one).
        self.now_ms: Callable[[], int] = wall_ms
        #: Called with a live game created, loaded or advanced here that has a time control or a seat a
        #: bot plays (service/table_clocks.py).
        self.on_clocked: Callable[[LiveGame], None] | None = None
        self._finished: OrderedDict[UUID, None] = OrderedDict()
        self._loading: dict[UUID, asyncio.Lock] = {}

    def __len__(self) -> int:
        return len(self._live)

    def __contains__(self, game_id: object) -> bool:
        return game_id in self._live

    def __getitem__(self, game_id: UUID | str) -> LiveGame:
        """The cached game (KeyError when it is not cached)."""
        live = self.peek(game_id)
        if live is None:
            raise KeyError(game_id)
        return live

    def peek(self, game_id: UUID | str) -> LiveGame | None:
        """The game if it is cached (nothing loaded, nothing caught up)."""
        return self._live.get(game_id if isinstance(game_id, UUID) else game_uuid(game_id))

    def cached(self) -> list[LiveGame]:
        """Every cached game (a copy: safe to go through while the event loop adds one).

        Called from other threads too (the metrics scrape): a garbage collection while the list is
        made can hand the interpreter to the loop's thread, which may change the cache meanwhile
        (``RuntimeError: OrderedDict mutated during iteration``); the copy is then made again."""
        for _ in range(COPY_ATTEMPTS - 1):
            try:
                return list(self._live.values())
            except RuntimeError:
                continue
        return list(self._live.values())

    def watched(self) -> list[LiveGame]:
        """The cached games someone watches (or the table clocks follow)."""
        return [live for live in self._live.values() if live.subscribers or live.followed]

    def new(self, game_id: UUID, rules: GameRules, header: Header, state: Any) -> LiveGame:
        """A live game at sequence 0, to be kept (:meth:`keep`) once it is in the store."""
        return LiveGame(game_id, rules, header, state, 0, on_over=self.retire, on_batch=self.clocked,
                        now_ms=self.now)

    def now(self) -> int:
        return self.now_ms()

    def clocked(self, live: LiveGame) -> None:
        """Tell the table clocks about a game with a time control or a seat a bot plays."""
        if self.on_clocked is not None and (live.control is not None or getattr(live.state, "bots", None)):
            self.on_clocked(live)

    def keep(self, live: LiveGame) -> None:
        """Cache a live game; drop the least recently used idle ones beyond ``max_live``."""
        self._live[live.game_id] = live
        self._live.move_to_end(live.game_id)
        live.touched = self.clock()
        excess = len(self._live) - self.max_live
        if excess <= 0:
            return
        dropped = list(islice((old for old in self._live.values() if not old.busy), excess))  # oldest first
        for old in dropped:
            del self._live[old.game_id]
            if self._tail_is_long(old):  # the state object never changes: it is saved after it left
                self.executor.spawn(self._snapshot(old, old.sequence, old.state))
        self.dropped += len(dropped)

    # -- idle eviction ---------------------------------------------------------------------

    def start(self) -> None:
        """Look for idle games every few seconds (on the running loop) until :meth:`close`."""
        if self.idle_evict_seconds > 0 and self._sweeper is None:
            self._sweeper = asyncio.get_running_loop().create_task(self._sweep(), name="live-games-eviction")

    async def close(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
            with suppress(asyncio.CancelledError):
                await self._sweeper
            self._sweeper = None

    async def _sweep(self) -> None:
        pause = max(0.05, min(self.idle_evict_seconds / 4, SWEEP_EVERY))
        while True:
            await asyncio.sleep(pause)
            try:
                await self.evict_idle()
            except Exception:  # never let one failed look stop the next ones
                log.exception("evicting idle games failed")

    def idle(self) -> list[LiveGame]:
        """The cached games no call asked for in ``idle_evict_seconds`` that may leave memory now."""
        if self.idle_evict_seconds <= 0:
            return []
        cutoff = self.clock() - self.idle_evict_seconds
        found = []
        for live in self._live.values():  # least recently used first: stop at the first recent one
            if live.touched > cutoff:
                break
            if not live.busy:
                found.append(live)
        return found

    async def evict_idle(self) -> int:
        """Drop the idle games (:meth:`idle`), each after a snapshot when its tail is long; how many left."""
        candidates = self.idle()
        await self._snapshots_of([live for live in candidates if self._tail_is_long(live)])
        evicted = 0
        cutoff = self.clock() - self.idle_evict_seconds
        for live in candidates:  # again: a call may have come while the snapshots were written
            if self._live.get(live.game_id) is live and not live.busy and live.touched <= cutoff \
                    and not self._tail_is_long(live):
                del self._live[live.game_id]
                evicted += 1
        self.evicted += evicted
        if evicted:
            log.debug("evicted %d idle games (%d live)", evicted, len(self._live))
        return evicted

    async def _snapshots_of(self, games: Sequence[LiveGame]) -> None:
        for start in range(0, len(games), SNAPSHOTS_AT_ONCE):
            await asyncio.gather(*(self._snapshot(live, live.sequence, live.state)
                                   for live in games[start:start + SNAPSHOTS_AT_ONCE]))

    def _tail_is_long(self, live: LiveGame) -> bool:
        return bool(self.snapshots.every) and live.started and live.sequence - live.snapshot_sequence > EVICTION_TAIL

    def retire(self, live: LiveGame) -> None:
        """A game just ended: keep only the ``max_finished`` latest finished games cached."""
        self._finished[live.game_id] = None
        while len(self._finished) > self.max_finished:
            old, _ = self._finished.popitem(last=False)
            cached = self._live.get(old)
            if cached is not None and not cached.busy:
                del self._live[old]

    async def get(self, game_id: str) -> LiveGame:
        """The game, from the cache or loaded from the store (GameNotFoundError, InvalidRequest)."""
        key = game_uuid(game_id)
        live = self._live.get(key)
        if live is not None:
            self._live.move_to_end(key)
            live.touched = self.clock()
            return live
        lock = self._loading.setdefault(key, asyncio.Lock())
        async with lock:
            live = self._live.get(key)
            if live is None:
                try:
                    header = await self.executor.read(self.store.header, key)
                except GameNotFound as error:
                    raise GameNotFoundError(str(error), game_id=game_id) from error
                live = self.new(key, with_seat_events(get_game(header.game)), header, None)
                await self.executor.read(self._load, live)
                self.keep(live)
                self.clocked(live)
        self._loading.pop(key, None)
        return live

    async def fresh(self, game_id: str, *, started: bool = True) -> LiveGame:
        """The game, caught up with what other processes (or a write of unknown outcome) added.

        ``started``: refuse (MATCH_NOT_STARTED) a seat-entropy game still waiting for its seats.
        """
        live = await self.get(game_id)
        if self.shared or live.suspect or not live.started:
            async with live.lock:
                await self.catch_up(live)
        if started and not live.started:
            raise NotNow("the match starts once every seat has committed to and revealed its entropy",
                         reason="MATCH_NOT_STARTED")
        return live

    async def catch_up(self, live: LiveGame) -> None:
        """Fold in (and publish) the events another writer added after the cached sequence (lock held)."""
        if not live.started:  # seats may have committed or revealed through another process
            await self.executor.read(self._load, live)
            live.suspect = False
            return
        events, notes = split_notes(await self.executor.read(self.store.log, live.game_id, live.rules, live.sequence))
        live.suspect = False
        if any(type(event) is TokenReissued for event in events):  # another process reissued a token
            await self.executor.read(self.load_tokens, live)
        live.advance(events, notes)

    async def state_at(self, live: LiveGame, sequence: int) -> tuple[Any, bytes]:
        """The game's state at an earlier ``sequence`` and the chain's head there."""
        state, _ = await self.executor.read(self._state_at, live.game_id, live.rules, live.header, sequence)
        _, head = await self.executor.read(self.store.head, live.game_id, sequence)
        return state, bytes.fromhex(head)

    def save_snapshot(self, live: LiveGame, first: int) -> None:
        """After a batch from ``first`` to the game's sequence: save a snapshot in the background if one is due."""
        if self.snapshots.due(first - 1, live.sequence):
            self.executor.spawn(self._snapshot(live, live.sequence, live.state))

    async def _snapshot(self, live: LiveGame, sequence: int, state: Any) -> None:
        """Write the game's state at ``sequence`` (one there already is as good)."""
        try:
            await self.executor.write(self.snapshots.save, live.game_id, live.header.game, sequence, state)
        except StoreUnavailable as error:  # only loading gets slower
            log.warning("snapshot of %s at %d not written: %s", live.game_id, sequence, error)
            return
        live.snapshot_sequence = max(live.snapshot_sequence, sequence)

    def _load(self, live: LiveGame) -> None:
        """Fill a live game from the store: entropy records, state, sequence and head (blocking)."""
        key, header = live.game_id, live.header
        if header.seat_entropy:
            records = self.store.entropy(key)
            live.commitments = seat_values(header.players, records, "commit")
            live.entropies = seat_values(header.players, records, "reveal")
            if not live.started:
                return
        live.state, live.sequence, live.snapshot_sequence = self._folded(key, live.rules, header, None)
        head = self.store.head(key, live.sequence)[1]
        live.head = bytes.fromhex(head) if head else b""
        if getattr(live.state, "reissued", None):
            self.load_tokens(live)

    def load_tokens(self, live: LiveGame) -> None:
        """The seats' current token hashes: the header's, each replaced by its latest reissue (blocking)."""
        hashes = list(live.header.token_hashes)
        for record in seat_store.tokens(self.store, live.game_id):
            hashes[record.seat] = record.token_hash
        live.token_hashes = hashes
        live.seats_by_digest.clear()

    def _state_at(self, key: UUID, rules: GameRules, header: Header, upto: int | None) -> tuple[Any, int]:
        """The state at ``upto`` (None: the end) from the latest snapshot and the events after it (blocking)."""
        state, sequence, _ = self._folded(key, rules, header, upto)
        return state, sequence

    def _folded(self, key: UUID, rules: GameRules, header: Header, upto: int | None) -> tuple[Any, int, int]:
        """As :meth:`_state_at`, with the sequence of the snapshot it started from (0: none)."""
        config = msgspec.convert(header.config, rules.Config)
        return self.snapshots.folded(
            key, rules, config, lambda after, end: self.store.events(key, rules, after, end), upto
        )


def rules_for(game: str) -> GameRules:
    """The rules of a registered game, with the service's seat events (UnknownGameError)."""
    try:
        return with_seat_events(get_game(game))
    except (UnknownGame, ModuleNotFoundError) as error:
        raise UnknownGameError(f"unknown game {echo(game)}", game=clip(game, 64)) from error


@lru_cache(maxsize=4096)
def _parse_uuid(text: str) -> UUID:
    return UUID(text)


def game_uuid(game_id: str) -> UUID:
    """A game id as a UUID (InvalidRequest ``INVALID_GAME_ID`` when it is not one)."""
    try:
        return _parse_uuid(game_id)  # every call of a game names it: parse each id once
    except (ValueError, TypeError, AttributeError) as error:
        raise InvalidRequest(f"not a game id: {echo(game_id)}", reason="INVALID_GAME_ID") from error
