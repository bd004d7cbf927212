"""Two `cardgames serve` processes on one PostgreSQL database: any call to any replica, nothing lost.

Each test gets its own database. The replicas are real child processes (cardgames.service.spawn);
the feed between them is the library's LISTEN/NOTIFY subscription, one per process.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Iterator
from typing import Any

import grpc
import pytest

from cardgames.service.grpc_api import TOKEN_METADATA
from cardgames.service.spawn import ServerProcess, spawn_server
from cardgames.v1 import game_service_pb2, game_service_pb2_grpc
from tests.service.helpers import GAME, needs_game
from tests.service.pg import fresh_database

pytestmark = [needs_game, pytest.mark.postgres]
pb = game_service_pb2
SEED = "7e" * 32


def auth(token: str | None) -> tuple[tuple[str, str], ...]:
    return ((TOKEN_METADATA, token),) if token else ()


@pytest.fixture
def replicas() -> Iterator[list[ServerProcess]]:
    """Two replicas on a fresh database (no rate limit: the test is one client)."""
    with fresh_database() as (url, _):
        servers = [spawn_server(url, args=["--rate-limit", "0"]) for _ in range(2)]
        try:
            yield servers
        finally:
            for server in servers:
                server.stop()


@pytest.fixture
async def stubs(replicas: list[ServerProcess]) -> AsyncIterator[list[Any]]:
    channels = [grpc.aio.insecure_channel(server.target) for server in replicas]
    yield [game_service_pb2_grpc.GameServiceStub(channel) for channel in channels]
    for channel in channels:
        await channel.close()


async def create(stub: Any) -> tuple[str, list[str], int]:
    created = await stub.CreateGame(pb.CreateGameRequest(game=GAME, seed=SEED))
    return created.game_id, list(created.seat_tokens), created.sequence


async def next_command(stub: Any, game_id: str, tokens: list[str], rng: random.Random) -> tuple[int, Any, int] | None:
    """(seat, a random legal command, the sequence it is valid at), read from ``stub``; None once over."""
    view = (await stub.GetView(pb.GetViewRequest(game_id=game_id))).view
    if view.over:
        return None
    seat = rng.choice(list(view.to_act))
    legal = await stub.ListLegalCommands(pb.ListLegalCommandsRequest(game_id=game_id), metadata=auth(tokens[seat]))
    return seat, rng.choice(list(legal.commands)), legal.sequence


async def submit(stub: Any, game_id: str, token: str, command: Any, expected: int) -> Any:
    return await stub.SubmitCommand(
        pb.SubmitCommandRequest(game_id=game_id, command=command, expected_sequence=expected), metadata=auth(token)
    )


async def test_commands_alternate_between_replicas_and_a_watch_on_one_sees_all(stubs: list[Any]) -> None:
    game_id, tokens, start = await create(stubs[0])
    watches = [stubs[0].Watch(pb.WatchRequest(game_id=game_id)),
               stubs[0].Watch(pb.WatchRequest(game_id=game_id), metadata=auth(tokens[0]))]

    async def collect(call: Any) -> list[Any]:
        return [message async for message in call]

    collectors = [asyncio.create_task(collect(call)) for call in watches]
    await asyncio.sleep(0.2)
    rng = random.Random(11)
    accepted: dict[int, Any] = {}
    turn = 0
    while True:
        # Read on one replica, write through the other, then swap: every call meets a cache
        # that the other replica moved on.
        reader, writer = stubs[turn % 2], stubs[(turn + 1) % 2]
        found = await next_command(reader, game_id, tokens, rng)
        if found is None:
            break
        seat, command, sequence = found
        reply = await submit(writer, game_id, tokens[seat], command, sequence)
        for entry in reply.events:
            accepted[entry.sequence] = entry
        turn += 1
    messages = [await asyncio.wait_for(task, 60) for task in collectors]
    final = (await stubs[1].GetView(pb.GetViewRequest(game_id=game_id))).view
    assert final.over and turn > 20
    for stream in messages:  # in order, no gap, nothing twice, ending with the end of the match
        sequences = [entry.sequence for message in stream for entry in message.events]
        assert sequences == list(range(start + 1, final.sequence + 1))
        assert stream[-1].view.over and stream[-1].sequence == final.sequence
    seat0 = [entry for message in messages[1] for entry in message.events]
    for entry in seat0:  # seat 0 saw its own private events exactly as the writer's replies gave them
        if entry.sequence in accepted and not entry.redacted and not accepted[entry.sequence].redacted:
            assert entry.event == accepted[entry.sequence].event
    assert sorted(accepted) == list(range(start + 1, final.sequence + 1))  # every accepted event is in the log
    log = await stubs[0].GetLog(pb.GetLogRequest(game_id=game_id))
    assert [entry.sequence for entry in log.events] == list(range(1, final.sequence + 1))


async def test_a_watch_on_one_replica_gets_every_event_written_through_the_other(stubs: list[Any]) -> None:
    """Replica 0 only streams: it learns of replica 1's writes from its store subscription alone."""
    game_id, tokens, start = await create(stubs[1])
    calls = [stubs[0].Watch(pb.WatchRequest(game_id=game_id), metadata=auth(token)) for token in (None, *tokens)]

    async def collect(call: Any) -> list[Any]:
        return [message async for message in call]

    tasks = [asyncio.create_task(collect(call)) for call in calls]
    await asyncio.sleep(0.2)
    rng = random.Random(15)
    commands = 0
    while (found := await next_command(stubs[1], game_id, tokens, rng)) is not None:
        seat, command, sequence = found
        await submit(stubs[1], game_id, tokens[seat], command, sequence)
        commands += 1
    streams = [await asyncio.wait_for(task, 60) for task in tasks]
    final = (await stubs[1].GetView(pb.GetViewRequest(game_id=game_id))).view
    for stream in streams:
        assert [e.sequence for m in stream for e in m.events] == list(range(start + 1, final.sequence + 1))
        assert stream[-1].view.over
    assert commands > 20


async def test_conflicting_commands_on_two_replicas_one_wins_the_other_is_aborted(stubs: list[Any]) -> None:
    game_id, tokens, _ = await create(stubs[0])
    rng = random.Random(12)
    rounds = 0
    while rounds < 12:
        found = await next_command(stubs[rounds % 2], game_id, tokens, rng)
        if found is None:
            break
        seat, command, sequence = found
        for stub in stubs:  # both caches at the same sequence, so both decide and race to insert
            assert (await stub.GetView(pb.GetViewRequest(game_id=game_id))).view.sequence == sequence
        results = await asyncio.gather(
            *(submit(stub, game_id, tokens[seat], command, sequence) for stub in stubs), return_exceptions=True
        )
        won = [r for r in results if not isinstance(r, BaseException)]
        lost = [r for r in results if isinstance(r, grpc.aio.AioRpcError)]
        assert len(won) == 1 and len(lost) == 1, results
        assert lost[0].code() == grpc.StatusCode.ABORTED, lost[0]
        log = await stubs[rounds % 2].GetLog(pb.GetLogRequest(game_id=game_id, after_sequence=sequence))
        assert [e.sequence for e in log.events] == [e.sequence for e in won[0].events]  # written once
        rounds += 1
    assert rounds == 12


async def test_a_replica_killed_mid_match_the_match_finishes_on_the_other(
    replicas: list[ServerProcess], stubs: list[Any]
) -> None:
    game_id, tokens, start = await create(stubs[0])
    rng = random.Random(13)
    accepted: dict[int, Any] = {}
    killed = False
    moves = at_kill = 0
    while True:
        alive = [1] if killed else [0, 1]
        stub = stubs[alive[moves % len(alive)]]
        found = await next_command(stub, game_id, tokens, rng)
        if found is None:
            break
        seat, command, sequence = found
        if moves == 25 and not killed:
            # A command in flight to replica 0 while it is killed: its outcome is unknown to
            # the client, which reads the latest state from the other replica and goes on.
            at_kill = sequence
            call = asyncio.ensure_future(submit(stubs[0], game_id, tokens[seat], command, sequence))
            await asyncio.sleep(0.002)
            replicas[0].kill()
            killed = True
            try:
                reply = await call
            except grpc.aio.AioRpcError as error:
                assert error.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED), error
            else:
                accepted.update({entry.sequence: entry for entry in reply.events})
            moves += 1
            continue
        try:
            reply = await submit(stub, game_id, tokens[seat], command, sequence)
        except grpc.aio.AioRpcError as error:
            # The killed replica's insert in flight may still commit in the database after the
            # kill (and after our read): STALE_SEQUENCE, so fetch the latest state and retry.
            if not killed or error.code() != grpc.StatusCode.ABORTED:
                raise
            continue
        accepted.update({entry.sequence: entry for entry in reply.events})
        moves += 1
    assert killed and replicas[0].process.returncode == -9
    log = await stubs[1].GetLog(pb.GetLogRequest(game_id=game_id))
    final = (await stubs[1].GetView(pb.GetViewRequest(game_id=game_id))).view
    assert final.over
    by_sequence = {entry.sequence: entry for entry in log.events}
    assert sorted(by_sequence) == list(range(1, final.sequence + 1))
    for sequence, entry in accepted.items():  # no accepted command lost, none changed
        assert sequence in by_sequence
        if not entry.redacted:
            assert by_sequence[sequence].event == entry.event
    # Unacknowledged events can only be the in-flight command's batch, recorded before the kill.
    missing = sorted(set(range(start + 1, final.sequence + 1)) - set(accepted))
    assert missing == list(range(at_kill + 1, at_kill + 1 + len(missing)))


async def test_a_round_robin_channel_over_both_replicas_plays_a_whole_match(replicas: list[ServerProcess]) -> None:
    """gRPC's client-side load balancing: one channel, every call to the next replica in turn."""
    target = "ipv4:" + ",".join(server.target for server in replicas)
    options = [("grpc.lb_policy_name", "round_robin")]
    async with grpc.aio.insecure_channel(target, options=options) as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        game_id, tokens, _ = await create(stub)
        rng = random.Random(14)
        moves = 0
        while (found := await next_command(stub, game_id, tokens, rng)) is not None:
            seat, command, sequence = found
            await submit(stub, game_id, tokens[seat], command, sequence)
            moves += 1
        assert moves > 20
        assert (await stub.GetView(pb.GetViewRequest(game_id=game_id))).view.over


def test_postgresql_mode_from_the_environment() -> None:
    """``CARDGAMES_STORE`` instead of ``--store``: the process serves the database, shared."""
    with fresh_database() as (url, name):
        server = spawn_server(None, env={"CARDGAMES_STORE": url})
        try:
            assert f"/{name}" in server.lines[0] and "shared" in server.lines[0]
        finally:
            server.stop()
