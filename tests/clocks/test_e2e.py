"""Time controls end to end, in real time, on real ``cardgames serve`` processes.

* every game with a 2-second move clock and BOT_PLAYS finishes on its own with nobody playing;
  FORFEIT and ABORT end a match at its first timeout; every log verifies;
* ``kill -9`` of the server holding a timer, then a restart on the same store: exactly one timeout;
* two replicas on one PostgreSQL database both time the same game: exactly one timeout.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from cardgames import wire
from cardgames.service.audit.export import from_responses
from cardgames.service.audit.verify import verify
from cardgames.service.spawn import ServerProcess, spawn_server
from cardgames.v1 import game_service_pb2 as pb
from cardgames.v1 import game_service_pb2_grpc
from tests.audit.helpers import GAMES
from tests.service.pg import fresh_database

pytestmark = pytest.mark.slow

ON_TIMEOUT = {"bot_plays": pb.ON_TIMEOUT_BOT_PLAYS, "forfeit": pb.ON_TIMEOUT_FORFEIT, "abort": pb.ON_TIMEOUT_ABORT}


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    process = spawn_server(f"sqlite:///{tmp_path / 'games.sqlite'}", args=["--rate-limit", "0"])
    try:
        yield process
    finally:
        process.stop()


async def create(stub: Any, game: str, on_timeout: str, move_ms: int, players: int | None = None) -> Any:
    control = pb.TimeControl(move_ms=move_ms, on_timeout=ON_TIMEOUT[on_timeout], bot=pb.BOT_STRENGTH_RANDOM)
    request = pb.CreateGameRequest(game=game, time_control=control)
    if players is not None:
        request.players = players
    return await stub.CreateGame(request)


async def until_over(stub: Any, game_id: str, timeout: float) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        view = (await stub.GetView(pb.GetViewRequest(game_id=game_id))).view
        if view.over:
            return view
        await asyncio.sleep(0.2)
    raise AssertionError(f"game {game_id} did not end within {timeout:g}s")


async def log_events(stub: Any, game_id: str) -> tuple[list[dict[str, Any]], Any]:
    """The game's events (plain) and its audit log (verifiable once over)."""
    response = await stub.GetLog(pb.GetLogRequest(game_id=game_id))
    events = [wire.unwrap(entry.event)[1] for entry in response.events]
    return events, from_responses([response])


def timeouts(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [event for event in events if event["type"] == "seat_timed_out"]


async def test_every_game_and_every_consequence_in_real_time(server: ServerProcess) -> None:
    async with grpc.aio.insecure_channel(server.target) as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        games = [(game, "bot_plays", 2_000) for game in GAMES]
        games += [(game, consequence, 400) for game in GAMES for consequence in ("forfeit", "abort")]
        created = [await create(stub, *spec) for spec in games]
        view = (await stub.GetView(pb.GetViewRequest(game_id=created[0].game_id))).view
        seat = view.to_act[0]
        assert view.time_control.move_ms == 2_000 and view.server_time_ms > 0
        assert view.seats[seat].running and 0 < view.seats[seat].remaining_ms <= 2_000
        assert view.seats[seat].deadline_ms - view.server_time_ms == view.seats[seat].remaining_ms
        assert all(made.owner_token for made in created)
        for (game, consequence, move_ms), made in zip(games, created, strict=True):
            final = await until_over(stub, made.game_id, 120)
            events, log = await log_events(stub, made.game_id)
            timed = timeouts(events)
            assert timed and all(event["consequence"] == consequence for event in timed), (game, consequence)
            assert all(int(event.get("waited_ms", 0)) >= move_ms for event in timed)
            if consequence == "bot_plays":
                assert len({event["seat"] for event in timed}) == len(timed)  # once each: then its bot plays
            else:
                assert len(timed) == 1 and final.over
            summary = verify(log)
            assert summary.timeouts == len(timed)


async def test_kill_9_of_the_server_holding_a_timer_then_a_restart_times_out_once(tmp_path: Path) -> None:
    store = f"sqlite:///{tmp_path / 'games.sqlite'}"
    first = spawn_server(store, args=["--rate-limit", "0"])
    try:
        async with grpc.aio.insecure_channel(first.target) as channel:
            stub = game_service_pb2_grpc.GameServiceStub(channel)
            made = await create(stub, "seep", "forfeit", 1_500)
        first.kill()  # SIGKILL with the timer armed
    finally:
        first.stop()
    await asyncio.sleep(2.0)  # the deadline passes while no server runs
    second = spawn_server(store, args=["--rate-limit", "0"])
    try:
        async with grpc.aio.insecure_channel(second.target) as channel:
            stub = game_service_pb2_grpc.GameServiceStub(channel)
            await until_over(stub, made.game_id, 30)
            await asyncio.sleep(1.0)  # nothing more comes
            events, log = await log_events(stub, made.game_id)
        assert len(timeouts(events)) == 1
        verify(log)
    finally:
        second.stop()


@pytest.mark.postgres
async def test_two_replicas_on_postgresql_write_one_timeout() -> None:
    with fresh_database() as (url, _):
        replicas = [spawn_server(url, args=["--rate-limit", "0"]) for _ in range(2)]
        try:
            channels = [grpc.aio.insecure_channel(replica.target) for replica in replicas]
            stubs = [game_service_pb2_grpc.GameServiceStub(channel) for channel in channels]
            made = [await create(stubs[index % 2], game, "forfeit", 2_000) for index, game in enumerate(GAMES)]
            # both replicas time every game (the second finds them by their marker within a second)
            for index, game in enumerate(made):
                await until_over(stubs[(index + 1) % 2], game.game_id, 30)
            await asyncio.sleep(1.0)
            for game in made:
                events, log = await log_events(stubs[0], game.game_id)
                assert len(timeouts(events)) == 1
                verify(log)
            for channel in channels:
                await channel.close()
        finally:
            for replica in replicas:
                replica.stop()
