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

Where the store lives is given by a URL (``--store`` or ``CARDGAMES_STORE``; service/store_location.py):

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
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import Future
from functools import cache
from typing import Any
from uuid import UUID, uuid5

import msgspec
from eventsourcing.persistence import (
    ApplicationRecorder,
    InfrastructureFactory,
    IntegrityError,
    StoredEvent,
)
from eventsourcing.utils import Environment

from cardgames.engine.core.protocol import GameRules
from cardgames.service.store_location import (
    ENV_SQLITE_SYNCHRONOUS,
    ENV_STORE,
    StoreError,
    describe_environment,
    environment_for_url,
    resolve_environment,
    tune_sqlite,
)

#: Also importable from here: where the store is (service/store_location.py).
__all__ = [
    "ENV_STORE",
    "EntropyRecord",
    "EventStore",
    "GameNotFound",
    "Header",
    "Note",
    "StaleSequence",
    "StoreError",
    "environment_for_url",
    "resolve_environment",
]

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
# Encoding.

_encoder = msgspec.json.Encoder()
_header_decoder = msgspec.json.Decoder(Header)
_note_decoder = msgspec.json.Decoder(Note)
_entropy_decoder = msgspec.json.Decoder(EntropyRecord)
NOTE_PREFIX = b'{"@'
ENTROPY_TOPIC = "cardgames.entropy"


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

    def close(self) -> None:
        self.factory.close()

    def create(self, game_id: UUID, header: Header, events: Sequence[Any], hashes: Sequence[str] = ()) -> int:
        """Write a new game: its header and its start events, in one insert; returns the sequence.

        ``hashes``: the chain hash after each event (kept in its record), when there is a chain.
        """
        records = [StoredEvent(game_id, HEADER_VERSION, HEADER_TOPIC, _encoder.encode(header))]
        records += self._records(game_id, header.game, 0, events, None, hashes)
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
