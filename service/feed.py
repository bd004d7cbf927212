"""The cross-process feed: one subscription to the store's notification log per process.

When several service processes share one PostgreSQL store, a command accepted by one of
them must reach the ``Watch`` streams open on the others. Each process holds ONE
subscription of the eventsourcing library (``ApplicationRecorder.subscribe``: on
PostgreSQL a LISTEN connection woken by the NOTIFY that every insert sends, then a
``select_notifications`` of what is new) in a background thread. The thread only notes, per
game, the highest sequence written; the event loop then asks the application layer to catch
those games up (one read of the game's stream, which sees whole commands: a command's events
are committed in one transaction) and to fan the events out to the process's watchers. No
client polls, and the per-process cost of a write is one notification, whoever watches.

The subscription starts after the log's current end (history is read from the games'
streams, not from the feed). If it fails (the database went away) it is opened again
after the last notification it delivered, so nothing is skipped, and every watched game
is caught up once more in case.

The library's subscription reads what is new once, then waits for a wake-up; the wake-up
starts listening a moment later (the in-memory recorder registers its listener after the
first read, PostgreSQL's LISTEN runs in a thread of its own). A write that lands in between
would only be seen at the next write, so whenever a subscription opens, every watched game
is caught up at once and again :data:`SETTLE_DELAY` later, when the listener is in place.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from typing import Any
from uuid import UUID

from eventsourcing.persistence import ApplicationRecorder

log = logging.getLogger(__name__)

#: Seconds between attempts to reopen a failed subscription.
RETRY_DELAY = 1.0
#: Seconds after a subscription opens by which its listener is surely in place.
SETTLE_DELAY = 1.0
#: Seconds :meth:`Feed.start` waits for the subscription to open.
START_WAIT = 5.0


class Feed:
    """Notes the games written in the store (by any process) and hands them to the event loop in batches."""

    def __init__(
        self,
        recorder: ApplicationRecorder,
        loop: asyncio.AbstractEventLoop,
        on_written: Callable[[dict[UUID, int]], None],
        on_resync: Callable[[], None],
    ) -> None:
        self.recorder = recorder
        self.loop = loop
        self.on_written = on_written
        self.on_resync = on_resync
        self.delivered = 0  #: notifications handed over (for tests and metrics)
        self._pending: dict[UUID, int] = {}
        self._scheduled = False
        self._mutex = threading.Lock()
        self._stopping = threading.Event()
        self._subscription: Any = None
        self._thread: threading.Thread | None = None
        self._last: int | None = None
        self.started = threading.Event()

    def start(self) -> None:
        """Subscribe after the current end of the log (blocking: call it from a worker thread).

        Returns once the subscription is open, or after :data:`START_WAIT` seconds when the
        store does not answer (the thread goes on trying).
        """
        self._last = self.recorder.max_notification_id() or 0
        self._thread = threading.Thread(target=self._run, name="cardgames-feed", daemon=True)
        self._thread.start()
        if not self.started.wait(START_WAIT):
            log.warning("store subscription not open after %gs; still trying", START_WAIT)

    def stop(self) -> None:
        self._stopping.set()
        subscription = self._subscription
        if subscription is not None:
            subscription.stop()
        if self._thread is not None:
            self._thread.join(timeout=5)

    # -- the feed thread ---------------------------------------------------------------

    def _run(self) -> None:
        failed = False
        while not self._stopping.is_set():
            try:
                with self.recorder.subscribe(gt=self._last) as subscription:
                    self._subscription = subscription
                    self.started.set()
                    if failed:
                        failed = False
                        log.info("store subscription reopened after notification %s", self._last)
                    self._resync_now_and_later()
                    if self._stopping.is_set():
                        subscription.stop()
                    for notification in subscription:
                        self._note(notification.originator_id, notification.originator_version)
                        self._last = notification.id
            except Exception as error:  # the store went away: reopen after the last delivered notification
                if self._stopping.is_set():
                    break
                failed = True
                log.warning("store subscription failed (%s); retrying in %.0fs", error, RETRY_DELAY)
                self._stopping.wait(RETRY_DELAY)
            finally:
                self._subscription = None

    def _resync_now_and_later(self) -> None:
        """Catch every watched game up now and once the listener has settled (see the module docstring)."""
        self._resync()
        timer = threading.Timer(SETTLE_DELAY, self._resync)
        timer.daemon = True
        timer.start()

    def _resync(self) -> None:
        if not self._stopping.is_set():
            self._to_loop(self.on_resync)

    def _note(self, game_id: Any, version: int) -> None:
        key = game_id if isinstance(game_id, UUID) else UUID(str(game_id))
        with self._mutex:
            if version > self._pending.get(key, -1):
                self._pending[key] = version
            self.delivered += 1
            if self._scheduled:
                return
            self._scheduled = True
        self._to_loop(self._drain)

    def _to_loop(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` on the event loop (from the feed's threads)."""
        try:
            self.loop.call_soon_threadsafe(callback)
        except RuntimeError:  # the loop is closed: the process is stopping
            self._stopping.set()

    # -- on the event loop ----------------------------------------------------------------

    def _drain(self) -> None:
        with self._mutex:
            pending, self._pending = self._pending, {}
            self._scheduled = False
        if pending:
            self.on_written(pending)
