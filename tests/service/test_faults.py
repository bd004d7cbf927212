"""Real store faults: a full disk under SQLite, a PostgreSQL database that goes away and comes back.

Commands then fail clearly (UNAVAILABLE, ``ErrorInfo.reason`` STORE_UNAVAILABLE), a refused or
failed command changes nothing, and the service recovers by itself once the store is back,
with no accepted command lost.
"""

from __future__ import annotations

import asyncio
import os
import random
import subprocess
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from cardgames.service.games import Games
from cardgames.service.grpc_api import TOKEN_METADATA
from cardgames.service.server import Running, start
from cardgames.service.store import EventStore, environment_for_url
from cardgames.v1 import game_service_pb2, game_service_pb2_grpc
from tests.service.helpers import GAME, needs_game
from tests.service.pg import admin_execute, fresh_database

pytestmark = needs_game
pb = game_service_pb2
SEED = "fa" * 32


def auth(token: str) -> tuple[tuple[str, str], ...]:
    return ((TOKEN_METADATA, token),)


def reason_of(error: grpc.aio.AioRpcError) -> str:
    status = rpc_status.from_call(error)
    assert status is not None, error
    info = error_details_pb2.ErrorInfo()
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            detail.Unpack(info)
    return info.reason


class Match:
    """One match driven over gRPC, remembering every accepted event."""

    def __init__(self, stub: Any, rng: random.Random) -> None:
        self.stub, self.rng = stub, rng
        self.accepted: dict[int, Any] = {}

    async def create(self) -> None:
        created = await self.stub.CreateGame(pb.CreateGameRequest(game=GAME, seed=SEED), timeout=30)
        self.game_id, self.tokens = created.game_id, list(created.seat_tokens)

    async def move(self) -> bool:
        """One random legal command; False once the match is over. Raises the call's error."""
        view = (await self.stub.GetView(pb.GetViewRequest(game_id=self.game_id), timeout=30)).view
        if view.over:
            return False
        seat = self.rng.choice(list(view.to_act))
        legal = await self.stub.ListLegalCommands(pb.ListLegalCommandsRequest(game_id=self.game_id),
                                                  metadata=auth(self.tokens[seat]), timeout=30)
        reply = await self.stub.SubmitCommand(
            pb.SubmitCommandRequest(game_id=self.game_id, command=self.rng.choice(list(legal.commands)),
                                    expected_sequence=legal.sequence),
            metadata=auth(self.tokens[seat]), timeout=30)
        self.accepted.update({entry.sequence: entry for entry in reply.events})
        return True

    async def log(self) -> list[Any]:
        return list((await self.stub.GetLog(pb.GetLogRequest(game_id=self.game_id), timeout=30)).events)

    async def finish(self) -> None:
        for _ in range(5000):
            if not await self.move():
                return
        raise AssertionError("the match did not end")

    async def check_nothing_lost(self) -> None:
        log = {entry.sequence: entry for entry in await self.log()}
        assert sorted(log) == list(range(1, len(log) + 1))
        for sequence, entry in self.accepted.items():
            assert sequence in log, sequence
            if not entry.redacted:
                assert log[sequence].event == entry.event


@pytest.fixture
async def served() -> AsyncIterator[Any]:
    """A factory: serve a Games on a store URL in this process; everything is stopped at the end."""
    running: list[Running] = []
    channels: list[grpc.aio.Channel] = []

    async def serve(url: str, env: dict[str, str] | None = None, **options: Any) -> Any:
        environment = environment_for_url(url) | (env or {})
        server = await start("127.0.0.1:0", games=Games(EventStore(environment), **options))
        running.append(server)
        channel = grpc.aio.insecure_channel(f"127.0.0.1:{server.port}")
        channels.append(channel)
        return game_service_pb2_grpc.GameServiceStub(channel)

    yield serve
    for channel in channels:
        await channel.close()
    for server in running:
        await server.stop(grace=None)


# ---------------------------------------------------------------------------
# A full disk (SQLite on a small tmpfs).


@pytest.fixture
def tiny_disk(tmp_path: Path) -> Iterator[Path]:
    mount = tmp_path / "tiny"
    mount.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(mount)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def fill(folder: Path) -> Path:
    """Fill the file system with one file until it is full; return the file (delete it to free the space)."""
    filler = folder / "filler"
    chunk = b"\0" * 4096
    with filler.open("wb", buffering=0) as out:
        try:
            while out.write(chunk):
                pass
        except OSError:
            pass
    return filler


async def test_a_full_disk_fails_commands_clearly_and_recovers(tiny_disk: Path, served: Any) -> None:
    stub = await served(f"sqlite://{tiny_disk}/games.sqlite")
    match = Match(stub, random.Random(1))
    await match.create()
    for _ in range(5):
        await match.move()
    filler = fill(tiny_disk)
    failures = 0
    for _ in range(300):  # until a write needs space (SQLite may first reuse room it already has)
        before = await match.log()
        try:
            if not await match.move():
                pytest.fail("the match ended before the disk was full")
        except grpc.aio.AioRpcError as error:
            assert error.code() == grpc.StatusCode.UNAVAILABLE, error
            assert reason_of(error) == "STORE_UNAVAILABLE"
            assert "full" in (error.details() or "")
            assert await match.log() == before  # a failed command changed nothing
            failures += 1
            if failures == 3:
                break
    assert failures == 3
    filler.unlink()  # the space is back: the same server goes on, nothing accepted was lost
    await match.finish()
    await match.check_nothing_lost()


# ---------------------------------------------------------------------------
# The database goes away (connections refused and cut), then comes back.


@pytest.mark.postgres
async def test_a_database_that_goes_down_fails_commands_clearly_and_recovers(served: Any) -> None:
    with fresh_database() as (url, name):
        env = {"POSTGRES_CONNECT_TIMEOUT": "1"}
        writer = await served(url, env, store_timeout=3.0)
        watcher = await served(url, env, store_timeout=3.0)  # a second replica, streaming
        match = Match(writer, random.Random(2))
        await match.create()
        for _ in range(5):
            await match.move()
        stream = watcher.Watch(pb.WatchRequest(game_id=match.game_id))
        first = await anext(stream.__aiter__())
        seen = [first.sequence]

        async def watch() -> None:
            async for message in stream:
                seen.extend(entry.sequence for entry in message.events)

        watching = asyncio.create_task(watch())
        before = await match.log()
        admin_execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false')
        admin_execute(f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'")
        began = time.monotonic()
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await match.move()
        assert caught.value.code() == grpc.StatusCode.UNAVAILABLE
        assert reason_of(caught.value) == "STORE_UNAVAILABLE"
        assert time.monotonic() - began < 15  # clearly and soon, not a hang
        admin_execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
        deadline = time.monotonic() + 60
        while True:  # the service reconnects by itself
            try:
                assert await match.log() == before  # nothing was written while it was down
                break
            except grpc.aio.AioRpcError as error:
                assert error.code() == grpc.StatusCode.UNAVAILABLE, error
                assert time.monotonic() < deadline, "the service did not recover"
                await asyncio.sleep(0.5)
        await match.finish()
        await match.check_nothing_lost()
        await asyncio.wait_for(watching, 60)  # the other replica's stream resumed and saw the end
        final = len(await match.log())
        assert seen == list(range(first.sequence, final + 1))
