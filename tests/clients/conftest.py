"""A client connected to the in-process server of tests/conftest.py (memory store, port 0)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from cardgames.clients import GameClient, Retry
from cardgames.service.server import Running

GAME = "all_fours"
SEED = 7
#: Short waits, so that the tests about unreachable servers stay quick.
FAST = Retry(timeout=10.0, initial=0.02, maximum=0.2, call_timeout=5.0)


@pytest.fixture
async def client(server: Running) -> AsyncIterator[GameClient]:
    async with GameClient(f"127.0.0.1:{server.port}", retry=FAST) as connected:
        yield connected
