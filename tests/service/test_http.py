"""The service over HTTP (service/http/): Connect JSON and binary, gRPC-Web, the same tokens, errors and
details as native gRPC, Watch as a server stream, bad input refused with a Connect error (never a 500,
nothing changed), CORS and the static files; one process, one ``Games`` for both listeners."""

from __future__ import annotations

import asyncio
import base64
import http.client
import json
import logging
import ssl
import urllib.parse
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from pathlib import Path
from typing import Any, cast

import grpc
import pytest
from connectrpc.code import Code
from connectrpc.compat import google_protobuf_binary_codec, google_protobuf_json_codec
from connectrpc.errors import ConnectError
from connectrpc.protocol import ProtocolType
from google.rpc import error_details_pb2

from cardgames.service.grpc_api import TOKEN_METADATA
from cardgames.service.guards import Limits
from cardgames.service.http.server import start_http
from cardgames.service.server import Running, start
from cardgames.service.store import EventStore
from cardgames.v1 import game_service_connect, game_service_pb2, game_service_pb2_grpc

pb = game_service_pb2
SERVICE = "/cardgames.v1.GameService"
ORIGIN = "https://table.example"


@pytest.fixture
async def server() -> AsyncIterator[Running]:
    running = await start("127.0.0.1:0", EventStore.from_url("memory:"))
    running.http = await start_http("127.0.0.1:0", running, cors_origins=[ORIGIN])
    yield running
    await running.stop(grace=None)


class Reply:
    def __init__(self, status: int, headers: Mapping[str, str], body: bytes) -> None:
        self.status, self.headers, self.body = status, headers, body

    def json(self) -> Any:
        assert self.headers.get("content-type", "").startswith("application/json"), self.headers
        return json.loads(self.body)


def _request(port: int, method: str, path: str, body: bytes, headers: Mapping[str, str]) -> Reply:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request(method, path, body=body, headers=dict(headers))
        response = connection.getresponse()
        return Reply(response.status, {k.lower(): v for k, v in response.getheaders()}, response.read())
    finally:
        connection.close()


async def call(
    server: Running,
    method: str,
    body: Any,
    token: str | None = None,
    *,
    content_type: str = "application/json",
    headers: Mapping[str, str] | None = None,
    verb: str = "POST",
) -> Reply:
    """One Connect unary call (or any request) to the server's HTTP port."""
    assert server.http is not None
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    sent = {"content-type": content_type, **({TOKEN_METADATA: token} if token else {}), **(headers or {})}
    return await asyncio.to_thread(_request, server.http.port, verb, f"{SERVICE}/{method}", data, sent)


def error_info(reply: Reply) -> tuple[str, str]:
    """The Connect error's code and its ErrorInfo's reason (domain cardgames)."""
    error = reply.json()
    reasons = []
    for detail in error.get("details", []):
        if detail["type"] == "google.rpc.ErrorInfo":
            info = error_details_pb2.ErrorInfo.FromString(base64.b64decode(detail["value"] + "=="))
            assert info.domain == "cardgames"
            reasons.append(info.reason)
    return error["code"], reasons[0] if reasons else ""


async def seat_to_act(server: Running, game_id: str, tokens: list[str]) -> tuple[str, list[Any]]:
    for token in tokens:
        listed = (await call(server, "ListLegalCommands", {"gameId": game_id}, token)).json()
        if listed.get("commands"):
            return token, listed["commands"]
    raise AssertionError("no seat may act")


async def sequence_of(server: Running, game_id: str) -> int:
    return int((await call(server, "GetView", {"gameId": game_id})).json()["view"]["sequence"])


async def test_connect_json_creates_a_game_and_plays_a_command_that_native_grpc_then_sees(server: Running) -> None:
    created = await call(server, "CreateGame", {"game": "seep"})
    assert created.status == 200 and created.headers["content-type"] == "application/json"
    game = created.json()
    token, commands = await seat_to_act(server, game["gameId"], game["seatTokens"])
    submitted = await call(server, "SubmitCommand", {"gameId": game["gameId"], "command": commands[0]}, token)
    assert submitted.status == 200, submitted.body
    sequence = int(submitted.json()["sequence"])
    assert sequence > int(game["sequence"]) and submitted.json()["events"]
    async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:  # the same Games behind both
        view = await game_service_pb2_grpc.GameServiceStub(channel).GetView(pb.GetViewRequest(game_id=game["gameId"]))
    assert view.view.sequence == sequence


async def test_errors_carry_the_same_codes_and_details_as_native_grpc(server: Running) -> None:
    game = (await call(server, "CreateGame", {"game": "seep"})).json()
    game_id, tokens = game["gameId"], game["seatTokens"]
    before = await sequence_of(server, game_id)
    cases = [
        (await call(server, "CreateGame", {"game": "nope"}), 400, "invalid_argument", "UNKNOWN_GAME"),
        (await call(server, "GetView", {"gameId": "not-a-uuid"}), 400, "invalid_argument", "INVALID_GAME_ID"),
        (
            await call(server, "GetView", {"gameId": "00000000-0000-4000-8000-000000000000"}),
            404,
            "not_found",
            "GAME_NOT_FOUND",
        ),
        (await call(server, "SubmitCommand", {"gameId": game_id}, "x" * 43), 403, "permission_denied", "TOKEN_INVALID"),
    ]
    token, commands = await seat_to_act(server, game_id, tokens)
    cases.append(
        (
            await call(server, "SubmitCommand", {"gameId": game_id, "command": {}}, token),
            400,
            "invalid_argument",
            "INVALID_COMMAND",
        )
    )
    for reply, status, code, reason in cases:
        assert (reply.status, *error_info(reply)) == (status, code, reason), reply.body
    other = next(t for t in tokens if t != token)
    refused = await call(server, "SubmitCommand", {"gameId": game_id, "command": commands[0]}, other)
    assert error_info(refused) in {("failed_precondition", "NOT_YOUR_TURN"), ("failed_precondition", "ILLEGAL_MOVE")}
    assert any(d["type"] == "cardgames.v1.Rejection" for d in refused.json()["details"])
    stale = await call(
        server, "SubmitCommand", {"gameId": game_id, "command": commands[0], "expectedSequence": str(before - 1)}, token
    )
    assert (stale.status, *error_info(stale)) == (409, "aborted", "STALE_SEQUENCE")
    assert await sequence_of(server, game_id) == before  # nothing written


async def test_bad_input_is_a_connect_error_never_a_500_and_changes_nothing(
    server: Running, caplog: pytest.LogCaptureFixture
) -> None:
    game = (await call(server, "CreateGame", {"game": "seep"})).json()
    game_id = game["gameId"]
    token, commands = await seat_to_act(server, game_id, game["seatTokens"])
    before = await sequence_of(server, game_id)
    command = {"gameId": game_id, "command": commands[0]}
    malformed = await call(server, "SubmitCommand", b'{"gameId": "' + game_id.encode() + b'", "command": {', token)
    assert (malformed.status, *error_info(malformed)) == (400, "invalid_argument", "MALFORMED_REQUEST")
    unknown = await call(server, "SubmitCommand", {**command, "cheat": True}, token)
    assert (unknown.status, *error_info(unknown)) == (400, "invalid_argument", "MALFORMED_REQUEST")
    assert "cheat" in unknown.json()["message"]
    huge = await call(server, "SubmitCommand", {**command, "x" * 100_000: True}, token)
    assert error_info(huge) == ("invalid_argument", "MALFORMED_REQUEST")
    assert len(huge.json()["message"].encode()) <= 512  # never repeats the input at length (as over gRPC)
    garbage = await call(server, "SubmitCommand", b"\xff\xff\xff\xff", token, content_type="application/proto")
    assert (garbage.status, *error_info(garbage)) == (400, "invalid_argument", "MALFORMED_REQUEST")
    for content_type in ("text/plain", "application/x-www-form-urlencoded", "application/grpc", ""):
        wrong = await call(server, "SubmitCommand", command, token, content_type=content_type)
        assert wrong.status == 415 and wrong.json()["code"] == "invalid_argument", (content_type, wrong.body)
    oversized = await call(server, "SubmitCommand", {**command, "gameId": "x" * (5 * 1024 * 1024)}, token)
    assert oversized.status == 429 and oversized.json()["code"] == "resource_exhausted", oversized.body
    missing = await call(server, "SubmitCommand", command)
    assert (missing.status, *error_info(missing)) == (401, "unauthenticated", "TOKEN_REQUIRED")
    nowhere = await call(server, "Nope", command, token)
    assert (nowhere.status, nowhere.json()["code"]) == (404, "unimplemented")
    query = "?encoding=json&message=" + urllib.parse.quote(json.dumps(command))
    got = await call(server, "SubmitCommand" + query, b"", token, verb="GET")  # Connect's GET: not for commands
    assert (got.status, got.json()["code"], got.headers["allow"]) == (405, "unimplemented", "POST")
    assert await sequence_of(server, game_id) == before  # nothing changed
    assert not [record for record in caplog.records if record.levelno >= logging.ERROR or record.exc_info]


@pytest.mark.parametrize(
    ("protocol", "json_codec"),
    [(ProtocolType.CONNECT, False), (ProtocolType.CONNECT, True), (ProtocolType.GRPC_WEB, False)],
    ids=["connect-proto", "connect-json", "grpc-web"],
)
async def test_connect_and_grpc_web_clients_play_watch_and_get_the_typed_errors(
    server: Running, protocol: ProtocolType, json_codec: bool
) -> None:
    assert server.http is not None
    codec = google_protobuf_json_codec() if json_codec else google_protobuf_binary_codec()
    async with game_service_connect.GameServiceClient(
        f"http://127.0.0.1:{server.http.port}", protocol=protocol, codec=codec
    ) as client:
        created = await client.create_game(pb.CreateGameRequest(game="seep"))
        watch = client.watch(pb.WatchRequest(game_id=created.game_id))
        first = await anext(aiter(watch))
        assert first.sequence == created.sequence
        for token in created.seat_tokens:
            listed = await client.list_legal_commands(  # the pre-encoded answer, parsed for HTTP
                pb.ListLegalCommandsRequest(game_id=created.game_id), headers={TOKEN_METADATA: token}
            )
            if listed.commands:
                break
        accepted = await client.submit_command(
            pb.SubmitCommandRequest(game_id=created.game_id, command=listed.commands[0]),
            headers={TOKEN_METADATA: token},
        )
        following = await asyncio.wait_for(anext(aiter(watch)), 10)
        assert following.sequence == accepted.sequence
        await cast(AsyncGenerator[Any], watch).aclose()
        with pytest.raises(ConnectError) as refused:
            await client.submit_command(pb.SubmitCommandRequest(game_id=created.game_id, command=listed.commands[0]))
        assert refused.value.code == Code.UNAUTHENTICATED
        [detail] = refused.value.details
        assert detail.type_name == "google.rpc.ErrorInfo"
        assert error_details_pb2.ErrorInfo.FromString(detail.message_bytes).reason == "TOKEN_REQUIRED"


async def test_watch_of_an_unknown_game_ends_with_the_error(server: Running) -> None:
    assert server.http is not None
    async with game_service_connect.GameServiceClient(f"http://127.0.0.1:{server.http.port}") as client:
        with pytest.raises(ConnectError) as refused:
            async for _ in client.watch(pb.WatchRequest(game_id="00000000-0000-4000-8000-000000000000")):
                pass
    assert refused.value.code == Code.NOT_FOUND


async def test_health_check_over_http(server: Running) -> None:
    assert server.http is not None
    reply = await asyncio.to_thread(
        _request, server.http.port, "POST", "/grpc.health.v1.Health/Check", b"{}", {"content-type": "application/json"}
    )
    assert (reply.status, reply.json()) == (200, {"status": "SERVING"})


async def test_cors_for_the_allowed_origins_only(server: Running) -> None:
    assert server.http is not None
    preflight = {
        "origin": ORIGIN,
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type,cardgames-token,connect-protocol-version",
    }
    allowed = await call(server, "CreateGame", b"", headers=preflight, verb="OPTIONS")
    assert allowed.status == 204 and allowed.headers["access-control-allow-origin"] == ORIGIN
    for header in ("cardgames-token", "connect-protocol-version", "x-grpc-web", "content-type"):
        assert header in allowed.headers["access-control-allow-headers"]
    refused = await call(
        server, "CreateGame", b"", headers={**preflight, "origin": "https://evil.example"}, verb="OPTIONS"
    )
    assert refused.status == 403 and "access-control-allow-origin" not in refused.headers
    created = await call(server, "CreateGame", {"game": "seep"}, headers={"origin": ORIGIN})
    assert created.headers["access-control-allow-origin"] == ORIGIN
    assert "grpc-status-details-bin" in created.headers["access-control-expose-headers"]
    other = await call(server, "CreateGame", {"game": "seep"}, headers={"origin": "https://evil.example"})
    assert "access-control-allow-origin" not in other.headers


async def test_static_files_index_at_root_and_nothing_outside_the_folder(server: Running) -> None:
    assert server.http is not None
    port = server.http.port
    page = await asyncio.to_thread(_request, port, "GET", "/", b"", {})
    assert page.status == 200 and page.headers["content-type"] == "text/html; charset=utf-8"
    assert b"<html" in page.body
    same = await asyncio.to_thread(_request, port, "GET", "/index.html", b"", {})
    assert same.body == page.body
    for path in ("/nope.js", "/../app.py", "/%2e%2e/app.py", "/..%2fserver.py"):
        missing = await asyncio.to_thread(_request, port, "GET", path, b"", {})
        assert missing.status == 404, path


async def test_rate_limits_apply_over_http_with_the_same_budget_as_grpc() -> None:
    running = await start(
        "127.0.0.1:0", EventStore.from_url("memory:"), limits=Limits(rate=5, burst=10, max_streams=2, address_rate=1000)
    )
    running.http = await start_http("127.0.0.1:0", running)
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            stub = game_service_pb2_grpc.GameServiceStub(channel)
            for _ in range(6):  # half the address's burst over gRPC...
                await stub.CreateGame(pb.CreateGameRequest(game="seep"))
        replies = [await call(running, "CreateGame", {"game": "seep"}) for _ in range(6)]  # ...the rest over HTTP
        assert [reply.status for reply in replies[:4]] == [200] * 4
        refused = replies[-1]
        assert (refused.status, *error_info(refused)) == (429, "resource_exhausted", "RATE_LIMITED")
        assert {d["type"] for d in refused.json()["details"]} == {"google.rpc.ErrorInfo", "google.rpc.RetryInfo"}
        assert "retry in" in refused.json()["message"]
    finally:
        await running.stop(grace=None)


async def test_with_tls_http_is_https_with_the_same_certificate(tmp_path: Path) -> None:
    from tests.service.test_security import make_certificate

    cert, key = make_certificate(tmp_path)
    tls = (cert.read_bytes(), key.read_bytes())
    running = await start("127.0.0.1:0", EventStore.from_url("memory:"), tls=tls)
    running.http = await start_http("127.0.0.1:0", running, tls=tls)
    port = running.http.port

    def over_https(trusted: bool) -> int:
        context = ssl.create_default_context(cafile=str(cert)) if trusted else ssl.create_default_context()
        connection = http.client.HTTPSConnection("localhost", port, timeout=10, context=context)
        try:
            connection.request(
                "POST", f"{SERVICE}/CreateGame", body=b'{"game": "seep"}', headers={"content-type": "application/json"}
            )
            return connection.getresponse().status
        finally:
            connection.close()

    try:
        assert await asyncio.to_thread(over_https, True) == 200
        with pytest.raises(ssl.SSLError):
            await asyncio.to_thread(over_https, False)
        with pytest.raises((http.client.HTTPException, ConnectionError, OSError)):  # plaintext to a TLS port
            await asyncio.to_thread(
                _request, port, "POST", f"{SERVICE}/CreateGame", b"{}", {"content-type": "application/json"}
            )
    finally:
        await running.stop(grace=None)


async def test_every_procedure_answers_an_empty_request_with_a_connect_answer(server: Running) -> None:
    assert server.http is not None
    procedures = server.http.app.procedures
    assert len(procedures) == 22 and procedures[f"{SERVICE}/Watch"] and not procedures[f"{SERVICE}/GetView"]
    assert (
        "/cardgames.v1.TournamentService/GetTournament" in procedures
        and "/cardgames.v1.TableService/CreateTable" in procedures
        and "/grpc.health.v1.Health/Check" in procedures
    )
    for procedure, streams in sorted(procedures.items()):
        reply = await asyncio.to_thread(
            _request, server.http.port, "POST", procedure, b"{}", {"content-type": "application/json"}
        )
        assert reply.status == (415 if streams else reply.status) and reply.status != 500, (procedure, reply.body)
        assert reply.json().get("code") != "internal", (procedure, reply.body)
        if streams:  # a Connect stream: one enveloped message in, the end of the stream (flag 2) says the error
            reply = await asyncio.to_thread(
                _request,
                server.http.port,
                "POST",
                procedure,
                b"\0\0\0\0\2{}",
                {"content-type": "application/connect+json"},
            )
            assert reply.status == 200 and reply.body[0] == 2, (procedure, reply.body)
            error = json.loads(reply.body[5:])["error"]
            assert error["code"] in {"invalid_argument", "not_found", "unauthenticated"}, (procedure, error)


async def test_http_calls_are_counted_in_the_metrics_as_grpc_calls_are() -> None:
    from tests.service.test_metrics import calls, scraped

    running = await start("127.0.0.1:0", EventStore.from_url("memory:"), metrics="127.0.0.1:0", limits=Limits())
    running.http = await start_http("127.0.0.1:0", running)
    try:
        game = (await call(running, "CreateGame", {"game": "seep"})).json()
        missing = await call(running, "SubmitCommand", {"gameId": game["gameId"]})
        assert error_info(missing) == ("unauthenticated", "TOKEN_REQUIRED")
        await call(running, "GetView", {"gameId": "00000000-0000-4000-8000-000000000000"})
        samples = await scraped(running)
        assert calls(samples, "CreateGame", "OK") == 1
        assert calls(samples, "SubmitCommand", "UNAUTHENTICATED") == 1
        assert calls(samples, "GetView", "NOT_FOUND") == 1
    finally:
        await running.stop(grace=None)
