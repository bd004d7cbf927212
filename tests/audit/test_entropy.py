"""Seat entropy: every seat commits, then reveals; the last reveal starts the match with the combined seed."""

from __future__ import annotations

import hashlib
import random
from collections.abc import AsyncIterator
from pathlib import Path
from uuid import UUID

import grpc
import pytest
from grpc_status import rpc_status

from cardgames.engine.core import fairness
from cardgames.engine.core.events import MatchSeeded
from cardgames.engine.core.registry import get_game
from cardgames.service.audit.export import from_result
from cardgames.service.audit.verify import verify
from cardgames.service.games import Games, InvalidRequest, NotNow
from cardgames.service.server import start
from cardgames.service.store import EventStore
from cardgames.v1 import game_service_pb2 as pb
from cardgames.v1 import game_service_pb2_grpc
from tests.audit.helpers import play_to_end

GAME = "all_fours"


def digest(entropy: str) -> str:
    return hashlib.sha256(bytes.fromhex(entropy)).hexdigest()


@pytest.fixture
async def games() -> AsyncIterator[Games]:
    service = Games(EventStore.from_url("memory:"))
    yield service
    await service.close()


async def test_the_match_waits_for_every_seat_then_starts_with_the_combined_seed(games: Games) -> None:
    created = await games.create(GAME, {}, None, seat_entropy=True)
    assert created.sequence == 0 and created.head == ""
    tokens, game_id = created.seat_tokens, created.game_id
    header = games.store.header(UUID(game_id))
    assert header.seat_entropy and fairness.commitment(header.seed or "") == created.seed_commitment
    for call in (games.view(game_id, None), games.legal_commands(game_id, tokens[0]),
                 games.submit(game_id, tokens[0], {"type": "stand"})):
        with pytest.raises(NotNow) as refused:
            await call
        assert refused.value.reason == "MATCH_NOT_STARTED"
    with pytest.raises(NotNow, match="every seat"):
        await games.watch(game_id, None)

    rng = random.Random(3)
    entropies = [rng.randbytes(32).hex() for _ in tokens]
    status = await games.commit_entropy(game_id, tokens[0], digest(entropies[0]))
    assert (status.committed, status.revealed, status.started) == (1, 0, False)
    assert (await games.commit_entropy(game_id, tokens[0], digest(entropies[0]))).committed == 1  # again: harmless
    with pytest.raises(NotNow) as refused:
        await games.commit_entropy(game_id, tokens[0], digest(entropies[1]))
    assert refused.value.reason == "ALREADY_COMMITTED"
    with pytest.raises(NotNow) as refused:
        await games.reveal_entropy(game_id, tokens[0], entropies[0])
    assert refused.value.reason == "COMMITMENTS_PENDING"
    lobby = await games.log(game_id, None)
    assert lobby.entries == [] and lobby.header["seat_commitments"] == [digest(entropies[0]), "", "", ""]
    assert "genesis" not in lobby.header
    for token, entropy in zip(tokens[1:], entropies[1:], strict=True):
        await games.commit_entropy(game_id, token, digest(entropy))
    with pytest.raises(InvalidRequest) as wrong:
        await games.reveal_entropy(game_id, tokens[1], entropies[2])
    assert wrong.value.reason == "ENTROPY_MISMATCH"
    with pytest.raises(InvalidRequest) as bad:
        await games.reveal_entropy(game_id, tokens[1], "not hex")
    assert bad.value.reason == "INVALID_ENTROPY"
    for token, entropy in zip(tokens[:-1], entropies[:-1], strict=True):
        status = await games.reveal_entropy(game_id, token, entropy)
        assert not status.started and status.sequence == 0
    status = await games.reveal_entropy(game_id, tokens[-1], entropies[-1])
    assert status.started and status.sequence > 0 and status.revealed == 4

    view = await games.view(game_id, None)
    assert view.sequence == status.sequence and view.head == status.head
    events = games.store.events(UUID(game_id), get_game(GAME))
    seeded = next(event for event in events if isinstance(event, MatchSeeded))
    assert seeded.seed == fairness.shuffle_seed(header.seed or "", entropies) != header.seed
    with pytest.raises(NotNow) as refused:
        await games.commit_entropy(game_id, tokens[0], digest(entropies[0]))
    assert refused.value.reason == "NO_SEAT_ENTROPY"

    await play_to_end(games, created, rng)
    log = from_result(await games.log(game_id, None))
    assert log.reveal == {"seed": header.seed, "seat_entropy": entropies}
    assert verify(log).seats_entropy == 4


async def test_a_game_without_seat_entropy_refuses_it(games: Games) -> None:
    created = await games.create(GAME, {}, None)
    with pytest.raises(NotNow) as refused:
        await games.commit_entropy(created.game_id, created.seat_tokens[0], "ab" * 32)
    assert refused.value.reason == "NO_SEAT_ENTROPY"
    with pytest.raises(InvalidRequest) as bad:
        await games.commit_entropy(created.game_id, created.seat_tokens[0], "xyz")
    assert bad.value.reason == "INVALID_ENTROPY"


async def test_the_commitments_survive_a_restart(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/games.sqlite"
    first = Games(EventStore.from_url(url))
    created = await first.create("seep", {}, None, seat_entropy=True, decks=[], dealer=1)
    rng = random.Random(5)
    entropies = [rng.randbytes(32).hex() for _ in created.seat_tokens]
    for token, entropy in zip(created.seat_tokens[:3], entropies[:3], strict=True):
        await first.commit_entropy(created.game_id, token, digest(entropy))
    await first.close()

    second = Games(EventStore.from_url(url))
    try:
        lobby = await second.log(created.game_id, None)
        assert lobby.header["seat_commitments"][:3] == [digest(entropy) for entropy in entropies[:3]]
        await second.commit_entropy(created.game_id, created.seat_tokens[3], digest(entropies[3]))
        for token, entropy in zip(created.seat_tokens, entropies, strict=True):
            await second.reveal_entropy(created.game_id, token, entropy)
        await play_to_end(second, created, rng)
        summary = verify(from_result(await second.log(created.game_id, None)))
        assert summary.seats_entropy == 4
    finally:
        await second.close()


async def test_commit_and_reveal_over_grpc() -> None:
    running = await start("127.0.0.1:0", EventStore.from_url("memory:"))
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            stub = game_service_pb2_grpc.GameServiceStub(channel)
            created = await stub.CreateGame(pb.CreateGameRequest(game=GAME, seat_entropy=True))
            assert created.sequence == 0 and len(created.seed_commitment) == 64 and created.head == ""
            entropies = [bytes([seat + 1]).hex() * 32 for seat in range(len(created.seat_tokens))]

            def auth(seat: int) -> tuple[tuple[str, str], ...]:
                return (("cardgames-token", created.seat_tokens[seat]),)

            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await stub.RevealEntropy(pb.RevealEntropyRequest(game_id=created.game_id, entropy=entropies[0]),
                                         metadata=auth(0))
            assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
            status = rpc_status.from_call(refused.value)
            assert status is not None and b"COMMITMENTS_PENDING" in status.details[0].value
            with pytest.raises(grpc.aio.AioRpcError) as not_started:
                await stub.GetView(pb.GetViewRequest(game_id=created.game_id))
            assert not_started.value.code() == grpc.StatusCode.FAILED_PRECONDITION
            for seat, entropy in enumerate(entropies):
                await stub.CommitEntropy(pb.CommitEntropyRequest(game_id=created.game_id, commitment=digest(entropy)),
                                         metadata=auth(seat))
            with pytest.raises(grpc.aio.AioRpcError) as mismatch:
                await stub.RevealEntropy(pb.RevealEntropyRequest(game_id=created.game_id, entropy=entropies[1]),
                                         metadata=auth(0))
            assert mismatch.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            for seat, entropy in enumerate(entropies):
                reply = await stub.RevealEntropy(pb.RevealEntropyRequest(game_id=created.game_id, entropy=entropy),
                                                 metadata=auth(seat))
            assert reply.status.started and reply.status.sequence > 0 and len(reply.status.head) == 64
            view = (await stub.GetView(pb.GetViewRequest(game_id=created.game_id))).view
            assert view.head == reply.status.head and view.sequence == reply.status.sequence
            log = await stub.GetLog(pb.GetLogRequest(game_id=created.game_id))
            assert list(log.header.seat_commitments) == [digest(entropy) for entropy in entropies]
            assert log.header.seat_entropy and log.header.genesis and not log.HasField("reveal")
            assert log.events[-1].hash == log.head == view.head
    finally:
        await running.stop()
