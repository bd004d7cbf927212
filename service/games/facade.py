"""The games of one service process: the parts of service/games/ composed, and their calls in one place.

:class:`Games` holds no logic of its own: each call goes to the part whose job it is (the table
in docs/architecture.md). The parts are public attributes, for the code that needs one of them
(service/clocks.py hooks into :attr:`Games.commands`, a tournament sets :attr:`Games.releases`).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping, Sequence
from typing import Any, TypeVar

from cardgames.engine.core.protocol import GameRules, Malformed
from cardgames.service.feed import Feed
from cardgames.service.games.cache import IDLE_EVICT_SECONDS, MAX_FINISHED, MAX_LIVE, LiveGames
from cardgames.service.games.commands import ClockHook, Commands
from cardgames.service.games.create import Creation
from cardgames.service.games.disclosure import Disclosure
from cardgames.service.games.entropy import SeatEntropy
from cardgames.service.games.executor import STORE_TIMEOUT, StoreExecutor
from cardgames.service.games.live import LiveGame
from cardgames.service.games.paging import Paging
from cardgames.service.games.reading import Reading
from cardgames.service.games.results import (
    Accepted,
    Created,
    EntropyStatus,
    LegalCommands,
    LegalListing,
    LogResult,
    ViewResult,
    WatchItem,
)
from cardgames.service.games.watch import Watches
from cardgames.service.seat_store import TokenRecord
from cardgames.service.snapshots import SnapshotStore, every_from_env
from cardgames.service.store import EventStore
from cardgames.service.workers import Workers

T = TypeVar("T")


class Games:
    """The games of one service process, on one event store."""

    def __init__(
        self,
        store: EventStore,
        *,
        workers: int = 4,
        shared: bool | None = None,
        snapshot_every: int | None = None,
        max_live: int = MAX_LIVE,
        max_finished: int = MAX_FINISHED,
        idle_evict_seconds: float = IDLE_EVICT_SECONDS,
        store_timeout: float = STORE_TIMEOUT,
        pool: Workers | None = None,
    ) -> None:
        """``shared``: other processes write to the same store (default: when it is PostgreSQL); then
        every call first reads what they wrote, and :meth:`open` subscribes to the store's feed.
        ``snapshot_every``: K for snapshots (default ``CARDGAMES_SNAPSHOT_EVERY``, else 100; 0: none).
        ``pool``: the worker processes for expensive engine work (default: a pool of the default size
        and deadline, whose processes start when first needed). ``max_live``, ``max_finished``,
        ``idle_evict_seconds``: the live games' bounds (service/games/cache.py).
        """
        self.store = store
        self.shared = store_is_shared(store) if shared is None else shared
        self.pool = pool if pool is not None else Workers()
        self.executor = StoreExecutor(store, workers=workers, timeout=store_timeout)
        self.snapshots = SnapshotStore(store.factory, every_from_env() if snapshot_every is None else snapshot_every)
        self.cache = LiveGames(self.executor, self.snapshots, shared=self.shared, max_live=max_live,
                               max_finished=max_finished, idle_evict_seconds=idle_evict_seconds)
        self.disclosure = Disclosure()
        self.creation = Creation(self.cache, self.executor)
        self.entropy = SeatEntropy(self.cache, self.executor)
        self.commands = Commands(self.cache, self.executor, self.disclosure)
        self.reading = Reading(self.cache, self.executor, self.disclosure)
        self.watches = Watches(self.cache, self.executor, self.disclosure)
        self.paging = Paging(self.cache, self.pool)

    # -- hooks of other parts of the service ----------------------------------------------

    @property
    def clock_hook(self) -> ClockHook | None:
        """The clocks' hook before a seat's command is written (:class:`Commands`)."""
        return self.commands.clock_hook

    @clock_hook.setter
    def clock_hook(self, hook: ClockHook | None) -> None:
        self.commands.clock_hook = hook

    @property
    def releases(self) -> Callable[[str, str], Awaitable[bool]] | None:
        """Whether a held finished game may show everything (:class:`Disclosure`)."""
        return self.disclosure.releases

    @releases.setter
    def releases(self, releases: Callable[[str, str], Awaitable[bool]] | None) -> None:
        self.disclosure.releases = releases

    @property
    def now_ms(self) -> Callable[[], int]:
        """The server's time in Unix ms: clock marks, deadlines, views (tests set a controllable one)."""
        return self.cache.now_ms

    @now_ms.setter
    def now_ms(self, now_ms: Callable[[], int]) -> None:
        self.cache.now_ms = now_ms

    @property
    def on_clocked(self) -> Callable[[LiveGame], None] | None:
        """Called with a game that has a time control or a seat a bot plays, when it is created, loaded or
        advanced here (service/table_clocks.py)."""
        return self.cache.on_clocked

    @on_clocked.setter
    def on_clocked(self, hook: Callable[[LiveGame], None] | None) -> None:
        self.cache.on_clocked = hook

    async def follow(self, game_id: str, following: bool = True) -> None:
        """Keep a game cached and caught up with other processes' writes with no watcher (the table clocks:
        ``on_clocked`` is called after each batch), or stop."""
        live = await self.cache.get(game_id)
        live.followed = following

    def cached(self, game_id: str) -> LiveGame | None:
        """The game if this process holds it now (nothing loaded, nothing caught up)."""
        return self.cache.peek(game_id)

    async def fresh(self, game_id: str) -> LiveGame:
        """The game, caught up with other processes' writes (MATCH_NOT_STARTED before a seat-entropy start)."""
        return await self.cache.fresh(game_id)

    async def read(self, function: Callable[..., T], *args: Any) -> T:
        """A store call that only reads, off the event loop (service/games/executor.py)."""
        return await self.executor.read(function, *args)

    async def write(self, function: Callable[..., T], *args: Any) -> T:
        """A store call that writes, off the event loop (service/games/executor.py)."""
        return await self.executor.write(function, *args)

    @property
    def feed(self) -> Feed | None:
        """The subscription to a shared store's feed, once :meth:`open` started it."""
        return self.watches.feed

    # -- life cycle ------------------------------------------------------------------------

    async def open(self) -> None:
        """Start the eviction of idle games, and the cross-process feed when the store is shared (one
        subscription per process)."""
        self.cache.start()
        if self.shared:
            await self.watches.open()

    async def close(self) -> None:
        """Stop the feed, the background jobs, the workers and the store's threads; close the store."""
        await self.cache.close()
        await self.watches.close()
        await self.executor.drain()
        await self.pool.close()
        await self.executor.close()
        self.store.close()

    async def game(self, game_id: str) -> LiveGame:
        """The live game as this process holds it (its rules, state, sequence, header), loaded if need be."""
        return await self.cache.get(game_id)

    # -- the calls of the API, each to its part --------------------------------------------

    async def create(
        self, game: str, options: Mapping[str, Any] | None = None, players: int | None = None, *,
        seed: str | None = None, decks: Sequence[Sequence[str]] = (), dealer: int | None = None,
        seat_entropy: bool = False, tokens: Sequence[str] | None = None, held_by: str = "",
        time_control: Mapping[str, Any] | None = None,
    ) -> Created:
        """A new match (:meth:`Creation.create`)."""
        return await self.creation.create(game, options, players, seed=seed, decks=decks, dealer=dealer,
                                          seat_entropy=seat_entropy, tokens=tokens, held_by=held_by,
                                          time_control=time_control)

    async def commit_entropy(self, game_id: str, token: str | None, commitment: str) -> EntropyStatus:
        """A seat's entropy commitment (:class:`SeatEntropy`)."""
        return await self.entropy.commit_entropy(game_id, token, commitment)

    async def reveal_entropy(self, game_id: str, token: str | None, entropy: str) -> EntropyStatus:
        """A seat's entropy; the last reveal starts the match (:class:`SeatEntropy`)."""
        return await self.entropy.reveal_entropy(game_id, token, entropy)

    async def submit(self, game_id: str, token: str | None, command: Mapping[str, Any] | Malformed,
                     expected_sequence: int | None = None, *, for_game: str | None = None) -> Accepted:
        """One command for the token's seat (:meth:`Commands.submit`)."""
        return await self.commands.submit(game_id, token, command, expected_sequence, for_game=for_game)

    async def submit_for_bot(self, game_id: str, seat: int, command: Mapping[str, Any],
                             expected_sequence: int) -> Accepted:
        """A built-in bot's command for a seat it plays (:meth:`Commands.submit_for_bot`)."""
        return await self.commands.submit_for_bot(game_id, seat, command, expected_sequence)

    async def record(self, game_id: str, expected_sequence: int | None,
                     decide: Callable[[GameRules, Any], Sequence[Any] | None], *,
                     token: TokenRecord | None = None) -> int | None:
        """A batch the service decided itself (:meth:`Commands.record`)."""
        return await self.commands.record(game_id, expected_sequence, decide, token=token)

    async def view(self, game_id: str, token: str | None, sequence: int | None = None) -> ViewResult:
        """The caller's view (:meth:`Reading.view`)."""
        return await self.reading.view(game_id, token, sequence)

    async def log(self, game_id: str, token: str | None, after: int = 0, limit: int = 0) -> LogResult:
        """The log as the caller may see it (:meth:`Reading.log`)."""
        return await self.reading.log(game_id, token, after, limit)

    async def watch(self, game_id: str, token: str | None, after: int | None = None, *,
                    presence: bool = False) -> AsyncGenerator[WatchItem, None]:
        """The caller's stream of :class:`WatchItem` (:meth:`Watches.watch`)."""
        return await self.watches.watch(game_id, token, after, presence=presence)

    async def legal_listing(self, game_id: str, token: str | None) -> LegalListing:
        """All of the seat's legal commands, listed lazily here (:meth:`Paging.legal_listing`)."""
        return await self.paging.legal_listing(game_id, token)

    async def legal_commands(self, game_id: str, token: str | None, offset: int = 0, page_size: int = 0, *,
                             wire: int = 0) -> LegalCommands:
        """A page of the seat's legal commands (:meth:`Paging.legal_commands`)."""
        return await self.paging.legal_commands(game_id, token, offset, page_size, wire=wire)

    async def choose(
        self, game_id: str, token: str | None, sequence: int, policy: Any, view: Any, rng: Any, *,
        searches: bool = False, in_thread: bool = False, fallback: Any = None, seat: int | None = None,
    ) -> Any:
        """A built-in bot's decision (:meth:`Paging.choose`)."""
        return await self.paging.choose(game_id, token, sequence, policy, view, rng, searches=searches,
                                        in_thread=in_thread, fallback=fallback, seat=seat)


def store_is_shared(store: EventStore) -> bool:
    """Whether other processes may write to this store: a PostgreSQL database."""
    return str(store.env.get("PERSISTENCE_MODULE", "")).endswith("postgres")
