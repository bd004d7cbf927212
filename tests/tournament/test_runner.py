"""The tournament runner (service/tournament/manager.py): schedules played, event-sourced, resumable."""

from __future__ import annotations

import asyncio
import random
import threading
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest

from cardgames.engine.core.registry import get_game
from cardgames.service.games import Games
from cardgames.service.store import EventStore
from cardgames.service.tournament.log import MatchFinished, MatchScheduled, TournamentLog
from cardgames.service.tournament.manager import InvalidTournament, Tournaments, UnknownEntrant, parse_entrants
from cardgames.service.tournament.players import play_seat, policy_for

SEED = "5e" * 32


async def _open(url: str) -> tuple[Games, Tournaments]:
    games = Games(EventStore.from_url(url))
    await games.open()
    return games, Tournaments(games)


@asynccontextmanager
async def _opened(url: str = "memory:") -> AsyncIterator[tuple[Games, Tournaments]]:
    """:func:`_open`, closed again at the end of the block."""
    games, tournaments = await _open(url)
    try:
        yield games, tournaments
    finally:
        await tournaments.close()
        await games.close()


async def test_a_round_robin_of_built_in_bots_is_played_and_scored() -> None:
    async with _opened() as (_, tournaments):
        tid = (await tournaments.create("all_fours", ["random", "r2=random", "heuristic"], matches=2,
                                        duplicate=True, seed=SEED, parallel=2)).tournament_id
        table = await tournaments.wait(tid)
        assert (table.played, table.total, table.finished) == (6, 6, True)
        assert {row.name for row in table.rows} == {"random", "r2", "heuristic"}
        # every match is two sides: one result per match, for both of its entrants
        assert sum(row.wins + row.draws + row.losses for row in table.rows) == 2 * 6
        assert all(row.matches == 4 for row in table.rows)
        assert table.crosstable["random"]["r2"][0] == table.crosstable["r2"]["random"][2]
        state = await tournaments.state(tid)
        assert sorted(state.finished) == list(range(6))
        assert table.sprt is None


async def test_two_entrants_get_an_sprt_and_duplicate_deals_share_seeds() -> None:
    async with _opened() as (games, tournaments):
        tid = (await tournaments.create("all_fours", ["random", "heuristic"], matches=4, duplicate=True,
                                        seed=SEED)).tournament_id
        table = await tournaments.wait(tid)
        assert table.sprt is not None and table.sprt.wins + table.sprt.draws + table.sprt.losses == 4
        state = await tournaments.state(tid)
        views = [await games.view(state.scheduled[n].game_id, None, 2) for n in range(4)]
        # matches 0 and 1 replay deal 0 with the sides swapped: the same shuffles
        assert views[0].view == views[1].view


async def test_a_killed_runner_resumes_without_losing_or_replaying_a_match(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/t.sqlite"
    games, tournaments = await _open(url)
    tid = (await tournaments.create("all_fours", ["random", "r2=random"], matches=6, seed=SEED)).tournament_id
    state = await tournaments.state(tid)
    while len(state.finished) < 2:
        await asyncio.sleep(0.01)
    await tournaments.close()  # the runner stops mid-tournament (a match may be half played)
    await games.close()
    before = dict(state.scheduled)
    games, tournaments = await _open(url)
    try:
        assert tid in await tournaments.resume_all()
        table = await tournaments.wait(tid)
        assert (table.played, table.total, table.finished) == (6, 6, True)
        events = TournamentLog(games.store)
        records = events.recorder.select_events(UUID(tid))
        kinds = [record.topic.rsplit(".", 1)[1] for record in records]
        assert kinds.count("match_finished") == 6 and kinds.count("match_scheduled") == 6
        resumed = await tournaments.state(tid)
        for match_no, scheduled in before.items():  # a scheduled match kept its game
            assert resumed.scheduled[match_no].game_id == scheduled.game_id
        assert all(isinstance(m, MatchScheduled) for m in resumed.scheduled.values())
        assert all(isinstance(m, MatchFinished) for m in resumed.finished.values())
    finally:
        await tournaments.close()
        await games.close()


async def test_closing_waits_for_the_log_write_in_flight(monkeypatch: pytest.MonkeyPatch) -> None:
    """A cancelled runner's write goes on in its thread: the store must not close under it (once,
    SQLite crashed the process in an insert when the next runner opened the file)."""
    started, written = threading.Event(), []
    append = TournamentLog.append

    def slow_append(self: TournamentLog, *args: Any) -> int:
        started.set()
        time.sleep(0.3)
        version = append(self, *args)
        written.append(time.monotonic())
        return version

    monkeypatch.setattr(TournamentLog, "append", slow_append)
    games, tournaments = await _open("memory:")
    await tournaments.create("all_fours", ["random", "r2=random"], matches=2, seed=SEED)
    while not started.is_set():
        await asyncio.sleep(0.01)
    await tournaments.close()
    closed = time.monotonic()
    assert written and written[0] <= closed, "close() returned before the write in flight ended"
    await games.close()


async def test_bad_tournaments_are_refused() -> None:
    async with _opened() as (_, tournaments):
        with pytest.raises(InvalidTournament):
            await tournaments.create("all_fours", ["random"])
        with pytest.raises(InvalidTournament):
            await tournaments.create("all_fours", ["a=chess", "random"])
        with pytest.raises(InvalidTournament):
            parse_entrants(["bad name!"])
        for spec in ("a=heuristic:5", "a=ismcts:0", "a=ismcts:x", "a=ismcts:", "a=ismcts:100001"):
            with pytest.raises(InvalidTournament):
                parse_entrants([spec])
        created = await tournaments.create("all_fours", ["random", "alice"], start=False)
        with pytest.raises(UnknownEntrant):
            await tournaments.register(created.tournament_id, "random", created.credentials.get("random"))
        token = await tournaments.register(created.tournament_id, "alice", created.credentials["alice"])
        assert token


def test_a_search_entrant_takes_its_budget_from_its_spec() -> None:
    (entrant,) = parse_entrants(["quick=ismcts:7"])
    assert (entrant.name, entrant.bot) == ("quick", "ismcts:7")
    config = get_game("all_fours").make_config({}, None)
    assert policy_for("all_fours", "ismcts:7", config).iterations == 7
    assert policy_for("all_fours", "ismcts", config).iterations == 200  # the default budget


class _Remembering:
    """A policy with memory: it must be shown every view its seat gets, not only its turns."""

    def __init__(self) -> None:
        self.seen: list[Any] = []

    def observe(self, view: Any) -> None:
        self.seen.append(view)

    def choose(self, view: Any, legal: Any, rng: random.Random) -> Any:
        assert self.seen and self.seen[-1] is view
        return legal[rng.randrange(len(legal))]


async def test_a_built_in_seat_shows_its_policy_every_view() -> None:
    async with _opened() as (games, _):
        created = await games.create("all_fours", {}, None, seed=SEED)
        policies = [_Remembering() for _ in created.seat_tokens]
        await asyncio.gather(*(
            play_seat(games, created.game_id, token, seat, policies[seat], SEED, in_thread=False)
            for seat, token in enumerate(created.seat_tokens)
        ))
        final = await games.view(created.game_id, None)
        assert final.over
        for seat, policy in enumerate(policies):  # the last view (the match over) was shown too
            assert len(policy.seen) > 1 and policy.seen[-1] == (await games.view(created.game_id,
                                                                                 created.seat_tokens[seat])).view


async def test_the_sprt_counts_a_free_for_all_match_once() -> None:
    async with _opened() as (_, tournaments):
        tid = (await tournaments.create("contract_rummy", ["heuristic", "random"], matches=2, seed=SEED)).tournament_id
        table = await tournaments.wait(tid)
        assert table.sprt is not None
        assert table.sprt.wins + table.sprt.draws + table.sprt.losses == table.played == 2
        heuristic = next(row for row in table.rows if row.name == "heuristic")
        assert heuristic.wins + heuristic.draws + heuristic.losses == 2 * 4  # pairwise: two seats each
