"""Snapshots: a game's folded state every K events, so a long match loads in time flat in its length.

A snapshot is the engine's state struct encoded with msgspec (MessagePack), written in the
eventsourcing library's snapshot store (``InfrastructureFactory.aggregate_recorder("snapshots")``:
its own table next to the events, same backend): ``originator_id`` is the game's id,
``originator_version`` the sequence of the last event folded into it, ``topic``
``cardgames.snapshot.<game>.<fingerprint>``. The fingerprint is a hash of the state type's
msgspec JSON schema: a snapshot written by an engine whose state has another shape is
ignored and the game is folded from its events, as without snapshots.

Loading a game is then: the header, the latest snapshot (if any), the events after it
(at most about K, plus the last command's batch), folded from the snapshot. Snapshots are
only taken at command boundaries (after a command whose events crossed a multiple of K), are
written after the command is answered, and never change the log: deleting every snapshot
only makes loading slower. Two processes writing the same snapshot is harmless (the second
insert conflicts and is ignored).
"""

from __future__ import annotations

import hashlib
import os
import threading
import weakref
from dataclasses import dataclass
from functools import cache
from typing import Any
from uuid import UUID

import msgspec
from eventsourcing.persistence import AggregateRecorder, InfrastructureFactory, IntegrityError, StoredEvent

from cardgames.engine.core.protocol import GameRules
from cardgames.engine.core.replay import fold

ENV_SNAPSHOT_EVERY = "CARDGAMES_SNAPSHOT_EVERY"
#: Default K: a snapshot after the command that crosses each multiple of K events.
DEFAULT_EVERY = 100
TOPIC_PREFIX = "cardgames.snapshot."

_encoder = msgspec.msgpack.Encoder()
#: One snapshot recorder per store (the in-memory one would otherwise be a new, empty one each time).
_recorders: weakref.WeakKeyDictionary[InfrastructureFactory, AggregateRecorder] = weakref.WeakKeyDictionary()
_recorders_lock = threading.Lock()


def snapshot_recorder(factory: InfrastructureFactory) -> AggregateRecorder:
    """The library's snapshot recorder of a store (its ``snapshots`` table), one per store."""
    with _recorders_lock:
        recorder = _recorders.get(factory)
        if recorder is None:
            recorder = _recorders[factory] = factory.aggregate_recorder("snapshots")
        return recorder


@cache
def _decoder(state_type: Any) -> msgspec.msgpack.Decoder[Any]:
    return msgspec.msgpack.Decoder(state_type)


_fingerprints: dict[type, str] = {}
_state_types: dict[str, type] = {}


def fingerprint(kind: type) -> str:
    """A short hash of the state type's shape (its msgspec JSON schema)."""
    found = _fingerprints.get(kind)
    if found is None:
        schema = msgspec.json.encode(msgspec.json.schema(kind), order="sorted")
        found = _fingerprints[kind] = hashlib.sha256(schema).hexdigest()[:16]
    return found


def state_type(rules: GameRules, config: Any) -> type:
    """The game's state struct type (one per game)."""
    found = _state_types.get(rules.NAME)
    if found is None:
        found = _state_types[rules.NAME] = type(rules.initial(config))
    return found


def every_from_env(environ: dict[str, str] | None = None) -> int:
    """K from ``CARDGAMES_SNAPSHOT_EVERY`` (0 turns snapshots off), else the default."""
    value = (os.environ if environ is None else environ).get(ENV_SNAPSHOT_EVERY, "")
    return int(value) if value.strip() else DEFAULT_EVERY


@dataclass(frozen=True)
class Snapshot:
    sequence: int
    state: Any


class SnapshotStore:
    """Snapshots of games' states on the library's snapshot recorder (synchronous, like the event store)."""

    def __init__(self, factory: InfrastructureFactory, every: int = DEFAULT_EVERY) -> None:
        self.every = max(0, every)
        self.recorder: AggregateRecorder | None = snapshot_recorder(factory) if self.every else None

    def due(self, before: int, after: int) -> bool:
        """Whether a command that moved a game from ``before`` to ``after`` crossed a multiple of K."""
        return bool(self.every) and after // self.every > before // self.every

    def save(self, game_id: UUID, game: str, sequence: int, state: Any) -> bool:
        """Write the state at ``sequence``; False when a snapshot at that sequence exists already."""
        if self.recorder is None:
            return False
        topic = f"{TOPIC_PREFIX}{game}.{fingerprint(type(state))}"
        try:
            self.recorder.insert_events([StoredEvent(game_id, sequence, topic, _encoder.encode(state))])
        except IntegrityError:
            return False
        return True

    def latest(self, game_id: UUID, game: str, kind: type, upto: int | None = None) -> Snapshot | None:
        """The latest usable snapshot at or before ``upto`` (None: none, or none of this state's shape)."""
        if self.recorder is None:
            return None
        records = self.recorder.select_events(game_id, lte=upto, desc=True, limit=1)
        if not records:
            return None
        record = records[0]
        if record.topic != f"{TOPIC_PREFIX}{game}.{fingerprint(kind)}":
            return None
        try:
            return Snapshot(record.originator_version, _decoder(kind).decode(record.state))
        except (msgspec.DecodeError, msgspec.ValidationError):
            return None

    def folded(
        self, game_id: UUID, rules: GameRules, config: Any, events_after: Any, upto: int | None = None
    ) -> tuple[Any, int, int]:
        """The state at ``upto`` (None: the latest), its sequence and the sequence of the snapshot it started
        from (0: none): the latest snapshot, then the events after it.

        ``events_after(after, upto)`` reads the events in (after, upto] from the event store.
        """
        snapshot = self.latest(game_id, rules.NAME, state_type(rules, config), upto)
        start, state = (0, rules.initial(config)) if snapshot is None else (snapshot.sequence, snapshot.state)
        events = events_after(start, upto)
        return fold(rules, state, events), start + len(events), start
