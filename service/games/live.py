"""A live game: one game's folded state in memory, its chain head, its lock and its watchers.

:class:`LiveGame` is what every other part works on. A batch written to the store enters it
through ONE method, :meth:`LiveGame.advance` (a seat's command, a batch the service decided,
what another process wrote, the first shuffle of a seat-entropy game): the state after it, the
sequence, the chain's head, then every watcher's queue, then ``on_over`` when the match ended.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any
from uuid import UUID

from cardgames.engine.core import chain
from cardgames.engine.core.protocol import GameRules, Viewer
from cardgames.engine.core.replay import fold
from cardgames.engine.core.time_control import TimeControl
from cardgames.service.audit.logfile import log_header, with_genesis
from cardgames.service.clock_marks import control_of, seat_clocks, wall_ms
from cardgames.service.games.results import ViewResult
from cardgames.service.store import Header, Note

#: How many undelivered batches a watcher may fall behind before it re-reads the store.
WATCH_QUEUE = 256

#: What a watcher's queue holds per batch: (first sequence, last sequence, events, state after, notes).
Published = tuple[int, int, Sequence[Any], Any, Sequence[Note]]


@dataclass(frozen=True)
class PresenceChange:
    """A seat came (its first Watch stream opened) or went (its last closed): a watch queue's item beside
    the batches, for watchers that asked for it (not part of the log)."""

    seat: int
    connected: bool


@dataclass(eq=False)
class Subscriber:
    """One watcher's queue of batches; ``lagged`` once it overflowed (the watcher re-reads the store);
    ``presence``: it also hears when seats come and go."""

    queue: asyncio.Queue[Published | PresenceChange] = field(default_factory=lambda: asyncio.Queue(WATCH_QUEUE))
    lagged: bool = False
    presence: bool = False


@dataclass(eq=False)
class LiveGame:
    """One game as this process holds it (see the module's docstring)."""

    game_id: UUID
    rules: GameRules
    header: Header
    state: Any
    sequence: int
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    subscribers: set[Subscriber] = field(default_factory=set)
    #: The store may hold events this cache does not (a write whose outcome is unknown).
    suspect: bool = False
    #: A catch-up for the cross-process feed is scheduled and has not read the store yet.
    waking: bool = False
    #: The log's chain hash after ``sequence`` (empty for a game stored without a chain).
    head: bytes = b""
    #: Each seat's entropy commitment and entropy ("" while missing) in a seat-entropy game.
    commitments: list[str] | None = None
    entropies: list[str] | None = None
    #: The hashes of tokens already checked against the header's, with their seats (only valid
    #: ones: at most one per seat), so that a seat's later calls skip the comparisons.
    seats_by_digest: dict[str, int] = field(default_factory=dict)
    #: A held game's holder has released its reveal (it stays released).
    released: bool = False
    #: Called by :meth:`advance` with this game when a batch ends the match (the cache retires it).
    on_over: Callable[[LiveGame], None] | None = None
    #: Called by :meth:`advance` with this game after every batch (the table clocks re-arm its timer).
    on_batch: Callable[[LiveGame], None] | None = None
    #: The server's time in Unix ms (views' clocks; the cache's, which tests may control).
    now_ms: Callable[[], int] = wall_ms
    #: Each seat's token hash now: the header's, or the latest reissued one (service/seat_lifecycle.py).
    token_hashes: list[str] = field(default_factory=list)
    #: How many Watch streams hold each seat's token in this process (presence).
    presence: list[int] = field(default_factory=list)
    #: Kept cached and caught up with other processes' writes with no watcher (the table clocks).
    followed: bool = False
    #: When a call last asked for the game (the cache's clock, monotonic seconds): idle eviction.
    touched: float = 0.0
    #: The sequence of the game's latest snapshot known here (0: none), so that eviction knows its tail.
    snapshot_sequence: int = 0

    @cached_property
    def control(self) -> TimeControl | None:
        """The game's time control (None: no clock)."""
        return control_of(self.header.time_control)

    def hashes(self) -> Sequence[str]:
        """Each seat's token hash now."""
        return self.token_hashes or self.header.token_hashes

    def present(self, seat: int, change: int) -> None:
        """A Watch stream of ``seat`` opened (+1) or closed (-1); watchers that asked hear when it comes or goes."""
        if len(self.presence) < self.header.players:
            self.presence = [0] * self.header.players
        before = self.presence[seat]
        self.presence[seat] = max(0, before + change)
        if (before > 0) == (self.presence[seat] > 0):
            return
        news = PresenceChange(seat, self.presence[seat] > 0)
        for subscriber in self.subscribers:
            if subscriber.presence:
                try:
                    subscriber.queue.put_nowait(news)
                except asyncio.QueueFull:
                    subscriber.lagged = True

    @cached_property
    def seed(self) -> bytes:
        """The server's seed: the key of the chain's salts."""
        return bytes.fromhex(self.header.seed) if self.header.seed else b""

    @property
    def started(self) -> bool:
        """Whether the match has started (a seat-entropy game starts with the last reveal)."""
        return self.entropies is None or all(self.entropies)

    @property
    def busy(self) -> bool:
        """Whether someone watches, follows or writes to the game now (the cache then keeps it)."""
        return bool(self.subscribers) or self.followed or self.lock.locked()

    def log_header(self) -> dict[str, Any]:
        """The audit log's header of this game, with its genesis once every seat has committed."""
        header = log_header(self.header, str(self.game_id), self.commitments)
        return with_genesis(header) if self.commitments is None or all(self.commitments) else header

    def genesis(self) -> bytes:
        """The chain's hash before the first event."""
        return bytes.fromhex(self.log_header()["genesis"])

    def chain(self, first: int, events: Sequence[Any], seat: int | None = None, command: Any = None) -> list[Note]:
        """The notes (chain hash, and the command on the first) of a batch after ``head``."""
        if not events or not self.header.seed:
            return [Note()] * len(events)
        previous = self.head if first > 1 else self.genesis()
        hashes = chain.batch_hashes(previous, self.seed, first, events, seat, command)
        notes = [Note(digest.hex()) for digest in hashes]
        if notes and command is not None:
            notes[0] = Note(notes[0].hash, seat, command)
        return notes

    def advance(self, events: Sequence[Any], notes: Sequence[Note], state: Any = None) -> int:
        """Take in a batch the store holds right after ``sequence``; returns the batch's first sequence.

        ``notes``: the batch's notes (:meth:`chain`, or as read from the store); ``state``: the state
        after the batch when the caller has it already (else the events are folded here). The
        watchers get the batch, and ``on_over`` is called when it ended the match.
        """
        first = self.sequence + 1
        if not events:
            return first
        self.state = fold(self.rules, self.state, events) if state is None else state
        self.sequence += len(events)
        head = notes[-1].hash
        self.head = bytes.fromhex(head) if head else b""
        item = (first, self.sequence, events, self.state, notes)
        for subscriber in self.subscribers:
            try:
                subscriber.queue.put_nowait(item)
            except asyncio.QueueFull:
                subscriber.lagged = True
        if self.on_over is not None and self.rules.is_over(self.state):
            self.on_over(self)
        if self.on_batch is not None:
            self.on_batch(self)
        return first

    def subscribe(self, presence: bool = False) -> Subscriber:
        """A new watcher's queue: it gets every batch from the current state on (and, with ``presence``,
        every seat that comes or goes)."""
        subscriber = Subscriber(presence=presence)
        self.subscribers.add(subscriber)
        return subscriber

    def unsubscribe(self, subscriber: Subscriber) -> None:
        """A watcher is gone: no more batches for it."""
        self.subscribers.discard(subscriber)

    def view(self, state: Any, sequence: int, viewer: Viewer, head: bytes | None = None) -> ViewResult:
        """``viewer``'s view of ``state`` (the state at ``sequence``, whose chain head is ``head``)."""
        rules = self.rules
        over = rules.is_over(state)
        now = self.now_ms()
        return ViewResult(
            game_id=str(self.game_id),
            game=self.header.game,
            sequence=sequence,
            seat=viewer,
            view=rules.view(state, viewer),
            to_act=tuple(rules.to_act(state)),
            over=over,
            head=(self.head if head is None else head).hex(),
            seats=seat_clocks(self.control, state, self.header.players, now, self.presence, over),
            server_time_ms=now if self.control is not None else 0,
            time_control=self.control,
        )
