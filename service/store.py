"""The event store: one stream per game on the eventsourcing library's application recorder.

Each game is one stream (``originator_id`` = the game's UUID). Version 0 holds the game's
:class:`Header` (game name, config, players, the sha256 of each seat token, never the
tokens); versions 1, 2, ... hold the game's events, so an event's version is its sequence
number and a game's sequence is its last event's version. A record's ``state`` is this
module's own msgspec JSON encoding of the engine's tagged event struct (decoded straight
into the game's ``Event`` union: no aggregate, no transcoder), its ``topic`` is
``cardgames.<game>.<event tag>``.

For the audit log (docs/log-format.md) a record's JSON object starts with reserved keys
before the event's own: ``"@hash"``, the log's chain hash after this event (computed by
the application layer over the canonical encoding, never over these bytes), and on the
first record of a command's batch ``"@seat"`` (who sent it) and ``"@command"`` (the
FORMAT.md command as the rules parsed it). Decoding the event ignores them (unknown
keys), so the hot path of a replay does not change; :meth:`EventStore.log` and
:meth:`EventStore.head` read them back.

A game created with seat entropy has a second stream, ``entropy_stream(game_id)``: one
record per seat's commitment and per seat's reveal, in the order they arrived. The last
reveal and the start events of the match are written in one insert.

All the events of one command are written in ONE ``insert_events`` call (one transaction);
the recorder's primary key (originator_id, originator_version) is the optimistic
concurrency check: a second writer at the same sequence gets the library's
IntegrityError, raised here as :class:`StaleSequence`, and nothing of its batch is written.

Where the store lives is given by a URL (``--store`` or ``CARDGAMES_STORE``):

* ``memory:``: the library's plain-Python recorder (tests);
* ``sqlite:///abs/path/file.sqlite`` (the URL's path, as in file URLs;
  ``sqlite:///./data/x.sqlite`` is relative to the working directory), folder created;
  ``?synchronous=full`` makes every commit wait for the disk (see :func:`tune_sqlite`);
* ``postgresql://user[:password]@host[:port]/dbname[?schema=name]``.

Without a URL: ``CARDGAMES_STORE``, else the library's own environment when it names a
``PERSISTENCE_MODULE`` (``SQLITE_DBNAME``, ``POSTGRES_*``), else the SQLite file
``./data/cardgames.sqlite``. The library is synchronous: the application layer calls this
module from worker threads, never on the event loop, except where a call never waits: the
in-memory store's, and a SQLite insert that group commit makes inline (service/batching.py).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Future
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit
from uuid import UUID, uuid5

import msgspec
from eventsourcing.persistence import (
    ApplicationRecorder,
    InfrastructureFactory,
    IntegrityError,
    StoredEvent,
)
from eventsourcing.sqlite import SQLiteConnection, SQLiteConnectionPool
from eventsourcing.utils import Environment

from cardgames.engine.core.protocol import GameRules

DEFAULT_SQLITE = Path("data") / "cardgames.sqlite"
ENV_STORE = "CARDGAMES_STORE"
#: SQLite's ``synchronous`` on the store's connections (the URL's ``?synchronous=``, else this
#: variable): NORMAL by default, FULL or EXTRA to flush the log to disk at every commit.
ENV_SQLITE_SYNCHRONOUS = "CARDGAMES_SQLITE_SYNCHRONOUS"
SQLITE_SYNCHRONOUS = ("NORMAL", "FULL", "EXTRA")
HEADER_VERSION = 0
HEADER_TOPIC = "cardgames.header"
HEADER_FORMAT = 1


class Header(msgspec.Struct, frozen=True):
    """The first record of a game's stream: what the game is and who may act in it.

    The audit fields (docs/log-format.md): the rules version the game was created under,
    the server's seed (secret until the match ends; the store holds secrets anyway, like
    the hidden ``match_seeded`` event) with its public commitment, whether the seed was
    given by the creator, whether the seats add entropy, the first dealer given and the
    number of stacked orders.
    """

    game: str
    players: int
    config: dict[str, Any]
    token_hashes: tuple[str, ...]
    format: int = HEADER_FORMAT
    rules_version: str = ""
    seed: str | None = None
    seed_commitment: str = ""
    seed_given: bool = False
    seat_entropy: bool = False
    dealer: int | None = None
    stacked: int = 0
    #: The stacked orders of a seat-entropy game, kept (secret) until its match starts.
    decks: tuple[tuple[str, ...], ...] = ()
    #: Who withholds the finished match's reveal until it releases it (a tournament's id; "" for none).
    held_by: str = ""
    #: The game's time control (engine/core/time_control.py, plain), None for none; in the log's header.
    time_control: dict[str, Any] | None = None
    #: SHA-256 of the owner's token (CreateGame's ``owner_token``: Abort, HandOver, ReissueToken); "" for none.
    owner_hash: str = ""


class Note(msgspec.Struct, frozen=True):
    """A record's reserved keys: the chain hash after its event, and the command of its batch."""

    hash: str = msgspec.field(name="@hash", default="")
    seat: int | None = msgspec.field(name="@seat", default=None)
    command: dict[str, Any] | None = msgspec.field(name="@command", default=None)


NO_NOTE = Note()


class EntropyRecord(msgspec.Struct, frozen=True):
    """A seat's commitment (``kind="commit"``, SHA-256 of its entropy) or its revealed entropy."""

    seat: int
    kind: str
    value: str


class TokenRecord(msgspec.Struct, frozen=True):
    """A seat's token reissued: the SHA-256 of its new token (never the token)."""

    seat: int
    token_hash: str


class StoreError(Exception):
    """A problem with the store itself (bad URL, unreachable database)."""


class StaleSequence(Exception):
    """Another command was written at this sequence first; nothing of this batch was written."""

    def __init__(self, game_id: UUID, after: int) -> None:
        super().__init__(f"game {game_id}: events after sequence {after} already exist")
        self.game_id = game_id
        self.after = after


class GameNotFound(KeyError):
    def __str__(self) -> str:
        return f"no game with id {self.args[0]}"


# ---------------------------------------------------------------------------
# Where the store is.


def environment_for_url(url: str) -> dict[str, str]:
    """The eventsourcing environment (PERSISTENCE_MODULE, ...) for a store URL."""
    if url in ("memory:", "memory://", "memory"):
        return {"PERSISTENCE_MODULE": "eventsourcing.popo"}
    parts = urlsplit(url)
    if parts.scheme == "sqlite":
        path = unquote(parts.path)
        if parts.netloc:  # sqlite://relative/path
            path = parts.netloc + path
        elif path.startswith(("/./", "/../")):
            path = path[1:]  # sqlite:///./data/x.sqlite: relative to the working directory
        elif path.startswith("//"):
            path = path[1:]  # sqlite:////abs/x.sqlite (SQLAlchemy's absolute form)
        if not path or path == "/":
            raise StoreError(f"the SQLite URL names no file: {url!r}")
        if path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        env = {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": path}
        synchronous = parse_qs(parts.query).get("synchronous")
        if synchronous:
            env[ENV_SQLITE_SYNCHRONOUS] = synchronous[0]
        return env
    if parts.scheme in ("postgresql", "postgres"):
        dbname = unquote(parts.path.lstrip("/"))
        if not dbname or not parts.hostname:
            raise StoreError(f"a PostgreSQL URL needs a host and a database: {url!r}")
        env = {
            "PERSISTENCE_MODULE": "eventsourcing.postgres",
            "POSTGRES_DBNAME": dbname,
            "POSTGRES_HOST": parts.hostname,
            "POSTGRES_PORT": str(parts.port or 5432),
            "POSTGRES_USER": unquote(parts.username or "postgres"),
            "POSTGRES_PASSWORD": unquote(parts.password or ""),
        }
        schema = parse_qs(parts.query).get("schema")
        if schema:
            env["POSTGRES_SCHEMA"] = schema[0]
        return env
    raise StoreError(f"unknown store URL {url!r}: use memory:, sqlite:///path or postgresql://user@host/db")


def resolve_environment(url: str | None = None, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The store's environment: the URL, else CARDGAMES_STORE, else the library's, else SQLite."""
    environ = os.environ if environ is None else environ
    if url:
        return environment_for_url(url)
    if environ.get(ENV_STORE):
        return environment_for_url(environ[ENV_STORE])
    if environ.get("PERSISTENCE_MODULE"):
        env = dict(environ)
        if env.get("SQLITE_DBNAME") and env["SQLITE_DBNAME"] != ":memory:":
            Path(env["SQLITE_DBNAME"]).parent.mkdir(parents=True, exist_ok=True)
        return env
    return environment_for_url(f"sqlite:///./{DEFAULT_SQLITE}")


def describe_environment(env: Mapping[str, str]) -> str:
    """A short, password-free description of where the store is (for logs)."""
    module = env.get("PERSISTENCE_MODULE", "eventsourcing.popo")
    if module.endswith("sqlite"):
        return f"sqlite:{env.get('SQLITE_DBNAME')}"
    if module.endswith("postgres"):
        return f"postgresql://{env.get('POSTGRES_USER')}@{env.get('POSTGRES_HOST')}:" \
               f"{env.get('POSTGRES_PORT', '5432')}/{env.get('POSTGRES_DBNAME')}"
    return "memory"


def tune_sqlite(factory: InfrastructureFactory, synchronous: str | None = None) -> str | None:
    """Set ``PRAGMA synchronous`` (default NORMAL) on every connection of a SQLite file store.

    The library opens SQLite files in WAL mode with SQLite's default ``synchronous=FULL``: every
    commit waits for the write-ahead log to reach the disk (an fsync, 0.5 to several ms, per
    command). With NORMAL a commit is in the WAL file (the operating system's page cache) when it
    returns and the WAL is flushed at checkpoints: an accepted command survives a crash or kill of
    the process (the database stays consistent in every case), and only a power loss or an
    operating-system crash may lose the last commits. FULL (or EXTRA) keeps a flush per commit.
    Call before the first connection is made (the pool opens them lazily). Returns the level
    set, None when the store is not a SQLite file.
    """
    level = (synchronous or "NORMAL").upper()
    if level not in SQLITE_SYNCHRONOUS:
        choices = ", ".join(SQLITE_SYNCHRONOUS)
        raise StoreError(f"unknown SQLite synchronous setting {synchronous!r}: use one of {choices}")
    pool = getattr(getattr(factory, "datastore", None), "pool", None)
    if not isinstance(pool, SQLiteConnectionPool) or pool.is_sqlite_memory_mode:
        return None
    connect = pool._create_connection

    def tuned() -> SQLiteConnection:
        connection = connect()
        connection.cursor().execute(f"PRAGMA synchronous={level}")
        return connection

    pool._create_connection = tuned  # type: ignore[method-assign]
    return level


# ---------------------------------------------------------------------------
# Encoding.

_encoder = msgspec.json.Encoder()
_header_decoder = msgspec.json.Decoder(Header)
_note_decoder = msgspec.json.Decoder(Note)
_entropy_decoder = msgspec.json.Decoder(EntropyRecord)
_token_decoder = msgspec.json.Decoder(TokenRecord)
NOTE_PREFIX = b'{"@'
ENTROPY_TOPIC = "cardgames.entropy"
TOKEN_TOPIC = "cardgames.token"
#: The topic of the one record a game with a time control gets beside its header: processes find
#: the clocked games by it (:meth:`EventStore.clocked_games`), at start and as they are created.
CLOCKED_TOPIC = "cardgames.clocked"


@cache
def _event_decoder(event_type: Any) -> msgspec.json.Decoder[Any]:
    return msgspec.json.Decoder(event_type)


def event_tag(event: Any) -> str:
    return str(type(event).__struct_config__.tag)


def encode_event(event: Any) -> bytes:
    return _encoder.encode(event)


def decode_events(game: GameRules, records: Iterable[bytes]) -> list[Any]:
    decode = _event_decoder(game.Event).decode
    return [decode(state) for state in records]


def encode_noted(event: Any, note: Mapping[str, Any]) -> bytes:
    """A record's state: the reserved keys of ``note`` first, then the event's own keys."""
    body = _encoder.encode(event)
    return _encoder.encode(note)[:-1] + b"," + body[1:] if note else body


def decode_note(state: bytes) -> Note:
    """The reserved keys of a record (empty for a record written without them)."""
    return _note_decoder.decode(state) if state.startswith(NOTE_PREFIX) else NO_NOTE


def token_stream(game_id: UUID) -> UUID:
    """The id of a game's stream of reissued tokens (their hashes)."""
    return uuid5(game_id, "cardgames.tokens")


def clocked_stream(game_id: UUID) -> UUID:
    """The id of the stream of a clocked game's one marker record."""
    return uuid5(game_id, "cardgames.clocked")


def entropy_stream(game_id: UUID) -> UUID:
    """The id of a game's seat-entropy stream."""
    return uuid5(game_id, "cardgames.entropy")


# ---------------------------------------------------------------------------
# The store.


class EventStore:
    """Games' event streams on an eventsourcing application recorder (synchronous)."""

    def __init__(self, env: Mapping[str, str]) -> None:
        self.env = dict(env)
        try:
            self.factory = InfrastructureFactory.construct(Environment(env=self.env))
            #: SQLite's synchronous setting on a file store's connections (None: not a SQLite file).
            self.synchronous = tune_sqlite(
                self.factory, self.env.get(ENV_SQLITE_SYNCHRONOUS) or os.environ.get(ENV_SQLITE_SYNCHRONOUS)
            )
            self.recorder: ApplicationRecorder = self.factory.application_recorder()
        except Exception as error:
            raise StoreError(f"cannot open the store ({describe_environment(self.env)}): {error}") from error

    @classmethod
    def from_url(cls, url: str | None = None) -> EventStore:
        """The store a URL names (see :func:`resolve_environment` for the defaults)."""
        return cls(resolve_environment(url))

    def describe(self) -> str:
        return describe_environment(self.env)

    @property
    def in_memory(self) -> bool:
        """The library's plain-Python recorder: its calls never wait (no disk, no network)."""
        return str(self.env.get("PERSISTENCE_MODULE", "")).endswith("popo")

    @property
    def quick_writes(self) -> bool:
        """A commit never waits for the disk (a SQLite file with synchronous=NORMAL): tens of microseconds."""
        return self.synchronous == "NORMAL"

    @property
    def maintenance(self) -> Callable[[], None] | None:
        """The store's periodic upkeep for the group commit's writer thread: none for now.

        Explicit WAL checkpoints from the writer thread (``checkpoint``) crashed the process once
        inside SQLite in CI, so they are off: SQLite checkpoints by itself when its log reaches
        1000 pages, inside whichever commit crosses that point.
        """
        return None

    def checkpoint(self) -> None:
        """Copy SQLite's write-ahead log into the database file (PASSIVE: waits for no reader or writer).

        SQLite does it by itself in whichever commit makes the log 1000 pages long, which may be
        one made inline on the event loop (service/batching.py), disk flushes included; done
        here every few hundred pages, on the group commit's writer thread, that point is not
        reached in normal operation.
        """
        datastore: Any = getattr(self.factory, "datastore", None)
        with datastore.get_connection(commit=False) as connection:
            cursor = connection.cursor()
            cursor.execute("PRAGMA wal_checkpoint(PASSIVE)")
            cursor.fetchall()

    def close(self) -> None:
        self.factory.close()

    def create(self, game_id: UUID, header: Header, events: Sequence[Any], hashes: Sequence[str] = ()) -> int:
        """Write a new game: its header and its start events, in one insert; returns the sequence.

        ``hashes``: the chain hash after each event (kept in its record), when there is a chain.
        """
        records = [StoredEvent(game_id, HEADER_VERSION, HEADER_TOPIC, _encoder.encode(header))]
        records += self._records(game_id, header.game, 0, events, None, hashes)
        if header.time_control is not None:
            records.append(StoredEvent(clocked_stream(game_id), 1, CLOCKED_TOPIC, str(game_id).encode()))
        try:
            self.recorder.insert_events(records)
        except IntegrityError as error:
            raise StaleSequence(game_id, -1) from error
        return len(events)

    def append(
        self,
        game_id: UUID,
        game_name: str,
        after: int,
        events: Sequence[Any],
        command: tuple[int, Any] | None = None,
        hashes: Sequence[str] = (),
    ) -> int:
        """Write the events of one command after sequence ``after``, in one insert.

        ``command`` is ``(seat, FORMAT.md command)``, kept with the first event; ``hashes``
        the chain hash after each event. Raises :class:`StaleSequence` when any of their
        sequences is taken (nothing is written).
        """
        if not events:
            return after
        try:
            self.recorder.insert_events(self._records(game_id, game_name, after, events, command, hashes))
        except IntegrityError as error:
            raise StaleSequence(game_id, after) from error
        return after + len(events)

    def append_later(
        self,
        game_id: UUID,
        game_name: str,
        after: int,
        events: Sequence[Any],
        command: tuple[int, Any] | None = None,
        hashes: Sequence[str] = (),
    ) -> Future[int]:
        """:meth:`append` without waiting: a future of the new sequence (or of :class:`StaleSequence`).

        A recorder that queues its inserts (``submit``: the group commit's writer thread,
        service/batching.py) is only handed the records; with any other the insert is done here.
        """
        outcome: Future[int] = Future()
        submit = getattr(self.recorder, "submit", None)
        if submit is None or not events:
            try:
                outcome.set_result(self.append(game_id, game_name, after, events, command, hashes))
            except BaseException as error:
                outcome.set_exception(error)
            return outcome

        def settle(written: Future[Any]) -> None:
            error = written.exception()
            if error is None:
                outcome.set_result(after + len(events))
            elif isinstance(error, IntegrityError):
                stale = StaleSequence(game_id, after)
                stale.__cause__ = error
                outcome.set_exception(stale)
            else:
                outcome.set_exception(error)

        submit(self._records(game_id, game_name, after, events, command, hashes)).add_done_callback(settle)
        return outcome

    @staticmethod
    def _records(
        game_id: UUID,
        game_name: str,
        after: int,
        events: Sequence[Any],
        command: tuple[int, Any] | None = None,
        hashes: Sequence[str] = (),
    ) -> list[StoredEvent]:
        prefix = f"cardgames.{game_name}."
        if not hashes and command is None:
            return [
                StoredEvent(game_id, after + index, prefix + event_tag(event), _encoder.encode(event))
                for index, event in enumerate(events, start=1)
            ]
        records = []
        for index, event in enumerate(events):
            note: dict[str, Any] = {"@hash": hashes[index]} if hashes else {}
            if index == 0 and command is not None:
                note["@seat"], note["@command"] = command
            records.append(
                StoredEvent(game_id, after + index + 1, prefix + event_tag(event), encode_noted(event, note))
            )
        return records

    # -- seat entropy ---------------------------------------------------------------

    def add_entropy(
        self,
        game_id: UUID,
        version: int,
        record: EntropyRecord,
        start: tuple[str, Sequence[Any], Sequence[str]] | None = None,
    ) -> None:
        """Write a seat's commitment or reveal as record ``version`` of the entropy stream.

        ``start`` (game name, events, hashes): the match's start events, written in the same
        insert (with the last reveal). Raises :class:`StaleSequence` when the version or a
        sequence is taken.
        """
        records = [StoredEvent(entropy_stream(game_id), version, f"{ENTROPY_TOPIC}.{record.kind}",
                               _encoder.encode(record))]
        if start is not None:
            records += self._records(game_id, start[0], 0, start[1], None, start[2])
        try:
            self.recorder.insert_events(records)
        except IntegrityError as error:
            raise StaleSequence(game_id, 0) from error

    # -- reissued tokens and clocked games --------------------------------------------

    def reissue(
        self, game_id: UUID, game_name: str, after: int, events: Sequence[Any], hashes: Sequence[str],
        version: int, record: TokenRecord,
    ) -> int:
        """Write the events of a token's reissue after ``after`` and the new token's hash as record
        ``version`` of the game's token stream, in one insert (StaleSequence when either is taken)."""
        records = [StoredEvent(token_stream(game_id), version, TOKEN_TOPIC, _encoder.encode(record))]
        records += self._records(game_id, game_name, after, events, None, hashes)
        try:
            self.recorder.insert_events(records)
        except IntegrityError as error:
            raise StaleSequence(game_id, after) from error
        return after + len(events)

    def tokens(self, game_id: UUID) -> list[TokenRecord]:
        """A game's reissued tokens' hashes in the order they were written."""
        return [_token_decoder.decode(record.state) for record in self.recorder.select_events(token_stream(game_id))]

    def clocked_games(self, after: int = 0, limit: int = 1000) -> tuple[list[UUID], int]:
        """Ids of games with a time control whose marker comes after notification ``after``, and the
        last notification id read (pass it back as ``after``: a cursor over the notification log)."""
        found = self.recorder.select_notifications(after + 1, limit, topics=[CLOCKED_TOPIC])
        if not found:
            return [], after
        return [UUID(notification.state.decode()) for notification in found], found[-1].id

    def entropy(self, game_id: UUID) -> list[EntropyRecord]:
        """A game's seat-entropy records in the order they were written."""
        records = self.recorder.select_events(entropy_stream(game_id))
        return [_entropy_decoder.decode(record.state) for record in records]

    def header(self, game_id: UUID) -> Header:
        records = self.recorder.select_events(game_id, lte=HEADER_VERSION, limit=1)
        if not records or records[0].originator_version != HEADER_VERSION:
            raise GameNotFound(game_id)
        return _header_decoder.decode(records[0].state)

    def events(self, game_id: UUID, game: GameRules, after: int = 0, upto: int | None = None) -> list[Any]:
        """The game's events with sequence in (after, upto], in order."""
        records = self.recorder.select_events(game_id, gt=max(after, HEADER_VERSION), lte=upto)
        return decode_events(game, (record.state for record in records))

    def log(self, game_id: UUID, game: GameRules, after: int = 0, upto: int | None = None) -> list[tuple[Any, Note]]:
        """The game's events with sequence in (after, upto], each with its record's note."""
        records = self.recorder.select_events(game_id, gt=max(after, HEADER_VERSION), lte=upto)
        decode = _event_decoder(game.Event).decode
        return [(decode(record.state), decode_note(record.state)) for record in records]

    def head(self, game_id: UUID, upto: int | None = None) -> tuple[int, str]:
        """The sequence and the chain hash of the game's last event (at or before ``upto``).

        ``(0, "")`` when it has no event yet; the hash is "" for a record written without one.
        """
        records = self.recorder.select_events(game_id, gt=HEADER_VERSION, lte=upto, desc=True, limit=1)
        if not records:
            return 0, ""
        return records[0].originator_version, decode_note(records[0].state).hash

    def load(self, game_id: UUID, game_for: Any) -> tuple[Header, list[Any]]:
        """The header and every event of a game, in one read. ``game_for(name)`` gives the rules."""
        records = self.recorder.select_events(game_id)
        if not records or records[0].originator_version != HEADER_VERSION:
            raise GameNotFound(game_id)
        header = _header_decoder.decode(records[0].state)
        return header, decode_events(game_for(header.game), (record.state for record in records[1:]))
