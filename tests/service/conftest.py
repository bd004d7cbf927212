"""Fixtures for the service tests: a store per backend (memory, SQLite in a temp dir, PostgreSQL)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import grpc
import pytest

from cardgames.service.server import Running
from cardgames.service.store import EventStore
from cardgames.v1 import game_service_pb2_grpc
from tests.service.pg import fresh_database


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A fresh PostgreSQL database for this test run, dropped at the end."""
    with fresh_database("cardgames_test") as (url, _):
        yield url


@pytest.fixture(params=["memory", "sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store(request: pytest.FixtureRequest, tmp_path) -> Iterator[EventStore]:
    if request.param == "memory":
        url = "memory:"
    elif request.param == "sqlite":
        url = f"sqlite://{tmp_path}/store/games.sqlite"
    else:
        url = request.getfixturevalue("postgres_url")
    store = EventStore.from_url(url)
    yield store
    store.close()


@pytest.fixture
async def stub(server: Running) -> AsyncIterator[Any]:
    """A GameService stub on a channel to ``server`` (tests/conftest.py; test_grpc.py has its own, on every store)."""
    async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
        yield game_service_pb2_grpc.GameServiceStub(channel)
