"""Group commit: the inserts of concurrent commands (of any games) written in one transaction.

A durable store pays one disk flush per transaction, and the library serializes its inserts
(PostgreSQL: an exclusive table lock, so that notification ids follow commit order; SQLite:
one writer), so with one transaction per command a process writes at most about one
command per flush. :class:`GroupCommit` wraps the application recorder: while one insert is
being written, the inserts that arrive meanwhile queue up, and the next transaction writes
them all (one writer thread takes everything queued and writes it in one insert).

Each command keeps its own all-or-nothing outcome: when the combined insert fails on a
unique key (another writer took one of the sequences), every batch in it is written again
on its own, so only the conflicting command gets the IntegrityError. Any other failure (disk
full, database down) fails every batch of that transaction, none of which was written.
Everything else the recorder does (selects, subscriptions) passes through untouched.

:meth:`GroupCommit.submit` queues an insert and returns at once with a future, so that the
event loop can hand its insert straight to the writer thread and await the outcome (one
thread hop each way, no worker thread blocked in between); ``insert_events`` is the same,
waited for.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from concurrent.futures import Future
from typing import Any

from eventsourcing.persistence import ApplicationRecorder, IntegrityError, StoredEvent

ENV_GROUP_COMMIT = "CARDGAMES_GROUP_COMMIT"
#: At most this many commands' inserts in one transaction.
MAX_BATCH = 256
#: Seconds the writer thread waits for work before it ends.
WRITER_IDLE = 5.0


class _Pending:
    __slots__ = ("future", "records")

    def __init__(self, records: Sequence[StoredEvent]) -> None:
        self.records = records
        self.future: Future[Any] = Future()


class GroupCommit:
    """An application recorder whose ``insert_events`` calls from many threads share transactions.

    One writer thread does every insert (so the store sees one writing connection); callers
    queue their records and wait for the transaction that carried them.
    """

    def __init__(self, recorder: ApplicationRecorder, max_batch: int = MAX_BATCH) -> None:
        self.recorder = recorder
        self.max_batch = max_batch
        self.transactions = 0  #: inserts written (for tests and metrics)
        self.batches = 0  #: commands' inserts written through them
        self._queue: list[_Pending] = []
        self._ready = threading.Condition()
        self._writer: threading.Thread | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.recorder, name)

    def insert_events(self, stored_events: Sequence[StoredEvent], **kwargs: Any) -> Any:
        if kwargs:  # tracking records and the like: not batched
            return self.recorder.insert_events(stored_events, **kwargs)
        return self.submit(stored_events).result()

    def submit(self, stored_events: Sequence[StoredEvent]) -> Future[Any]:
        """Queue an insert for the writer thread; the future holds the recorder's result or error."""
        mine = _Pending(stored_events)
        with self._ready:
            self._queue.append(mine)
            if self._writer is None:
                self._writer = threading.Thread(target=self._write_loop, name="cardgames-writer", daemon=True)
                self._writer.start()
            self._ready.notify()
        return mine.future

    def _write_loop(self) -> None:
        """Write what is queued, one transaction per turn; end after WRITER_IDLE seconds with nothing to do."""
        while True:
            with self._ready:
                if not self._queue and not self._ready.wait_for(lambda: bool(self._queue), WRITER_IDLE):
                    self._writer = None  # a later insert starts a new writer
                    return
                batch, self._queue = self._queue[: self.max_batch], self._queue[self.max_batch :]
            self._write(batch)

    def _write(self, batch: list[_Pending]) -> None:
        if len(batch) == 1:
            self._settle(batch[0])
            return
        records = [record for pending in batch for record in pending.records]
        try:
            ids = self.recorder.insert_events(records)
        except IntegrityError:  # someone's sequence was taken: each alone, so only it fails
            for pending in batch:
                self._settle(pending)
            return
        except BaseException as error:
            for pending in batch:
                pending.future.set_exception(error)
            return
        self.transactions += 1
        self.batches += len(batch)
        start = 0
        for pending in batch:
            end = start + len(pending.records)
            pending.future.set_result(list(ids[start:end]) if ids is not None else None)
            start = end

    def _settle(self, pending: _Pending) -> None:
        try:
            result = self.recorder.insert_events(pending.records)
        except BaseException as error:
            pending.future.set_exception(error)
            return
        self.transactions += 1
        self.batches += 1
        pending.future.set_result(result)


def group_commit(store: Any, max_batch: int = MAX_BATCH) -> GroupCommit | None:
    """Wrap a durable store's recorder (SQLite, PostgreSQL) in a :class:`GroupCommit`, once; None in memory."""
    recorder = store.recorder
    if isinstance(recorder, GroupCommit):
        return recorder
    if store.in_memory or os.environ.get(ENV_GROUP_COMMIT) == "0":  # 0: one transaction per command
        return None
    store.recorder = GroupCommit(recorder, max_batch)
    return store.recorder
