"""Logs with the service's clock events (timeouts, automatic moves, forfeits, time banks) verify too.

The service writes a ``seat_timed_out`` batch itself (no command): the verifier checks the
seat was to act and recomputes the consequence; ``clock_charged`` is a fact of the clock.
"""

from __future__ import annotations

import random
from typing import Any

import msgspec
import pytest

from cardgames.engine.core.events import AUTO_MOVE, FORFEIT, ClockCharged
from cardgames.engine.core.seat_events import timeout_events
from cardgames.service.audit.export import from_result
from cardgames.service.audit.logfile import AuditLog
from cardgames.service.audit.verify import Failure, verify
from cardgames.service.games import Games
from cardgames.service.store import EventStore
from tests.audit.helpers import GAMES, commands, index_of, rechain


async def _clocked_match(game: str, consequence: str) -> AuditLog:
    games = Games(EventStore.from_url("memory:"))
    try:
        created = await games.create(game, {}, None)
        games.clock_hook = lambda live, seat, events: [*events, ClockCharged(seat=seat, used_ms=1500, bank_ms=500)]
        rng = random.Random(9)
        timeouts = 0
        while not (view := await games.view(created.game_id, None)).over:
            seat = rng.choice(view.to_act)
            if rng.random() < 0.1 and (consequence == AUTO_MOVE or (timeouts == 0 and view.sequence > 30)):

                def decide(rules: Any, state: Any, seat: int = seat) -> list[Any]:
                    return timeout_events(rules, state, seat, consequence, waited_ms=30_000)

                assert await games.record(created.game_id, view.sequence, decide) is not None
                timeouts += 1
                continue
            legal = await games.legal_commands(created.game_id, created.seat_tokens[seat])
            command = msgspec.to_builtins(rng.choice(legal.commands))
            await games.submit(created.game_id, created.seat_tokens[seat], command, legal.sequence)
        assert timeouts
        return from_result(await games.log(created.game_id, None))
    finally:
        await games.close()


@pytest.mark.parametrize("game", GAMES)
async def test_automatic_moves_and_charged_clocks_verify(game: str) -> None:
    log = await _clocked_match(game, AUTO_MOVE)
    summary = verify(log)
    assert summary.timeouts > 0 and f"{summary.timeouts} timeouts" in summary.line()
    assert summary.commands == len(commands(log))

    index = index_of(log, lambda event: event["type"] == "seat_timed_out")
    log.entries[index]["event"]["seat"] = (log.entries[index]["event"]["seat"] + 1) % int(log.header["players"])
    with pytest.raises(Failure) as caught:
        verify(rechain(log))
    assert caught.value.seq == index + 1  # the game was not waiting for that seat, or not its move


async def test_a_forfeit_ends_the_match() -> None:
    log = await _clocked_match("all_fours", FORFEIT)
    summary = verify(log)
    assert summary.timeouts == 1 and log.entries[-1]["event"]["type"] == "seat_timed_out"
