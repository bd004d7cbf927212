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

A store whose inserts never wait for the disk (SQLite with ``synchronous=NORMAL``: a commit
is a write into the page cache, tens of microseconds) is written *inline* when nothing else
is: with no insert queued or being written, ``submit`` writes in the caller's thread (the
event loop) and returns a done future, so a lone client pays no thread hop at all. Inserts
that arrive while one is written queue up for the writer thread as above. A write that took
long (the disk is slow or a lock is held) turns the inline path off for a while. Nothing else
runs on the writer thread: SQLite checkpoints its write-ahead log by itself (docs/service.md).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Sequence
from concurrent.futures import Future
from typing import Any

from eventsourcing.persistence import ApplicationRecorder, IntegrityError, StoredEvent

ENV_GROUP_COMMIT = "CARDGAMES_GROUP_COMMIT"
#: At most this many commands' inserts in one transaction.
MAX_BATCH = 256
#: Seconds the writer thread waits for work before it ends.
WRITER_IDLE = 5.0
#: An inline write slower than this (seconds: a slow disk, a lock held elsewhere; well above a
#: preempted thread's delay) turns inline writes off for INLINE_PAUSE seconds.
SLOW_WRITE = 0.1
INLINE_PAUSE = 5.0
log = logging.getLogger(__name__)


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

    def __init__(self, recorder: ApplicationRecorder, max_batch: int = MAX_BATCH, *, inline: bool = False) -> None:
        """``inline``: write in the caller's thread when nothing else is being written (a store
        whose commits never wait for the disk).
        """
        self.recorder = recorder
        self.max_batch = max_batch
        self.inline = inline
        self.transactions = 0  #: inserts written (for tests and metrics)
        self.batches = 0  #: commands' inserts written through them
        self.inlined = 0  #: of which written in the caller's thread
        self._queue: list[_Pending] = []
        self._ready = threading.Condition()
        self._writer: threading.Thread | None = None
        self._busy = False  #: an insert is being written (inline or by the writer thread)
        self._inline_after = 0.0  #: monotonic time before which inline writes are off
        self._closed = False

    def __getattr__(self, name: str) -> Any:
        return getattr(self.recorder, name)

    def insert_events(self, stored_events: Sequence[StoredEvent], **kwargs: Any) -> Any:
        if kwargs:  # tracking records and the like: not batched
            return self.recorder.insert_events(stored_events, **kwargs)
        return self.submit(stored_events).result()

    def submit(self, stored_events: Sequence[StoredEvent]) -> Future[Any]:
        """Queue an insert for the writer thread (or write it here, see the module's docstring).

        The future holds the recorder's result or error; it is done on return when the insert
        was written inline.
        """
        mine = _Pending(stored_events)
        with self._ready:
            here = self.inline and not self._busy and not self._queue and time.monotonic() >= self._inline_after
            if here:
                self._busy = True
            else:
                self._queue.append(mine)
                self._wake_writer()
        if here:
            self._write_inline(mine)
        return mine.future

    def _write_inline(self, mine: _Pending) -> None:
        started = time.monotonic()
        try:
            self._settle(mine)
        finally:
            took = time.monotonic() - started
            with self._ready:
                self._busy = False
                self.inlined += 1
                if took > SLOW_WRITE:
                    self._inline_after = time.monotonic() + INLINE_PAUSE
                    log.info("an inline insert took %.0f ms: inserts go through the writer thread for %gs",
                             took * 1000, INLINE_PAUSE)
                if self._queue:
                    self._wake_writer()

    def close(self, timeout: float = 10.0) -> None:
        """Let the writer thread finish what is queued, then stop it: the store may close after this.

        A store closed under a running writer (an insert mid-way on a connection being closed)
        can crash the process inside SQLite, so the owner calls this before closing the store.
        """
        with self._ready:
            self._closed = True
            writer = self._writer
            self._ready.notify_all()
        if writer is not None and writer is not threading.current_thread():
            writer.join(timeout)

    def _wake_writer(self) -> None:
        """Start the writer thread if needed and tell it there is work (lock held)."""
        if self._writer is None:
            self._writer = threading.Thread(target=self._write_loop, name="cardgames-writer", daemon=True)
            self._writer.start()
        self._ready.notify()

    def _has_work(self) -> bool:
        return not self._busy and (bool(self._queue) or self._closed)

    def _write_loop(self) -> None:
        """Write what is queued, one transaction per turn; end after WRITER_IDLE seconds with nothing to do."""
        while True:
            with self._ready:
                if not self._has_work() and not self._ready.wait_for(self._has_work, WRITER_IDLE):
                    self._writer = None  # a later insert starts a new writer
                    return
                if self._closed and not self._queue:
                    self._writer = None
                    return
                batch, self._queue = self._queue[: self.max_batch], self._queue[self.max_batch :]
                self._busy = True  # no inline write meanwhile
            try:
                if batch:
                    self._write(batch)
            finally:
                with self._ready:
                    self._busy = False

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
        self._count(len(batch))
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
        self._count(1)
        pending.future.set_result(result)

    def _count(self, batches: int) -> None:
        """Count a transaction of ``batches`` commands' inserts."""
        self.transactions += 1
        self.batches += batches


def group_commit(store: Any, max_batch: int = MAX_BATCH) -> GroupCommit | None:
    """Wrap a durable store's recorder (SQLite, PostgreSQL) in a :class:`GroupCommit`, once; None in memory."""
    recorder = store.recorder
    if isinstance(recorder, GroupCommit):
        return recorder
    if store.in_memory or os.environ.get(ENV_GROUP_COMMIT) == "0":  # 0: one transaction per command
        return None
    store.recorder = GroupCommit(recorder, max_batch, inline=store.quick_writes)
    return store.recorder
