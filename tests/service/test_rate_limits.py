"""Rate limits per caller (a proven seat token, else the client address), over real gRPC.

One client playing the four seats of a Seep match over one channel is never refused at the
defaults; one caller flooding is, and so are made-up tokens and the many seat tokens of one
address; every refusal says the same wait in its message, its RetryInfo, its ErrorInfo and
the ``grpc-retry-pushback-ms`` trailer.
"""

from __future__ import annotations

import asyncio
import random
import re
import secrets
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from cardgames.service.grpc_api import TOKEN_METADATA
from cardgames.service.guards import MAX_BUCKETS, PUSHBACK, Limits, RateLimit, TokenBuckets, address_of
from cardgames.service.server import Running, start
from cardgames.service.store import EventStore
from cardgames.v1 import game_service_pb2, game_service_pb2_grpc

pb = game_service_pb2
OWN = [("grpc.use_local_subchannel_pool", 1)]  # a connection of its own, as a separate client has


def auth(token: str | None) -> tuple[tuple[str, str], ...]:
    return ((TOKEN_METADATA, token),) if token else ()


@pytest.fixture
async def limited() -> AsyncIterator[Running]:
    running = await start("127.0.0.1:0", EventStore.from_url("memory:"),
                          limits=Limits(rate=50, burst=20, max_streams=2, address_rate=150))
    yield running
    await running.stop(grace=None)


def refusal(error: grpc.aio.AioRpcError) -> int:
    """The wait of a RESOURCE_EXHAUSTED refusal, checked to be the same everywhere it is said (ms)."""
    assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    status = rpc_status.from_call(error)
    assert status is not None
    info, retry = error_details_pb2.ErrorInfo(), error_details_pb2.RetryInfo()
    kinds = set()
    for detail in status.details:
        for kind in (info, retry):
            if detail.Unpack(kind):
                kinds.add(type(kind).__name__)
    assert kinds == {"ErrorInfo", "RetryInfo"}
    assert info.reason == "RATE_LIMITED"
    millis = int(info.metadata["retry_after_ms"])
    assert millis >= 1 and retry.retry_delay.ToMilliseconds() == millis
    assert dict(error.trailing_metadata() or ())[PUSHBACK] == str(millis)
    match = re.search(r"retry in (\d+) ms", error.details() or "")
    assert match is not None and int(match.group(1)) == millis, error.details()
    return millis


async def flood(call: Any, count: int, *, wrong_tokens: bool = False) -> tuple[int, list[grpc.aio.AioRpcError]]:
    """``count`` concurrent calls: how many went through, and the refusals (RESOURCE_EXHAUSTED; with
    ``wrong_tokens`` the others are PERMISSION_DENIED and count as neither)."""
    results = await asyncio.gather(*(call() for _ in range(count)), return_exceptions=True)
    errors = [result for result in results if isinstance(result, grpc.aio.AioRpcError)]
    refused = [error for error in errors if error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED]
    denied = [error for error in errors if error.code() == grpc.StatusCode.PERMISSION_DENIED and wrong_tokens]
    assert len(refused) + len(denied) == len(errors), errors[:1]
    return len(results) - len(errors), refused


def at_most(burst: float, rate: float, seconds: float) -> float:
    """The most calls a bucket lets through in ``seconds`` from full."""
    return burst + rate * seconds + 1


async def test_one_client_playing_all_four_seats_of_a_seep_match_over_one_channel_is_never_refused() -> None:
    """At the defaults, as fast as it can: each seat's calls carry its token (before: one bucket per
    connection, and such a client was refused hundreds of calls a match)."""
    running = await start("127.0.0.1:0", EventStore.from_url("memory:"), limits=Limits())
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            stub = game_service_pb2_grpc.GameServiceStub(channel)
            created = await stub.CreateGame(pb.CreateGameRequest(game="seep", seed="5e" * 32))
            tokens = list(created.seat_tokens)
            rng = random.Random(3)
            calls = 0
            while calls < 3_000:
                views = await asyncio.gather(*(stub.GetView(pb.GetViewRequest(game_id=created.game_id),
                                                            metadata=auth(token)) for token in tokens))
                calls += len(views)
                if views[0].view.over:
                    break
                seat = views[0].view.to_act[0]
                legal = await stub.ListLegalCommands(pb.ListLegalCommandsRequest(game_id=created.game_id),
                                                     metadata=auth(tokens[seat]))
                await stub.SubmitCommand(pb.SubmitCommandRequest(
                    game_id=created.game_id, command=legal.commands[rng.randrange(len(legal.commands))]),
                    metadata=auth(tokens[seat]))
                calls += 2
            assert calls >= 1_500  # a long match's worth of calls, none refused
    finally:
        await running.stop(grace=None)


async def test_a_flooding_seat_is_refused_with_the_same_wait_everywhere_and_another_seat_is_not(
    limited: Running,
) -> None:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{limited.port}") as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        created = await stub.CreateGame(pb.CreateGameRequest(game="seep"))
        greedy, polite = created.seat_tokens[0], created.seat_tokens[1]
        request = pb.GetViewRequest(game_id=created.game_id)
        for token in (greedy, polite):  # proven: each is now a caller of its own
            await stub.GetView(request, metadata=auth(token))
        began = asyncio.get_running_loop().time()
        passed, refused = await flood(lambda: stub.GetView(request, metadata=auth(greedy)), 200)
        elapsed = asyncio.get_running_loop().time() - began
        assert passed <= at_most(20, 50, elapsed) and refused  # the burst, and what the rate refilled meanwhile
        for error in refused[:20]:
            assert 1 <= refusal(error) <= 1000 // 50 + 1  # one token at 50/s
        for _ in range(5):
            await stub.GetView(request, metadata=auth(polite))  # the other seat: never refused
        await asyncio.sleep(1 / 50 * 2)
        await stub.GetView(request, metadata=auth(greedy))  # and the greedy one again after the wait


async def test_made_up_tokens_and_new_connections_share_their_address_budget(limited: Running) -> None:
    """Calls without a proven token are the client address's: neither random tokens nor new connections
    make a new budget (before: 40 connections created 16,000 games in 11 s)."""
    target = f"127.0.0.1:{limited.port}"
    channels = [grpc.aio.insecure_channel(target, options=OWN) for _ in range(10)]
    try:
        stubs = [game_service_pb2_grpc.GameServiceStub(channel) for channel in channels]
        created = await stubs[0].CreateGame(pb.CreateGameRequest(game="seep"))

        def made_up() -> Any:  # a fresh random token each call, from any of the connections
            stub = random.choice(stubs)
            return stub.GetView(pb.GetViewRequest(game_id=created.game_id), metadata=auth(secrets.token_urlsafe(32)))

        began = asyncio.get_running_loop().time()
        passed, refused = await flood(made_up, 200, wrong_tokens=True)
        elapsed = asyncio.get_running_loop().time() - began
        assert passed == 0  # none is a seat: the token is wrong, or the address's bucket ran dry first
        assert len(refused) >= 200 - at_most(20, 50, elapsed)
        await asyncio.sleep(1)
        began = asyncio.get_running_loop().time()
        games = 0
        while asyncio.get_running_loop().time() - began < 1.0:
            passed, _ = await flood(lambda: random.choice(stubs).CreateGame(pb.CreateGameRequest(game="seep")), 50)
            games += passed
        elapsed = asyncio.get_running_loop().time() - began
        assert games <= at_most(20, 50, elapsed)  # the burst and the rate, whatever the connections
    finally:
        for channel in channels:
            await channel.close()


async def test_the_seat_tokens_of_one_address_share_its_address_limit(limited: Running) -> None:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{limited.port}") as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        tokens: list[tuple[str, str]] = []
        for _ in range(6):
            created = await stub.CreateGame(pb.CreateGameRequest(game="seep"))
            tokens.extend((created.game_id, token) for token in created.seat_tokens)
        await asyncio.sleep(1)
        for game_id, token in tokens:  # a token's first call is its address's (50/s here)
            await stub.GetView(pb.GetViewRequest(game_id=game_id), metadata=auth(token))
            await asyncio.sleep(1 / 40)
        await asyncio.sleep(2)  # every bucket full again

        def any_seat() -> Any:
            game_id, token = random.choice(tokens)
            return stub.GetView(pb.GetViewRequest(game_id=game_id), metadata=auth(token))

        began = asyncio.get_running_loop().time()
        passed, refused = await flood(any_seat, 600)  # 24 seats x a burst of 20 = 480 calls' worth
        elapsed = asyncio.get_running_loop().time() - began
        assert passed <= at_most(2 * 150, 150, elapsed) and refused  # the address's burst: twice its 150/s
        assert any("callers together" in (error.details() or "") for error in refused)
        for error in refused[:20]:
            refusal(error)


async def test_watch_streams_are_capped_per_caller(limited: Running) -> None:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{limited.port}") as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        created = await stub.CreateGame(pb.CreateGameRequest(game="seep"))
        await stub.GetView(pb.GetViewRequest(game_id=created.game_id), metadata=auth(created.seat_tokens[0]))
        streams = [stub.Watch(pb.WatchRequest(game_id=created.game_id), metadata=auth(created.seat_tokens[0]))
                   for _ in range(3)]
        firsts = await asyncio.gather(*(anext(stream.__aiter__()) for stream in streams), return_exceptions=True)
        over = [result for result in firsts if isinstance(result, grpc.aio.AioRpcError)]
        assert len(over) == 1 and refusal(over[0]) == 1000
        other = stub.Watch(pb.WatchRequest(game_id=created.game_id), metadata=auth(created.seat_tokens[1]))
        assert (await anext(other.__aiter__())).sequence  # another seat has streams of its own
        for stream in (*streams, other):
            stream.cancel()


def test_buckets_refill_at_the_rate_up_to_the_burst_and_keep_a_bounded_number_of_keys() -> None:
    now = [0.0]
    buckets = TokenBuckets(rate=10, burst=5, clock=lambda: now[0], capacity=3)
    assert [buckets.take("a") for _ in range(5)] == [0.0] * 5
    assert buckets.take("a") == pytest.approx(0.1)  # empty: one token in 1/rate
    assert buckets.take("b") == 0.0  # another key has its own bucket
    now[0] += 0.35
    assert [buckets.take("a") == 0.0 for _ in range(4)] == [True, True, True, False]
    now[0] += 100
    assert [buckets.take("a") for _ in range(6)].count(0.0) == 5  # never more than the burst
    for key in "cdefg":
        buckets.take(key)
    assert len(buckets.buckets) == 3 and list(buckets.buckets) == ["e", "f", "g"]  # the least recent went first
    limit = RateLimit(Limits())
    for index in range(MAX_BUCKETS + 10):
        limit.prove(index.to_bytes(16, "big"))
    assert len(limit.callers.buckets) == MAX_BUCKETS
    assert limit.caller("any token", "ipv4:10.0.0.1") == ("ipv4:10.0.0.1", limit.caller("any token", "")[1])


def test_the_client_address_is_the_ip_without_its_port() -> None:
    assert address_of("ipv4:10.1.2.3:55012") == "ipv4:10.1.2.3"
    assert address_of("ipv6:[2001:db8:1:2:3:4:5:6]:55012") == "ipv6:2001:db8:1:2::/64"
    assert address_of("ipv6:%5B2001:db8:1:2::9%5D:1") == "ipv6:2001:db8:1:2::/64"  # one /64, one client
    assert address_of("unix:/tmp/socket") == "unix:/tmp/socket"
    assert address_of("") == "unknown"
