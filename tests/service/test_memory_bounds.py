"""Memory bounded by design: idle games leave memory and come back from the store, the bounds hold,
and a game that left behaves as one that never did (service/games/cache.py).

The cache's idle clock (``LiveGames.clock``) is moved by hand here; ``LiveGames.evict_idle`` is what
the process's sweeper calls every few seconds.
"""

from __future__ import annotations

import asyncio
import hashlib
import random
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from uuid import UUID

import grpc
import msgspec
import pytest

from cardgames.service import seat_lifecycle
from cardgames.service.cli.serve import cache_sizes
from cardgames.service.games import Games, StoreUnavailable, WrongToken
from cardgames.service.games.cache import EVICTION_TAIL, CacheSizes
from cardgames.service.grpc_api import TOKEN_METADATA
from cardgames.service.metrics import Metrics
from cardgames.service.server import Running, start
from cardgames.service.snapshots import state_type
from cardgames.service.spawn import ROOT
from cardgames.service.store import EventStore
from cardgames.service.table_clocks import TableClocks
from cardgames.v1 import game_service_pb2 as pb
from cardgames.v1 import game_service_pb2_grpc
from tests.service.helpers import GAME
from tests.service.test_games import play_one

SEED = "5e" * 32
IDLE = 60.0


class Ticks:
    """A monotonic clock moved by hand (seconds)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def games_with(store: EventStore, **sizes: Any) -> tuple[Games, Ticks]:
    games = Games(store, **sizes)
    ticks = Ticks()
    games.cache.clock = ticks
    return games, ticks


async def test_more_games_than_the_bound_the_cache_never_exceeds_it_and_every_game_answers() -> None:
    games, ticks = games_with(EventStore.from_url("memory:"), max_live=5, idle_evict_seconds=IDLE)
    rng = random.Random(21)
    created = []
    expected: dict[str, tuple[int, Any]] = {}
    for index in range(40):
        made = await games.create(GAME, {}, None, seed=SEED)
        created.append(made)
        for _ in range(index % 7):
            await play_one(games, made.game_id, made.seat_tokens, rng)
            assert len(games.cache) <= 5
        view = await games.view(made.game_id, None)
        expected[made.game_id] = (view.sequence, msgspec.to_builtins(view.view))
        ticks.now += 15.0  # the bound drops some, idleness others
        if index % 10 == 9:
            await games.cache.evict_idle()
        assert len(games.cache) <= 5
    assert games.cache.dropped > 0 and games.cache.evicted > 0
    meter = Metrics()
    meter.watch_games(games)
    scraped = meter.scrape().decode()
    assert f'cardgames_live_games_evicted_total{{reason="idle"}} {games.cache.evicted:.1f}' in scraped
    assert f'cardgames_live_games_evicted_total{{reason="bound"}} {games.cache.dropped:.1f}' in scraped
    ticks.now += IDLE + 1
    cached = len(games.cache)
    assert cached and await games.cache.evict_idle() == cached
    assert len(games.cache) == 0
    for made in created:  # each one loads again, as it was
        view = await games.view(made.game_id, None)
        assert (view.sequence, msgspec.to_builtins(view.view)) == expected[made.game_id]
        assert len(games.cache) <= 5
    await games.close()


async def test_an_idle_game_leaves_after_a_snapshot_and_a_recent_one_stays(monkeypatch: pytest.MonkeyPatch) -> None:
    games, ticks = games_with(EventStore.from_url("memory:"), snapshot_every=10_000, idle_evict_seconds=IDLE)
    rng = random.Random(3)
    long = await games.create(GAME, {}, None, seed=SEED)
    while (await games.view(long.game_id, None)).sequence <= EVICTION_TAIL + 5:
        assert await play_one(games, long.game_id, long.seat_tokens, rng)
    short = await games.create(GAME, {}, None, seed=SEED)
    live = games.cache[long.game_id]
    sequence, state = live.sequence, live.state
    assert live.snapshot_sequence == 0  # K is 10,000: no snapshot was due
    ticks.now += IDLE - 1
    await games.view(short.game_id, None)  # a call: it is recent again
    ticks.now += 2

    def down(*_: Any) -> bool:
        raise StoreUnavailable("the store is down")

    with monkeypatch.context() as patched:
        patched.setattr(games.snapshots, "save", down)
        assert await games.cache.evict_idle() == 0  # no snapshot written: it stays
    assert UUID(long.game_id) in games.cache
    assert await games.cache.evict_idle() == 1
    assert UUID(long.game_id) not in games.cache and UUID(short.game_id) in games.cache
    rules = live.rules
    config = msgspec.convert(live.header.config, rules.Config)
    snapshot = games.snapshots.latest(UUID(long.game_id), GAME, state_type(rules, config))
    assert snapshot is not None and snapshot.sequence == sequence  # written before it left
    assert msgspec.to_builtins(snapshot.state) == msgspec.to_builtins(state)
    again = await games.game(long.game_id)  # loaded from the snapshot: nothing after it to fold
    assert again is not live and again.sequence == sequence and again.snapshot_sequence == sequence
    assert msgspec.to_builtins(again.state) == msgspec.to_builtins(state)
    await games.close()


async def test_watched_and_clocked_games_stay_and_their_timeouts_still_fire() -> None:
    games, ticks = games_with(EventStore.from_url("memory:"), idle_evict_seconds=IDLE)
    now = [1_700_000_000_000]
    games.now_ms = lambda: now[0]
    clocks = TableClocks(games, scan_every=0)
    await clocks.start()
    watched = await games.create(GAME, {}, None, seed=SEED)
    stream = await games.watch(watched.game_id, None)
    await anext(stream)  # the first item: the stream is open
    clocked = await games.create(GAME, {}, None, seed=SEED, time_control={"move_ms": 2_000, "on_timeout": "forfeit"})
    plain = await games.create(GAME, {}, None, seed=SEED)
    ticks.now += IDLE + 1
    assert await games.cache.evict_idle() == 1  # the plain one only
    assert UUID(plain.game_id) not in games.cache
    assert UUID(watched.game_id) in games.cache and UUID(clocked.game_id) in games.cache
    now[0] += 2_001
    assert await clocks.expire_due() == 1  # the clocked game's timer found it
    assert (await games.view(clocked.game_id, None)).over  # a forfeit ends the match
    await stream.aclose()
    ticks.now += IDLE + 1
    assert await games.cache.evict_idle() == 2  # no watcher, and no clock now that it is over
    assert len(games.cache) == 0
    await clocks.close()
    await games.close()


async def test_a_reissued_token_and_a_seat_entropy_game_come_back_as_they_were() -> None:
    games, ticks = games_with(EventStore.from_url("memory:"), idle_evict_seconds=IDLE)
    created = await games.create(GAME, {}, None, seed=SEED)
    reissued = await seat_lifecycle.reissue_token(games, created.game_id, created.owner_token, 1)
    waiting = await games.create(GAME, {}, None, seat_entropy=True)
    commitment = hashlib.sha256(bytes.fromhex("ab" * 32)).hexdigest()
    await games.commit_entropy(waiting.game_id, waiting.seat_tokens[0], commitment)
    ticks.now += IDLE + 1
    assert await games.cache.evict_idle() == 2
    assert (await games.view(created.game_id, reissued.token)).seat == 1  # the new token works
    with pytest.raises(WrongToken):
        await games.view(created.game_id, created.seat_tokens[1])  # the old one does not
    status = await games.commit_entropy(waiting.game_id, waiting.seat_tokens[1], "cd" * 32)
    assert status.committed == 2 and not status.started  # seat 0's commitment came back from the store
    await games.close()


# ---------------------------------------------------------------------------
# Over gRPC: a game evicted mid-match plays on exactly as its twin that never left.


@pytest.fixture
async def evicting(tmp_path: Path) -> AsyncIterator[tuple[Running, Ticks]]:
    store = EventStore.from_url(f"sqlite:///{tmp_path}/games.sqlite")
    running = await start("127.0.0.1:0", store, sizes=CacheSizes(max_live=50, idle_evict_seconds=IDLE))
    ticks = Ticks()
    running.games.cache.clock = ticks
    yield running, ticks
    await running.stop(grace=None)


def auth(token: str) -> tuple[tuple[str, str], ...]:
    return ((TOKEN_METADATA, token),)


def _shown(view: Any) -> bytes:
    """A view as the wire has it, but for the game's id and chain head (a twin has its own)."""
    copy = pb.View()
    copy.CopyFrom(view)
    copy.ClearField("game_id")
    copy.ClearField("head")
    return copy.SerializeToString(deterministic=True)


async def _state(stub: Any, game_id: str, tokens: list[str]) -> tuple[Any, ...]:
    """What a caller sees of a game: the public view, and each seat's view and legal commands."""
    public = (await stub.GetView(pb.GetViewRequest(game_id=game_id))).view
    seats = []
    for token in tokens:
        view = (await stub.GetView(pb.GetViewRequest(game_id=game_id), metadata=auth(token))).view
        legal = await stub.ListLegalCommands(pb.ListLegalCommandsRequest(game_id=game_id), metadata=auth(token))
        seats.append((_shown(view), [c.SerializeToString(deterministic=True) for c in legal.commands],
                      legal.sequence, legal.seat))
    return public.sequence, public.over, _shown(public), seats


async def _move(stub: Any, game_id: str, tokens: list[str], pick: random.Random) -> Any:
    """The same choice (by index) for the seat to act; the accepted reply."""
    view = (await stub.GetView(pb.GetViewRequest(game_id=game_id))).view
    seat = sorted(view.to_act)[pick.randrange(len(view.to_act))]
    legal = await stub.ListLegalCommands(pb.ListLegalCommandsRequest(game_id=game_id), metadata=auth(tokens[seat]))
    command = legal.commands[pick.randrange(len(legal.commands))]
    return await stub.SubmitCommand(
        pb.SubmitCommandRequest(game_id=game_id, command=command, expected_sequence=legal.sequence),
        metadata=auth(tokens[seat]),
    )


async def test_an_evicted_game_plays_on_over_grpc_exactly_as_one_that_never_left(
    evicting: tuple[Running, Ticks],
) -> None:
    running, ticks = evicting
    cache = running.games.cache
    async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        made = [await stub.CreateGame(pb.CreateGameRequest(game=GAME, seed=SEED)) for _ in range(2)]
        (gone, gone_tokens), (kept, kept_tokens) = ((m.game_id, list(m.seat_tokens)) for m in made)
        seeds = [random.Random(7), random.Random(7)]
        for _ in range(4):
            await _move(stub, gone, gone_tokens, seeds[0])
            await _move(stub, kept, kept_tokens, seeds[1])
        head = (await stub.GetView(pb.GetViewRequest(game_id=gone))).view.head
        assert await _state(stub, gone, gone_tokens) == await _state(stub, kept, kept_tokens)
        ticks.now += IDLE + 1
        await stub.GetView(pb.GetViewRequest(game_id=kept))  # a call: the twin stays
        assert await cache.evict_idle() == 1
        assert UUID(gone) not in cache and UUID(kept) in cache
        # back from the store: the same view, commands, sequence and chain head
        assert await _state(stub, gone, gone_tokens) == await _state(stub, kept, kept_tokens)
        assert (await stub.GetView(pb.GetViewRequest(game_id=gone))).view.head == head
        # a watcher of each hears the same next batches
        watches = [stub.Watch(pb.WatchRequest(game_id=game_id)) for game_id in (gone, kept)]
        firsts = [await watch.read() for watch in watches]
        assert firsts[0].sequence == firsts[1].sequence
        for _ in range(3):
            ticks.now += IDLE + 1
            assert await cache.evict_idle() == 0  # both are watched now
            replies = [await _move(stub, gone, gone_tokens, seeds[0]), await _move(stub, kept, kept_tokens, seeds[1])]
            assert replies[0].sequence == replies[1].sequence
            items = [await asyncio.wait_for(watch.read(), 10) for watch in watches]
            assert items[0].sequence == items[1].sequence == replies[0].sequence
            assert len(items[0].events) == len(items[1].events) > 0
            assert _shown(items[0].view) == _shown(items[1].view)
        for watch in watches:
            watch.cancel()
        assert await _state(stub, gone, gone_tokens) == await _state(stub, kept, kept_tokens)


# ---------------------------------------------------------------------------
# The operator's bounds.


@pytest.mark.parametrize(
    ("values", "says"),
    [
        (("0", "256", "300"), "--max-live-games must be 1 or more, not 0"),
        (("ten", "256", "300"), "--max-live-games is a whole number, not 'ten'"),
        (("10", "1.5", "300"), "--max-finished-games is a whole number, not '1.5'"),
        (("100", "-1", "300"), "--max-finished-games must be 0 or more, not -1"),
        (("100", "256", "-5"), "--idle-evict-seconds must be 0 (never) or a number of seconds, not -5"),
        (("100", "256", "nan"), "--idle-evict-seconds must be 0 (never)"),
        (("100", "256", "inf"), "--idle-evict-seconds must be 0 (never)"),
        (("100", "256", "soon"), "--idle-evict-seconds is a number of seconds (0: never), not 'soon'"),
    ],
)
def test_bad_bounds_are_one_clear_line(values: tuple[str, str, str], says: str) -> None:
    problem = cache_sizes(*values)
    assert isinstance(problem, str) and says in problem and "\n" not in problem


def test_good_bounds() -> None:
    assert cache_sizes("20000", "256", "300") == CacheSizes()
    assert cache_sizes("1", "0", "0") == CacheSizes(1, 0, 0.0)
    assert cache_sizes("5", "1", "0.5") == CacheSizes(5, 1, 0.5)


def test_serve_refuses_a_bad_bound_with_one_line_and_exit_code_2() -> None:
    done = subprocess.run(
        [sys.executable, "-c", "from cardgames.service.cli import main; main()", "serve", "--address", "127.0.0.1:0",
         "--http", "off", "--store", "memory:", "--max-live-games", "0"],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    lines = [line for line in done.stderr.splitlines() if not line.startswith("cardgames serve: engine:")]
    assert lines == ["cardgames serve: --max-live-games must be 1 or more, not 0"]


async def test_a_server_evicts_idle_games_by_itself_and_serves_them_again(tmp_path: Path) -> None:
    store = EventStore.from_url(f"sqlite:///{tmp_path}/games.sqlite")
    running = await start("127.0.0.1:0", store, sizes=CacheSizes(idle_evict_seconds=0.2))
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            stub = game_service_pb2_grpc.GameServiceStub(channel)
            made = await stub.CreateGame(pb.CreateGameRequest(game=GAME, seed=SEED))
            before = (await stub.GetView(pb.GetViewRequest(game_id=made.game_id))).view
            assert UUID(made.game_id) in running.games.cache
            for _ in range(100):  # the sweeper looks every 0.05 s
                if UUID(made.game_id) not in running.games.cache:
                    break
                await asyncio.sleep(0.05)
            assert UUID(made.game_id) not in running.games.cache and running.games.cache.evicted == 1
            after = (await stub.GetView(pb.GetViewRequest(game_id=made.game_id))).view
            assert after == before
    finally:
        await running.stop(grace=None)


class _ChangedOnce(dict):
    """A cache whose first copies fail as when the loop's thread changes it during a scrape."""

    def __init__(self, failures: int, *args: Any) -> None:
        super().__init__(*args)
        self.failures = failures

    def values(self) -> Any:
        if self.failures:
            self.failures -= 1
            raise RuntimeError("OrderedDict mutated during iteration")
        return super().values()


async def test_a_copy_of_the_cache_made_while_another_thread_changes_it_is_made_again() -> None:
    games = Games(EventStore.from_url("memory:"))
    made = await games.create(GAME, {}, None, seed=SEED)
    live = games.cache.cached()
    assert len(live) == 1
    games.cache._live = _ChangedOnce(3, {UUID(made.game_id): live[0]})  # type: ignore[assignment]
    assert games.cache.cached() == live
    games.cache._live = _ChangedOnce(100, {UUID(made.game_id): live[0]})  # type: ignore[assignment]
    with pytest.raises(RuntimeError):
        games.cache.cached()
