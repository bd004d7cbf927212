"""Duplicate schedules (service/tournament/schedule.py), the server's tournament key (keys.py), and what the
store keeps of a tournament's secrets."""

from __future__ import annotations

import asyncio
import itertools
import stat
from collections import Counter
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest

from cardgames.service.games import Games
from cardgames.service.store import EventStore
from cardgames.service.tournament.hub import Assignment
from cardgames.service.tournament.keys import ENV_SECRET, TournamentKey, tournament_key
from cardgames.service.tournament.log import TournamentLog
from cardgames.service.tournament.manager import FieldTooSmall, KeyMismatch, Tournaments
from cardgames.service.tournament.players import play_seat, policy_for
from cardgames.service.tournament.schedule import DISJOINT, TABLE, baranyai, schedule, sides_of, tables

SEED = "3d" * 32


@pytest.mark.parametrize(("game", "players"), [("all_fours", 2), ("all_fours", 4), ("seep", 4), ("contract_rummy", 2),
                                               ("contract_rummy", 3), ("contract_rummy", 4)])
def test_in_a_disjoint_schedule_no_entrant_plays_a_deal_twice(game: str, players: int) -> None:
    sides = len(sides_of(game, players))
    for count in range(sides * sides, sides * sides + 3):
        names = [f"e{index}" for index in range(count)]
        specs = schedule(game, players, names, matches=sides, duplicate=True, seed=SEED, scheme=DISJOINT)
        deals: dict[int, list[Any]] = {}
        for spec in specs:
            deals.setdefault(spec.deal_no, []).append(spec)
        for matches in deals.values():
            assert sorted(spec.rotation for spec in matches) == list(range(sides))  # every rotation once ...
            seated = [name for spec in matches for name in spec.sides]
            assert len(seated) == len(set(seated)) == sides * sides  # ... each by entrants all different
            assert len({spec.seed for spec in matches}) == 1
        # still a round robin: every table plays every rotation, every entrant every side equally often
        assert Counter((spec.table_no, spec.rotation) for spec in specs) == {
            (table, rotation): 1 for table in range(len(tables(names, sides))) for rotation in range(sides)}
        sides_played = Counter((name, side) for spec in specs for side, name in enumerate(spec.sides))
        assert len(sides_played) == count * sides and len(set(sides_played.values())) == 1


def test_a_trusted_schedule_keeps_each_deal_at_one_table() -> None:
    specs = schedule("all_fours", 2, ["a", "b", "c"], matches=4, duplicate=True, seed=SEED, scheme=TABLE)
    by_deal: dict[int, set[int]] = {}
    for spec in specs:
        by_deal.setdefault(spec.deal_no, set()).add(spec.table_no)
    assert all(len(at) == 1 for at in by_deal.values()) and len(by_deal) == 3 * 2


def test_baranyai_classes_are_disjoint_and_cover_every_subset_once() -> None:
    for n, k in ((9, 3), (10, 3), (12, 3), (16, 4), (6, 2), (7, 2)):
        total = len(list(itertools.combinations(range(n), k)))
        widest = n // k
        count = -(-total // widest)
        sizes = [total // count + (index < total % count) for index in range(count)]
        classes = baranyai(n, k, sizes)
        assert [len(members) for members in classes] == sizes
        for members in classes:
            assert all(not a & b for a, b in itertools.combinations(members, 2))
        assert sorted(s for members in classes for s in members) == sorted(
            sum(1 << e for e in subset) for subset in itertools.combinations(range(n), k))


async def test_duplicate_deals_with_a_remote_entrant_need_a_field_of_sides_squared() -> None:
    games = Games(EventStore.from_url("memory:"))
    tournaments = Tournaments(games)
    try:
        with pytest.raises(FieldTooSmall):
            await tournaments.create("all_fours", ["a", "b", "c"], players=2, duplicate=True, start=False)
        with pytest.raises(FieldTooSmall):  # three sides: nine entrants
            await tournaments.create("contract_rummy", [f"e{i}" for i in range(8)], players=3, duplicate=True,
                                     start=False)
        made = await tournaments.create("contract_rummy", [f"e{i}" for i in range(9)], players=3, duplicate=True,
                                        start=False)
        assert (await tournaments.state(made.tournament_id)).created.scheme == DISJOINT
        trusted = await tournaments.create("all_fours", ["a", "b"], players=2, duplicate=True, trusted=True,
                                           start=False)
        assert (await tournaments.state(trusted.tournament_id)).created.scheme == TABLE
    finally:
        await tournaments.close()
        await games.close()


# -- what the store keeps -------------------------------------------------------------------


async def _play_remote(tournaments: Tournaments, games: Games, tid: str, name: str, credential: str,
                       seen: list[Assignment], tokens: list[str]) -> None:
    """A remote entrant played in process: registers, follows its assignments, plays each seat at random."""
    token = await tournaments.register(tid, name, credential)
    tokens.append(token)
    config = (await tournaments.state(tid)).created
    policy = policy_for(config.game, "random", None)
    stream = await tournaments.assignments(tid, token)
    async for assignment in stream:
        seen.append(assignment)
        await play_seat(games, assignment.game_id, assignment.seat_token, assignment.seat, policy, SEED,
                        in_thread=False)


async def test_the_store_holds_no_plain_seat_token_entrant_token_or_credential(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/t.sqlite"
    games = Games(EventStore.from_url(url))
    tournaments = Tournaments(games)
    secrets: list[str] = []
    try:
        made = await tournaments.create("all_fours", ["alice", "bob", "random"], players=2, matches=2, seed=SEED)
        tid = made.tournament_id
        secrets.extend(made.credentials.values())
        seen: list[Assignment] = []
        await asyncio.wait_for(asyncio.gather(*(
            _play_remote(tournaments, games, tid, name, made.credentials[name], seen, secrets)
            for name in ("alice", "bob"))), 120)
        table = await tournaments.wait(tid)
        assert table.finished and table.played == 6
        state = await tournaments.state(tid)
        for match_no in state.scheduled:  # every seat's token, the built-in bots' too
            secrets.extend(tournaments.seat_tokens(tid, match_no, 2))
        assert {assignment.seat_token for assignment in seen} < set(secrets)
        # the store's own reading of the tournament: no secret in any record of its stream or of its games
        records = list(TournamentLog(games.store).recorder.select_events(UUID(tid)))
        for scheduled in state.scheduled.values():
            records += games.store.recorder.select_events(UUID(scheduled.game_id))
    finally:
        await tournaments.close()
        await games.close()
    assert len(set(secrets)) == len(secrets) == 2 + 2 + 6 * 2  # credentials, entrant tokens, seat tokens
    stored = b"".join(record.state for record in records)
    files = b"".join(path.read_bytes() for path in tmp_path.iterdir() if path.name.startswith("t.sqlite")
                     and not path.name.endswith(".key"))
    for secret in secrets:
        assert secret.encode() not in stored and secret.encode() not in files
    assert b"token_hash" in stored and b"credential_hash" in stored  # the hashes are there, as for games


# -- the server's key -----------------------------------------------------------------------


def test_the_key_comes_from_the_environment_else_a_key_file_next_to_a_sqlite_store(tmp_path: Path) -> None:
    store = EventStore.from_url(f"sqlite:///{tmp_path}/s.sqlite")
    try:
        from_file = tournament_key(store, {})
        key_path = tmp_path / "s.sqlite.key"
        assert key_path.exists() and stat.S_IMODE(key_path.stat().st_mode) == 0o600
        assert tournament_key(store, {}).key_id == from_file.key_id  # the same key next time
        given = tournament_key(store, {ENV_SECRET: "a long secret shared by every replica"})
        assert given.key_id != from_file.key_id and given.source == f"${ENV_SECRET}"
    finally:
        store.close()
    memory = EventStore.from_url("memory:")
    assert tournament_key(memory, {}).key_id != tournament_key(memory, {}).key_id  # a new one per process
    one = TournamentKey(b"k", "test")
    assert one.seat_token("t", 0, 0) != one.seat_token("t", 0, 1) != one.seat_token("t", 1, 0)
    assert len(one.seat_token("t", 0, 0)) == 43


async def test_a_runner_with_another_key_does_not_resume_a_tournament(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/t.sqlite"
    games = Games(EventStore.from_url(url))
    tournaments = Tournaments(games)
    made = await tournaments.create("all_fours", ["alice", "random"], players=2, start=False)
    await tournaments.close()
    await games.close()
    games = Games(EventStore.from_url(url))
    tournaments = Tournaments(games, key=TournamentKey(b"another key", "test"))
    try:
        assert await tournaments.resume_all() == []
        with pytest.raises(KeyMismatch):
            tournaments.start(made.tournament_id)
    finally:
        await tournaments.close()
        await games.close()


async def test_another_process_releases_a_match_only_once_its_deal_is_over(tmp_path: Path) -> None:
    """A process that does not run the tournament (a replica, or one restarted) reads the tournament again
    before it shows a held match's reveal."""
    url = f"sqlite:///{tmp_path}/t.sqlite"
    games = Games(EventStore.from_url(url))
    tournaments = Tournaments(games)
    other_games = Games(EventStore.from_url(url))
    other = Tournaments(other_games, key=tournaments.key)
    try:
        made = await tournaments.create("all_fours", ["alice", "random"], players=2, matches=2, duplicate=True,
                                        trusted=True, seed=SEED)
        tid = made.tournament_id
        stream = await tournaments.assignments(tid, await tournaments.register(tid, "alice", made.credentials["alice"]))
        policy = policy_for("all_fours", "random", None)
        seen: list[Assignment] = []
        async for assignment in stream:
            seen.append(assignment)
            if len(seen) == 2:  # the first match is over, the second (the same deal) is to be played
                first = seen[0].game_id
                assert not await other.released(tid, first)
                assert (await other_games.log(first, None)).reveal is None
            await play_seat(games, assignment.game_id, assignment.seat_token, assignment.seat, policy, SEED,
                            in_thread=False)
        await tournaments.wait(tid)
        assert await other.released(tid, seen[0].game_id)
        reveals = [(await other_games.log(assignment.game_id, None)).reveal for assignment in seen]
        assert reveals[0] is not None and reveals[0] == reveals[1]  # one deal, one seed
    finally:
        for closing in (other, tournaments):
            await closing.close()
        for store_user in (other_games, games):
            await store_user.close()
