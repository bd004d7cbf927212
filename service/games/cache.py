"""The live games of a process: loaded from the store when first asked for, kept up to date, bounded.

A live game is cached with its folded state and sequence, so a command costs one ``decide`` and
one insert, not a replay; loading one is its latest snapshot and the events after it
(service/snapshots.py). At most ``max_live`` games are kept (the least recently used idle ones
are dropped), and of the finished ones only the ``max_finished`` latest. :meth:`LiveGames.catch_up`
folds in what the store holds past the cache: another process's writes (a shared store), or a
write whose outcome was unknown.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from functools import lru_cache
from typing import Any
from uuid import UUID

import msgspec

from cardgames.engine.core.echo import clip, echo
from cardgames.engine.core.protocol import GameRules
from cardgames.engine.core.registry import UnknownGame, get_game
from cardgames.engine.core.seat_events import with_seat_events
from cardgames.service.audit.logfile import seat_values
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
log = logging.getLogger(__name__)


class LiveGames:
    """The cache of live games (see the module's docstring)."""

    def __init__(
        self, executor: StoreExecutor, snapshots: SnapshotStore, *, shared: bool,
        max_live: int = MAX_LIVE, max_finished: int = MAX_FINISHED,
    ) -> None:
        """``shared``: other processes write to the store, so :meth:`fresh` always catches up first."""
        self.executor = executor
        self.store = executor.store
        self.snapshots = snapshots
        self.shared = shared
        self.max_live = max_live
        self.max_finished = max_finished
        self._live: OrderedDict[UUID, LiveGame] = OrderedDict()
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
        """Every cached game (a copy: safe to go through while the event loop adds one)."""
        return list(self._live.values())

    def watched(self) -> list[LiveGame]:
        """The cached games someone watches."""
        return [live for live in self._live.values() if live.subscribers]

    def new(self, game_id: UUID, rules: GameRules, header: Header, state: Any) -> LiveGame:
        """A live game at sequence 0, to be kept (:meth:`keep`) once it is in the store."""
        return LiveGame(game_id, rules, header, state, 0, on_over=self.retire)

    def keep(self, live: LiveGame) -> None:
        """Cache a live game; drop the least recently used idle ones beyond ``max_live``."""
        self._live[live.game_id] = live
        excess = len(self._live) - self.max_live
        if excess <= 0:
            return
        for key in [key for key, old in self._live.items() if not old.busy][:excess]:
            del self._live[key]

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
        live.advance(events, notes)

    async def state_at(self, live: LiveGame, sequence: int) -> tuple[Any, bytes]:
        """The game's state at an earlier ``sequence`` and the chain's head there."""
        state, _ = await self.executor.read(self._state_at, live.game_id, live.rules, live.header, sequence)
        _, head = await self.executor.read(self.store.head, live.game_id, sequence)
        return state, bytes.fromhex(head)

    def save_snapshot(self, live: LiveGame, first: int) -> None:
        """After a batch from ``first`` to the game's sequence: save a snapshot in the background if one is due."""
        if self.snapshots.due(first - 1, live.sequence):
            self.executor.spawn(self._snapshot(live.game_id, live.header.game, live.sequence, live.state))

    async def _snapshot(self, game_id: UUID, game: str, sequence: int, state: Any) -> None:
        try:
            await self.executor.write(self.snapshots.save, game_id, game, sequence, state)
        except StoreUnavailable as error:  # only loading gets slower
            log.warning("snapshot of %s at %d not written: %s", game_id, sequence, error)

    def _load(self, live: LiveGame) -> None:
        """Fill a live game from the store: entropy records, state, sequence and head (blocking)."""
        key, header = live.game_id, live.header
        if header.seat_entropy:
            records = self.store.entropy(key)
            live.commitments = seat_values(header.players, records, "commit")
            live.entropies = seat_values(header.players, records, "reveal")
            if not live.started:
                return
        live.state, live.sequence = self._state_at(key, live.rules, header, None)
        head = self.store.head(key, live.sequence)[1]
        live.head = bytes.fromhex(head) if head else b""

    def _state_at(self, key: UUID, rules: GameRules, header: Header, upto: int | None) -> tuple[Any, int]:
        """The state at ``upto`` (None: the end) from the latest snapshot and the events after it (blocking)."""
        config = msgspec.convert(header.config, rules.Config)
        return self.snapshots.state_at(
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
