"""End to end over real gRPC on localhost (port 0): every RPC, every bad input, Watch resume, no leaks."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from typing import Any
from uuid import UUID

import grpc
import pytest
from cardgames import wire
from cardgames.engine.core.registry import GAME_MODULES
from cardgames.service.grpc_api import TOKEN_METADATA
from cardgames.service.server import Running, start
from cardgames.service.store import EventStore
from cardgames.v1 import common_pb2, game_service_pb2, game_service_pb2_grpc
from google.protobuf.descriptor import FieldDescriptor
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from grpc_status import rpc_status

from tests.service.helpers import GAME, cards_in, hands, needs_game

pytestmark = needs_game
SEED = "c0" * 32
pb = game_service_pb2


@pytest.fixture
async def server(store: EventStore) -> AsyncIterator[Running]:
    running = await start("127.0.0.1:0", store)
    yield running
    await running.stop(grace=None)


@pytest.fixture
async def stub(server: Running) -> AsyncIterator[game_service_pb2_grpc.GameServiceStub]:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
        yield game_service_pb2_grpc.GameServiceStub(channel)


def auth(token: str | None) -> tuple[tuple[str, str], ...]:
    return ((TOKEN_METADATA, token),) if token else ()


async def create(stub: Any, **fields: Any) -> pb.CreateGameResponse:
    return await stub.CreateGame(pb.CreateGameRequest(game=GAME, seed=SEED, **fields))


async def log_length(stub: Any, game_id: str) -> int:
    return len((await stub.GetLog(pb.GetLogRequest(game_id=game_id))).events)


def rich_error(error: grpc.aio.AioRpcError) -> tuple[grpc.StatusCode, error_details_pb2.ErrorInfo, list[Any]]:
    """The gRPC code, the ErrorInfo and any Rejection detail of a failed call."""
    status = rpc_status.from_call(error)  # checks that code and message agree with the call's
    assert status is not None, f"no rich status in {error}"
    info = error_details_pb2.ErrorInfo()
    rejections = []
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            detail.Unpack(info)
        elif detail.Is(common_pb2.Rejection.DESCRIPTOR):
            rejection = common_pb2.Rejection()
            detail.Unpack(rejection)
            rejections.append(rejection)
    assert info.domain == "cardgames"
    return error.code(), info, rejections


async def refused(call: Any) -> tuple[grpc.StatusCode, str, dict[str, str], list[Any]]:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    code, info, rejections = rich_error(caught.value)
    return code, info.reason, dict(info.metadata), rejections


async def play_one(stub: Any, game_id: str, tokens: list[str], rng: random.Random) -> bool:
    view = (await stub.GetView(pb.GetViewRequest(game_id=game_id))).view
    if view.over:
        return False
    seat = rng.choice(list(view.to_act))
    legal = await stub.ListLegalCommands(pb.ListLegalCommandsRequest(game_id=game_id), metadata=auth(tokens[seat]))
    assert legal.seat == seat and legal.commands
    reply = await stub.SubmitCommand(
        pb.SubmitCommandRequest(game_id=game_id, command=rng.choice(list(legal.commands)),
                                expected_sequence=legal.sequence),
        metadata=auth(tokens[seat]),
    )
    assert reply.sequence == legal.sequence + len(reply.events)
    return True


async def test_health_and_reflection(server: Running) -> None:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
        health = health_pb2_grpc.HealthStub(channel)
        for service in ("", "cardgames.v1.GameService"):
            reply = await health.Check(health_pb2.HealthCheckRequest(service=service))
            assert reply.status == health_pb2.HealthCheckResponse.SERVING
        reflection = reflection_pb2_grpc.ServerReflectionStub(channel)
        answers = reflection.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(list_services="")]))
        names = [s.name async for answer in answers for s in answer.list_services_response.service]
        assert "cardgames.v1.GameService" in names and "grpc.health.v1.Health" in names


async def test_a_whole_match_over_grpc(stub: Any) -> None:
    created = await create(stub)
    assert len(created.seat_tokens) == len(set(created.seat_tokens)) >= 2
    game_id, tokens = created.game_id, list(created.seat_tokens)
    rng = random.Random(1)
    while await play_one(stub, game_id, tokens, rng):
        pass
    view = (await stub.GetView(pb.GetViewRequest(game_id=game_id), metadata=auth(tokens[0]))).view
    assert view.over and not view.to_act and view.seat == 0 and view.game_name == GAME
    assert view.WhichOneof("game") == GAME and view.game_id == game_id
    log = await stub.GetLog(pb.GetLogRequest(game_id=game_id))
    assert [e.sequence for e in log.events] == list(range(1, log.sequence + 1)) and log.sequence == view.sequence
    assert not any(e.redacted for e in log.events)  # over: everything shows, seed included
    page = await stub.GetLog(pb.GetLogRequest(game_id=game_id, after_sequence=5, limit=3))
    assert [e.sequence for e in page.events] == [6, 7, 8]
    earlier = (await stub.GetView(pb.GetViewRequest(game_id=game_id, sequence=created.sequence))).view
    assert earlier.sequence == created.sequence and not earlier.over


async def test_create_refusals(stub: Any) -> None:
    other = next(name for name in sorted(GAME_MODULES) if name != GAME)
    cases = [
        (pb.CreateGameRequest(game="chess"), grpc.StatusCode.INVALID_ARGUMENT, "UNKNOWN_GAME"),
        (pb.CreateGameRequest(game=GAME, players=99), grpc.StatusCode.INVALID_ARGUMENT, "INVALID_OPTIONS"),
        (pb.CreateGameRequest(game=GAME, options=wire.wrap_options(other, {})),
         grpc.StatusCode.INVALID_ARGUMENT, "INVALID_OPTIONS"),
        (pb.CreateGameRequest(game=GAME, seed="12"), grpc.StatusCode.INVALID_ARGUMENT, "INVALID_SEED"),
        (pb.CreateGameRequest(game=GAME, dealer=42), grpc.StatusCode.INVALID_ARGUMENT, "INVALID_SETUP"),
    ]
    options_type = wire.game_message_type(pb.Options, GAME)
    enum_field = next((f for f in options_type.DESCRIPTOR.fields if f.type == FieldDescriptor.TYPE_ENUM), None)
    if enum_field is not None:  # an enum value this service does not know
        options = pb.Options()
        setattr(getattr(options, GAME), enum_field.name, 99)
        cases.append((pb.CreateGameRequest(game=GAME, options=options), grpc.StatusCode.INVALID_ARGUMENT,
                      "INVALID_OPTIONS"))
    for request, code, reason in cases:
        assert (await refused(stub.CreateGame(request)))[:2] == (code, reason), request


async def test_every_bad_input_is_typed_and_writes_nothing(stub: Any) -> None:
    created = await create(stub)
    game_id, tokens = created.game_id, list(created.seat_tokens)
    view = (await stub.GetView(pb.GetViewRequest(game_id=game_id))).view
    seat = view.to_act[0]
    idle = next(s for s in range(len(tokens)) if s not in view.to_act)
    legal = await stub.ListLegalCommands(pb.ListLegalCommandsRequest(game_id=game_id), metadata=auth(tokens[seat]))
    good = legal.commands[0]
    other = next(name for name in sorted(GAME_MODULES) if name != GAME)
    before = await log_length(stub, game_id)

    def submit(command: Any = good, token: str | None = tokens[seat], expected: int | None = view.sequence,
               game: str = game_id) -> Any:
        request = pb.SubmitCommandRequest(game_id=game, command=command)
        if expected is not None:
            request.expected_sequence = expected
        return stub.SubmitCommand(request, metadata=auth(token))

    cases = [
        (submit(token=None), grpc.StatusCode.UNAUTHENTICATED, "TOKEN_REQUIRED"),
        (submit(token="forged-token"), grpc.StatusCode.PERMISSION_DENIED, "TOKEN_INVALID"),
        (submit(token=tokens[idle]), grpc.StatusCode.FAILED_PRECONDITION, "NOT_YOUR_TURN"),
        (submit(expected=view.sequence - 1), grpc.StatusCode.ABORTED, "STALE_SEQUENCE"),
        (submit(expected=view.sequence + 1), grpc.StatusCode.ABORTED, "STALE_SEQUENCE"),
        (submit(command=pb.Command()), grpc.StatusCode.INVALID_ARGUMENT, "INVALID_COMMAND"),
        (submit(command=wire.wrap(pb.Command, GAME, {})), grpc.StatusCode.INVALID_ARGUMENT, "INVALID_COMMAND"),
        (submit(command=wire.wrap(pb.Command, other, {})), grpc.StatusCode.INVALID_ARGUMENT, "INVALID_COMMAND"),
        (submit(game="00000000-0000-0000-0000-000000000000"), grpc.StatusCode.NOT_FOUND, "GAME_NOT_FOUND"),
        (submit(game="no-such-id"), grpc.StatusCode.INVALID_ARGUMENT, "INVALID_GAME_ID"),
        (stub.ListLegalCommands(pb.ListLegalCommandsRequest(game_id=game_id)),
         grpc.StatusCode.UNAUTHENTICATED, "TOKEN_REQUIRED"),
        (stub.GetView(pb.GetViewRequest(game_id=game_id), metadata=auth("forged")),
         grpc.StatusCode.PERMISSION_DENIED, "TOKEN_INVALID"),
        (stub.GetView(pb.GetViewRequest(game_id=game_id, sequence=before + 5)),
         grpc.StatusCode.INVALID_ARGUMENT, "INVALID_SEQUENCE"),
        (stub.GetLog(pb.GetLogRequest(game_id=game_id), metadata=auth("forged")),
         grpc.StatusCode.PERMISSION_DENIED, "TOKEN_INVALID"),
    ]
    for call, code, reason in cases:
        got_code, got_reason, metadata, rejections = await refused(call)
        assert (got_code, got_reason) == (code, reason), (got_code, got_reason, metadata)
        if code == grpc.StatusCode.FAILED_PRECONDITION or reason == "INVALID_COMMAND":
            assert metadata["code"] == reason.lower() and metadata["message"] and "rule" in metadata
            assert rejections and rejections[0].reason == reason.lower()
        if reason == "STALE_SEQUENCE":
            assert metadata["sequence"] == str(view.sequence)
        assert await log_length(stub, game_id) == before
    reply = await submit()
    assert reply.sequence > before


async def test_a_command_after_the_match_ended(stub: Any) -> None:
    created = await create(stub)
    game_id, tokens = created.game_id, list(created.seat_tokens)
    rng = random.Random(2)
    last_command = None
    while True:
        view = (await stub.GetView(pb.GetViewRequest(game_id=game_id))).view
        if view.over:
            break
        seat = view.to_act[0]
        legal = await stub.ListLegalCommands(pb.ListLegalCommandsRequest(game_id=game_id), metadata=auth(tokens[seat]))
        last_command = rng.choice(list(legal.commands))
        await stub.SubmitCommand(pb.SubmitCommandRequest(game_id=game_id, command=last_command),
                                 metadata=auth(tokens[seat]))
    before = await log_length(stub, game_id)
    for seat, token in enumerate(tokens):
        code, reason, _, _ = await refused(stub.SubmitCommand(
            pb.SubmitCommandRequest(game_id=game_id, command=last_command, expected_sequence=before),
            metadata=auth(token)))
        assert (code, reason) == (grpc.StatusCode.FAILED_PRECONDITION, "GAME_OVER"), seat
    assert await log_length(stub, game_id) == before


async def test_watch_resumes_with_nothing_missed_or_repeated(stub: Any) -> None:
    created = await create(stub)
    game_id, tokens = created.game_id, list(created.seat_tokens)
    rng = random.Random(3)
    seen: list[int] = []
    call = stub.Watch(pb.WatchRequest(game_id=game_id), metadata=auth(tokens[1]))
    stream = call.__aiter__()
    first = await anext(stream)
    assert first.sequence == created.sequence and not first.events and first.view.seat == 1
    last = first.sequence
    for _ in range(3):
        await play_one(stub, game_id, tokens, rng)
        message = await anext(stream)
        seen += [e.sequence for e in message.events]
        last = message.sequence
        assert message.view.sequence == last
    call.cancel()
    for _ in range(4):  # played while disconnected
        await play_one(stub, game_id, tokens, rng)
    resumed = stub.Watch(pb.WatchRequest(game_id=game_id, after_sequence=last), metadata=auth(tokens[1]))
    stream = resumed.__aiter__()
    catch_up = await anext(stream)
    seen += [e.sequence for e in catch_up.events]
    await play_one(stub, game_id, tokens, rng)
    live = await anext(stream)
    seen += [e.sequence for e in live.events]
    resumed.cancel()
    assert seen == list(range(created.sequence + 1, live.sequence + 1))
    latest = (await stub.GetView(pb.GetViewRequest(game_id=game_id), metadata=auth(tokens[1]))).view
    assert live.view == latest
    log = await stub.GetLog(pb.GetLogRequest(game_id=game_id, after_sequence=created.sequence),
                            metadata=auth(tokens[1]))
    assert [e.sequence for e in log.events] == seen
    code, reason, _, _ = await refused(anext(stub.Watch(
        pb.WatchRequest(game_id=game_id, after_sequence=latest.sequence + 10)).__aiter__()))
    assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_SEQUENCE")


async def test_a_watcher_sees_a_whole_match_and_the_stream_ends(stub: Any, server: Running) -> None:
    created = await create(stub)
    game_id, tokens = created.game_id, list(created.seat_tokens)

    async def watch() -> list[Any]:
        return [m async for m in stub.Watch(pb.WatchRequest(game_id=game_id))]

    watcher = asyncio.create_task(watch())
    await asyncio.sleep(0.05)
    rng = random.Random(4)
    while await play_one(stub, game_id, tokens, rng):
        pass
    messages = await asyncio.wait_for(watcher, 30)
    assert messages[-1].view.over
    sequences = [e.sequence for m in messages for e in m.events]
    assert sequences == list(range(created.sequence + 1, messages[-1].sequence + 1))
    assert not server.games.cache[UUID(game_id)].subscribers  # the stream's end unsubscribed it


async def test_a_seat_never_sees_another_seats_unplayed_cards(stub: Any, server: Running) -> None:
    created = await create(stub)
    game_id, tokens = created.game_id, list(created.seat_tokens)
    live = server.games.cache[UUID(game_id)]
    watches = [stub.Watch(pb.WatchRequest(game_id=game_id), metadata=auth(token)) for token in tokens]
    streams = [watch.__aiter__() for watch in watches]
    for stream in streams:
        await anext(stream)
    rng = random.Random(5)
    for _ in range(30):
        if not await play_one(stub, game_id, tokens, rng):
            break
        held = hands(GAME, live.state)
        spectator_view = (await stub.GetView(pb.GetViewRequest(game_id=game_id))).view
        spectator_log = await stub.GetLog(pb.GetLogRequest(game_id=game_id))
        public = cards_in(wire.unwrap(spectator_view)[1]) | cards_in(
            [wire.unwrap(e.event)[1] for e in spectator_log.events])
        for seat, token in enumerate(tokens):
            others = set().union(*(held[s] for s in range(len(held)) if s != seat)) - public
            view = (await stub.GetView(pb.GetViewRequest(game_id=game_id), metadata=auth(token))).view
            log = await stub.GetLog(pb.GetLogRequest(game_id=game_id), metadata=auth(token))
            pushed = await anext(streams[seat])
            seen = cards_in(wire.unwrap(view)[1]) | cards_in([wire.unwrap(e.event)[1] for e in log.events])
            seen |= cards_in(wire.unwrap(pushed.view)[1]) | cards_in([wire.unwrap(e.event)[1] for e in pushed.events])
            assert not seen & others, (seat, sorted(seen & others))
            assert pushed.view == view
    for watch in watches:
        watch.cancel()
    for _ in range(100):  # a cancelled Watch unsubscribes
        if not live.subscribers:
            break
        await asyncio.sleep(0.01)
    assert not live.subscribers
