"""``cardgames bridge``: a bot written in Perl plays through JSON lines on stdin/stdout."""

from __future__ import annotations

import asyncio
import os
import random
import sys
from pathlib import Path
from typing import Any

import grpc
import pytest

from clients.bridge import LineProgram, ProgramExited
from clients.remote_bot import play_seat
from engine.core.events import SeatTimedOut
from service.server import Running
from service.tournament.log import ClockOptions

PERL_BOT = Path(__file__).parent / "bots" / "cycle_legal.pl"
CLI = [sys.executable, "-c", "from service.cli import main; main()"]
SEED = "b7" * 32


async def _bridge(*arguments: str) -> tuple[int, str]:
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
        _bridge("--server", address, "--game-id", created.game_id, "--token", created.seat_tokens[0],
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
    code, output = await _bridge("--server", f"127.0.0.1:{server.port}", "--tournament", tid, "--name", "perl",
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
