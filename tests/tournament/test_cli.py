"""``cardgames tournament``: tables and JSON, and a runner killed with SIGKILL that resumes."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from uuid import UUID

import grpc
from typer.testing import CliRunner

from cardgames.clients.remote_bot import play_tournament
from cardgames.service.cli import app
from cardgames.service.store import EventStore
from cardgames.service.tournament.log import TournamentLog

SEED = "7a" * 32
CLI = [sys.executable, "-c", "from cardgames.service.cli import main; main()"]


def test_json_output_is_the_standings() -> None:
    result = CliRunner().invoke(app, ["tournament", "--game", "all_fours", "--entrants", "random,heuristic",
                                      "--players", "2", "--matches", "2", "--duplicate", "--json",
                                      "--store", "memory:", "--seed", SEED])
    assert result.exit_code == 0, result.output
    table = json.loads(result.stdout[result.stdout.index("{"):])
    assert table["played"] == table["total"] == 2 and table["finished"]
    assert {row["name"] for row in table["rows"]} == {"random", "heuristic"}
    assert set(table["crosstable"]) == {"random", "heuristic"} and table["sprt"]["decision"]


def test_tables_show_standings_crosstable_and_sprt() -> None:
    result = CliRunner().invoke(app, ["tournament", "--game", "all_fours", "--entrants", "random,r2=random",
                                      "--players", "2", "--matches", "2", "--store", "memory:", "--seed", SEED])
    assert result.exit_code == 0, result.output
    for text in ("all_fours: 2/2 matches", "crosstable", "r2 (random)", "SPRT random vs r2"):
        assert text in result.stdout


def _finished(url: str, tournament_id: str) -> int:
    store = EventStore.from_url(url)
    try:
        return len(TournamentLog(store).load(UUID(tournament_id)).finished)
    except Exception:
        return 0
    finally:
        store.close()


def test_a_runner_killed_mid_tournament_resumes_with_no_match_lost_or_played_twice(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/t.sqlite"
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    first = subprocess.Popen(
        [*CLI, "tournament", "--game", "all_fours", "--entrants", "random,r2=random", "--players", "2",
         "--matches", "40", "--store", url, "--seed", SEED, "--json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True,
    )
    tournament_id = None
    deadline = time.monotonic() + 60
    try:
        while tournament_id is None and time.monotonic() < deadline:
            line = first.stderr.readline()  # type: ignore[union-attr]
            if line.startswith("tournament "):
                tournament_id = line.split()[1]
        assert tournament_id is not None
        while _finished(url, tournament_id) < 3:
            assert time.monotonic() < deadline and first.poll() is None
            time.sleep(0.05)
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait()
    done_before = _finished(url, tournament_id)
    assert done_before < 40
    second = subprocess.run(
        [*CLI, "tournament", "--resume", tournament_id, "--store", url, "--json"],
        capture_output=True, env=env, text=True, timeout=120,
    )
    assert second.returncode == 0, second.stderr
    table = json.loads(second.stdout)
    assert table["played"] == table["total"] == 40 and table["finished"]
    store = EventStore.from_url(url)
    try:
        records = TournamentLog(store).recorder.select_events(UUID(tournament_id))
        kinds = [record.topic.rsplit(".", 1)[1] for record in records]
        assert kinds.count("match_finished") == 40  # each match once
        assert kinds.count("match_scheduled") == 40  # a match scheduled before the kill kept its game
        state = TournamentLog(store).load(UUID(tournament_id))
        assert sorted(state.finished) == list(range(40))
        assert len({m.game_id for m in state.scheduled.values()}) == 40
    finally:
        store.close()


def test_a_remote_entrants_credential_is_printed_once_and_registers_it() -> None:
    """The CLI serves the remote entrant, prints its credential (and the seed commitment); the bot registers
    with it and plays; the JSON standings end with the seed, which hashes to the commitment."""
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    runner = subprocess.Popen(
        [*CLI, "tournament", "--game", "all_fours", "--entrants", "bot,random", "--players", "2", "--matches", "1",
         "--store", "memory:", "--listen", "127.0.0.1:0", "--json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True,
    )
    lines: dict[str, str] = {}
    try:
        deadline = time.monotonic() + 60
        while "waiting" not in lines and time.monotonic() < deadline:
            line = runner.stderr.readline()  # type: ignore[union-attr]
            for key in ("tournament", "seed commitment", "credential for bot:", "waiting"):
                if line.startswith(key):
                    lines.setdefault(key, line.strip())  # (a long line wraps: its rest starts a line too)
        tournament_id = lines["tournament"].split()[1]
        commitment = lines["seed commitment"].split()[2]
        credential = lines["credential for bot:"].split()[-1]
        address = lines["waiting"].rsplit(" ", 1)[-1]

        async def bot() -> None:
            async with grpc.aio.insecure_channel(address) as channel:
                await play_tournament(channel, tournament_id, "bot", lambda decision: 0, credential=credential)

        asyncio.run(asyncio.wait_for(bot(), 60))
        out, err = runner.communicate(timeout=60)
    finally:
        runner.kill()
    assert runner.returncode == 0, err
    table = json.loads(out)
    assert table["finished"] and table["seed_commitment"] == commitment
    assert hashlib.sha256(bytes.fromhex(table["seed"])).hexdigest() == commitment
    assert credential not in out and err.count(credential) == 0  # printed once, before the rest was read
