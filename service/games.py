"""The application layer: games, seats, commands, views, logs and live fan-out (no gRPC here).

Every game is reached through :func:`cardgames.engine.core.registry.get_game`; nothing here knows a
game's rules. A live game is cached in memory with its folded state and sequence, so a
command costs one ``decide`` and one insert, not a replay. Per game, commands are applied
one at a time (an ``asyncio.Lock``); the store's unique (game, sequence) key still guards
against another process writing at the same sequence.

Errors are :class:`ServiceError` subclasses, each with a stable ``reason`` (the string the
gRPC layer puts in ``google.rpc.ErrorInfo.reason``); the rules' own refusals are
:class:`Rejected`, whose reason is the FORMAT.md code in upper case. No error writes
anything.

The audit log (docs/log-format.md): each event's chain hash is computed here (from the
genesis of the game's log header) and kept in its record with the command that caused its
batch; a live game holds the head, returned with every accepted command and view; the
log reveals the server's seed once the match is over (a game created ``held_by`` a tournament
shows everything a finished match shows only once :attr:`Games.releases` says so). A game created
with ``seat_entropy`` first waits for every seat to commit to and then reveal entropy of
its own; the match starts (its first shuffle) with the last reveal.

Expensive engine work (a listing the game calls costly, a page of more than ``LOOP_COMMANDS``
commands, a built-in bot's search or its decision among that many) runs in the worker processes
of :mod:`cardgames.service.workers`, with a deadline; ordinary positions are served here.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import os
import re
import secrets
import sqlite3
from collections import OrderedDict
from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import cached_property, lru_cache, partial
from typing import Any, ClassVar, TypeVar
from uuid import UUID, uuid4

import msgspec
from cardgames import wire
from eventsourcing.persistence import PersistenceError

from cardgames.engine.core import chain, fairness
from cardgames.engine.core.chance import ShuffleUnavailable
from cardgames.engine.core.commands import parse_command
from cardgames.engine.core.echo import clip, echo
from cardgames.engine.core.protocol import (
    PUBLIC,
    GameRules,
    Malformed,
    OptionsError,
    Rejection,
    RejectionCode,
    ScenarioError,
    Setup,
    Viewer,
    reject,
)
from cardgames.engine.core.registry import UnknownGame, get_game
from cardgames.engine.core.replay import fold, new_match
from cardgames.engine.core.events import ClockMarked, TokenReissued
from cardgames.engine.core.seat_events import SeatRules, with_seat_events
from cardgames.engine.core.time_control import TimeControl, TimeControlError, parse_time_control
from cardgames.service.audit.logfile import log_header, reveal, seat_values, with_genesis
from cardgames.service.batching import group_commit
from cardgames.service.clock_marks import (
    SeatClock,
    control_of,
    deadline_passed,
    late,
    seal,
    seat_clocks,
    taking_back,
    wall_ms,
)
from cardgames.service.feed import Feed
from cardgames.service.snapshots import SnapshotStore, every_from_env
from cardgames.service.store import EntropyRecord, EventStore, GameNotFound, Header, Note, StaleSequence, TokenRecord
from cardgames.service.workers import Busy, Failed, TimedOut, Workers, page_of

T = TypeVar("T")
SEED_HEX = re.compile(r"[0-9a-f]{64}")
#: Placeholder shuffle seed for checking a seat-entropy game's setup before its real seed exists.
_PROBE_SEED = "00" * 32
#: How many undelivered batches a watcher may fall behind before it re-reads the store.
WATCH_QUEUE = 256
#: How many games a process keeps folded in memory (least recently used ones are dropped first).
MAX_LIVE = 20_000
#: How many finished games stay cached (for the GetLog/GetView calls that follow the end).
MAX_FINISHED = 256
#: Seconds a store call may take before the request fails with STORE_UNAVAILABLE.
STORE_TIMEOUT = float(os.environ.get("CARDGAMES_STORE_TIMEOUT") or 10.0)
#: Attempts of a command sent without expected_sequence that meets another process's write.
SUBMIT_ATTEMPTS = 3
#: Writer threads with group commit (each waits while one writes for all).
WRITERS = 64
#: Store calls that only read: they run on their own threads, so that reads never queue behind
#: writes (which the store serializes: one insert at a time on PostgreSQL, one writer on SQLite).
READS = frozenset({"header", "events", "log", "head", "load", "_load", "_state_at", "entropy", "latest", "tokens",
                   "clocked_games"})
log = logging.getLogger(__name__)


# ---------------------------------------------------------------------------
# Errors.


class ServiceError(Exception):
    """A request the service refuses; nothing was written."""

    reason: ClassVar[str] = "SERVICE_ERROR"

    def __init__(self, message: str, /, **metadata: str) -> None:
        super().__init__(message)
        self.message = message
        self.metadata = metadata


class InvalidRequest(ServiceError):
    """A malformed request (a bad seed, sequence or game id). ``reason`` may be refined."""

    reason = "INVALID_REQUEST"

    def __init__(self, message: str, /, reason: str | None = None, **metadata: str) -> None:
        super().__init__(message, **metadata)
        if reason:
            self.reason = reason  # type: ignore[misc]


class UnknownGameError(ServiceError):
    reason = "UNKNOWN_GAME"


class InvalidOptions(ServiceError):
    reason = "INVALID_OPTIONS"


class GameNotFoundError(ServiceError):
    reason = "GAME_NOT_FOUND"


class MissingToken(ServiceError):
    reason = "TOKEN_REQUIRED"


class WrongToken(ServiceError):
    reason = "TOKEN_INVALID"


class StaleSequenceError(ServiceError):
    reason = "STALE_SEQUENCE"


class NotNow(ServiceError):
    """A call the game's stage does not allow (FAILED_PRECONDITION); ``reason`` says which.

    ``MATCH_NOT_STARTED``: the seats have not all revealed their entropy yet;
    ``NO_SEAT_ENTROPY``: the game takes no seat entropy (or has started);
    ``ALREADY_COMMITTED`` / ``ALREADY_REVEALED``: the seat did it already (with another value);
    ``COMMITMENTS_PENDING``: a reveal before every seat has committed.
    """

    reason = "NOT_NOW"

    def __init__(self, message: str, /, reason: str, **metadata: str) -> None:
        super().__init__(message, **metadata)
        self.reason = reason  # type: ignore[misc]


class Unservable(ServiceError):
    """A batch the wire could not carry (a number past its field's type): refused, nothing written.

    The options' bounds (engine/*/config.py) keep every score and counter within its wire
    type, so this is the last guard: a game never holds an event its views, log and streams
    could not send.
    """

    reason = "OUT_OF_RANGE"


class StoreUnavailable(ServiceError):
    """The store failed or did not answer in time (disk full, database down); retry later.

    For a command, its outcome is then unknown: read the view (or retry with the same
    ``expected_sequence``, which is refused as stale if the command was recorded after all).
    """

    reason = "STORE_UNAVAILABLE"


class WorkDeadline(ServiceError):
    """Expensive engine work (a crowded listing's count and pages, a built-in bot's decision) did not
    finish within the workers' deadline; the worker running it was replaced (DEADLINE_EXCEEDED)."""

    reason = "WORK_DEADLINE"


class WorkersBusy(ServiceError):
    """Too much expensive work of this game (or in all) is waiting for the workers (RESOURCE_EXHAUSTED)."""

    reason = "WORKERS_BUSY"


class WorkerFailed(ServiceError):
    """The workers could not do the work (they died under it twice, or the service is stopping)."""

    reason = "WORKER_FAILED"


class Rejected(ServiceError):
    """The rules refused the command (FORMAT.md code, message, rule)."""

    def __init__(self, rejection: Rejection) -> None:
        code = rejection.code.value
        super().__init__(rejection.message, code=code, rule=rejection.rule, message=rejection.message)
        self.rejection = rejection
        self.reason = code.upper()  # type: ignore[misc]


class DeadlinePassed(Rejected):
    """A command that came after its seat's deadline: refused, and the timeout applies."""

    def __init__(self, seat: int, waited_ms: int, *, late_ms: int | None = None) -> None:
        if late_ms is not None:
            super().__init__(deadline_passed(seat, late_ms))
        else:
            super().__init__(reject(
                RejectionCode.NOT_YOUR_TURN,
                f"seat {seat} answered after {waited_ms} ms, past its deadline: the clock's consequence applies",
                "clock",
            ))
        self.reason = "DEADLINE_PASSED"  # type: ignore[misc]


# ---------------------------------------------------------------------------
# Results.


@dataclass(frozen=True)
class Created:
    game_id: str
    game: str
    seat_tokens: list[str]
    sequence: int
    seed_commitment: str = ""
    head: str = ""  #: the chain's head ("" while a seat-entropy game waits for its seats)
    owner_token: str = ""  #: the owner's token (Abort, HandOver, ReissueToken)


@dataclass(frozen=True)
class Entry:
    """One event of the log as a viewer sees it, with the chain's hash after it.

    ``seat`` and ``command`` are set on the entry that starts a command's batch, for the
    seat that sent it and, once the match is over, for everyone.
    """

    sequence: int
    event: Any
    redacted: bool
    hash: str = ""
    seat: int | None = None
    command: Any = None


@dataclass(frozen=True)
class ViewResult:
    game_id: str
    game: str
    sequence: int
    seat: int | None
    view: Any
    to_act: tuple[int, ...]
    over: bool
    head: str = ""
    #: Each seat's clock, who plays it and whether it is connected (service/clock_marks.py).
    seats: tuple[SeatClock, ...] = ()
    #: The server's time the view was made at (Unix ms; 0 without a time control): not part of what a
    #: view shows of the match.
    server_time_ms: int = field(default=0, compare=False)
    #: The game's time control (None for none).
    time_control: TimeControl | None = None


@dataclass(frozen=True)
class Accepted:
    game: str
    seat: int
    sequence: int
    entries: list[Entry]
    head: str = ""


@dataclass(frozen=True)
class LegalListing:
    """Every legal command of ``seat`` at ``sequence``, as the game lists them: a sequence that
    may be lazy (a crowded Seep floor counts its groupings and makes a command when asked for
    it), for players in this process; never make it a list."""

    game: str
    sequence: int
    seat: int
    commands: Sequence[Any]


@dataclass(frozen=True)
class LegalCommands:
    """One page of a seat's legal commands: ``commands`` from index ``offset`` of ``total``.

    Asked for ``wire`` (the number of a ``repeated cardgames.v1.Command`` field), a page made in a
    worker comes as ``encoded`` instead: ``encoded_count`` entries of that field, already serialized
    (the worker does that too, not the event loop), to follow the response's other fields.
    """

    game: str
    sequence: int
    seat: int
    commands: list[Any]
    total: int
    offset: int = 0
    encoded: bytes = b""
    encoded_count: int = 0

    @property
    def size(self) -> int:
        """The commands in the page."""
        return len(self.commands) + self.encoded_count


#: The commands of a page of legal commands when the caller names no size (ListLegalCommands,
#: a bot's decision), and the most a caller may ask for: a page of 10,000 Seep builds is about
#: 0.6 MB on the wire, a quarter of a second of the server's time.
DEFAULT_PAGE_SIZE = 1_000
MAX_PAGE_SIZE = 10_000
#: The most time a page's commands may take to make (in a worker): a page stops short after it,
#: with one command at least. A lazy listing makes a command by walking its counts, a few
#: microseconds on any floor of the default rules, but tens of milliseconds at an index deep into
#: a Seep floor of 10^16 groupings (the option to throw a card that could capture).
PAGE_SECONDS = 0.2
#: The most commands a page or a built-in bot's decision takes on the event loop; more go to a worker.
#: Putting a command on the wire costs 10-40 us (a page of 1,000 Seep builds: 36 ms of the loop's
#: time), a heuristic decision among hundreds of commands milliseconds: ordinary positions list far
#: fewer (a random Seep, All Fours or Contract Rummy match: 32 or fewer at all but a few).
LOOP_COMMANDS = 64
#: Listings kept for the pages that follow (a state's listing never changes; a crowded Seep floor's
#: count can take a second under B-7, and its memo some megabytes).
LISTINGS_KEPT = 16


@dataclass(frozen=True)
class LogResult:
    """Entries of a game's log, with its header; ``reveal`` (the seeds) once the match is over.

    ``header`` is the log header of docs/log-format.md with its ``genesis`` (while a
    seat-entropy game waits, its missing commitments are "" and there is no genesis yet).
    """

    game: str
    sequence: int
    entries: list[Entry]
    header: dict[str, Any] = field(default_factory=dict)
    reveal: dict[str, Any] | None = None
    head: str = ""


@dataclass(frozen=True)
class EntropyStatus:
    """Where a seat-entropy game stands: commitments and reveals so far, and whether it started."""

    seats: int
    committed: int
    revealed: int
    started: bool
    sequence: int
    head: str


@dataclass(frozen=True)
class WatchItem:
    """A batch of events since the previous item (none in a fresh watch's first) and the view after.

    ``presence``: seats that came or went (seat, connected) since the previous item; an item with
    presence changes only has no entries (presence is not part of the log).
    """

    sequence: int
    entries: list[Entry]
    view: ViewResult
    presence: tuple[tuple[int, bool], ...] = ()


@dataclass(frozen=True)
class _Presence:
    """A seat came or went (a watch queue's item beside the batches)."""

    seat: int
    connected: bool


# ---------------------------------------------------------------------------
# Live games.


@dataclass(eq=False)
class _Subscriber:
    queue: asyncio.Queue[tuple[int, int, Sequence[Any], Any, Sequence[Note]] | _Presence] = field(
        default_factory=lambda: asyncio.Queue(WATCH_QUEUE)
    )
    lagged: bool = False
    #: The watcher hears when seats come and go.
    presence: bool = False


@dataclass(eq=False)
class _Live:
    game_id: UUID
    rules: GameRules
    header: Header
    state: Any
    sequence: int
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    subscribers: set[_Subscriber] = field(default_factory=set)
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
    #: Each seat's token hash now: the header's, or the latest reissued one.
    token_hashes: list[str] = field(default_factory=list)
    #: How many Watch streams hold each seat's token in this process (presence).
    presence: list[int] = field(default_factory=list)

    @cached_property
    def control(self) -> TimeControl | None:
        """The game's time control (None: no clock)."""
        return control_of(self.header.time_control)

    def hashes(self) -> Sequence[str]:
        return self.token_hashes or self.header.token_hashes

    @cached_property
    def seed(self) -> bytes:
        """The server's seed: the key of the chain's salts."""
        return bytes.fromhex(self.header.seed) if self.header.seed else b""

    @property
    def started(self) -> bool:
        return self.entropies is None or all(self.entropies)

    def log_header(self) -> dict[str, Any]:
        """The audit log's header of this game, with its genesis once every seat has committed."""
        header = log_header(self.header, str(self.game_id), self.commitments)
        return with_genesis(header) if self.commitments is None or all(self.commitments) else header

    def genesis(self) -> bytes:
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


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def shown(rules: GameRules, event: Any, viewer: Viewer, over: bool) -> tuple[Any, bool]:
    """The event as ``viewer`` sees it and whether it was redacted (everything shows once over)."""
    if over:
        return event, False
    audience = rules.audience(event)
    if audience == PUBLIC or (viewer is not None and not isinstance(audience, str) and audience == viewer):
        return event, False
    return rules.redact(event, viewer), True


def entries_for(
    rules: GameRules, first: int, events: Sequence[Any], viewer: Viewer, over: bool, notes: Sequence[Note] = ()
) -> list[Entry]:
    """The entries as ``viewer`` sees them; a command shows to its own seat, and to all once over."""
    if not notes:
        return [Entry(first + index, *shown(rules, event, viewer, over)) for index, event in enumerate(events)]
    entries = []
    for index, (event, note) in enumerate(zip(events, notes, strict=True)):
        visible = note.command is not None and (over or note.seat == viewer)
        entries.append(Entry(first + index, *shown(rules, event, viewer, over), note.hash,
                             note.seat if visible else None, note.command if visible else None))
    return entries


#: A run of 10 digits or more in a batch's JSON: a number that may not fit an int32 (every
#: number of 9 digits or fewer does: they are below 10^9 < 2^31).
_LONG_NUMBER = re.compile(rb"[0-9]{10}")


def servable(rules: GameRules, game: str, events: Sequence[Any], state: Any) -> None:
    """Raise Unservable unless the events and the public view after them fit their wire messages.

    Called before a batch is written, so that the log, the views and the streams can always
    send what the game holds (a number past int32 used to be written, and every later read of
    the game failed). The events' and view's ints are the only values that can miss their
    fields, and they can only do that with 10 digits or more: the batch and view are encoded
    to their messages when their JSON (a few microseconds) holds such a run of digits. A clock
    mark's times are Unix milliseconds (13 digits) in int64 fields: marks are left out of the test.
    """
    view = rules.view(state, None)
    events = [event for event in events if type(event) is not ClockMarked]
    if _LONG_NUMBER.search(msgspec.json.encode((events, view))) is None:
        return
    try:
        for event in events:
            wire.wrap(wire.Event, game, msgspec.to_builtins(event))
        wire.wrap(wire.View, game, msgspec.to_builtins(view))
    except (wire.WireError, ValueError, TypeError) as error:
        field = str(error).split(":", 1)[0] if isinstance(error, wire.WireError) else type(error).__name__
        raise Unservable(f"refused, nothing written: the command's consequences do not fit the wire ({field})",
                         field=field) from error


def _notes(pairs: Sequence[tuple[Any, Note]]) -> tuple[list[Any], list[Note]]:
    return [event for event, _ in pairs], [note for _, note in pairs]


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
        store_timeout: float = STORE_TIMEOUT,
        pool: Workers | None = None,
    ) -> None:
        """``shared``: other processes write to the same store (default: when it is PostgreSQL); then
        every call first reads what they wrote, and :meth:`open` subscribes to the store's feed.
        ``snapshot_every``: K for snapshots (default ``CARDGAMES_SNAPSHOT_EVERY``, else 100; 0: none).
        ``pool``: the worker processes for expensive engine work (default: a pool of the default size
        and deadline, whose processes start when first needed).
        """
        self.store = store
        self.shared = store_is_shared(store) if shared is None else shared
        #: The in-memory store's calls never wait: they run on the event loop (a thread hop costs more).
        self.inline = store.in_memory
        self.snapshots = SnapshotStore(store.factory, every_from_env() if snapshot_every is None else snapshot_every)
        self.max_live = max_live
        self.max_finished = max_finished
        self._finished: OrderedDict[UUID, None] = OrderedDict()
        self.store_timeout = store_timeout
        #: Called with (live game, seat, events) before a seat's command is written, lock held: may
        #: refuse it (a ServiceError) or add events (service/clocks.py: deadlines and time banks).
        self.clock_hook: Callable[[_Live, int, list[Any]], list[Any]] | None = None
        #: Asked with (``held_by``, game id) whether a finished game that its holder withholds may show
        #: what a finished match shows (its seed, its shuffles, every hand, every command); None: never.
        #: A tournament's matches of one deal share a seed (service/tournament/manager.py).
        self.releases: Callable[[str, str], Awaitable[bool]] | None = None
        self.feed: Feed | None = None
        #: The server's time in Unix ms: clock marks, deadlines, views (tests set a controllable one).
        self.now_ms: Callable[[], int] = wall_ms
        #: Called with a game's id when a game with a time control is created or loaded here, and after
        #: each batch of one (service/table_clocks.py: its timer and its bots).
        self.on_clocked: Callable[[str], None] | None = None
        #: Games kept up to date with other processes' writes without a watcher (:meth:`follow`).
        self.followed: set[UUID] = set()
        # Writes of concurrent commands share transactions (group commit); their threads mostly
        # wait for the one that writes, so there are many.
        self.group_commit = group_commit(store)
        writers = max(workers, WRITERS) if self.group_commit is not None else workers
        self._executor = ThreadPoolExecutor(max_workers=writers, thread_name_prefix="cardgames-store")
        self._readers = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="cardgames-read")
        self._live: OrderedDict[UUID, _Live] = OrderedDict()
        #: The latest listings, by (game, sequence, seat): a bot that asks for a page and then for
        #: a command by its index is answered from one count (LISTINGS_KEPT at most).
        self._listings: OrderedDict[tuple[UUID, int, int], Sequence[Any]] = OrderedDict()
        self._loading: dict[UUID, asyncio.Lock] = {}
        self._background: set[asyncio.Task[Any]] = set()
        self.pool = pool if pool is not None else Workers()

    async def open(self) -> None:
        """Start the cross-process feed when the store is shared (one subscription per process)."""
        if self.shared and self.feed is None:
            feed = Feed(self.store.recorder, asyncio.get_running_loop(), self._on_written, self._on_resync)
            await self._run(feed.start)
            self.feed = feed

    async def close(self) -> None:
        if self.feed is not None:
            await asyncio.get_running_loop().run_in_executor(None, self.feed.stop)
            self.feed = None
        if self._background:
            await asyncio.gather(*self._background, return_exceptions=True)
        await self.pool.close()
        self._executor.shutdown(wait=True)
        self._readers.shutdown(wait=True)
        if self.group_commit is not None:
            self.group_commit.close()
        self.store.close()

    async def _run(self, function: Callable[..., T], *args: Any, on_late: Callable[[], None] | None = None) -> T:
        """Run a (synchronous) store call off the event loop; store failures are StoreUnavailable.

        A call that takes longer than ``store_timeout`` fails the request; ``on_late`` then runs
        when it ends after all (a write may have happened). With the in-memory store the call
        runs right here, on the event loop.
        """
        if self.inline:
            try:
                return function(*args)
            except STORE_FAILURES as error:
                log.warning("store failure: %s", error)
                raise StoreUnavailable(f"the store failed: {error}") from error
        name = getattr(function, "__name__", "store call")
        executor = self._readers if name in READS else self._executor
        future = asyncio.get_running_loop().run_in_executor(executor, partial(function, *args))
        return await self._outcome(future, name, on_late)

    async def _outcome(self, future: asyncio.Future[T], name: str, on_late: Callable[[], None] | None) -> T:
        """The result of a store call running elsewhere, within ``store_timeout`` (see :meth:`_run`)."""
        try:
            return await asyncio.wait_for(asyncio.shield(future), self.store_timeout)
        except TimeoutError:
            if on_late is not None:
                future.add_done_callback(lambda _: on_late())
            log.warning("store call %s did not answer within %gs", name, self.store_timeout)
            raise StoreUnavailable(f"the store did not answer within {self.store_timeout:g}s ({name})") from None
        except STORE_FAILURES as error:
            log.warning("store failure: %s", error)
            raise StoreUnavailable(f"the store failed: {error}") from error

    async def _append(self, live: _Live, events: list[Any], command: tuple[int, Any] | None, notes: list[Note]) -> int:
        """Write a batch after the live game's sequence (lock held): the new sequence, or StaleSequence.

        With group commit the records go straight to the writer thread and the loop awaits its
        answer: no worker thread waits in between (one thread hop each way); when nothing else
        is being written to a store whose commits never wait for the disk, the insert is made
        right here (service/batching.py) and its outcome is known at once.
        """
        args = (live.game_id, live.header.game, live.sequence, events, command, [note.hash for note in notes])
        on_late = partial(_mark_suspect, live)
        if self.group_commit is None:
            return await self._run(self.store.append, *args, on_late=on_late)
        try:
            written = self.store.append_later(*args)
            if written.done():  # written inline
                return written.result()
        except STORE_FAILURES as error:
            log.warning("store failure: %s", error)
            raise StoreUnavailable(f"the store failed: {error}") from error
        return await self._outcome(asyncio.wrap_future(written), "append", on_late)

    def _spawn(self, coroutine: Any) -> None:
        """Run a background job (snapshots, feed catch-ups); :meth:`close` waits for them."""
        task = asyncio.get_running_loop().create_task(coroutine)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def _keep(self, live: _Live) -> None:
        """Cache a live game; drop the least recently used idle ones beyond ``max_live``."""
        self._live[live.game_id] = live
        excess = len(self._live) - self.max_live
        if excess <= 0:
            return
        idle = [key for key, old in self._live.items() if not self._followed(old) and not old.lock.locked()]
        for key in idle[:excess]:
            del self._live[key]

    def _retire(self, game_id: UUID) -> None:
        """A game just ended: keep only the ``max_finished`` latest finished games cached."""
        self._finished[game_id] = None
        while len(self._finished) > self.max_finished:
            old, _ = self._finished.popitem(last=False)
            live = self._live.get(old)
            if live is not None and not self._followed(live) and not live.lock.locked():
                del self._live[old]

    # -- creating ------------------------------------------------------------------

    async def create(
        self,
        game: str,
        options: Mapping[str, Any] | None = None,
        players: int | None = None,
        *,
        seed: str | None = None,
        decks: Sequence[Sequence[str]] = (),
        dealer: int | None = None,
        seat_entropy: bool = False,
        tokens: Sequence[str] | None = None,
        held_by: str = "",
        time_control: Mapping[str, Any] | None = None,
    ) -> Created:
        """A new match: validated options, a seed from ``secrets`` unless given, one token per seat.

        With ``seat_entropy`` the match starts only once every seat has committed to and
        revealed entropy of its own (:meth:`commit_entropy`, :meth:`reveal_entropy`).
        ``tokens``: the seats' tokens (as random as ``secrets``' own: a tournament derives them),
        else new ones. ``held_by``: whoever withholds the finished match's reveal (:attr:`releases`).
        ``time_control``: a clock for every seat (engine/core/time_control.py), kept in the log's header.
        """
        rules = _rules(game)
        try:
            control = parse_time_control(time_control)
        except TimeControlError as error:
            raise InvalidRequest(str(error), reason="INVALID_TIME_CONTROL") from error
        try:
            config = rules.make_config(dict(options or {}), players)
        except OptionsError as error:
            raise InvalidOptions(str(error), game=game) from error
        seats = int(getattr(config, "players", None) or players or rules.DEFAULT_PLAYERS)
        seed_given = seed is not None
        if seed is not None:
            seed = seed.lower()
            if not SEED_HEX.fullmatch(seed):
                raise InvalidRequest("a seed is 32 bytes in hex (64 hex digits)", reason="INVALID_SEED")
        else:
            # Also with stacked decks: the seed then feeds the shuffles after them.
            seed = secrets.token_hex(32)
        if dealer is not None and not 0 <= dealer < seats:
            raise InvalidRequest(f"dealer {dealer} is not a seat of {seats}", reason="INVALID_SETUP")
        stacked = tuple(tuple(deck) for deck in decks)
        # A seat-entropy game's setup is checked with a placeholder seed; it starts later.
        setup = Setup(seed=_PROBE_SEED if seat_entropy else seed, decks=stacked, dealer=dealer)
        try:
            state, events = new_match(rules, config, setup)
        except (ScenarioError, ShuffleUnavailable, ValueError) as error:
            raise InvalidRequest(f"cannot start the match: {error}", reason="INVALID_SETUP") from error
        if tokens is not None and (len(tokens) != seats or not all(tokens)):
            raise InvalidRequest(f"a game of {seats} seats takes {seats} tokens", reason="INVALID_SETUP")
        tokens = list(tokens) if tokens is not None else [secrets.token_urlsafe(32) for _ in range(seats)]
        owner_token = secrets.token_urlsafe(32)
        header = Header(
            game=game,
            players=seats,
            config=msgspec.to_builtins(config),
            token_hashes=tuple(token_hash(token) for token in tokens),
            rules_version=chain.rules_version(rules),
            seed=seed,
            seed_commitment=fairness.commitment(seed),
            seed_given=seed_given,
            seat_entropy=seat_entropy,
            dealer=dealer,
            stacked=len(stacked),
            decks=stacked if seat_entropy else (),
            held_by=held_by,
            time_control=msgspec.to_builtins(control) if control is not None else None,
            owner_hash=token_hash(owner_token),
        )
        if control is not None and not seat_entropy:
            events, state = seal(rules, control, seats, rules.initial(config), events, None, False, self.now_ms())
        if not seat_entropy:
            servable(rules, game, events, state)
        game_id = uuid4()
        live = _Live(game_id, rules, header, state, 0)
        if seat_entropy:
            live.state, events = None, []
            live.commitments, live.entropies = [""] * seats, [""] * seats
        notes = live.chain(1, events)
        sequence = await self._run(self.store.create, game_id, header, events, [note.hash for note in notes])
        live.sequence = sequence
        live.head = bytes.fromhex(notes[-1].hash) if notes else b""
        self._keep(live)
        self._clocked(live)
        return Created(str(game_id), game, tokens, sequence, header.seed_commitment, live.head.hex(), owner_token)

    def _clocked(self, live: _Live) -> None:
        """Tell the table clocks about a game with a time control or a seat a bot plays (created, loaded
        or just written)."""
        if self.on_clocked is not None and (live.control is not None or getattr(live.state, "bots", None)):
            self.on_clocked(str(live.game_id))

    # -- seat entropy ----------------------------------------------------------------

    async def commit_entropy(self, game_id: str, token: str | None, commitment: str) -> EntropyStatus:
        """Record the token's seat's commitment (SHA-256 of its entropy, hex); the same again is a no-op."""
        commitment = commitment.lower()
        if not fairness.is_hex32(commitment):
            raise InvalidRequest("a commitment is SHA-256 in hex (64 hex digits)", reason="INVALID_ENTROPY")
        return await self._entropy(game_id, token, "commit", commitment)

    async def reveal_entropy(self, game_id: str, token: str | None, entropy: str) -> EntropyStatus:
        """Record the seat's entropy (32 bytes, hex) once every seat has committed; the last reveal starts the match."""
        entropy = entropy.lower()
        if not fairness.is_hex32(entropy):
            raise InvalidRequest("an entropy is 32 bytes in hex (64 hex digits)", reason="INVALID_ENTROPY")
        return await self._entropy(game_id, token, "reveal", entropy)

    async def _entropy(self, game_id: str, token: str | None, kind: str, value: str) -> EntropyStatus:
        live = await self._get(game_id)
        seat = self._seat(live, token, required=True)
        assert seat is not None
        async with live.lock:
            if self.shared or live.suspect:
                await self._catch_up(live)
            commitments, entropies = live.commitments, live.entropies
            if commitments is None or entropies is None or live.started:
                why = "has started" if commitments is not None else "takes no seat entropy"
                raise NotNow(f"the game {why}", reason="NO_SEAT_ENTROPY")
            values = commitments if kind == "commit" else entropies
            if values[seat]:
                if values[seat] == value:
                    return _status(live)
                done = "ALREADY_COMMITTED" if kind == "commit" else "ALREADY_REVEALED"
                raise NotNow(f"seat {seat} has already sent its {kind}", reason=done)
            if kind == "reveal":
                if not all(commitments):
                    raise NotNow("every seat commits before any reveals", reason="COMMITMENTS_PENDING")
                if fairness.commitment(value) != commitments[seat]:
                    raise InvalidRequest(f"this entropy does not hash to seat {seat}'s commitment",
                                         reason="ENTROPY_MISMATCH")
            written = sum(map(bool, commitments)) + sum(map(bool, entropies))
            after = [value if index == seat else old for index, old in enumerate(values)]
            start = state = None
            if kind == "reveal" and all(after):  # the last reveal: the match starts with the combined seed
                header = live.header
                assert header.seed is not None
                config = msgspec.convert(header.config, live.rules.Config)
                setup = Setup(seed=fairness.shuffle_seed(header.seed, after), decks=header.decks, dealer=header.dealer)
                state, events = new_match(live.rules, config, setup)
                if live.control is not None:
                    events, state = seal(live.rules, live.control, header.players, live.rules.initial(config), events,
                                         None, False, self.now_ms())
                servable(live.rules, header.game, events, state)
                notes = live.chain(1, events)
                start = (header.game, events, [note.hash for note in notes])
            try:
                await self._run(self.store.add_entropy, live.game_id, written, EntropyRecord(seat, kind, value), start)
            except StaleSequence:
                await self._catch_up(live)  # another process wrote first
                raise _stale(live, 0) from None
            if start is not None:
                live.state, live.sequence = state, len(start[1])
                live.head = bytes.fromhex(start[2][-1]) if start[2] and start[2][-1] else b""
            values[seat] = value
            return _status(live)

    # -- finding a game and a seat --------------------------------------------------

    async def _get(self, game_id: str) -> _Live:
        key = _game_uuid(game_id)
        live = self._live.get(key)
        if live is not None:
            self._live.move_to_end(key)
            return live
        lock = self._loading.setdefault(key, asyncio.Lock())
        async with lock:
            live = self._live.get(key)
            if live is None:
                try:
                    header = await self._run(self.store.header, key)
                except GameNotFound as error:
                    raise GameNotFoundError(str(error), game_id=game_id) from error
                rules = with_seat_events(get_game(header.game))
                live = _Live(key, rules, header, None, 0)
                await self._run(self._load, live)
                self._keep(live)
                self._clocked(live)
        self._loading.pop(key, None)
        return live

    def _load(self, live: _Live) -> None:
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
        if getattr(live.state, "reissued", None):
            self._load_tokens(live)

    def _load_tokens(self, live: _Live) -> None:
        """The seats' current token hashes: the header's, each replaced by its latest reissue (blocking)."""
        hashes = list(live.header.token_hashes)
        for record in self.store.tokens(live.game_id):
            hashes[record.seat] = record.token_hash
        live.token_hashes = hashes
        live.seats_by_digest.clear()

    def _state_at(self, key: UUID, rules: GameRules, header: Header, upto: int | None) -> tuple[Any, int]:
        """The state at ``upto`` (None: the end) from the latest snapshot and the events after it (blocking)."""
        config = msgspec.convert(header.config, rules.Config)
        return self.snapshots.state_at(
            key, rules, config, lambda after, end: self.store.events(key, rules, after, end), upto
        )

    async def _fresh(self, game_id: str, *, started: bool = True) -> _Live:
        """The live game, caught up with what other processes (or a write of unknown outcome) added.

        ``started``: refuse (MATCH_NOT_STARTED) a seat-entropy game still waiting for its seats.
        """
        live = await self._get(game_id)
        if self.shared or live.suspect or not live.started:
            async with live.lock:
                await self._catch_up(live)
        if started and not live.started:
            raise NotNow("the match starts once every seat has committed to and revealed its entropy",
                         reason="MATCH_NOT_STARTED")
        return live

    @staticmethod
    def _seat(live: _Live, token: str | None, *, required: bool) -> int | None:
        """The seat a token belongs to; None for a spectator (no token) where that is allowed."""
        if not token:
            if required:
                raise MissingToken("this call acts for a seat: send its token in the cardgames-token metadata")
            return None
        # Only a token's SHA-256 is ever looked up or compared: a lookup's timing then tells nothing
        # about the tokens themselves.
        digest = token_hash(token)
        seat = live.seats_by_digest.get(digest)
        if seat is not None:
            return seat
        for index, known in enumerate(live.hashes()):
            if hmac.compare_digest(known, digest):
                seat = index
        if seat is None:
            raise WrongToken("the token is not a seat token of this game")
        live.seats_by_digest[digest] = seat
        return seat

    def _view(self, live: _Live, state: Any, sequence: int, viewer: Viewer, head: bytes | None = None) -> ViewResult:
        rules = live.rules
        over = rules.is_over(state)
        now = self.now_ms()
        return ViewResult(
            game_id=str(live.game_id),
            game=live.header.game,
            sequence=sequence,
            seat=viewer,
            view=rules.view(state, viewer),
            to_act=tuple(rules.to_act(state)),
            over=over,
            head=(live.head if head is None else head).hex(),
            seats=seat_clocks(live.control, state, live.header.players, now, live.presence, over),
            server_time_ms=now if live.control is not None else 0,
            time_control=live.control,
        )

    async def _disclosed(self, live: _Live, over: bool) -> bool:
        """Whether the game shows what a finished match shows: over, and not withheld by its holder."""
        if not over or live.released or not live.header.held_by:
            return over
        if self.releases is not None and await self.releases(live.header.held_by, str(live.game_id)):
            live.released = True
        return live.released

    # -- commands ------------------------------------------------------------------

    async def submit(
        self,
        game_id: str,
        token: str | None,
        command: Mapping[str, Any] | Malformed,
        expected_sequence: int | None = None,
        *,
        for_game: str | None = None,
    ) -> Accepted:
        """Apply one command for the token's seat; raises a ServiceError (nothing written) otherwise.

        ``for_game`` is the game the command was written for (the wire's oneof): another game's
        command is malformed here.
        """
        live = await self._get(game_id)
        if not live.started:
            live = await self._fresh(game_id)  # MATCH_NOT_STARTED, unless another process started it
        seat = self._seat(live, token, required=True)
        assert seat is not None
        return await self._submit(live, seat, command, expected_sequence, for_game, False)

    async def submit_for_bot(
        self, game_id: str, seat: int, command: Mapping[str, Any], expected_sequence: int
    ) -> Accepted:
        """A built-in bot's command for ``seat`` (a seat a bot plays: service/table_clocks.py): no token, and
        its time is not charged to the seat's bank."""
        live = await self._fresh(game_id)
        return await self._submit(live, seat, command, expected_sequence, None, True)

    async def _submit(
        self, live: _Live, seat: int, command: Mapping[str, Any] | Malformed, expected_sequence: int | None,
        for_game: str | None, by_bot: bool,
    ) -> Accepted:
        rules = live.rules
        if for_game is not None and for_game != live.header.game and not isinstance(command, Malformed):
            command = Malformed(f"a {for_game} command sent to a {live.header.game} game", type=command.get("type"))
        parsed = command if isinstance(command, Malformed) else parse_command(rules, command)
        async with live.lock:
            # The cache may be behind the store: another process wrote (shared store), or a write's
            # outcome is unknown. Catch up when the caller knows a later sequence; otherwise decide on
            # the cache and let the store's unique (game, sequence) key catch a stale decision.
            caught_up = False
            if live.suspect or (expected_sequence is not None and expected_sequence > live.sequence):
                await self._catch_up(live)
                caught_up = True
            attempts = 0
            while True:
                if expected_sequence is not None and expected_sequence != live.sequence:
                    raise _stale(live, expected_sequence)
                outcome = rules.decide(live.state, seat, parsed)
                if isinstance(outcome, Rejection):
                    if self.shared and not caught_up:  # refuse on the latest state only
                        await self._catch_up(live)
                        caught_up = True
                        continue
                    raise Rejected(outcome)
                events = list(outcome)
                control = live.control
                if control is not None:
                    now = self.now_ms()
                    late_ms = None if by_bot else late(control, live.state, seat, now)
                    if late_ms is not None:
                        raise DeadlinePassed(seat, 0, late_ms=late_ms)
                    charged = not by_bot and seat not in live.state.bots
                    events, state = seal(rules, control, live.header.players, live.state,
                                         [*events, *taking_back(live.state, seat, by_bot)], seat, charged, now)
                else:
                    state = fold(rules, live.state, events)
                servable(rules, live.header.game, events, state)  # before the clocks count the move
                if self.clock_hook is not None:
                    hooked = self.clock_hook(live, seat, events)
                    state = fold(rules, state, hooked[len(events):])  # the hook adds events after the batch
                    events = hooked
                first = live.sequence + 1
                attempts += 1
                recorded = msgspec.to_builtins(parsed)  # the command as the rules read it
                notes = live.chain(first, events, seat, recorded)
                try:
                    sequence = await self._append(live, events, (seat, recorded), notes)
                except StaleSequence:
                    await self._catch_up(live)  # another process wrote first: reload what it wrote
                    caught_up = True
                    if expected_sequence is None and attempts < SUBMIT_ATTEMPTS:
                        continue  # no sequence was asked for: decide again on the latest state
                    raise _stale(live, live.sequence if expected_sequence is None else expected_sequence) from None
                except StoreUnavailable:
                    live.suspect = True  # the insert may or may not have happened
                    raise
                break
            head = notes[-1].hash
            live.state, live.sequence = state, sequence
            live.head = bytes.fromhex(head) if head else b""
            self._publish(live, first, events, notes)
            self._clocked(live)
            if self.snapshots.due(first - 1, sequence):
                self._spawn(self._snapshot(live.game_id, live.header.game, sequence, state))
            over = rules.is_over(state)
            if over:
                self._retire(live.game_id)
        entries = entries_for(rules, first, events, seat, await self._disclosed(live, over), notes)
        return Accepted(live.header.game, seat, sequence, entries, head)

    async def record(
        self, game_id: str, expected_sequence: int | None, decide: Callable[[GameRules, Any], Sequence[Any] | None],
        *, token: TokenRecord | None = None,
    ) -> int | None:
        """Write a batch the service decided itself, with no seat's command (a seat's clock ran out,
        a seat resigned or was handed over, a token was reissued).

        ``decide(rules, state)`` gives the batch's events on the state at ``expected_sequence``
        (None: the latest; None or no events from ``decide``: nothing to write; it may raise a
        ServiceError to refuse). Returns the new sequence, or None when nothing was written (the
        game had moved on: the caller decides again on the new state). A game with a time control
        gets the batch's clock mark. ``token``: a reissued token's hash, written in the same insert.
        """
        live = await self._get(game_id)
        rules = live.rules
        async with live.lock:
            if live.suspect or self.shared:
                await self._catch_up(live)
            if expected_sequence is not None and expected_sequence != live.sequence:
                return None
            events = list(decide(rules, live.state) or ())
            if not events:
                return None
            if live.control is not None:
                events, state = seal(rules, live.control, live.header.players, live.state, events, None, False,
                                     self.now_ms())
            else:
                state = fold(rules, live.state, events)
            servable(rules, live.header.game, events, state)
            first = live.sequence + 1
            notes = live.chain(first, events)
            try:
                if token is None:
                    sequence = await self._append(live, events, None, notes)
                else:
                    sequence = await self._run(self.store.reissue, live.game_id, live.header.game, live.sequence,
                                               events, [note.hash for note in notes],
                                               live.state.reissued.get(token.seat, 0) + 1, token)
            except StaleSequence:
                await self._catch_up(live)
                return None
            live.state, live.sequence = state, sequence
            live.head = bytes.fromhex(notes[-1].hash) if notes[-1].hash else b""
            if token is not None:
                live.token_hashes = [*live.hashes()]
                live.token_hashes[token.seat] = token.token_hash
                live.seats_by_digest.clear()
            self._publish(live, first, events, notes)
            self._clocked(live)
            if rules.is_over(state):
                self._retire(live.game_id)
        return sequence

    async def _snapshot(self, game_id: UUID, game: str, sequence: int, state: Any) -> None:
        try:
            await self._run(self.snapshots.save, game_id, game, sequence, state)
        except StoreUnavailable as error:  # only loading gets slower
            log.warning("snapshot of %s at %d not written: %s", game_id, sequence, error)

    async def _catch_up(self, live: _Live) -> None:
        """Fold and publish events another writer added after our cached sequence (lock held)."""
        if not live.started:  # seats may have committed or revealed through another process
            await self._run(self._load, live)
            live.suspect = False
            return
        events, notes = _notes(await self._run(self.store.log, live.game_id, live.rules, live.sequence))
        live.suspect = False
        if events:
            first = live.sequence + 1
            live.state = fold(live.rules, live.state, events)
            live.sequence += len(events)
            live.head = bytes.fromhex(notes[-1].hash) if notes[-1].hash else b""
            if any(type(event) is TokenReissued for event in events):
                await self._run(self._load_tokens, live)  # another process reissued a token
            self._publish(live, first, events, notes)
            self._clocked(live)

    # -- the cross-process feed (shared stores) -----------------------------------------

    def _on_written(self, written: dict[UUID, int]) -> None:
        """The feed saw these games written up to these sequences: catch up the watched ones."""
        for game_id, sequence in written.items():
            live = self._live.get(game_id)
            if live is not None and self._followed(live) and sequence > live.sequence and not live.waking:
                live.waking = True
                self._spawn(self._wake(live))

    def _on_resync(self) -> None:
        """The feed (re)opened its subscription: catch up every watched game once (service/feed.py)."""
        self._on_written({key: 1 << 62 for key, live in self._live.items() if self._followed(live)})

    async def _wake(self, live: _Live) -> None:
        delay = 0.1
        while self._followed(live):
            async with live.lock:
                live.waking = False  # a notification from now on needs another read
                try:
                    await self._catch_up(live)
                    return
                except StoreUnavailable:
                    live.waking = True
            await asyncio.sleep(delay)  # the store is down: the watchers wait, retry later
            delay = min(delay * 2, 5.0)
        live.waking = False

    def _followed(self, live: _Live) -> bool:
        """Whether the game is kept up to date with other processes' writes: it has watchers, or the table
        clocks follow it (:attr:`followed`)."""
        return bool(live.subscribers) or live.game_id in self.followed

    def follow(self, game_id: str, following: bool = True) -> None:
        """Keep a game cached and caught up with other processes' writes without a watcher (the table
        clocks: ``on_clocked`` is called after each catch-up), or stop."""
        key = _game_uuid(game_id)
        if following:
            self.followed.add(key)
        else:
            self.followed.discard(key)

    def _publish(self, live: _Live, first: int, events: Sequence[Any], notes: Sequence[Note]) -> None:
        if not events:
            return
        item = (first, live.sequence, events, live.state, notes)
        for subscriber in live.subscribers:
            try:
                subscriber.queue.put_nowait(item)
            except asyncio.QueueFull:
                subscriber.lagged = True

    async def legal_listing(self, game_id: str, token: str | None) -> LegalListing:
        """The caller's seat's legal commands, all of them, as the game lists them (lazily), in this
        process: for players and tools that run here. (A costly position's count then runs on the
        event loop: the service's own calls go through :meth:`legal_commands` and :meth:`choose`.)"""
        live = await self._fresh(game_id)
        seat = self._seat(live, token, required=True)
        assert seat is not None
        return LegalListing(live.header.game, live.sequence, seat, self._listing(live, seat))

    def _listing(self, live: _Live, seat: int) -> Sequence[Any]:
        """The seat's listing at the live game's sequence, kept for the calls that follow."""
        key = (live.game_id, live.sequence, seat)
        listing = self._listings.get(key)
        if listing is None:
            listing = self._listings[key] = live.rules.legal_commands(live.state, seat)
            if len(self._listings) > LISTINGS_KEPT:
                self._listings.popitem(last=False)
        else:
            self._listings.move_to_end(key)
        return listing

    async def legal_commands(
        self, game_id: str, token: str | None, offset: int = 0, page_size: int = 0, *, wire: int = 0
    ) -> LegalCommands:
        """A page of the caller's seat's legal commands: ``page_size`` (0: the default) from ``offset``.

        Only the page is made: a Seep floor under the option to throw a card that could capture
        can have more than 10^17 groupings, which no list (and no message) could hold. A page
        whose commands take more than ``PAGE_SECONDS`` to make ends there (a short page: ask
        again from ``offset + size``). A position the game calls costly is listed in a worker
        process, and so is a page of more than ``LOOP_COMMANDS`` commands (``wire``: encoded there for
        the field of that number, see :class:`LegalCommands`).
        """
        if offset < 0:
            raise InvalidRequest(f"offset is a command's index (0 or more), not {offset}", reason="INVALID_PAGE")
        if not 0 <= page_size <= MAX_PAGE_SIZE:
            raise InvalidRequest(
                f"page_size is 1..{MAX_PAGE_SIZE:,} (0 for {DEFAULT_PAGE_SIZE:,}), not {page_size}",
                reason="INVALID_PAGE",
            )
        live = await self._fresh(game_id)
        seat = self._seat(live, token, required=True)
        assert seat is not None
        game, sequence, size = live.header.game, live.sequence, page_size or DEFAULT_PAGE_SIZE
        if not costly(live.rules, live.state, seat):
            commands = self._listing(live, seat)
            total = len(commands)
            end = min(total, offset + size)
            if end - offset <= LOOP_COMMANDS:
                return LegalCommands(game, sequence, seat, page_of(commands, offset, end, PAGE_SECONDS), total, offset)
        total, page = await self._work("page", live, seat, offset, size, PAGE_SECONDS, wire)
        if wire:
            count, encoded = page
            return LegalCommands(game, sequence, seat, [], total, offset, encoded, count)
        return LegalCommands(game, sequence, seat, page, total, offset)

    async def choose(
        self, game_id: str, token: str | None, sequence: int, policy: Any, view: Any, rng: Any,
        *, searches: bool = False, in_thread: bool = False, fallback: Any = None, seat: int | None = None,
    ) -> Any:
        """A built-in bot's decision for the token's seat at ``sequence``: ``policy.choose(view,
        legal commands, rng)``, or None when the game has moved past ``sequence`` (or the seat has no
        command). Decided in a worker process when the policy ``searches`` (its decision is many
        playouts anywhere), when the game calls the position costly, or among more than
        ``LOOP_COMMANDS`` commands; here otherwise (in a thread with ``in_thread``).
        A decision past the workers' deadline is WorkDeadline (WorkersBusy when no worker was free
        in time), or with a ``fallback`` policy (a random one: a count and one pick) decided again by
        it (logged). ``seat``: decide for that seat with no token (the service's own bots).
        """
        try:
            return await self._choose(game_id, token, sequence, policy, view, rng, searches, in_thread, seat)
        except (WorkDeadline, WorkersBusy) as error:
            if fallback is None:
                raise
            log.warning("game %s at %d: %s; %s decides instead", game_id, sequence, error, type(fallback).__name__)
            return await self._choose(game_id, token, sequence, fallback, view, rng, False, in_thread, seat)

    async def _choose(
        self, game_id: str, token: str | None, sequence: int, policy: Any, view: Any, rng: Any, searches: bool,
        in_thread: bool, seat: int | None = None,
    ) -> Any:
        live = await self._fresh(game_id)
        if seat is None:
            seat = self._seat(live, token, required=True)
        assert seat is not None
        if live.sequence != sequence:
            return None
        if not searches and not costly(live.rules, live.state, seat):
            commands = self._listing(live, seat)
            if not commands:
                return None
            if len(commands) <= LOOP_COMMANDS:
                if in_thread:
                    return await asyncio.to_thread(policy.choose, view, commands, rng)
                return policy.choose(view, commands, rng)
        return await self._work("choose", live, seat, view, policy, rng)

    async def _work(self, kind: str, live: _Live, seat: int, *args: Any) -> Any:
        """The worker task ``kind`` (cardgames.service.workers.TASKS) on the seat's position, as a ServiceError if it fails."""
        # the worker runs the game's own rules on the game's own state (the seat-event wrapper's
        # class is made at run time: it does not pickle)
        state = live.state.game if isinstance(live.rules, SeatRules) else live.state
        key = (str(live.game_id), live.sequence, seat)
        try:
            return await self.pool.run(kind, live.header.game, key, state, seat, *args, owner=live.game_id, key=key)
        except TimedOut as error:
            what = "a bot's decision" if kind == "choose" else "the legal commands"
            raise WorkDeadline(f"{what} took longer than the server allows ({self.pool.deadline:g} s)",
                               deadline_ms=str(round(self.pool.deadline * 1000)), work=kind) from error
        except Busy as error:
            raise WorkersBusy(f"{error}: retry later", work=kind) from error
        except Failed as error:
            raise WorkerFailed(f"the engine workers could not do it: {error}", work=kind) from error

    # -- reading -------------------------------------------------------------------

    async def view(self, game_id: str, token: str | None, sequence: int | None = None) -> ViewResult:
        """The caller's view at the latest sequence, or at ``sequence`` (the log's prefix folded)."""
        live = await self._fresh(game_id)
        viewer = self._seat(live, token, required=False)
        current, state = live.sequence, live.state
        if sequence is None or sequence == current:
            return self._view(live, state, current, viewer)
        if not 1 <= sequence <= current:
            raise InvalidRequest(f"sequence {sequence} is not in 1..{current}", reason="INVALID_SEQUENCE")
        earlier, _ = await self._run(self._state_at, live.game_id, live.rules, live.header, sequence)
        _, head = await self._run(self.store.head, live.game_id, sequence)
        return self._view(live, earlier, sequence, viewer, bytes.fromhex(head))

    async def log(self, game_id: str, token: str | None, after: int = 0, limit: int = 0) -> LogResult:
        """The events after ``after`` as the caller may see them (all of them once the match is over)."""
        live = await self._fresh(game_id, started=False)
        viewer = self._seat(live, token, required=False)
        if after < 0 or limit < 0:
            raise InvalidRequest("after_sequence and limit are not negative", reason="INVALID_SEQUENCE")
        if not live.started:
            return LogResult(live.header.game, 0, [], live.log_header())
        current, over = live.sequence, await self._disclosed(live, live.rules.is_over(live.state))
        upto = current if limit == 0 else min(current, after + limit)
        pairs = await self._run(self.store.log, live.game_id, live.rules, after, upto) if after < upto else []
        events, notes = _notes(pairs)
        revealed = reveal(live.header.seed, live.entropies) if over and live.header.seed else None
        return LogResult(live.header.game, current, entries_for(live.rules, after + 1, events, viewer, over, notes),
                         live.log_header(), revealed, live.head.hex())

    async def watch(
        self, game_id: str, token: str | None, after: int | None = None, *, presence: bool = False
    ) -> AsyncGenerator[WatchItem, None]:
        """The caller's view, then each new batch of events with the view after it.

        With ``after``, the first item carries every event after that sequence (read from the
        store), so a watcher that reconnects misses nothing and sees nothing twice. The stream
        ends after the item in which the match is over. ``presence``: also an item (no entries) each
        time a seat comes or goes (its first Watch stream opens, its last closes).
        """
        live = await self._fresh(game_id)
        viewer = self._seat(live, token, required=False)
        if after is not None and not 0 <= after <= live.sequence:
            raise InvalidRequest(f"after_sequence {after} is not in 0..{live.sequence}", reason="INVALID_SEQUENCE")
        subscriber = _Subscriber(presence=presence)
        live.subscribers.add(subscriber)  # now, with the current state: nothing falls in between
        return self._watch(live, viewer, after, subscriber, live.sequence, live.state)

    async def _watch(
        self, live: _Live, viewer: Viewer, after: int | None, subscriber: _Subscriber, current: int, state: Any
    ) -> AsyncGenerator[WatchItem, None]:
        rules = live.rules
        if viewer is not None:
            self._present(live, viewer, 1)
        try:
            if after is None:
                item = WatchItem(current, [], self._view(live, state, current, viewer))
            else:
                item = await self._read_since(live, viewer, after, current, state)
            yield item
            last = item.sequence
            if item.view.over:
                return
            while True:
                if subscriber.lagged:  # its queue overflowed: read what it missed from the store
                    subscriber.lagged = False
                    item = await self._read_since(live, viewer, last, live.sequence, live.state)
                    if item.entries:
                        yield item
                    last = item.sequence
                    if item.view.over:
                        return
                    continue
                got = await subscriber.queue.get()
                if isinstance(got, _Presence):  # not part of the log: the view as it was, and who came or went
                    now = self._view(live, live.state, last, viewer) if last == live.sequence else item.view
                    yield WatchItem(last, [], now, ((got.seat, got.connected),))
                    continue
                first, sequence, events, state, notes = got
                if sequence <= last:
                    continue  # already delivered by a read of the store
                over = rules.is_over(state)
                start = max(first, last + 1)
                shows = await self._disclosed(live, over)
                item = WatchItem(
                    sequence,
                    entries_for(rules, start, events[start - first :], viewer, shows, notes[start - first :]),
                    self._view(live, state, sequence, viewer, bytes.fromhex(notes[-1].hash)),
                )
                yield item
                last = sequence
                if over:
                    return
        finally:
            live.subscribers.discard(subscriber)
            if viewer is not None:
                self._present(live, viewer, -1)

    def _present(self, live: _Live, seat: int, change: int) -> None:
        """A Watch stream of ``seat`` opened (+1) or closed (-1); the seat's watchers hear when it comes or goes."""
        if len(live.presence) < live.header.players:
            live.presence = [0] * live.header.players
        before = live.presence[seat]
        live.presence[seat] = max(0, before + change)
        if (before > 0) == (live.presence[seat] > 0):
            return
        news = _Presence(seat, live.presence[seat] > 0)
        for subscriber in live.subscribers:
            if not subscriber.presence:
                continue
            try:
                subscriber.queue.put_nowait(news)
            except asyncio.QueueFull:
                subscriber.lagged = True

    async def _read_since(self, live: _Live, viewer: Viewer, last: int, current: int, state: Any) -> WatchItem:
        """The events in (last, current] read from the store, and the view at ``current`` (``state``)."""
        pairs = await self._run(self.store.log, live.game_id, live.rules, last, current) if last < current else []
        events, notes = _notes(pairs)
        over = await self._disclosed(live, live.rules.is_over(state))
        head = bytes.fromhex(notes[-1].hash) if notes else None
        return WatchItem(
            current,
            entries_for(live.rules, last + 1, events, viewer, over, notes),
            self._view(live, state, current, viewer, head),
        )


def costly(rules: GameRules, state: Any, seat: int) -> bool:
    """Whether listing ``seat``'s commands may take more than a few milliseconds: the game's own cheap
    test (``costly(state, seat)``: Seep's floors past 16 loose cards); a game without one has none."""
    if isinstance(rules, SeatRules):
        if state.forfeited is not None:
            return False  # nothing to list
        rules, state = rules.rules, state.game
    test = getattr(rules, "costly", None)
    return test is not None and bool(test(state, seat))


def store_is_shared(store: EventStore) -> bool:
    """Whether other processes may write to this store: a PostgreSQL database."""
    return str(store.env.get("PERSISTENCE_MODULE", "")).endswith("postgres")


def _mark_suspect(live: _Live) -> None:
    live.suspect = True


#: Exceptions of a store that failed (as opposed to a refused write or a missing game).
STORE_FAILURES: tuple[type[BaseException], ...] = (PersistenceError, OSError, sqlite3.Error)


def _status(live: _Live) -> EntropyStatus:
    commitments, entropies = live.commitments or [], live.entropies or []
    return EntropyStatus(len(commitments), sum(map(bool, commitments)), sum(map(bool, entropies)), live.started,
                         live.sequence, live.head.hex())


def _stale(live: _Live, expected: int) -> StaleSequenceError:
    return StaleSequenceError(
        f"expected sequence {expected}, but the game is at {live.sequence}: fetch the view and retry",
        expected=str(expected),
        sequence=str(live.sequence),
    )


def _rules(game: str) -> GameRules:
    try:
        return with_seat_events(get_game(game))
    except (UnknownGame, ModuleNotFoundError) as error:
        raise UnknownGameError(f"unknown game {echo(game)}", game=clip(game, 64)) from error


@lru_cache(maxsize=4096)
def _parse_uuid(text: str) -> UUID:
    return UUID(text)


def _game_uuid(game_id: str) -> UUID:
    try:
        return _parse_uuid(game_id)  # every call of a game names it: parse each id once
    except (ValueError, TypeError, AttributeError) as error:
        raise InvalidRequest(f"not a game id: {echo(game_id)}", reason="INVALID_GAME_ID") from error
