"""The cross-process feed (service/feed.py): no write is missed while a subscription opens."""

from __future__ import annotations

import asyncio
import random
import threading
from typing import Any
from uuid import UUID

from cardgames.service.feed import Feed
from cardgames.service.games import Games
from cardgames.service.store import EventStore
from tests.service.helpers import GAME, needs_game
from tests.service.test_games import play_one

pytestmark = needs_game
SEED = "4d" * 32


async def test_a_write_before_the_listener_is_in_place_is_still_caught_up() -> None:
    """The library's subscription reads first and listens after: a write in between must not be lost."""
    store = EventStore.from_url("memory:")
    writer = Games(store)
    created = await writer.create(GAME, {}, None, seed=SEED)
    recorder: Any = store.recorder
    listening, go_on = threading.Event(), threading.Event()
    listen = recorder.listen

    def late_listen(event: threading.Event) -> None:
        listening.set()
        go_on.wait(10)  # the test writes now: after the subscription's first read, before it listens
        listen(event)

    recorder.listen = late_listen
    loop = asyncio.get_running_loop()
    written: list[dict[UUID, int]] = []
    resyncs: list[float] = []
    feed = Feed(recorder, loop, written.append, lambda: resyncs.append(loop.time()))
    starting = loop.run_in_executor(None, feed.start)
    try:
        assert await loop.run_in_executor(None, listening.wait, 10)
        await asyncio.sleep(0.05)  # let the subscription's first read happen
        assert await play_one(writer, created.game_id, created.seat_tokens, random.Random(1))
        go_on.set()
        await starting
        await asyncio.sleep(0.2)
        # the write was never notified to this subscription, but the feed asks for a catch-up
        assert not written and len(resyncs) == 1
        await asyncio.sleep(1.2)  # and once more when the listener has surely settled
        assert len(resyncs) == 2 and resyncs[1] - resyncs[0] >= 0.9
        # from now on every write is noted
        assert await play_one(writer, created.game_id, created.seat_tokens, random.Random(2))
        for _ in range(50):
            if written:
                break
            await asyncio.sleep(0.05)
        assert written and max(written[-1].values()) > 0
    finally:
        go_on.set()
        await loop.run_in_executor(None, feed.stop)
        await writer.close()
