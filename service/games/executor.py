"""The store executor: every blocking store call of the games, off the event loop, with a timeout.

Calls are explicitly reads (:meth:`StoreExecutor.read`: their own threads, so that reads never
queue behind writes, which the store serializes: one insert at a time on PostgreSQL, one writer on
SQLite) or writes (:meth:`StoreExecutor.write`, :meth:`StoreExecutor.append`: the writers'
threads, many, since with group commit they mostly wait for the one that writes for all). With the
in-memory store every call runs right on the event loop (a thread hop would cost more). A store
that fails or does not answer within ``timeout`` makes the request fail with
:class:`~cardgames.service.errors.StoreUnavailable`. Background jobs (snapshots, the feed's
catch-ups) are :meth:`StoreExecutor.spawn`-ed here, and :meth:`StoreExecutor.close` waits for them.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sqlite3
from collections.abc import Callable, Coroutine, Sequence
from concurrent.futures import Executor, ThreadPoolExecutor
from functools import partial
from typing import Any, TypeVar
from uuid import UUID

from eventsourcing.persistence import PersistenceError

from cardgames.service.batching import group_commit
from cardgames.service.errors import StoreUnavailable
from cardgames.service.store import EventStore

T = TypeVar("T")
log = logging.getLogger(__name__)

#: Seconds a store call may take before the request fails with STORE_UNAVAILABLE.
STORE_TIMEOUT = float(os.environ.get("CARDGAMES_STORE_TIMEOUT") or 10.0)
#: Writer threads with group commit (each waits while one writes for all).
WRITERS = 64
#: Exceptions of a store that failed (as opposed to a refused write or a missing game).
STORE_FAILURES: tuple[type[BaseException], ...] = (PersistenceError, OSError, sqlite3.Error)


class StoreExecutor:
    """Runs the store's blocking calls for the event loop (see the module's docstring)."""

    def __init__(self, store: EventStore, *, workers: int = 4, timeout: float = STORE_TIMEOUT) -> None:
        """``workers``: reader threads (and writer threads without group commit)."""
        self.store = store
        self.timeout = timeout
        #: The in-memory store's calls never wait: they run on the event loop.
        self.inline = store.in_memory
        # Writes of concurrent commands share transactions (group commit); their threads mostly
        # wait for the one that writes, so there are many.
        self.group_commit = group_commit(store)
        writers = max(workers, WRITERS) if self.group_commit is not None else workers
        self.writers = ThreadPoolExecutor(max_workers=writers, thread_name_prefix="cardgames-store")
        self.readers = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="cardgames-read")
        self.background: set[asyncio.Task[Any]] = set()

    async def read(self, function: Callable[..., T], *args: Any) -> T:
        """Run a store call that only reads, on the readers' threads."""
        return await self._call(self.readers, function, args, None)

    async def write(self, function: Callable[..., T], *args: Any, on_late: Callable[[], None] | None = None) -> T:
        """Run a store call that writes, on the writers' threads.

        When it takes longer than ``timeout`` the request fails, and ``on_late`` runs when the call
        ends after all (a write may have happened).
        """
        return await self._call(self.writers, function, args, on_late)

    async def append(
        self, game_id: UUID, game: str, sequence: int, events: Sequence[Any], command: tuple[int, Any] | None,
        hashes: Sequence[str], *, on_late: Callable[[], None] | None = None,
    ) -> int:
        """Write a batch after ``sequence`` (``EventStore.append``): the new sequence, or StaleSequence.

        With group commit the records go straight to the writer thread and the loop awaits its
        answer: no worker thread waits in between (one thread hop each way); when nothing else
        is being written to a store whose commits never wait for the disk, the insert is made
        right here (service/batching.py) and its outcome is known at once.
        """
        args = (game_id, game, sequence, events, command, hashes)
        if self.group_commit is None:
            return await self.write(self.store.append, *args, on_late=on_late)
        try:
            written = self.store.append_later(*args)
            if written.done():  # written inline
                return written.result()
        except STORE_FAILURES as error:
            raise _unavailable(error) from error
        return await self._outcome(asyncio.wrap_future(written), "append", on_late)

    def spawn(self, coroutine: Coroutine[Any, Any, Any]) -> None:
        """Run a background job (snapshots, feed catch-ups); :meth:`drain` and :meth:`close` wait for it."""
        task = asyncio.get_running_loop().create_task(coroutine)
        self.background.add(task)
        task.add_done_callback(self.background.discard)

    async def drain(self) -> None:
        """Wait for the background jobs."""
        if self.background:
            await asyncio.gather(*self.background, return_exceptions=True)

    async def close(self) -> None:
        """Wait for the background jobs, then stop the threads (and the group commit's writer)."""
        await self.drain()
        self.shutdown()
        if self.group_commit is not None:
            self.group_commit.close()

    def shutdown(self) -> None:
        """Stop the threads once the calls they run are done."""
        self.writers.shutdown(wait=True)
        self.readers.shutdown(wait=True)

    async def _call(
        self, executor: Executor, function: Callable[..., T], args: Sequence[Any], on_late: Callable[[], None] | None
    ) -> T:
        if self.inline:
            try:
                return function(*args)
            except STORE_FAILURES as error:
                raise _unavailable(error) from error
        name = getattr(function, "__name__", "store call")
        future = asyncio.get_running_loop().run_in_executor(executor, partial(function, *args))
        return await self._outcome(future, name, on_late)

    async def _outcome(self, future: asyncio.Future[T], name: str, on_late: Callable[[], None] | None) -> T:
        """The result of a store call running elsewhere, within ``timeout``."""
        try:
            return await asyncio.wait_for(asyncio.shield(future), self.timeout)
        except TimeoutError:
            if on_late is not None:
                future.add_done_callback(lambda _: on_late())
            log.warning("store call %s did not answer within %gs", name, self.timeout)
            raise StoreUnavailable(f"the store did not answer within {self.timeout:g}s ({name})") from None
        except STORE_FAILURES as error:
            raise _unavailable(error) from error


def _unavailable(error: BaseException) -> StoreUnavailable:
    log.warning("store failure: %s", error)
    return StoreUnavailable(f"the store failed: {error}")
