"""Time controls, timeouts and the seat lifecycle in the application layer, on a controllable clock.

``Games.now_ms`` is the service's time source: these tests set it to a number they move by hand,
and ``TableClocks.expire_due`` writes the timeouts due then (the real timer does it by itself:
tests/clocks/test_e2e.py).
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import msgspec
import pytest

from cardgames.engine.core.events import ClockMarked, SeatHandedOver, SeatTimedOut, TokenReissued
from cardgames.service import seat_lifecycle
from cardgames.service.audit.export import from_result
from cardgames.service.audit.logfile import write_log
from cardgames.service.audit.verify import Failure, verify
from cardgames.service.games import DeadlinePassed, Games, InvalidRequest, NotNow, Rejected, WrongToken
from cardgames.service.store import EventStore
from cardgames.service.table_clocks import TableClocks
from tests.audit.helpers import GAMES

START = 1_700_000_000_000


class Clock:
    """A time source moved by hand (Unix ms)."""

    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> int:
        return self.now


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[tuple[Games, TableClocks, Clock]]:
    games = Games(EventStore.from_url("memory:"))
    clock = Clock()
    games.now_ms = clock
    clocks = TableClocks(games, scan_every=0)
    await clocks.start()
    try:
        yield games, clocks, clock
    finally:
        await clocks.close()
        await games.close()


async def _events(games: Games, game_id: str) -> list[Any]:
    return [entry.event for entry in (await games.log(game_id, None)).entries]


async def _until_over(games: Games, clocks: TableClocks, clock: Clock, game_id: str, step: int = 3_000) -> None:
    for _ in range(2_000):
        view = await games.view(game_id, None)
        if view.over:
            return
        clock.now += step
        await clocks.expire_due()
        await asyncio.sleep(0.001)  # the bots' moves
    raise AssertionError("the match did not end")


@pytest.mark.parametrize("game", GAMES)
async def test_nobody_plays_a_bot_plays_game_to_its_end_and_it_verifies(
    game: str, table: tuple[Games, TableClocks, Clock]
) -> None:
    games, clocks, clock = table
    created = await games.create(game, time_control={"move_ms": 2_000, "on_timeout": "bot_plays", "bot": "random"})
    view = await games.view(created.game_id, None)
    assert view.time_control is not None and view.server_time_ms == START
    seat = view.to_act[0]
    assert view.seats[seat].running and view.seats[seat].deadline_ms == START + 2_000
    clock.now += 1_999
    assert await clocks.expire_due() == 0  # not yet
    await _until_over(games, clocks, clock, created.game_id)
    events = await _events(games, created.game_id)
    timeouts = [event for event in events if isinstance(event, SeatTimedOut)]
    # each seat times out once, then its bot plays for it: nobody times out twice
    assert timeouts and len({event.seat for event in timeouts}) == len(timeouts)
    assert all(event.consequence == "bot_plays" and event.waited_ms >= 2_000 for event in timeouts)
    summary = verify(from_result(await games.log(created.game_id, None)))
    assert summary.timeouts == len(timeouts)


async def test_forfeit_on_time_ends_the_match_and_the_side_ranks_last(table: tuple[Games, TableClocks, Clock]) -> None:
    games, clocks, clock = table
    created = await games.create(
        "seep", time_control={"initial_ms": 5_000, "increment_ms": 1_000, "on_timeout": "forfeit"}
    )
    seat = (await games.view(created.game_id, None)).to_act[0]
    clock.now += 5_001
    assert await clocks.expire_due() == 1
    assert await clocks.expire_due() == 0  # exactly once
    live = await games.game(created.game_id)
    assert live.rules.is_over(live.state)
    assert live.rules.outcome(live.state) == [1 if s % 2 == seat % 2 else 0 for s in range(4)]
    verify(from_result(await games.log(created.game_id, None)))


async def test_banks_increments_and_a_late_command(table: tuple[Games, TableClocks, Clock]) -> None:
    games, clocks, clock = table
    created = await games.create(
        "all_fours", players=2, time_control={"initial_ms": 10_000, "increment_ms": 2_000, "on_timeout": "abort"}
    )
    view = await games.view(created.game_id, None)
    seat = view.to_act[0]
    token = created.seat_tokens[seat]
    clock.now += 3_000
    legal = await games.legal_commands(created.game_id, token)
    accepted = await games.submit(created.game_id, token, msgspec.to_builtins(legal.commands[0]), legal.sequence)
    mark = accepted.entries[-1].event
    assert isinstance(mark, ClockMarked) and mark.banks[seat] == 10_000 - 3_000 + 2_000
    view = await games.view(created.game_id, None)
    following = view.to_act[0]
    assert view.seats[seat].remaining_ms == 9_000  # (the same seat may be to act again: its bank, whole)
    clock.now += 20_000  # past the next seat's deadline: its command is refused, the timeout applies
    legal = await games.legal_commands(created.game_id, created.seat_tokens[following])
    with pytest.raises(DeadlinePassed) as refused:
        await games.submit(created.game_id, created.seat_tokens[following], msgspec.to_builtins(legal.commands[0]))
    assert refused.value.reason == "DEADLINE_PASSED"
    assert (await games.view(created.game_id, None)).sequence == legal.sequence  # nothing written
    assert await clocks.expire_due() == 1
    live = await games.game(created.game_id)
    assert live.state.aborted and live.rules.outcome(live.state) == [0, 0]
    verify(from_result(await games.log(created.game_id, None)))


@pytest.mark.parametrize(
    "control",
    [
        {"initial_ms": -1},
        {"move_ms": 10**12},
        {},
        {"move_ms": 1_000, "on_timeout": "later"},
        {"move_ms": "soon"},
    ],
)
async def test_bad_time_controls_are_refused_and_nothing_is_created(
    control: dict[str, Any], table: tuple[Games, TableClocks, Clock]
) -> None:
    games, _, _ = table
    with pytest.raises(InvalidRequest) as refused:
        await games.create("seep", time_control=control)
    assert refused.value.reason == "INVALID_TIME_CONTROL"
    assert not len(games.cache)


async def test_resign_abort_hand_over_and_reissue(table: tuple[Games, TableClocks, Clock]) -> None:
    games, _, _ = table
    created = await games.create("contract_rummy", players=3)
    game_id, tokens = created.game_id, created.seat_tokens
    before = (await games.view(game_id, None)).sequence
    # wrong tokens: typed errors, nothing written
    with pytest.raises(WrongToken):
        await seat_lifecycle.resign(games, game_id, "not a token")
    with pytest.raises(WrongToken):
        await seat_lifecycle.hand_over(games, game_id, tokens[0], 1, "random")
    with pytest.raises(seat_lifecycle.OwnerTokenRequired):
        await seat_lifecycle.reissue_token(games, game_id, tokens[0], 0)
    with pytest.raises(InvalidRequest):
        await seat_lifecycle.reissue_token(games, game_id, created.owner_token, 7)
    assert (await games.view(game_id, None)).sequence == before
    # a new token for seat 1: the old one stops working, the log never holds one
    reissued = await seat_lifecycle.reissue_token(games, game_id, created.owner_token, 1)
    with pytest.raises(WrongToken):
        await games.view(game_id, tokens[1])
    assert (await games.view(game_id, reissued.token)).seat == 1
    log = await games.log(game_id, None)
    assert any(isinstance(entry.event, TokenReissued) for entry in log.entries)
    assert reissued.token not in msgspec.json.encode([entry.event for entry in log.entries]).decode()
    # hand seat 0 to a bot (by the owner) and back (by the seat itself)
    await seat_lifecycle.hand_over(games, game_id, created.owner_token, 0, "heuristic")
    assert (await games.view(game_id, None)).seats[0].bot == "heuristic"
    await seat_lifecycle.hand_over(games, game_id, tokens[0], None, "")
    assert (await games.view(game_id, None)).seats[0].bot == ""
    # a seat plays: no abort any more
    view = await games.view(game_id, None)
    seat = view.to_act[0]
    token = reissued.token if seat == 1 else tokens[seat]
    legal = await games.legal_commands(game_id, token)
    await games.submit(game_id, token, msgspec.to_builtins(legal.commands[0]))
    with pytest.raises(NotNow) as refused:
        await seat_lifecycle.abort(games, game_id, created.owner_token)
    assert refused.value.reason == "PLAY_BEGAN"
    await seat_lifecycle.resign(games, game_id, tokens[2])
    with pytest.raises(Rejected) as over:
        await seat_lifecycle.resign(games, game_id, tokens[0])
    assert over.value.reason == "GAME_OVER"
    live = await games.game(game_id)
    assert live.rules.outcome(live.state) == [0, 0, 1]
    verify(from_result(await games.log(game_id, None)))


async def test_abort_before_play_and_a_seat_taking_its_seat_back(table: tuple[Games, TableClocks, Clock]) -> None:
    games, _, _ = table
    created = await games.create("seep")
    await seat_lifecycle.abort(games, created.game_id, created.seat_tokens[3])
    assert (await games.view(created.game_id, None)).over
    verify(from_result(await games.log(created.game_id, None)))

    created = await games.create("all_fours", players=2, time_control={"move_ms": 60_000})
    seat = (await games.view(created.game_id, None)).to_act[0]
    await seat_lifecycle.hand_over(games, created.game_id, created.seat_tokens[seat], None, "random")
    for _ in range(200):  # the bot plays the seat at once
        if (await games.view(created.game_id, None)).to_act != (seat,):
            break
        await asyncio.sleep(0.005)
    await seat_lifecycle.hand_over(games, created.game_id, created.owner_token, seat, "")
    assert (await games.view(created.game_id, None)).seats[seat].bot == ""
    log = await games.log(created.game_id, None)
    assert [entry.event for entry in log.entries if isinstance(entry.event, SeatHandedOver)] == [
        SeatHandedOver(seat, "random"),
        SeatHandedOver(seat, ""),
    ]


async def test_presence_in_views_and_watch(table: tuple[Games, TableClocks, Clock]) -> None:
    games, _, _ = table
    created = await games.create("seep")
    spectator = await games.watch(created.game_id, None, presence=True)
    first = await anext(spectator)
    assert not any(seat.connected for seat in first.view.seats)
    player = await games.watch(created.game_id, created.seat_tokens[2])
    await anext(player)
    came = await asyncio.wait_for(anext(spectator), 5)
    assert came.presence == ((2, True),) and not came.entries and came.view.seats[2].connected
    await player.aclose()
    went = await asyncio.wait_for(anext(spectator), 5)
    assert went.presence == ((2, False),)
    await spectator.aclose()


async def test_two_processes_racing_write_one_timeout(tmp_path: Path) -> None:
    """Two application layers on one store both find the deadline passed: the store keeps one timeout."""
    url = f"sqlite:///{tmp_path / 'games.sqlite'}"
    clock = Clock()
    first, second = Games(EventStore.from_url(url), shared=True), Games(EventStore.from_url(url), shared=True)
    clocks = []
    try:
        for games in (first, second):
            games.now_ms = clock
            clocks.append(TableClocks(games, scan_every=0))
        created = await first.create("seep", time_control={"move_ms": 1_000, "on_timeout": "forfeit"})
        for table in clocks:
            await table.start()  # the second finds the game by its marker in the store
            assert table.following(created.game_id)
        clock.now += 1_500
        written = await asyncio.gather(*(table.expire(created.game_id) for table in clocks))
        assert sum(sequence is not None for sequence in written) == 1
        events = await _events(second, created.game_id)
        assert sum(isinstance(event, SeatTimedOut) for event in events) == 1
        verify(from_result(await second.log(created.game_id, None)))
    finally:
        for table in clocks:
            await table.close()
        await first.close()
        await second.close()


async def test_a_tampered_clock_does_not_verify(table: tuple[Games, TableClocks, Clock]) -> None:
    games, clocks, clock = table
    created = await games.create("seep", time_control={"move_ms": 1_000, "on_timeout": "forfeit"})
    clock.now += 1_000
    await clocks.expire_due()
    log = from_result(await games.log(created.game_id, None))
    index = next(i for i, item in enumerate(log.entries) if item["event"]["type"] == "seat_timed_out")
    log.entries[index]["event"]["waited_ms"] = 10  # a timeout before its deadline
    from tests.audit.helpers import rechain

    rechain(log)
    with pytest.raises(Failure, match="before its deadline"):
        verify(log)


@pytest.mark.skipif(shutil.which("node") is None, reason="node (20+) is not installed")
async def test_the_javascript_verifier_reads_a_clocked_log(
    tmp_path: Path, table: tuple[Games, TableClocks, Clock]
) -> None:
    games, clocks, clock = table
    created = await games.create("all_fours", players=2, time_control={"move_ms": 1_000, "on_timeout": "bot_plays"})
    await _until_over(games, clocks, clock, created.game_id)
    log = from_result(await games.log(created.game_id, None))
    path = tmp_path / "clocked.ndjson"
    with path.open("wb") as out:
        write_log(out, log)
    verifier = Path(__file__).resolve().parents[2] / "clients" / "verifier-js" / "verify.mjs"
    result = subprocess.run(["node", str(verifier), str(path)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and result.stdout.startswith("OK"), result.stdout + result.stderr


async def test_a_reloaded_game_has_its_clocks_and_bots_from_the_log_and_snapshots(tmp_path: Path) -> None:
    """What a restarted server folds (with snapshots every 3 events) is what the running one held."""
    url = f"sqlite:///{tmp_path / 'games.sqlite'}"
    clock = Clock()
    games = Games(EventStore.from_url(url), snapshot_every=3)
    games.now_ms = clock
    clocks = TableClocks(games, scan_every=0)
    try:
        created = await games.create("all_fours", players=2, time_control={"move_ms": 1_000, "bot": "random"})
        seat = (await games.view(created.game_id, None)).to_act[0]
        clock.now += 1_000
        await clocks.expire_due()
        for _ in range(100):  # the bot plays a few moves for the seat
            live = await games.game(created.game_id)
            if live.sequence > 30:
                break
            clock.now += 1_000
            await clocks.expire_due()
            await asyncio.sleep(0.005)
        await clocks.close()
        await asyncio.sleep(0.05)  # the snapshots' writes
        live = await games.game(created.game_id)
        state, sequence = live.state, live.sequence
        assert state.bots.get(seat) == "random" and state.clock is not None
    finally:
        await clocks.close()
        await games.close()
    again = Games(EventStore.from_url(url), snapshot_every=3)
    try:
        reloaded = await again.game(created.game_id)
        assert reloaded.sequence == sequence
        assert reloaded.state.clock == state.clock and reloaded.state.bots == state.bots
    finally:
        await again.close()


async def test_a_bot_given_a_seat_of_a_game_without_a_clock_plays_on_after_a_restart(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'games.sqlite'}"
    games = Games(EventStore.from_url(url))
    try:
        created = await games.create("all_fours", players=2)
        seat = (await games.view(created.game_id, None)).to_act[0]
        await seat_lifecycle.hand_over(games, created.game_id, created.owner_token, seat, "random")
        sequence = (await games.view(created.game_id, None)).sequence  # no table clocks here: nobody played
    finally:
        await games.close()
    again = Games(EventStore.from_url(url))
    clocks = TableClocks(again, scan_every=0)
    try:
        await clocks.start()  # finds the game by its marker, and its bot plays
        for _ in range(400):
            if (await again.view(created.game_id, None)).sequence > sequence:
                break
            await asyncio.sleep(0.005)
        assert (await again.view(created.game_id, None)).sequence > sequence
    finally:
        await clocks.close()
        await again.close()
