"""``cardgames bridge``: a bot written in Perl plays through JSON lines on stdin/stdout."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import sys
from pathlib import Path
from typing import Any

import grpc
import pytest

from cardgames.clients.bridge import LineProgram, ProgramExited
from cardgames.clients.remote_bot import play_seat
from cardgames.engine.core.events import SeatTimedOut
from cardgames.service.server import Running, start
from cardgames.service.store import EventStore
from cardgames.service.tournament.log import ClockOptions

PERL_BOT = Path(__file__).parent / "bots" / "cycle_legal.pl"
CLI = [sys.executable, "-c", "from cardgames.service.cli import main; main()"]
SEED = "b7" * 32


async def run_bridge(*arguments: str) -> tuple[int, str]:
    process = await asyncio.create_subprocess_exec(
        *CLI, "bridge", *arguments, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": os.getcwd()},
    )
    out, err = await asyncio.wait_for(process.communicate(), 120)
    return process.returncode or 0, err.decode() + out.decode()


def _random(decision: dict[str, Any]) -> int:
    return random.Random(decision["sequence"]).randrange(len(decision["legal"]))


async def test_a_perl_bot_plays_a_whole_match_through_the_bridge(server: Running, channel: grpc.aio.Channel) -> None:
    created = await server.games.create("all_fours", {}, 2, seed=SEED)
    address = f"127.0.0.1:{server.port}"
    bridged, python = await asyncio.gather(
        run_bridge("--server", address, "--game-id", created.game_id, "--token", created.seat_tokens[0],
                "--", "perl", str(PERL_BOT)),
        play_seat(channel, created.game_id, created.seat_tokens[1], _random),
    )
    code, output = bridged
    assert code == 0, output
    assert "match over" in output and sorted(python) == [0, 1]
    log = await server.games.log(created.game_id, None)
    assert not any(isinstance(entry.event, SeatTimedOut) for entry in log.entries)


async def test_a_perl_bot_enters_a_tournament_through_the_bridge(server: Running) -> None:
    tournaments = server.bots.tournaments  # type: ignore[union-attr]
    created = await tournaments.create("all_fours", ["perl", "random"], players=2, matches=2, seed=SEED,
                                       clock=ClockOptions(move_ms=10_000))
    tid = created.tournament_id
    code, output = await run_bridge("--server", f"127.0.0.1:{server.port}", "--tournament", tid, "--name", "perl",
                                 "--credential", created.credentials["perl"], "--", "perl", str(PERL_BOT))
    assert code == 0, output
    table = await tournaments.standings(tid)
    assert table.finished and table.played == 2
    assert all(row.timeouts == 0 for row in table.rows)


async def test_garbage_answers_are_asked_again_then_left_to_the_clock(server: Running,
                                                                      channel: grpc.aio.Channel) -> None:
    created = await server.games.create("all_fours", {}, 2, seed=SEED)
    seat = (await server.games.view(created.game_id, None)).to_act[0]
    await server.bots.clocks.keep(created.game_id, created.seat_tokens,  # type: ignore[union-attr]
                                  ClockOptions(move_ms=2000, on_timeout="forfeit"))
    program = LineProgram(["sh", "-c", "while read line; do echo 'not json {'; done"])
    await program.start()
    try:
        playing = play_seat(channel, created.game_id, created.seat_tokens[seat], program.ask)
        outcome = await asyncio.wait_for(playing, 30)
    finally:
        await program.close()
    assert program.asked == 3  # the decision was asked three times, then left to the clock
    assert outcome[seat] == 1  # the seat forfeited when its time ran out
    log = await server.games.log(created.game_id, None)
    timeouts = [entry.event for entry in log.entries if isinstance(entry.event, SeatTimedOut)]
    assert [(t.seat, t.consequence) for t in timeouts] == [(seat, "forfeit")]


async def test_a_program_that_exits_stops_the_bridge() -> None:
    program = LineProgram(["sh", "-c", "exit 0"])
    await program.start()
    with pytest.raises(ProgramExited):
        await program.ask({"type": "decision", "game_id": "g", "sequence": 1, "legal": []})
    await program.close()


async def test_a_server_stopping_under_the_bridge_prints_no_grpc_log_line(tmp_path: Path) -> None:
    """gRPC's core logs ``Got goaway [2] ... Cancelling all calls`` at INFO when a server stops with
    calls open; the bridge handles that (it reconnects), so the line is no business of its output."""
    running = await start("127.0.0.1:0", EventStore.from_url("memory:"))
    created = await running.games.create("all_fours", {}, 2, seed=SEED)
    seat = (await running.games.view(created.game_id, None)).to_act[0]
    asked = tmp_path / "asked"
    env = {key: value for key, value in os.environ.items() if key != "GRPC_VERBOSITY"}  # gRPC's own default
    process = await asyncio.create_subprocess_exec(
        *CLI, "bridge", "--server", f"127.0.0.1:{running.port}", "--game-id", created.game_id,
        "--token", created.seat_tokens[seat], "--", "sh", "-c", f"while read line; do touch {asked}; sleep 60; done",
        stderr=asyncio.subprocess.PIPE, env={**env, "PYTHONPATH": os.getcwd()}, start_new_session=True,
    )
    try:
        for _ in range(300):  # the program was asked: the bridge's decision stream is open
            if asked.exists():
                break
            await asyncio.sleep(0.1)
        assert asked.exists()
        await running.stop(0)  # every call cancelled: the client's core is sent a GOAWAY
        await asyncio.sleep(1.5)
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        _, err = await process.communicate()
    assert "goaway" not in err.decode().lower(), err.decode()


async def test_no_service_at_the_address_is_said_at_once() -> None:
    for mode in (["--game-id", "g", "--token", "t"], ["--tournament", "t", "--name", "perl", "--credential", "c"]):
        code, output = await run_bridge("--server", "127.0.0.1:9", "--timeout", "1", *mode, "--", "perl", str(PERL_BOT))
        assert code == 2, output
        assert "no cardgames service answered at 127.0.0.1:9 within 1 s" in output
        assert "cardgames serve --address 127.0.0.1:9" in output
