"""Match clocks (service/clocks.py): deadlines, time banks, timeouts and their consequences in the log."""

from __future__ import annotations

import asyncio
from typing import Any, cast

import pytest
from cardgames.engine.core.events import AUTO_MOVE, FORFEIT, ClockCharged, SeatTimedOut
from cardgames.service.clocks import ClockKeeper, DeadlinePassed
from cardgames.service.games import Games
from cardgames.service.store import EventStore
from cardgames.service.tournament.log import ClockOptions

SEED = "c1" * 32


async def _match(options: ClockOptions) -> tuple[Games, ClockKeeper, str, list[str]]:
    games = Games(EventStore.from_url("memory:"))
    await games.open()
    keeper = ClockKeeper(games)
    created = await games.create("all_fours", {}, 2, seed=SEED)
    await keeper.keep(created.game_id, created.seat_tokens, options)
    return games, keeper, created.game_id, created.seat_tokens


async def _events(games: Games, game_id: str) -> list[Any]:
    return [entry.event for entry in (await games.log(game_id, None)).entries]


async def _wait_for(predicate, timeout: float = 5.0) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not await predicate():
        assert loop.time() < end, "timed out waiting"
        await asyncio.sleep(0.01)


async def test_a_seat_that_runs_out_of_time_forfeits_and_the_log_says_so() -> None:
    games, keeper, game_id, _ = await _match(ClockOptions(move_ms=60, bank_ms=40, on_timeout=FORFEIT))
    try:
        to_act = (await games.view(game_id, None)).to_act[0]

        async def over() -> bool:
            return (await games.view(game_id, None)).over

        await _wait_for(over)
        timeouts = [e for e in await _events(games, game_id) if isinstance(e, SeatTimedOut)]
        assert len(timeouts) == 1
        event = timeouts[0]
        assert (event.seat, event.consequence, event.reason) == (to_act, FORFEIT, "disconnected")
        assert event.waited_ms >= 100
        live = await games.game(game_id)
        assert live.rules.outcome(live.state)[to_act] == 1
    finally:
        await keeper.close()
        await games.close()


async def test_auto_move_plays_the_first_legal_command_and_the_match_goes_on() -> None:
    games, keeper, game_id, tokens = await _match(ClockOptions(move_ms=30, on_timeout=AUTO_MOVE))
    try:
        seat = (await games.view(game_id, None)).to_act[0]
        keeper.connected(game_id, seat)
        first = (await games.legal_commands(game_id, tokens[seat])).commands[0]

        async def timed_out() -> bool:
            return any(isinstance(e, SeatTimedOut) for e in await _events(games, game_id))

        await _wait_for(timed_out)
        events = await _events(games, game_id)
        index = next(i for i, e in enumerate(events) if isinstance(e, SeatTimedOut))
        assert events[index] == SeatTimedOut(seat, AUTO_MOVE, "timeout", events[index].waited_ms)
        # the events of the first legal command follow the timeout in the same batch
        live = await games.game(game_id)
        base = cast(Any, live.rules).rules  # the seat-events wrapper's game
        state = live.rules.initial(live.rules.make_config({}, 2))
        for event in events[:index]:
            state = live.rules.evolve(state, event)
        expected = list(base.decide(state.game, seat, first))
        assert events[index + 1 : index + 1 + len(expected)] == expected
    finally:
        await keeper.close()
        await games.close()


async def test_a_slow_answer_spends_the_bank_and_a_late_one_is_refused() -> None:
    games, keeper, game_id, tokens = await _match(ClockOptions(move_ms=20, bank_ms=5000, on_timeout=FORFEIT))
    try:
        seat = (await games.view(game_id, None)).to_act[0]
        await asyncio.sleep(0.15)
        legal = await games.legal_commands(game_id, tokens[seat])
        accepted = await games.submit(game_id, tokens[seat], _plain(legal.commands[0]), legal.sequence)
        charged = [entry.event for entry in accepted.entries if isinstance(entry.event, ClockCharged)]
        assert len(charged) == 1 and charged[0].seat == seat and charged[0].used_ms >= 150
        assert charged[0].bank_ms == 5000 - (charged[0].used_ms - 20)
        info = keeper.clock_for(game_id, seat)
        assert info is not None and info.bank_ms == charged[0].bank_ms
        live = await games.game(game_id)
        assert live.state.banks[seat] == charged[0].bank_ms  # the log knows the bank
    finally:
        await keeper.close()
        await games.close()


async def test_a_command_after_the_deadline_is_refused() -> None:
    games = Games(EventStore.from_url("memory:"))
    now = [1000.0]
    keeper = ClockKeeper(games, now=lambda: now[0])
    try:
        created = await games.create("all_fours", {}, 2, seed=SEED)
        game_id, tokens = created.game_id, created.seat_tokens
        await keeper.keep(game_id, tokens, ClockOptions(move_ms=100_000, on_timeout=FORFEIT))
        seat = (await games.view(game_id, None)).to_act[0]

        async def pending() -> bool:
            return game_id in keeper._matches and keeper._matches[game_id].seats[seat].since is not None

        await _wait_for(pending)
        now[0] += 101.0  # past the deadline, before the timer fired
        legal = await games.legal_commands(game_id, tokens[seat])
        with pytest.raises(DeadlinePassed) as refused:
            await games.submit(game_id, tokens[seat], _plain(legal.commands[0]), legal.sequence)
        assert refused.value.reason == "DEADLINE_PASSED"
        assert (await games.view(game_id, None)).sequence == legal.sequence  # nothing written
    finally:
        await keeper.close()
        await games.close()


def _plain(command: object) -> dict:
    import msgspec

    return msgspec.to_builtins(command)
