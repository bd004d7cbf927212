"""Scale-out in one process: two application layers on one shared store (the library's in-memory
recorder, whose subscription works like PostgreSQL's), snapshots, the live-game cache."""

from __future__ import annotations

import asyncio
import random
import threading
from collections.abc import AsyncIterator
from typing import Any
from uuid import UUID

import msgspec
import pytest
from cardgames.engine.core.registry import get_game
from cardgames.engine.core.replay import fold
from cardgames.engine.core.seat_events import with_seat_events
from cardgames.service.games import Games, StaleSequenceError
from cardgames.service.snapshots import SnapshotStore
from cardgames.service.store import EventStore

from tests.service.helpers import GAME, needs_game
from tests.service.test_games import play_one

pytestmark = needs_game
SEED = "3c" * 32


@pytest.fixture
async def pair() -> AsyncIterator[tuple[Games, Games]]:
    """Two "processes" sharing one store: each its own cache, its own subscription."""
    store = EventStore.from_url("memory:")
    first, second = Games(store, shared=True), Games(store, shared=True)
    await first.open()
    await second.open()
    yield first, second
    for games in (first, second):
        if games.feed is not None:
            await asyncio.get_running_loop().run_in_executor(None, games.feed.stop)
        games.executor.shutdown()


async def test_one_subscription_per_process_fans_out_to_every_watcher(pair: tuple[Games, Games]) -> None:
    writer, watcher = pair
    created = await writer.create(GAME, {}, None, seed=SEED)
    game_id, tokens = created.game_id, created.seat_tokens
    reads = 0
    catch_up = watcher.cache.catch_up

    async def counted(live: Any) -> None:
        nonlocal reads
        reads += 1
        await catch_up(live)

    watcher.cache.catch_up = counted  # type: ignore[method-assign]
    streams = [await watcher.watch(game_id, token) for token in (None, None, None, *tokens)]
    firsts = [await anext(stream) for stream in streams]
    reads = 0
    rng = random.Random(1)
    commands = 0
    while await play_one(writer, game_id, tokens, rng):
        commands += 1

    async def rest(stream: Any) -> list[Any]:
        return [item async for item in stream]

    items = await asyncio.wait_for(asyncio.gather(*(rest(stream) for stream in streams)), 30)
    for first, more in zip(firsts, items, strict=True):
        sequences = [entry.sequence for item in more for entry in item.entries]
        assert sequences == list(range(first.sequence + 1, more[-1].sequence + 1))
        assert more[-1].view.over
    feeds = [thread for thread in threading.enumerate() if thread.name == "cardgames-feed"]
    assert len(feeds) == 2  # one per "process", whatever the number of watchers
    assert 0 < reads <= commands  # one store read per write at most, not one per watcher


async def test_a_replica_with_a_stale_cache_catches_up_before_deciding(pair: tuple[Games, Games]) -> None:
    first, second = pair
    created = await first.create(GAME, {}, None, seed=SEED)
    game_id, tokens = created.game_id, created.seat_tokens
    await second.view(game_id, None)  # cached on the second at the start
    rng = random.Random(2)
    for _ in range(5):
        await play_one(first, game_id, tokens, rng)
    view = await first.view(game_id, None)
    assert second.cache[UUID(game_id)].sequence < view.sequence  # nobody watches there: not caught up yet
    legal = await first.legal_commands(game_id, tokens[view.to_act[0]])
    # The second replica's cache may be behind; the expected sequence tells it to read first.
    accepted = await second.submit(game_id, tokens[view.to_act[0]], msgspec.to_builtins(legal.commands[0]),
                                   legal.sequence)
    assert accepted.sequence > legal.sequence
    with pytest.raises(StaleSequenceError):  # the first replica is now behind: a stale sequence is refused
        await first.submit(game_id, tokens[view.to_act[0]], msgspec.to_builtins(legal.commands[0]), legal.sequence)
    assert (await first.view(game_id, None)).sequence == accepted.sequence


async def test_without_expected_sequence_a_command_is_decided_on_the_latest_state(pair: tuple[Games, Games]) -> None:
    first, second = pair
    created = await first.create(GAME, {}, None, seed=SEED)
    game_id, tokens = created.game_id, created.seat_tokens
    await second.view(game_id, None)
    rng = random.Random(3)
    for _ in range(3):
        await play_one(first, game_id, tokens, rng)
    view = await first.view(game_id, None)
    assert second.cache[UUID(game_id)].sequence < view.sequence
    seat = view.to_act[0]
    legal = await first.legal_commands(game_id, tokens[seat])
    accepted = await second.submit(game_id, tokens[seat], msgspec.to_builtins(legal.commands[0]))
    assert accepted.sequence > view.sequence


# ---------------------------------------------------------------------------
# Snapshots.


@pytest.fixture(params=["memory", "sqlite"])
def snapshot_store(request: pytest.FixtureRequest, tmp_path: Any) -> EventStore:
    url = "memory:" if request.param == "memory" else f"sqlite://{tmp_path}/snap.sqlite"
    return EventStore.from_url(url)


async def test_snapshots_every_k_and_loading_from_them_gives_the_same_state(snapshot_store: EventStore) -> None:
    games = Games(snapshot_store, snapshot_every=10)
    created = await games.create(GAME, {}, None, seed=SEED)
    game_id, tokens = created.game_id, created.seat_tokens
    rng = random.Random(4)
    for _ in range(60):
        if not await play_one(games, game_id, tokens, rng):
            break
    await games.executor.drain()
    live = games.cache[UUID(game_id)]
    snapshots = games.snapshots
    assert snapshots.recorder is not None
    records = snapshots.recorder.select_events(UUID(game_id))
    assert len(records) >= 3 and all(r.originator_version % 10 < 10 for r in records)
    rules = with_seat_events(get_game(GAME))  # the service folds with the seat events
    config = rules.make_config({}, None)
    events = snapshot_store.events(UUID(game_id), rules)
    for record in records:  # each snapshot is the fold of the log up to its sequence
        snapshot = snapshots.latest(UUID(game_id), GAME, type(live.state), record.originator_version)
        assert snapshot is not None and snapshot.sequence == record.originator_version
        assert snapshot.state == fold(rules, rules.initial(config), events[: snapshot.sequence])
    # A cold load (another process, or after eviction) reads the latest snapshot and the events after it.
    reads: list[tuple[int, int | None]] = []
    original = snapshot_store.events

    def counting(game_uuid: UUID, game: Any, after: int = 0, upto: int | None = None) -> list[Any]:
        reads.append((after, upto))
        return original(game_uuid, game, after, upto)

    snapshot_store.events = counting  # type: ignore[method-assign,assignment]
    cold = Games(snapshot_store, snapshot_every=10)
    view = await cold.view(game_id, None)
    assert view.sequence == live.sequence and cold.cache[UUID(game_id)].state == live.state
    assert reads and reads[0][0] == records[-1].originator_version  # folded from the latest snapshot only
    earlier = await cold.view(game_id, tokens[0], records[0].originator_version + 1)  # time travel, also from one
    assert earlier.view == rules.view(fold(rules, rules.initial(config), events[: earlier.sequence]), 0)
    cold.executor.shutdown()
    games.executor.shutdown()


async def test_a_snapshot_of_another_state_shape_is_ignored(snapshot_store: EventStore) -> None:
    games = Games(snapshot_store, snapshot_every=5)
    created = await games.create(GAME, {}, None, seed=SEED)
    rng = random.Random(5)
    for _ in range(12):
        await play_one(games, created.game_id, created.seat_tokens, rng)
    await games.executor.drain()
    live = games.cache[UUID(created.game_id)]
    recorder = games.snapshots.recorder
    assert recorder is not None
    from eventsourcing.persistence import StoredEvent

    recorder.insert_events([StoredEvent(UUID(created.game_id), live.sequence + 1000,
                                        f"cardgames.snapshot.{GAME}.0000000000000000", b"\x00garbage")])
    assert games.snapshots.latest(UUID(created.game_id), GAME, type(live.state)) is None
    cold = Games(snapshot_store, snapshot_every=5)
    assert (await cold.view(created.game_id, None)).sequence == live.sequence
    assert cold.cache[UUID(created.game_id)].state == live.state
    for service in (games, cold):
        service.executor.shutdown()


def test_snapshots_off_and_due() -> None:
    store = EventStore.from_url("memory:")
    off = SnapshotStore(store.factory, every=0)
    assert off.recorder is None and not off.due(0, 1000)
    on = SnapshotStore(store.factory, every=100)
    assert on.due(99, 100) and on.due(95, 130) and not on.due(100, 199) and on.due(150, 250)


async def test_the_live_cache_is_bounded_and_reloads_what_it_dropped() -> None:
    games = Games(EventStore.from_url("memory:"), max_live=3)
    created = [await games.create(GAME, {}, None, seed=SEED) for _ in range(6)]
    assert len(games.cache) == 3
    views = [await games.view(c.game_id, None) for c in created]  # the dropped ones load again
    assert [v.sequence for v in views] == [c.sequence for c in created]
    assert len(games.cache) == 3
    games.executor.shutdown()


async def test_only_the_latest_finished_games_stay_cached() -> None:
    games = Games(EventStore.from_url("memory:"), max_finished=1)
    rng = random.Random(6)
    ids = []
    for _ in range(2):
        created = await games.create(GAME, {}, None, seed=SEED)
        while await play_one(games, created.game_id, created.seat_tokens, rng):
            pass
        ids.append(UUID(created.game_id))
    assert ids[0] not in games.cache and ids[1] in games.cache
    assert (await games.view(str(ids[0]), None)).over  # reloaded from the store when asked again
    games.executor.shutdown()


# ---------------------------------------------------------------------------
# Group commit.


def test_group_commit_shares_transactions_and_isolates_a_conflict(tmp_path: Any) -> None:
    from concurrent.futures import ThreadPoolExecutor
    from uuid import uuid4

    from cardgames.service.batching import GroupCommit, group_commit
    from eventsourcing.persistence import IntegrityError, StoredEvent

    store = EventStore.from_url(f"sqlite://{tmp_path}/group.sqlite")
    batching = group_commit(store)
    assert isinstance(batching, GroupCommit) and group_commit(store) is batching  # wrapped once
    assert group_commit(EventStore.from_url("memory:")) is None
    taken = uuid4()
    store.recorder.insert_events([StoredEvent(taken, 1, "t", b"x")])
    streams = [uuid4() for _ in range(200)]

    def insert(index: int) -> str:
        game = taken if index % 50 == 0 else streams[index]  # every 50th conflicts with the taken version
        try:
            store.recorder.insert_events([StoredEvent(game, 1, "t", b"a"), StoredEvent(game, 2, "t", b"b")])
            return "ok"
        except IntegrityError:
            return "conflict"

    with ThreadPoolExecutor(64) as pool:
        outcomes = list(pool.map(insert, range(200)))
    assert outcomes.count("conflict") == 4 and outcomes.count("ok") == 196
    for index, game in enumerate(streams):
        records = store.recorder.select_events(game)
        assert len(records) == (0 if index % 50 == 0 else 2)  # all or nothing per command
    assert len(store.recorder.select_events(taken)) == 1
    assert batching.batches == 1 + 196 and batching.transactions < batching.batches  # shared transactions
    store.close()
