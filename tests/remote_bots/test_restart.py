"""A server restart mid-tournament: the tournament resumes, the remote bot reconnects and resumes its seats."""

from __future__ import annotations

import asyncio
import random
import socket
from pathlib import Path
from typing import Any

import grpc

from clients.remote_bot import play_tournament
from service.server import start
from service.store import EventStore
from service.tournament.log import ClockOptions

SEED = "a9" * 32


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _random(decision: dict[str, Any]) -> int:
    return random.Random(decision["sequence"]).randrange(len(decision["legal"]))


async def test_a_restarted_server_resumes_the_tournament_and_the_remote_bot_its_seats(tmp_path: Path) -> None:
    url, port = f"sqlite:///{tmp_path}/t.sqlite", _free_port()
    address = f"127.0.0.1:{port}"
    first = await start(address, EventStore.from_url(url))
    assert first.bots is not None
    tournaments = first.bots.tournaments
    tid = await tournaments.create("all_fours", ["remote", "random"], players=2, matches=6, seed=SEED,
                                   clock=ClockOptions(move_ms=20_000, bank_ms=20_000))
    async with grpc.aio.insecure_channel(address) as channel:
        bot = asyncio.create_task(play_tournament(channel, tid, "remote", _random, reconnect_delay=0.1))
        state = await tournaments.state(tid)
        while len(state.finished) < 2:
            await asyncio.sleep(0.02)
        await first.stop(0)  # the server goes away mid-tournament
        second = await start(address, EventStore.from_url(url))
        try:
            assert second.bots is not None
            assert tid in await second.bots.tournaments.resume_all()
            table = await asyncio.wait_for(second.bots.tournaments.wait(tid), 120)
            await asyncio.wait_for(bot, 30)
        finally:
            await second.stop(0)
    assert table.finished and table.played == table.total == 6
    assert all(row.forfeits == 0 for row in table.rows)
