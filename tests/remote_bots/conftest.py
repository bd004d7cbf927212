"""A gRPC server on a free local port (memory store) with GameService, BotService and TournamentService."""

from __future__ import annotations

from collections.abc import AsyncIterator

import grpc
import pytest

from cardgames.service.server import Running, start
from cardgames.service.store import EventStore


@pytest.fixture
async def server() -> AsyncIterator[Running]:
    running = await start("127.0.0.1:0", EventStore.from_url("memory:"))
    try:
        yield running
    finally:
        await running.stop(0)


@pytest.fixture
async def channel(server: Running) -> AsyncIterator[grpc.aio.Channel]:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
        yield channel
