"""A game registered from the tests alone, played end to end (docs/adding-a-game.md).

High card (tests/plugin_game/high_card.py) is registered through ``CARDGAMES_GAMES`` and then
created, played, watched, listed in pages, exported, verified, replayed (terminal and HTML),
run through conformance and through tournaments, over real gRPC on localhost and through the
``cardgames`` command, while no line of the engine, the service, the clients or the protos
names it.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
from collections.abc import Iterator
from importlib.metadata import EntryPoint
from pathlib import Path
from typing import Any

import grpc
import pytest

from cardgames.clients.client import GameClient
from cardgames.clients.errors import CommandRejected, InvalidRequest
from cardgames.clients.remote_bot import play_tournament
from cardgames.engine.core import registry
from cardgames.engine.core.registry import GAMES_VARIABLE, RegistrationError, get_game, known_games
from cardgames.service.conformance import run_paths
from cardgames.service.server import Running
from cardgames.v1 import tournament_pb2, tournament_pb2_grpc
from tests.e2e.server_process import REPO, cardgames_command

GAME = "high_card"
TARGET = "tests.plugin_game.high_card"
SCENARIOS = Path(__file__).resolve().parent / "conformance"
SEED = "5e" * 32


@pytest.fixture(autouse=True)
def registered() -> Iterator[None]:
    """High card registered in this process (and in every process it starts) for the test."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(GAMES_VARIABLE, TARGET)
        patch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
        registry.refresh()
        yield
    registry.refresh()


# The server: tests/conftest.py's (a real gRPC server on localhost, port 0, an in-memory store).


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    """``cardgames ARGS`` in a child process (the registration reaches it through the environment)."""
    return subprocess.run([*cardgames_command(), *args], cwd=REPO, capture_output=True, text=True, timeout=180,
                          env={**os.environ, "GRPC_VERBOSITY": "ERROR"})


async def cli_async(*args: str) -> tuple[int, str, str]:
    """The same without blocking the event loop (an in-process server answers it)."""
    process = await asyncio.create_subprocess_exec(
        *cardgames_command(), *args, cwd=REPO, env={**os.environ, "GRPC_VERBOSITY": "ERROR"},
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 180)
    return process.returncode or 0, out.decode(), err.decode()


def test_the_registry_loads_the_game_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    assert GAME in known_games() and {"all_fours", "seep", "contract_rummy"} <= set(known_games())
    game = get_game(GAME)
    assert game.NAME == GAME and game.TRAITS.sides(4) == ((0, 2), (1, 3)) and game.TRAITS.bots is None
    monkeypatch.setenv(GAMES_VARIABLE, "mine=cardgames.engine.core.cards")  # a module that is no game
    registry.refresh()
    with pytest.raises(RegistrationError, match="lacks NAME"):
        get_game("mine")
    monkeypatch.setenv(GAMES_VARIABLE, "seep=" + TARGET)
    registry.refresh()
    with pytest.raises(RegistrationError, match="built-in name"):
        known_games()


def test_the_registry_loads_the_game_from_an_entry_point(monkeypatch: pytest.MonkeyPatch) -> None:
    """An installed package registers its games in the entry point group ``cardgames.games``."""
    monkeypatch.delenv(GAMES_VARIABLE)
    point = EntryPoint(name=GAME, value=TARGET, group=registry.ENTRY_POINT_GROUP)
    monkeypatch.setattr(registry, "entry_points", lambda group: [point] if group == point.group else [])
    registry.refresh()
    assert GAME in known_games() and get_game(GAME).TITLE == "High Card"


async def test_created_played_watched_paged_exported_verified_and_replayed(server: Running, tmp_path: Path) -> None:
    async with GameClient(f"127.0.0.1:{server.port}") as client:
        with pytest.raises(InvalidRequest):
            await client.create_game(GAME, options={"rounds": 9})  # 1 to 5
        created = await client.create_game(GAME, options={"rounds": 2}, players=3, seed=SEED)
        seats = [client.seat(created.game_id, token) for token in created.tokens]
        spectator = client.spectator(created.game_id)

        async def watch() -> list[Any]:
            return [update async for update in spectator.watch()]

        watching = asyncio.create_task(watch())
        first = await seats[0].view()
        assert first.game == GAME and len(first.data["hand"]) == 2 and first.data["hand_sizes"] == [2, 2, 2]
        with pytest.raises(CommandRejected, match="turn"):
            await seats[1].submit({"type": "play", "card": first.data["hand"][0]})
        while True:
            view = await spectator.view()
            if view.over:
                break
            seat = seats[view.to_act[0]]
            page = await seat.legal_commands(0, 1)  # one command a page
            assert page.total >= 1 and len(page.commands) == 1
            rest = await seat.legal_commands(1, 10)
            assert len(rest.commands) == page.total - 1 and page.commands[0] not in rest.commands
            await seat.submit(page.commands[0], expected_sequence=page.sequence)
        updates = await asyncio.wait_for(watching, 30)
        assert updates[-1].view.over and sum(updates[-1].view.data["wins"]) == 2
        assert not any(event.event.get("cards") for update in updates for event in update.events
                       if event.event["type"] == "cards_dealt")  # a spectator never sees a hand while it runs
        log = await seats[0].log()
        assert any(event.event["type"] == "round_won" for event in log.events)

    code, out, err = await cli_async("export", created.game_id, "--server", f"127.0.0.1:{server.port}")
    assert code == 0, err
    path = tmp_path / "high_card.ndjson"
    path.write_text(out)
    assert json.loads(out.splitlines()[0])["game"] == GAME
    verified = cli("verify", str(path))
    assert verified.returncode == 0 and verified.stdout.startswith(f"OK {GAME}"), verified.stdout + verified.stderr
    terminal = cli("replay", str(path), "--seat", "1", "--at", "5")
    assert terminal.returncode == 0 and "High Card" in terminal.stdout and "round 1 of 2" in terminal.stdout
    html_page = tmp_path / "replay.html"
    html = cli("replay", str(path), "--html", str(html_page))
    assert html.returncode == 0 and "High Card" in html_page.read_text()


def test_play_verify_and_replay_through_the_command(tmp_path: Path) -> None:
    log = tmp_path / "match.ndjson"
    played = cli("play", GAME, "--players", "4", "-o", "rounds=3", "--seed", "7", "--log", str(log))
    assert played.returncode == 0, played.stderr
    assert "Rounds won" in played.stdout and "wins round 3" in played.stdout
    assert cli("verify", str(log)).returncode == 0
    assert "round" in cli("replay", str(log), "--summary").stdout


def test_conformance_in_process_and_through_the_command() -> None:
    lines: list[str] = []
    assert run_paths([SCENARIOS], lines.append) == 0 and lines[-1] == "1 passed, 0 failed"
    result = cli("conformance", str(SCENARIOS))
    assert result.returncode == 0 and "PASS high-card-two-rounds" in result.stdout, result.stdout + result.stderr


def test_a_tournament_through_the_command() -> None:
    result = cli("tournament", "--game", GAME, "--entrants", "random,r2=random", "--players", "4", "--matches", "2",
                 "--duplicate", "--json", "--store", "memory:", "--seed", SEED)
    assert result.returncode == 0, result.stderr
    table = json.loads(result.stdout[result.stdout.index("{"):])
    assert table["played"] == table["total"] == 2 and table["finished"]
    assert {row["name"] for row in table["rows"]} == {"random", "r2"}  # two partnerships of two seats


async def test_a_remote_bot_plays_a_tournament_over_grpc(server: Running) -> None:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
        stub = tournament_pb2_grpc.TournamentServiceStub(channel)
        created = await stub.CreateTournament(tournament_pb2.CreateTournamentRequest(
            game=GAME, entrants=["remote", "random"], players=2, matches=2, duplicate=True, trusted=True, seed=SEED,
        ))
        credential = created.credentials[0].credential

        def choose(decision: dict[str, Any]) -> int:
            assert decision["view"]["hand"] and decision["legal"][0]["type"] == "play"
            return 0

        await asyncio.wait_for(play_tournament(channel, created.tournament_id, "remote", choose,
                                               credential=credential), 60)
        standings = (await stub.GetStandings(
            tournament_pb2.GetStandingsRequest(tournament_id=created.tournament_id))).standings
        assert standings.finished and standings.played == 2
