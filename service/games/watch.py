"""Watching: a viewer's stream of a game's batches, and the cross-process feed that fills it.

A watcher subscribes to the live game (service/games/live.py) and gets each batch the game
advances by, with the view after it; one that falls behind by ``WATCH_QUEUE`` batches re-reads
what it missed from the store. When other processes write to the same store, the feed
(service/feed.py) says which games they wrote, and the watched ones are caught up here
(one read of their stream each), which hands the new batches to their watchers.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from typing import Any
from uuid import UUID

from cardgames.engine.core.protocol import Viewer
from cardgames.service.errors import InvalidRequest, StoreUnavailable
from cardgames.service.feed import Feed
from cardgames.service.games.auth import seat_of
from cardgames.service.games.cache import LiveGames
from cardgames.service.games.disclosure import Disclosure
from cardgames.service.games.executor import StoreExecutor
from cardgames.service.games.live import LiveGame, Subscriber
from cardgames.service.games.results import WatchItem, entries_for, split_notes


class Watches:
    """The watch streams of a process's games, and its subscription to the store's feed."""

    def __init__(self, games: LiveGames, executor: StoreExecutor, disclosure: Disclosure) -> None:
        self.games = games
        self.executor = executor
        self.store = executor.store
        self.disclosure = disclosure
        self.feed: Feed | None = None

    async def open(self) -> None:
        """Subscribe to the store's feed (one subscription per process: call it for a shared store)."""
        if self.feed is None:
            feed = Feed(self.store.recorder, asyncio.get_running_loop(), self.on_written, self.on_resync)
            await self.executor.write(feed.start)  # a blocking start: on a writer's thread, as it always was
            self.feed = feed

    async def close(self) -> None:
        """End the feed's subscription."""
        if self.feed is not None:
            await asyncio.get_running_loop().run_in_executor(None, self.feed.stop)
            self.feed = None

    async def watch(self, game_id: str, token: str | None, after: int | None = None) -> AsyncGenerator[WatchItem, None]:
        """The caller's view, then each new batch of events with the view after it.

        With ``after``, the first item carries every event after that sequence (read from the
        store), so a watcher that reconnects misses nothing and sees nothing twice. The stream
        ends after the item in which the match is over.
        """
        live = await self.games.fresh(game_id)
        viewer = seat_of(live, token)
        if after is not None and not 0 <= after <= live.sequence:
            raise InvalidRequest(f"after_sequence {after} is not in 0..{live.sequence}", reason="INVALID_SEQUENCE")
        subscriber = live.subscribe()  # now, with the current state: nothing falls in between
        return self._stream(live, viewer, after, subscriber, live.sequence, live.state)

    async def _stream(
        self, live: LiveGame, viewer: Viewer, after: int | None, subscriber: Subscriber, current: int, state: Any
    ) -> AsyncGenerator[WatchItem, None]:
        rules = live.rules
        try:
            if after is None:
                item = WatchItem(current, [], live.view(state, current, viewer))
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
                first, sequence, events, state, notes = await subscriber.queue.get()
                if sequence <= last:
                    continue  # already delivered by a read of the store
                over = rules.is_over(state)
                start = max(first, last + 1)
                shows = await self.disclosure.disclosed(live, over)
                yield WatchItem(
                    sequence,
                    entries_for(rules, start, events[start - first :], viewer, shows, notes[start - first :]),
                    live.view(state, sequence, viewer, bytes.fromhex(notes[-1].hash)),
                )
                last = sequence
                if over:
                    return
        finally:
            live.unsubscribe(subscriber)

    async def _read_since(self, live: LiveGame, viewer: Viewer, last: int, current: int, state: Any) -> WatchItem:
        """The events in (last, current] read from the store, and the view at ``current`` (``state``)."""
        if last < current:
            pairs = await self.executor.read(self.store.log, live.game_id, live.rules, last, current)
        else:
            pairs = []
        events, notes = split_notes(pairs)
        over = await self.disclosure.disclosed(live, live.rules.is_over(state))
        head = bytes.fromhex(notes[-1].hash) if notes else None
        return WatchItem(
            current,
            entries_for(live.rules, last + 1, events, viewer, over, notes),
            live.view(state, current, viewer, head),
        )

    def on_written(self, written: dict[UUID, int]) -> None:
        """The feed saw these games written up to these sequences: catch up the watched ones."""
        for game_id, sequence in written.items():
            live = self.games.peek(game_id)
            if live is not None and live.subscribers and sequence > live.sequence and not live.waking:
                live.waking = True
                self.executor.spawn(self._wake(live))

    def on_resync(self) -> None:
        """The feed (re)opened its subscription: catch up every watched game once (service/feed.py)."""
        self.on_written({live.game_id: 1 << 62 for live in self.games.watched()})

    async def _wake(self, live: LiveGame) -> None:
        delay = 0.1
        while live.subscribers:
            async with live.lock:
                live.waking = False  # a notification from now on needs another read
                try:
                    await self.games.catch_up(live)
                    return
                except StoreUnavailable:
                    live.waking = True
            await asyncio.sleep(delay)  # the store is down: the watchers wait, retry later
            delay = min(delay * 2, 5.0)
        live.waking = False
