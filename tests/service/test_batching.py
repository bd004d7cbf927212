"""Group commit (service/batching.py): inline writes when idle, queued ones otherwise, SQLite checkpoints."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from uuid import uuid4

from cardgames.service import batching
from cardgames.service.batching import GroupCommit, group_commit
from cardgames.service.store import EventStore
from eventsourcing.persistence import IntegrityError, StoredEvent


class Recorder:
    """A recorder that notes the thread of each insert (and may be slow or refuse)."""

    def __init__(self, delay: float = 0.0) -> None:
        self.delay = delay
        self.threads: list[str] = []
        self.taken: set[tuple[Any, int]] = set()

    def insert_events(self, stored_events: Sequence[StoredEvent], **_: Any) -> list[int]:
        time.sleep(self.delay)
        keys = {(record.originator_id, record.originator_version) for record in stored_events}
        if keys & self.taken:
            raise IntegrityError("taken")
        self.taken |= keys
        self.threads.append(threading.current_thread().name)
        return list(range(len(stored_events)))


def records(version: int = 1) -> list[StoredEvent]:
    return [StoredEvent(uuid4(), version, "t", b"x")]


def test_a_lone_insert_is_written_in_the_callers_thread(monkeypatch: Any) -> None:
    monkeypatch.setattr(batching, "SLOW_WRITE", 60.0)  # a loaded machine's stall keeps inline writes on here
    recorder = Recorder()
    group = GroupCommit(recorder, inline=True)  # type: ignore[arg-type]
    future = group.submit(records())
    assert future.done() and future.result() == [0]  # no thread hop: done on return
    assert recorder.threads == [threading.current_thread().name] and group.inlined == 1
    taken = records()
    group.submit(taken).result()
    refused = group.submit(taken)
    assert refused.done() and isinstance(refused.exception(), IntegrityError)  # its own outcome, at once


def test_without_inline_every_insert_goes_to_the_writer_thread() -> None:
    recorder = Recorder()
    group = GroupCommit(recorder)  # type: ignore[arg-type]
    assert group.submit(records()).result(timeout=5) == [0]
    assert recorder.threads == ["cardgames-writer"] and group.inlined == 0


def test_inserts_arriving_during_an_inline_write_queue_for_the_writer() -> None:
    recorder = Recorder()
    writing, release = threading.Event(), threading.Event()
    insert = recorder.insert_events

    def held(stored_events: Sequence[StoredEvent], **kwargs: Any) -> list[int]:
        if not writing.is_set():  # the first insert waits until the others are queued
            writing.set()
            release.wait(5)
        return insert(stored_events, **kwargs)

    recorder.insert_events = held  # type: ignore[method-assign]
    group = GroupCommit(recorder, inline=True)  # type: ignore[arg-type]
    first = threading.Thread(target=lambda: group.submit(records()))
    first.start()
    assert writing.wait(5)  # the first one is being written inline
    later = [group.submit(records()) for _ in range(5)]
    assert not any(future.done() for future in later)
    release.set()
    for future in later:
        future.result(timeout=5)
    first.join()
    assert recorder.threads[0] != "cardgames-writer" and set(recorder.threads[1:]) == {"cardgames-writer"}
    assert group.transactions == 2 and group.batches == 6  # the five queued ones shared a transaction


def test_a_slow_inline_write_sends_the_next_ones_to_the_writer_thread() -> None:
    recorder = Recorder(delay=batching.SLOW_WRITE * 2)
    group = GroupCommit(recorder, inline=True)  # type: ignore[arg-type]
    group.submit(records()).result()
    recorder.delay = 0.0
    group.submit(records()).result(timeout=5)
    assert recorder.threads[1] == "cardgames-writer" and group.inlined == 1


def test_sqlite_writes_inline_and_leaves_checkpoints_to_sqlite(tmp_path: Path, monkeypatch: Any) -> None:
    """docs/service.md: synchronous=NORMAL commits are written inline; SQLite checkpoints by itself."""
    monkeypatch.setattr(batching, "SLOW_WRITE", 60.0)  # a loaded machine's stall keeps inline writes on here
    path = tmp_path / "inline.sqlite"
    store = EventStore.from_url(f"sqlite://{path}")
    group = group_commit(store)
    assert group is not None and group.inline
    game = uuid4()
    for version in range(1, 450):  # past the write-ahead log's 1000 pages: SQLite's own checkpoint
        store.recorder.insert_events([StoredEvent(game, version, "t", b"x" * 200)])
    assert group.inlined > 200
    assert len(store.recorder.select_events(game)) == 449
    group.close()
    store.close()
    full = EventStore.from_url(f"sqlite://{tmp_path}/full.sqlite?synchronous=full")
    assert not group_commit(full).inline  # type: ignore[union-attr]  # a commit waits for the disk: not on the loop
    full.close()
