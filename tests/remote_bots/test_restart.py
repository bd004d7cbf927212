"""A server restart mid-tournament: the tournament resumes, the remote bot registers again with its
credential (it crashed too) and resumes its seats; the tournament completes."""

from __future__ import annotations

import asyncio
import random
import socket
from pathlib import Path
from typing import Any

import grpc
import pytest

from cardgames.clients.remote_bot import play_tournament
from cardgames.service.server import start
from cardgames.service.store import EventStore
from cardgames.service.tournament.log import ClockOptions
from cardgames.v1 import tournament_pb2, tournament_pb2_grpc

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
    created = await tournaments.create("all_fours", ["remote", "random"], players=2, matches=6, seed=SEED,
                                       clock=ClockOptions(move_ms=20_000, bank_ms=20_000))
    tid, credential = created.tournament_id, created.credentials["remote"]
    tokens: list[str] = []
    async with grpc.aio.insecure_channel(address) as channel:
        bot = asyncio.create_task(play_tournament(channel, tid, "remote", _random, credential=credential,
                                                  on_token=tokens.append, reconnect_delay=0.1))
        state = await tournaments.state(tid)
        while len(state.finished) < 2:
            await asyncio.sleep(0.02)
        bot.cancel()  # the bot crashes (its entrant token is lost with it) ...
        with pytest.raises(asyncio.CancelledError):
            await bot
        await first.stop(0)  # ... and so does the server, mid-tournament
        second = await start(address, EventStore.from_url(url))
        try:
            assert second.bots is not None
            assert tid in await second.bots.tournaments.resume_all()
            # a bot started again with its credential registers again and is assigned its open matches
            again = asyncio.create_task(play_tournament(channel, tid, "remote", _random, credential=credential,
                                                        on_token=tokens.append, reconnect_delay=0.1))
            table = await asyncio.wait_for(second.bots.tournaments.wait(tid), 120)
            await asyncio.wait_for(again, 30)
            # the first registration's token was replaced by the second's
            stub = tournament_pb2_grpc.TournamentServiceStub(channel)
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                async for _ in stub.Assignments(tournament_pb2.AssignmentsRequest(tournament_id=tid),
                                                metadata=(("cardgames-token", tokens[0]),)):
                    pass
            assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
        finally:
            await second.stop(0)
    assert len(tokens) == 2 and tokens[0] != tokens[1]
    assert table.finished and table.played == table.total == 6
    assert all(row.forfeits == 0 for row in table.rows)
