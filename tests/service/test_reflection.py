"""Reflection (v1 and v1alpha) and health: a generic client with no .proto file plays a match.

The client here knows nothing of the contract: it fetches every descriptor by server
reflection (grpcio-reflection's ``ProtoReflectionDescriptorDatabase``, over v1 and over
v1alpha), builds its messages with ``google.protobuf.message_factory`` and speaks canonical
JSON to them, as grpcurl and buf curl do; it reads a refusal's google.rpc.Status from the
``grpc-status-details-bin`` trailer with google.rpc and cardgames.v1 descriptors found the
same way. ``buf curl --reflect-protocol grpc-v1`` (another
implementation of reflection v1) checks the v1 service from outside Python.
"""

from __future__ import annotations

import asyncio
import json
import random
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf import descriptor_pool, json_format, message_factory
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import ProtoReflectionDescriptorDatabase

from cardgames.service.reflection import V1_SERVICE_NAME, V1ALPHA_SERVICE_NAME
from cardgames.service.server import Running, start
from cardgames.service.store import EventStore

GAME_SERVICE = "cardgames.v1.GameService"
TOKEN = "cardgames-token"


@pytest.fixture
async def server() -> AsyncIterator[Running]:
    running = await start("127.0.0.1:0", EventStore.from_url("memory:"))
    yield running
    await running.stop(grace=None)


class _V1Stub:
    """The reflection stub over ``grpc.reflection.v1`` (its messages are v1alpha's, byte for byte)."""

    def __init__(self, channel: grpc.Channel) -> None:
        self.ServerReflectionInfo = channel.stream_stream(
            f"/{V1_SERVICE_NAME}/ServerReflectionInfo",
            request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
            response_deserializer=reflection_pb2.ServerReflectionResponse.FromString,
        )


def descriptor_database(channel: grpc.Channel, protocol: str) -> ProtoReflectionDescriptorDatabase:
    """grpcio-reflection's descriptor database over ``protocol`` ("v1" or "v1alpha"; it ships only v1alpha)."""
    database = ProtoReflectionDescriptorDatabase(channel)
    if protocol == "v1":
        database._stub = _V1Stub(channel)
    return database


class GenericClient:
    """Calls any method by name with JSON requests, from descriptors found by reflection alone."""

    def __init__(self, channel: grpc.Channel, protocol: str) -> None:
        self.channel = channel
        self.database = descriptor_database(channel, protocol)
        self.pool = descriptor_pool.DescriptorPool(self.database)  # a fresh pool: no compiled protos

    def method(self, full_name: str) -> Any:
        service, name = full_name.rsplit("/", 1)
        return self.pool.FindServiceByName(service).methods_by_name[name]

    def _callable(self, full_name: str, streaming: bool) -> tuple[Any, Any]:
        method = self.method(full_name)
        assert method.server_streaming == streaming and not method.client_streaming
        request = message_factory.GetMessageClass(method.input_type)
        response = message_factory.GetMessageClass(method.output_type)
        kind = self.channel.unary_stream if streaming else self.channel.unary_unary
        return kind(f"/{full_name}", request_serializer=request.SerializeToString,
                    response_deserializer=response.FromString), request

    def call(self, full_name: str, body: dict[str, Any], token: str | None = None) -> dict[str, Any]:
        rpc, request = self._callable(full_name, streaming=False)
        reply = rpc(json_format.ParseDict(body, request()), metadata=((TOKEN, token),) if token else None, timeout=30)
        return json.loads(json_format.MessageToJson(reply))

    def stream(self, full_name: str, body: dict[str, Any], token: str | None = None) -> list[dict[str, Any]]:
        rpc, request = self._callable(full_name, streaming=True)
        replies = rpc(json_format.ParseDict(body, request()), metadata=((TOKEN, token),) if token else None, timeout=30)
        return [json.loads(json_format.MessageToJson(reply)) for reply in replies]


def play_by_reflection(address: str, protocol: str) -> dict[str, Any]:
    """Describe SubmitCommand, then play a whole All Fours match by JSON over reflected descriptors."""
    with grpc.insecure_channel(address) as channel:
        client = GenericClient(channel, protocol)
        services = set(client.database.get_services())
        # Describe a method: its request and response types, their fields, presence and streaming.
        submit = client.method(f"{GAME_SERVICE}/SubmitCommand")
        request_fields = {field.name: field for field in submit.input_type.fields}
        described = {
            "input": submit.input_type.full_name,
            "output": submit.output_type.full_name,
            "fields": sorted(request_fields),
            "expected_sequence_has_presence": request_fields["expected_sequence"].has_presence,
            "watch_streams": client.method(f"{GAME_SERVICE}/Watch").server_streaming,
        }
        created = client.call(f"{GAME_SERVICE}/CreateGame", {
            "game": "all_fours", "players": 2, "seed": "5e" * 32, "options": {"allFours": {"targetScore": 7}},
        })
        game_id, tokens = created["gameId"], created["seatTokens"]
        rng = random.Random(3)
        submitted = 0
        seats_seen: set[int] = set()
        while True:
            view = client.call(f"{GAME_SERVICE}/GetView", {"gameId": game_id})["view"]
            if view.get("over"):
                break
            seat = view["toAct"][0]
            legal = client.call(f"{GAME_SERVICE}/ListLegalCommands", {"gameId": game_id}, tokens[seat])
            seats_seen.add(legal["seat"])  # printed for seat 0 too: it has presence
            assert int(legal["total"]) == len(legal["commands"]) > 0  # uint64: a string in JSON
            command = rng.choice(legal["commands"])
            accepted = client.call(f"{GAME_SERVICE}/SubmitCommand", {
                "gameId": game_id, "command": command, "expectedSequence": legal["sequence"],
            }, tokens[seat])
            assert int(accepted["sequence"]) > int(legal["sequence"])
            submitted += 1
        refusal = refusal_details(client, game_id, tokens[0])
        final = client.call(f"{GAME_SERVICE}/GetView", {"gameId": game_id}, tokens[0])["view"]
        watched = client.stream(f"{GAME_SERVICE}/Watch", {"gameId": game_id})  # ends: the match is over
        return {"services": services, "described": described, "submitted": submitted, "seats": seats_seen,
                "final": final, "watched": watched, "refusal": refusal}


def refusal_details(client: GenericClient, game_id: str, token: str) -> dict[str, Any]:
    """A refused command's google.rpc.Status, read from its trailer with descriptors found by reflection."""
    with pytest.raises(grpc.RpcError) as caught:
        client.call(f"{GAME_SERVICE}/SubmitCommand", {"gameId": game_id, "command": {"allFours": {"stand": {}}}},
                    token)
    error: Any = caught.value
    trailer = dict(error.trailing_metadata())["grpc-status-details-bin"]
    status_class = message_factory.GetMessageClass(client.pool.FindMessageTypeByName("google.rpc.Status"))
    status: Any = status_class.FromString(trailer)
    details = []
    for detail in status.details:  # google.protobuf.Any: its type, then its value by that type
        kind = client.pool.FindMessageTypeByName(detail.type_url.rsplit("/", 1)[1])
        value = message_factory.GetMessageClass(kind).FromString(detail.value)
        details.append({"type": kind.full_name, **json.loads(json_format.MessageToJson(value))})
    return {"grpc_code": error.code().value[0], "code": status.code, "details": details}


@pytest.mark.parametrize("protocol", ["v1", "v1alpha"])
async def test_a_generic_client_plays_a_match_by_reflection(server: Running, protocol: str) -> None:
    result = await asyncio.to_thread(play_by_reflection, f"127.0.0.1:{server.port}", protocol)
    assert {GAME_SERVICE, "cardgames.v1.BotService", "grpc.health.v1.Health", V1_SERVICE_NAME,
            V1ALPHA_SERVICE_NAME} <= result["services"]
    assert result["described"] == {
        "input": "cardgames.v1.SubmitCommandRequest", "output": "cardgames.v1.SubmitCommandResponse",
        "fields": ["command", "expected_sequence", "game_id"], "expected_sequence_has_presence": True,
        "watch_streams": True,
    }
    assert result["submitted"] >= 10 and result["seats"] == {0, 1}
    final = result["final"]
    assert final["over"] and final["seat"] == 0 and "winner" in final["allFours"]
    assert [message["view"]["over"] for message in result["watched"]] == [True]
    refusal = result["refusal"]  # a stand once the match is over
    assert refusal["code"] == refusal["grpc_code"] == grpc.StatusCode.FAILED_PRECONDITION.value[0]
    info, rejection = refusal["details"]
    assert info["type"] == "google.rpc.ErrorInfo" and info["reason"] == "GAME_OVER" and info["domain"] == "cardgames"
    assert rejection["type"] == "cardgames.v1.Rejection" and rejection["code"] == "REJECTION_CODE_GAME_OVER"


async def test_reflection_describes_itself_in_both_protocols(server: Running) -> None:
    def find(protocol: str) -> list[str]:
        with grpc.insecure_channel(f"127.0.0.1:{server.port}") as channel:
            pool = descriptor_pool.DescriptorPool(descriptor_database(channel, protocol))
            names = []
            for service in (V1_SERVICE_NAME, V1ALPHA_SERVICE_NAME):
                method = pool.FindServiceByName(service).methods_by_name["ServerReflectionInfo"]
                assert method.client_streaming and method.server_streaming
                names.append(method.input_type.full_name)
            return names

    expected = ["grpc.reflection.v1.ServerReflectionRequest", "grpc.reflection.v1alpha.ServerReflectionRequest"]
    for protocol in ("v1", "v1alpha"):
        assert await asyncio.to_thread(find, protocol) == expected


async def test_health_list_answers_every_service(server: Running) -> None:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
        health = health_pb2_grpc.HealthStub(channel)
        listed = await health.List(health_pb2.HealthListRequest())
        statuses = {name: reply.status for name, reply in listed.statuses.items()}
        assert statuses == dict.fromkeys(
            ("", GAME_SERVICE, "cardgames.v1.BotService", "cardgames.v1.TournamentService",
             "cardgames.v1.TableService"),
            health_pb2.HealthCheckResponse.SERVING,
        )
        await server.health.enter_graceful_shutdown()
        listed = await health.List(health_pb2.HealthListRequest())
        assert {reply.status for reply in listed.statuses.values()} == {health_pb2.HealthCheckResponse.NOT_SERVING}


async def _buf_curl(*args: str) -> tuple[int, str]:
    buf = Path(sys.executable).parent / "buf"
    assert buf.exists(), "buf is not installed (pip install -e '.[dev]' installs buf-bin)"
    process = await asyncio.create_subprocess_exec(
        str(buf), "curl", "--protocol", "grpc", "--http2-prior-knowledge", "--reflect-protocol", "grpc-v1", *args,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
    )
    output, _ = await asyncio.wait_for(process.communicate(), 60)
    return process.returncode or 0, output.decode()


async def test_buf_curl_over_reflection_v1(server: Running) -> None:
    base = f"http://127.0.0.1:{server.port}"
    code, listed = await _buf_curl("--list-methods", base)
    assert code == 0, listed
    assert f"{GAME_SERVICE}/SubmitCommand" in listed.split() and "grpc.health.v1.Health/List" in listed.split()
    code, output = await _buf_curl("-d", '{"game": "all_fours", "players": 2}', f"{base}/{GAME_SERVICE}/CreateGame")
    assert code == 0, output
    created = json.loads(output)
    code, output = await _buf_curl("-H", f"{TOKEN}: {created['seatTokens'][0]}", "-d",
                                   json.dumps({"gameId": created["gameId"]}), f"{base}/{GAME_SERVICE}/GetView")
    assert code == 0, output
    view = json.loads(output)["view"]
    assert view["seat"] == 0 and view["sequence"] == created["sequence"]  # seat 0 printed; int64 a string
    code, output = await _buf_curl("-d", "{}", f"{base}/grpc.health.v1.Health/List")
    assert code == 0, output
    assert json.loads(output)["statuses"][GAME_SERVICE] == {"status": "SERVING"}
