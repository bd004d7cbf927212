"""Property-based fuzzing of every GameService RPC against an in-process server (port 0), for
every built-in game.

Random messages of each method's request type (built from the proto descriptors, so a new
RPC is fuzzed without a change here), random bytes that are not a message at all, random
commands for random seats of a game of each kind at a point of play Hypothesis draws move by
move (so that a failure shrinks to a short game), random and borrowed tokens, random game ids.
Whatever comes in: never a crash, never INTERNAL or UNKNOWN (an unhandled exception), always a rich status
on an error, and a refused call never changes any game's log.
"""

from __future__ import annotations

import asyncio
import os
import threading
import uuid
from collections.abc import Iterator
from concurrent.futures import Future
from typing import Any

import grpc
import pytest
from google.protobuf import message_factory
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardgames.engine.core.registry import GAME_MODULES
from cardgames.service.grpc_api import SERVICE_NAME, TOKEN_METADATA
from cardgames.service.server import Running, start
from cardgames.service.store import EventStore
from cardgames.v1 import game_service_pb2, game_service_pb2_grpc
from tests.profiles import examples

pb = game_service_pb2
#: Every built-in game: each is fuzzed over real gRPC.
GAMES = sorted(GAME_MODULES)
SERVICE = pb.DESCRIPTOR.services_by_name["GameService"]
METHODS = {method.name: method for method in SERVICE.methods}
#: Codes that mean the server did not handle something (an exception escaped) or broke.
FORBIDDEN = {grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN, grpc.StatusCode.DATA_LOSS,
             grpc.StatusCode.UNIMPLEMENTED, grpc.StatusCode.DEADLINE_EXCEEDED}
#: Examples per property (CARDGAMES_FUZZ_EXAMPLES for another count; else as the Hypothesis profile
#: scales it, tests/profiles.py); a property run for each game runs two thirds of them per game.
EXAMPLES = int(os.environ.get("CARDGAMES_FUZZ_EXAMPLES") or examples(150))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
FUZZ_EACH_GAME = settings(FUZZ, max_examples=max(1, EXAMPLES * 2 // 3))


class Server:
    """The service on its own event loop thread; the test talks to it with a synchronous channel."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.running: Running = self.call(start("127.0.0.1:0", EventStore.from_url("memory:")))
        self.channel = grpc.insecure_channel(f"127.0.0.1:{self.running.port}")
        self.stub = game_service_pb2_grpc.GameServiceStub(self.channel)
        self.games: list[tuple[str, list[str]]] = []
        for game in GAMES:
            for _ in range(2):
                created = self.stub.CreateGame(pb.CreateGameRequest(game=game))
                self.games.append((created.game_id, list(created.seat_tokens)))

    def call(self, coroutine: Any) -> Any:
        future: Future[Any] = asyncio.run_coroutine_threadsafe(coroutine, self.loop)
        return future.result(60)

    def logs(self) -> list[list[Any]]:
        """Every game's whole log, as the store holds it."""
        games = self.running.games
        return [
            [(record.originator_version, record.state) for record in games.store.recorder.select_events(
                uuid.UUID(game_id))]
            for game_id, _ in self.games
        ]

    def close(self) -> None:
        self.channel.close()
        self.call(self.running.stop(grace=None))
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    running = Server()
    yield running
    running.close()


# ---------------------------------------------------------------------------
# Random messages from descriptors.

_INTS = {
    FieldDescriptor.TYPE_INT32: (-(2**31), 2**31 - 1), FieldDescriptor.TYPE_SINT32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_SFIXED32: (-(2**31), 2**31 - 1), FieldDescriptor.TYPE_UINT32: (0, 2**32 - 1),
    FieldDescriptor.TYPE_FIXED32: (0, 2**32 - 1), FieldDescriptor.TYPE_INT64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_SINT64: (-(2**63), 2**63 - 1), FieldDescriptor.TYPE_SFIXED64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_UINT64: (0, 2**64 - 1), FieldDescriptor.TYPE_FIXED64: (0, 2**64 - 1),
}
#: Strings that mean something somewhere (card codes, option values, ids), mixed with random text.
_WORDS = st.sampled_from(["", "AS", "10D", "JK", "2C", "KH", "play", "pass", "stand", "beg", "throw", "bid",
                          "draw_stock", "discard", *GAMES, "00000000-0000-0000-0000-000000000000", "-1",
                          "\u0000", "é"])


def _scalar(field: FieldDescriptor) -> st.SearchStrategy[Any]:
    kind = field.type
    if kind in _INTS:
        low, high = _INTS[kind]
        return st.one_of(st.integers(-3, 60), st.integers(low, high))
    if kind == FieldDescriptor.TYPE_BOOL:
        return st.booleans()
    if kind == FieldDescriptor.TYPE_STRING:
        return st.one_of(_WORDS, st.text(max_size=12))
    if kind == FieldDescriptor.TYPE_BYTES:
        return st.binary(max_size=16)
    if kind == FieldDescriptor.TYPE_ENUM:
        assert field.enum_type is not None
        return st.integers(-2, len(field.enum_type.values) + 2)  # open enums: unknown values too
    if kind == FieldDescriptor.TYPE_FLOAT:
        return st.floats(width=32)
    return st.floats()


@st.composite
def messages(draw: st.DrawFn, descriptor: Descriptor, depth: int = 0) -> Any:
    message = message_factory.GetMessageClass(descriptor)()
    fields = list(descriptor.fields)
    if depth > 3 or not fields:
        return message
    chosen = draw(st.lists(st.sampled_from(fields), max_size=min(4, len(fields)), unique_by=lambda f: f.name))
    for field in chosen:
        target = getattr(message, field.name)
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            entry = field.message_type.fields_by_name
            key_field, value_field = entry["key"], entry["value"]
            for key in draw(st.lists(_scalar(key_field), max_size=2)):
                if value_field.message_type is None:
                    target[key] = draw(_scalar(value_field))
                else:
                    target[key].CopyFrom(draw(messages(value_field.message_type, depth + 1)))
        elif field.is_repeated:
            if field.message_type is None:
                target.extend(draw(st.lists(_scalar(field), max_size=3)))
            else:
                for item in draw(st.lists(messages(field.message_type, depth + 1), max_size=2)):
                    target.add().CopyFrom(item)
        elif field.message_type is not None:
            target.CopyFrom(draw(messages(field.message_type, depth + 1)))
        else:
            setattr(message, field.name, draw(_scalar(field)))
    return message


# ---------------------------------------------------------------------------
# Checks.


def check_call(server: Server, invoke: Any) -> Any:
    """Run one call; assert the outcome is handled; a refused call changed no log."""
    before = server.logs()
    try:
        return invoke()
    except grpc.RpcError as error:
        code = error.code()
        assert code not in FORBIDDEN, (code, error.details())
        status = rpc_status.from_call(error)
        assert status is not None, f"no rich status: {code} {error.details()}"
        assert any(d.Is(error_details_pb2.ErrorInfo.DESCRIPTOR) for d in status.details)
        assert server.logs() == before, "a refused call changed a log"
        return None


def tokens_strategy(server: Server) -> st.SearchStrategy[str | None]:
    every = [token for _, tokens in server.games for token in tokens]
    return st.one_of(st.none(), st.sampled_from(every),
                     st.text(alphabet=st.characters(min_codepoint=0x21, max_codepoint=0x7E), max_size=50))


def game_ids(server: Server) -> st.SearchStrategy[str]:
    return st.one_of(st.sampled_from([game_id for game_id, _ in server.games]), _WORDS, st.uuids().map(str))


def invoke(server: Server, method: str, request: Any, token: str | None) -> Any:
    metadata = ((TOKEN_METADATA, token),) if token else None
    if METHODS[method].server_streaming:
        def stream() -> list[Any]:
            call = server.stub.Watch(request, metadata=metadata, timeout=10)
            try:
                return [next(call)]
            finally:
                call.cancel()
        return stream
    return lambda: getattr(server.stub, method)(request, metadata=metadata, timeout=10)


# ---------------------------------------------------------------------------
# The properties.


@FUZZ
@given(data=st.data())
def test_random_requests_to_every_rpc(server: Server, data: st.DataObject) -> None:
    method = data.draw(st.sampled_from(sorted(METHODS)))
    descriptor = METHODS[method].input_type
    request = data.draw(messages(descriptor))
    if "game_id" in descriptor.fields_by_name and data.draw(st.booleans()):
        request.game_id = data.draw(game_ids(server))
    if method == "CreateGame" and data.draw(st.booleans()):
        request.game = data.draw(st.sampled_from(GAMES))
    token = data.draw(tokens_strategy(server))
    check_call(server, invoke(server, method, request, token))


def advance(server: Server, game_id: str, tokens: list[str], moves: int, data: st.DataObject) -> None:
    """Play ``moves`` legal commands, each drawn from the first page of the mover's listing (fewer if
    the match ends); every one must be accepted."""
    for _ in range(moves):
        view = server.stub.GetView(pb.GetViewRequest(game_id=game_id)).view
        if view.over:
            return
        seat = data.draw(st.sampled_from(list(view.to_act)), label="mover")
        metadata = ((TOKEN_METADATA, tokens[seat]),)
        legal = list(server.stub.ListLegalCommands(pb.ListLegalCommandsRequest(game_id=game_id),
                                                   metadata=metadata).commands)
        command = data.draw(st.integers(0, len(legal) - 1).map(legal.__getitem__), label=f"seat {seat}")
        server.stub.SubmitCommand(pb.SubmitCommandRequest(game_id=game_id, command=command), metadata=metadata)


@pytest.mark.parametrize("game", GAMES)
@FUZZ_EACH_GAME
@given(data=st.data(), seed=st.binary(min_size=32, max_size=32), moves=st.integers(0, 40))
def test_random_commands_for_random_seats(
    server: Server, game: str, data: st.DataObject, seed: bytes, moves: int
) -> None:
    """A match at a drawn point (seed and moves drawn), then one random command for a random seat."""
    created = server.stub.CreateGame(pb.CreateGameRequest(game=game, seed=seed.hex()))
    game_id, tokens = created.game_id, list(created.seat_tokens)
    advance(server, game_id, tokens, moves, data)
    view = server.stub.GetView(pb.GetViewRequest(game_id=game_id)).view
    seat = data.draw(st.integers(0, len(tokens) - 1))
    asker = data.draw(st.integers(0, len(tokens) - 1))  # legal commands of some seat, sent for another
    legal = server.stub.ListLegalCommands(pb.ListLegalCommandsRequest(game_id=game_id),
                                          metadata=((TOKEN_METADATA, tokens[asker]),))
    pick = data.draw(st.integers(0, 1000))
    own = list(legal.commands)
    random_command = data.draw(messages(pb.Command.DESCRIPTOR))
    command = own[pick % len(own)] if own and pick % 3 else random_command
    request = pb.SubmitCommandRequest(game_id=game_id, command=command)
    expected = data.draw(st.one_of(st.none(), st.integers(-2, 3)))
    if expected is not None:
        request.expected_sequence = view.sequence + expected if expected != -2 else expected
    token = data.draw(st.one_of(st.just(tokens[seat]), tokens_strategy(server)))
    games = server.games
    server.games = [*games, (game_id, tokens)]  # this game's log is checked too
    try:
        before = server.logs()
        reply = check_call(server, invoke(server, "SubmitCommand", request, token))
        if reply is not None:  # accepted: exactly its events were appended, after the sequence it answered
            after = server.logs()[-1]
            assert len(after) == len(before[-1]) + len(reply.events)
            assert reply.sequence == after[-1][0]
    finally:
        server.games = games


@FUZZ
@given(method=st.sampled_from(sorted(METHODS)), payload=st.binary(min_size=1, max_size=64))
def test_bytes_that_are_no_message(server: Server, method: str, payload: bytes) -> None:
    path = f"/{SERVICE_NAME}/{method}"
    if METHODS[method].server_streaming:
        call = server.channel.unary_stream(path, request_serializer=lambda b: b, response_deserializer=lambda b: b)

        def run() -> Any:
            stream = call(payload, timeout=10)
            try:
                return [next(stream)]
            finally:
                stream.cancel()
    else:
        unary = server.channel.unary_unary(path, request_serializer=lambda b: b, response_deserializer=lambda b: b)

        def run() -> Any:
            return unary(payload, timeout=10)

    check_call(server, run)


def test_undecodable_bytes_are_invalid_argument(server: Server) -> None:
    unary = server.channel.unary_unary(f"/{SERVICE_NAME}/GetView", request_serializer=lambda b: b,
                                       response_deserializer=lambda b: b)
    with pytest.raises(grpc.RpcError) as caught:
        unary(b"\xff\xff\xff\x07garbage", timeout=10)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    status = rpc_status.from_call(caught.value)
    info = error_details_pb2.ErrorInfo()
    assert status is not None and status.details[0].Unpack(info) and info.reason == "MALFORMED_REQUEST"
