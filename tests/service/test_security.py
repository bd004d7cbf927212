"""Security: tokens, what spectators and seats may see, TLS, no limits by default (docs/threat-model.md)."""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import random
import string
import subprocess
from pathlib import Path
from typing import Any
from uuid import UUID

import grpc
import msgspec
import pytest
from cardgames import wire
from cardgames.engine.core.protocol import PUBLIC
from cardgames.engine.core.registry import get_game
from cardgames.service.games import auth as auth_module
from cardgames.service.grpc_api import TOKEN_METADATA
from cardgames.service.server import Running, start
from cardgames.service.spawn import spawn_server
from cardgames.service.store import EventStore
from cardgames.v1 import game_service_pb2, game_service_pb2_grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from tests.service.helpers import GAME, needs_game

pytestmark = needs_game
pb = game_service_pb2
SEED = "5ec0" * 16


def auth(token: str | None) -> tuple[tuple[str, str], ...]:
    return ((TOKEN_METADATA, token),) if token else ()


def plain(data: Any) -> Any:
    """JSON-shaped data (tuples as lists) for comparing wire and engine values."""
    return msgspec.json.decode(msgspec.json.encode(data))


def info_of(error: grpc.aio.AioRpcError) -> tuple[error_details_pb2.ErrorInfo, error_details_pb2.RetryInfo | None]:
    status = rpc_status.from_call(error)
    assert status is not None
    info, retry = error_details_pb2.ErrorInfo(), None
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            detail.Unpack(info)
        elif detail.Is(error_details_pb2.RetryInfo.DESCRIPTOR):
            retry = error_details_pb2.RetryInfo()
            detail.Unpack(retry)
    return info, retry


async def play(stub: Any, game_id: str, tokens: list[str], rng: random.Random, moves: int) -> None:
    for _ in range(moves):
        view = (await stub.GetView(pb.GetViewRequest(game_id=game_id))).view
        if view.over:
            return
        seat = rng.choice(list(view.to_act))
        legal = await stub.ListLegalCommands(pb.ListLegalCommandsRequest(game_id=game_id), metadata=auth(tokens[seat]))
        await stub.SubmitCommand(pb.SubmitCommandRequest(game_id=game_id, command=rng.choice(list(legal.commands))),
                                 metadata=auth(tokens[seat]))


# ---------------------------------------------------------------------------
# Tokens.


async def test_tokens_are_random_long_and_only_their_hashes_are_stored(stub: Any, server: Running) -> None:
    seen: set[str] = set()
    for _ in range(20):
        created = await stub.CreateGame(pb.CreateGameRequest(game=GAME, seed=SEED))  # the same seed: still new tokens
        for token in created.seat_tokens:
            assert len(token) >= 43 and set(token) <= set(string.ascii_letters + string.digits + "-_")  # 256 bits
            assert token not in seen
            seen.add(token)
        header = server.games.store.header(UUID(created.game_id))
        stored = msgspec.json.encode(header).decode()
        assert not any(token in stored for token in created.seat_tokens)


async def test_tokens_are_compared_in_constant_time_against_every_seat(
    stub: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    created = await stub.CreateGame(pb.CreateGameRequest(game=GAME, seed=SEED))
    compared: list[tuple[str, str]] = []
    original = hmac.compare_digest

    def counting(a: Any, b: Any) -> bool:
        compared.append((a, b))
        return original(a, b)

    monkeypatch.setattr(auth_module.hmac, "compare_digest", counting)
    seats = len(created.seat_tokens)
    for token in (created.seat_tokens[0], created.seat_tokens[-1], "forged"):
        compared.clear()
        with contextlib.suppress(grpc.aio.AioRpcError):
            await stub.GetView(pb.GetViewRequest(game_id=created.game_id), metadata=auth(token))
        assert len(compared) == seats  # every seat compared, wherever (or whether) the token matches


async def test_a_token_is_bound_to_one_game_and_one_seat(stub: Any) -> None:
    first = await stub.CreateGame(pb.CreateGameRequest(game=GAME, seed=SEED))
    second = await stub.CreateGame(pb.CreateGameRequest(game=GAME, seed=SEED))
    for token in first.seat_tokens:  # another game's token is no token here
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await stub.ListLegalCommands(pb.ListLegalCommandsRequest(game_id=second.game_id), metadata=auth(token))
        assert caught.value.code() == grpc.StatusCode.PERMISSION_DENIED
    view = (await stub.GetView(pb.GetViewRequest(game_id=first.game_id))).view
    for seat, token in enumerate(first.seat_tokens):  # a token acts for its own seat only
        legal = await stub.ListLegalCommands(pb.ListLegalCommandsRequest(game_id=first.game_id), metadata=auth(token))
        assert legal.seat == seat
        mine = (await stub.GetView(pb.GetViewRequest(game_id=first.game_id), metadata=auth(token))).view
        assert mine.seat == seat
    acting = view.to_act[0]
    idle = next(seat for seat in range(len(first.seat_tokens)) if seat not in view.to_act)
    legal = await stub.ListLegalCommands(pb.ListLegalCommandsRequest(game_id=first.game_id),
                                         metadata=auth(first.seat_tokens[acting]))
    with pytest.raises(grpc.aio.AioRpcError) as caught:  # the acting seat's command, with an idle seat's token
        await stub.SubmitCommand(pb.SubmitCommandRequest(game_id=first.game_id, command=legal.commands[0]),
                                 metadata=auth(first.seat_tokens[idle]))
    assert info_of(caught.value)[0].reason == "NOT_YOUR_TURN"


# ---------------------------------------------------------------------------
# What each viewer sees.


async def test_spectators_see_the_public_view_and_the_log_hides_every_private_event(
    stub: Any, server: Running
) -> None:
    created = await stub.CreateGame(pb.CreateGameRequest(game=GAME, seed=SEED))
    game_id, tokens = created.game_id, list(created.seat_tokens)
    rules = get_game(GAME)
    rng = random.Random(7)
    private_seen = 0
    for _ in range(12):
        await play(stub, game_id, tokens, rng, 5)
        live = server.games.cache[UUID(game_id)]
        if rules.is_over(live.state):
            break
        spectator = (await stub.GetView(pb.GetViewRequest(game_id=game_id))).view
        assert not spectator.HasField("seat") and spectator.sequence == live.sequence
        assert plain(wire.unwrap(spectator)[1]) == plain(rules.view(live.state, None))  # nothing more
        events = server.games.store.events(UUID(game_id), rules)
        for viewer, token in ((None, None), *enumerate(tokens)):
            log = (await stub.GetLog(pb.GetLogRequest(game_id=game_id), metadata=auth(token))).events
            assert [entry.sequence for entry in log] == list(range(1, len(events) + 1))
            for entry, event in zip(log, events, strict=True):
                audience = rules.audience(event)
                allowed = audience == PUBLIC or (viewer is not None and audience == viewer)
                shown = event if allowed else rules.redact(event, viewer)
                assert entry.redacted is (not allowed)
                assert plain(wire.unwrap(entry.event)[1]) == plain(shown)
                private_seen += not allowed
    assert private_seen > 0  # the match had private events (deals, the seed) to hide


# ---------------------------------------------------------------------------
# TLS.


def make_certificate(folder: Path) -> tuple[Path, Path]:
    """A self-signed certificate for localhost and 127.0.0.1 (openssl CLI)."""
    cert, key = folder / "cert.pem", folder / "key.pem"
    done = subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
         "-keyout", str(key), "-out", str(cert), "-days", "2", "-subj", "/CN=localhost",
         "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
        capture_output=True,
    )
    if done.returncode != 0:
        pytest.skip(f"openssl cannot make a certificate: {done.stderr.decode()}")
    return cert, key


async def test_tls_with_a_generated_certificate(tmp_path: Path) -> None:
    cert, key = make_certificate(tmp_path)
    running = await start("127.0.0.1:0", EventStore.from_url("memory:"), tls=(cert.read_bytes(), key.read_bytes()))
    try:
        target = f"localhost:{running.port}"
        trusted = grpc.ssl_channel_credentials(root_certificates=cert.read_bytes())
        async with grpc.aio.secure_channel(target, trusted) as channel:
            created = await game_service_pb2_grpc.GameServiceStub(channel).CreateGame(
                pb.CreateGameRequest(game=GAME))
            assert created.game_id
        async with grpc.aio.insecure_channel(target) as channel:  # plaintext to a TLS port: no
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await game_service_pb2_grpc.GameServiceStub(channel).CreateGame(
                    pb.CreateGameRequest(game=GAME), timeout=5)
            assert caught.value.code() == grpc.StatusCode.UNAVAILABLE
        (tmp_path / "other").mkdir()
        other_cert, _ = make_certificate(tmp_path / "other")
        untrusted = grpc.ssl_channel_credentials(root_certificates=other_cert.read_bytes())
        async with grpc.aio.secure_channel(target, untrusted) as channel:  # a certificate it does not trust: no
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await game_service_pb2_grpc.GameServiceStub(channel).CreateGame(
                    pb.CreateGameRequest(game=GAME), timeout=5)
            assert caught.value.code() == grpc.StatusCode.UNAVAILABLE
    finally:
        await running.stop(grace=None)


async def test_cardgames_serve_with_tls_flags(tmp_path: Path) -> None:
    cert, key = make_certificate(tmp_path)
    served = spawn_server("memory:", args=["--tls-cert", str(cert), "--tls-key", str(key)])
    try:
        assert "TLS" in served.lines[0]
        credentials = grpc.ssl_channel_credentials(root_certificates=cert.read_bytes())
        async with grpc.aio.secure_channel(f"localhost:{served.port}", credentials) as channel:
            view = await game_service_pb2_grpc.GameServiceStub(channel).CreateGame(pb.CreateGameRequest(game=GAME))
            assert view.seat_tokens
    finally:
        served.stop()
    with pytest.raises(RuntimeError, match="go together"):
        spawn_server("memory:", args=["--tls-cert", str(cert)])


# ---------------------------------------------------------------------------
# Rate limits.


# (Limits per caller, with and without tokens: test_rate_limits.py.)


async def test_without_limits_a_burst_goes_through(stub: Any) -> None:
    """Without limits (the library default), a burst of calls all go through."""
    created = await stub.CreateGame(pb.CreateGameRequest(game=GAME))
    replies = await asyncio.gather(*(stub.GetView(pb.GetViewRequest(game_id=created.game_id)) for _ in range(300)))
    assert len(replies) == 300
