"""Overload over real gRPC: a server given a small in-flight bound and a few hundred concurrent matches.

Every SubmitCommand answered OK is in its game's log exactly once (and nothing else is); every
refusal is RESOURCE_EXHAUSTED with ErrorInfo ``OVERLOADED``, a RetryInfo and the
``grpc-retry-pushback-ms`` trailer, all with the same wait; reads are refused more than writes;
a flood of CreateGame from one caller is refused for that caller, while the others play on.
"""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from cardgames.service.admission import OVERLOADED, Bounds
from cardgames.service.grpc_api import TOKEN_METADATA
from cardgames.service.guards import PUSHBACK
from cardgames.service.http.server import start_http
from cardgames.service.server import Running, start
from cardgames.service.store import EventStore
from cardgames.v1 import game_service_pb2 as pb
from cardgames.v1 import game_service_pb2_grpc
from tests.service.helpers import GAME, needs_game
from tests.service.test_http import call, error_info

pytestmark = needs_game
MATCHES = 300
MOVES = 8


def check_refusal(error: grpc.aio.AioRpcError) -> float:
    """The wait (s) of an OVERLOADED refusal, checked to be said the same in RetryInfo, ErrorInfo and the trailer."""
    assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, error
    status = rpc_status.from_call(error)
    assert status is not None
    info, retry = error_details_pb2.ErrorInfo(), error_details_pb2.RetryInfo()
    found = {type(kind).__name__ for detail in status.details for kind in (info, retry) if detail.Unpack(kind)}
    assert found == {"ErrorInfo", "RetryInfo"}
    assert info.reason == OVERLOADED
    millis = retry.retry_delay.ToMilliseconds()
    assert millis >= 1 and int(info.metadata["retry_after_ms"]) == millis
    assert dict(error.trailing_metadata() or ())[PUSHBACK] == str(millis)
    return millis / 1000


class Caller:
    """Calls that honour the retry hint (jittered, bounded), counting calls and refusals per method."""

    def __init__(self, stub: game_service_pb2_grpc.GameServiceStub, seed: int = 0) -> None:
        self.stub = stub
        self.calls: Counter[str] = Counter()
        self.refused: Counter[str] = Counter()
        self.rng = random.Random(seed)

    async def __call__(self, name: str, request: Any, token: str | None = None, retries: int = 500) -> Any:
        method: Callable[..., Awaitable[Any]] = getattr(self.stub, name)
        metadata = ((TOKEN_METADATA, token),) if token else None
        for _ in range(retries):
            self.calls[name] += 1
            try:
                return await method(request, metadata=metadata, timeout=20)
            except grpc.aio.AioRpcError as error:
                wait = check_refusal(error)  # nothing but overload refusals is expected
                self.refused[name] += 1
                await asyncio.sleep(wait * (1 + self.rng.random() / 2))
        raise AssertionError(f"{name} refused {retries} times")


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[Running]:
    running = await start("127.0.0.1:0", EventStore.from_url(f"sqlite://{tmp_path}/overload.sqlite"),
                          bounds=Bounds(max_in_flight=8, max_wait=0.02, max_pushback=0.2))
    yield running
    await running.stop(grace=None)


async def play(call: Caller, moves: int, seed: int, game_id: str | None = None,
               tokens: list[str] | None = None) -> tuple[str, list[str], list[int]]:
    """A match of random moves: its id, its seats' tokens and the first sequence of each accepted command's batch."""
    rng = random.Random(seed)
    if game_id is None or tokens is None:
        created = await call("CreateGame", pb.CreateGameRequest(game=GAME))
        game_id, tokens = created.game_id, list(created.seat_tokens)
    accepted: list[int] = []
    seat = 0
    for _ in range(moves):
        view = (await call("GetView", pb.GetViewRequest(game_id=game_id), tokens[seat])).view
        if view.over:
            break
        seat = rng.choice(list(view.to_act))
        legal = await call("ListLegalCommands", pb.ListLegalCommandsRequest(game_id=game_id), tokens[seat])
        reply = await call("SubmitCommand", pb.SubmitCommandRequest(
            game_id=game_id, command=rng.choice(list(legal.commands)), expected_sequence=legal.sequence),
            tokens[seat])
        accepted.append(reply.events[0].sequence)
    return game_id, tokens, accepted


async def test_no_accepted_command_is_lost_and_every_refusal_says_when_to_retry(server: Running) -> None:
    channels = [grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") for _ in range(4)]
    callers = [Caller(game_service_pb2_grpc.GameServiceStub(channel), seed) for seed, channel in enumerate(channels)]
    try:
        played = await asyncio.gather(*(play(callers[i % 4], MOVES, i) for i in range(MATCHES)))
        for game_id, tokens, accepted in played:
            commanded = []  # (a seat is shown its own commands while the match runs)
            for token in tokens:
                log = await callers[0]("GetLog", pb.GetLogRequest(game_id=game_id), token)
                commanded += [entry.sequence for entry in log.events if entry.HasField("command")]
            assert sorted(accepted) == sorted(commanded)  # each accepted command once, and no other
    finally:
        for channel in channels:
            await channel.close()
    calls, refused = sum((c.calls for c in callers), Counter()), sum((c.refused for c in callers), Counter())
    assert sum(refused.values()) > 0, "the bound was never reached: the test shows nothing"

    def share(names: set[str]) -> float:
        return sum(refused[n] for n in names) / max(1, sum(calls[n] for n in names))

    # (CreateGame carries no token: all of them are the client address's, over its share of the slots.)
    assert share({"GetView", "ListLegalCommands"}) > share({"SubmitCommand"}), (calls, refused)
    assert server.admission is not None and server.admission.admission.in_flight == 0


async def test_a_flood_of_create_game_is_refused_for_its_caller_alone(tmp_path: Path) -> None:
    running = await start("127.0.0.1:0", EventStore.from_url(f"sqlite://{tmp_path}/flood.sqlite"),
                          bounds=Bounds(max_in_flight=32, caller_share=0.25, max_wait=1.0, max_pushback=0.2))
    player_channel = grpc.aio.insecure_channel(f"127.0.0.1:{running.port}")
    flood_channel = grpc.aio.insecure_channel(f"127.0.0.1:{running.port}",
                                              options=[("grpc.use_local_subchannel_pool", 1)])
    players = Caller(game_service_pb2_grpc.GameServiceStub(player_channel))
    flooder = game_service_pb2_grpc.GameServiceStub(flood_channel)
    games = [await players("CreateGame", pb.CreateGameRequest(game=GAME)) for _ in range(20)]
    flood: Counter[str] = Counter()
    stop = asyncio.Event()

    async def flood_one() -> None:
        while not stop.is_set():
            try:
                await flooder.CreateGame(pb.CreateGameRequest(game=GAME), timeout=20)
                flood["OK"] += 1
            except grpc.aio.AioRpcError as error:
                check_refusal(error)  # refused at once: the flooder does not wait
                flood["refused"] += 1

    try:
        flooding = [asyncio.ensure_future(flood_one()) for _ in range(100)]
        await asyncio.sleep(0.2)
        played = await asyncio.gather(*(play(players, 10, i, g.game_id, list(g.seat_tokens))
                                        for i, g in enumerate(games)))
        stop.set()
        await asyncio.gather(*flooding)
    finally:
        await player_channel.close()
        await flood_channel.close()
        await running.stop(grace=None)
    assert all(len(accepted) == 10 for _, _, accepted in played)
    # Everyone else plays on: no command of theirs is refused; their reads may be shed a little when
    # the host itself is short of CPU (the load signal is the process's), never as the flooder is.
    assert players.refused["SubmitCommand"] == 0, players.refused
    players_share = sum(players.refused.values()) / sum(players.calls.values())
    flood_share = flood["refused"] / (flood["refused"] + flood["OK"])
    assert players_share <= 0.1 and players_share < flood_share / 2, (players.refused, players.calls, flood)
    assert flood["refused"] > 0 and flood["OK"] > 0, flood  # its share of the slots, no more


async def test_admission_applies_over_http_too() -> None:
    """Connect calls go through the same admission control: with the loop's lag always over the bound
    (``max_lag`` below zero) reads and new matches are refused with the hint, before any work."""
    running = await start("127.0.0.1:0", EventStore.from_url("memory:"), bounds=Bounds(max_lag=-1.0))
    running.http = await start_http("127.0.0.1:0", running)
    try:
        refused = await call(running, "CreateGame", {"game": GAME})
        assert (refused.status, *error_info(refused)) == (429, "resource_exhausted", OVERLOADED)
        assert {d["type"] for d in refused.json()["details"]} == {"google.rpc.ErrorInfo", "google.rpc.RetryInfo"}
        assert "retry in" in refused.json()["message"]
    finally:
        await running.stop(grace=None)
