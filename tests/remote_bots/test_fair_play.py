"""Tournaments that cannot be gamed: the attacks of docs/threat-model.md ("Tournaments that cannot be
gamed"), each tried as an entrant would try it, over gRPC where a client would.

* read the other rotation's hands: no entrant is ever seated at two matches of one deal (the
  schedule, and the seed commitments an entrant sees in its own matches' logs);
* open one match's commitment with another's seed: no log, view or stream of a finished match shows
  its seed, its shuffles or another seat's hand while a match of the same deal is unfinished;
* register under another entrant's name: PERMISSION_DENIED without its credential, and the real
  entrant is not locked out.

The store's side (no seat token, entrant token or credential in plain text) and the schedules
themselves are tested in tests/tournament/test_schedule.py; a crash of the server and of a bot,
after which the bot registers again with its credential, in tests/remote_bots/test_restart.py.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import random
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grpc
import pytest

from cardgames import wire
from cardgames.clients.remote_bot import error_reason, play_seat
from cardgames.service.server import Running
from cardgames.service.tournament.schedule import DISJOINT, deal_seed
from cardgames.v1 import game_service_pb2, game_service_pb2_grpc, tournament_pb2, tournament_pb2_grpc

SEED = "c4" * 32
REPO = Path(__file__).resolve().parents[2]
BLOCK = re.compile(r"```python\n(.*?)```", re.DOTALL)
CLOCK = tournament_pb2.MatchClock(move_ms=20_000, bank_ms=20_000, on_timeout="forfeit")


def _random(decision: dict[str, Any]) -> int:
    return random.Random(decision["sequence"]).randrange(len(decision["legal"]))


@pytest.fixture
def stubs(channel: grpc.aio.Channel) -> tuple[grpc.aio.Channel, Any, Any]:
    return channel, tournament_pb2_grpc.TournamentServiceStub(channel), game_service_pb2_grpc.GameServiceStub(channel)


def _metadata(token: str) -> tuple[tuple[str, str], ...]:
    return (("cardgames-token", token),)


def _credentials(created: tournament_pb2.CreateTournamentResponse) -> dict[str, str]:
    return {entry.name: entry.credential for entry in created.credentials}


async def _entrant(channel: grpc.aio.Channel, tournament_id: str, name: str, credential: str,
                   seen: list[tournament_pb2.AssignmentsResponse],
                   before: Callable[[tournament_pb2.AssignmentsResponse], Any] | None = None) -> None:
    """A remote entrant that plays its assignments one at a time, recording each (``before`` runs first)."""
    stub = tournament_pb2_grpc.TournamentServiceStub(channel)
    token = (await stub.RegisterEntrant(tournament_pb2.RegisterEntrantRequest(
        tournament_id=tournament_id, name=name, credential=credential))).entrant_token
    request = tournament_pb2.AssignmentsRequest(tournament_id=tournament_id)
    async for assignment in stub.Assignments(request, metadata=_metadata(token)):
        seen.append(assignment)
        if before is not None:
            await before(assignment)
        await play_seat(channel, assignment.game_id, assignment.seat_token, _random)


# -- read the other rotation's hands -----------------------------------------------------


async def test_a_field_too_small_for_remote_entrants_is_refused_unless_trusted(stubs: Any) -> None:
    _, tournaments, _ = stubs
    request = tournament_pb2.CreateTournamentRequest(game="all_fours", entrants=["alice", "bob", "random"],
                                                     players=2, duplicate=True)
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await tournaments.CreateTournament(request)
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert error_reason(refused.value) == "FIELD_TOO_SMALL"
    assert "4 entrants" in (refused.value.details() or "") and "trusted" in (refused.value.details() or "")
    request.trusted = True
    assert (await tournaments.CreateTournament(request)).matches == 3 * 2
    built_in = tournament_pb2.CreateTournamentRequest(game="all_fours", entrants=["random", "heuristic"], players=2,
                                                      duplicate=True)
    assert (await tournaments.CreateTournament(built_in)).matches == 2  # built-in bots read nothing else


async def test_no_entrant_sees_one_deal_twice_even_playing_in_parallel(stubs: Any) -> None:
    """Four remote entrants, duplicate deals, two matches at a time: each entrant reads the seed commitment of
    every match it is seated at (its log's header); a repeated one would be a deal it plays twice."""
    channel, tournaments, games = stubs
    names = ["n1", "n2", "n3", "n4"]
    created = await tournaments.CreateTournament(tournament_pb2.CreateTournamentRequest(
        game="all_fours", entrants=names, players=2, duplicate=True, parallel=2, seed=SEED, clock=CLOCK))
    credentials = _credentials(created)
    seen: dict[str, list[tournament_pb2.AssignmentsResponse]] = {name: [] for name in names}
    await asyncio.wait_for(asyncio.gather(*(
        _entrant(channel, created.tournament_id, name, credentials[name], seen[name]) for name in names)), 120)
    for name in names:
        commitments = []
        for assignment in seen[name]:
            log = await games.GetLog(game_service_pb2.GetLogRequest(game_id=assignment.game_id),
                                     metadata=_metadata(assignment.seat_token))
            commitments.append(log.header.seed_commitment)
        # two matches against each of three opponents (both sides), six deals: none of them twice
        assert len(commitments) == len(set(commitments)) == 6, name
    tournament = (await tournaments.GetTournament(
        tournament_pb2.GetTournamentRequest(tournament_id=created.tournament_id))).tournament
    assert tournament.scheme == DISJOINT and len(tournament.matches) == 12
    for deal in {match.deal_no for match in tournament.matches}:
        seated = [name for match in tournament.matches if match.deal_no == deal for name in match.seats]
        assert sorted(seated) == sorted(names)  # a deal's two rotations: four different entrants


# -- open one match's commitment with another's seed ------------------------------------------


def _secrets_shown(events: Any, viewer: int | None) -> list[str]:
    """What a viewer's entries show that the viewer could not see at the table: seeds, shuffles, others' hands."""
    shown = []
    for entry in events:
        _, event = wire.unwrap(entry.event)
        kind = event.get("type")
        if kind == "match_seeded" and event.get("seed"):
            shown.append("seed")
        elif kind == "shuffled" and event.get("order"):
            shown.append("shuffle")
        elif kind in ("cards_dealt", "cards_delivered") and event.get("seat") != viewer and event.get("cards"):
            shown.append("hand")
        if entry.HasField("seat") and entry.seat != viewer:
            shown.append("command")
    return shown


async def _everything_about(games: Any, game_id: str, tokens: dict[int | None, str]) -> dict[str, list[str]]:
    """Every channel a viewer has to a finished game: GetLog (its reveal and entries), Watch from the start, and
    GetView, per viewer (``None``: a spectator)."""
    found: dict[str, list[str]] = {}
    for viewer, token in tokens.items():
        metadata = _metadata(token) if token else ()
        log = await games.GetLog(game_service_pb2.GetLogRequest(game_id=game_id), metadata=metadata)
        found[f"log {viewer}"] = _secrets_shown(log.events, viewer) + (["reveal"] if log.HasField("reveal") else [])
        stream = games.Watch(game_service_pb2.WatchRequest(game_id=game_id, after_sequence=0), metadata=metadata)
        watched = [entry async for message in stream for entry in message.events]
        found[f"watch {viewer}"] = _secrets_shown(watched, viewer)
        view = await games.GetView(game_service_pb2.GetViewRequest(game_id=game_id), metadata=metadata)
        assert view.view.over
    return found


async def test_a_finished_match_shows_no_seed_while_another_match_of_its_deal_is_unfinished(
    server: Running, stubs: Any, tmp_path: Path
) -> None:
    """A trusted duplicate tournament: alice plays both rotations of deal 0, one after the other. Between the
    two, the first match's log, stream and views (as alice's seat, as her opponent's, as a spectator) show no
    seed, no shuffle and no hand but the viewer's own, so nothing opens the second match's commitment (the same
    one); once both are over, the seed shows and hashes to it, and derives from the tournament's seed."""
    channel, tournaments, games = stubs
    created = await tournaments.CreateTournament(tournament_pb2.CreateTournamentRequest(
        game="all_fours", entrants=["alice", "random"], players=2, matches=2, duplicate=True, trusted=True,
        seed=SEED, clock=CLOCK))
    tid = created.tournament_id
    assert created.seed_commitment == hashlib.sha256(bytes.fromhex(SEED)).hexdigest()
    checked: list[dict[str, list[str]]] = []
    seen: list[tournament_pb2.AssignmentsResponse] = []

    async def before(assignment: tournament_pb2.AssignmentsResponse) -> None:
        if assignment.match_no != 1:
            return
        first = seen[0]
        opponent = 1 - first.seat  # the built-in bot's seat (its token, from the server's key)
        tokens = server.bots.tournaments.seat_tokens(tid, 0, 2)  # type: ignore[union-attr]
        checked.append(await _everything_about(games, first.game_id, {first.seat: first.seat_token,
                                                                      opponent: tokens[opponent], None: ""}))
        now = (await tournaments.GetTournament(tournament_pb2.GetTournamentRequest(tournament_id=tid))).tournament
        standings = (await tournaments.GetStandings(tournament_pb2.GetStandingsRequest(tournament_id=tid))).standings
        checked.append({"game ids shown": [match.game_id for match in now.matches if match.game_id],
                        "results shown": [str(list(match.ranks)) for match in now.matches if match.ranks]
                        + [f"{standings.played} played"] * (standings.played > 0),
                        "tournament seed": [now.seed, standings.seed] if now.seed or standings.seed else []})
        one = await games.GetLog(game_service_pb2.GetLogRequest(game_id=first.game_id))
        two = await games.GetLog(game_service_pb2.GetLogRequest(game_id=assignment.game_id))
        assert one.header.seed_commitment == two.header.seed_commitment  # the same deal: one seed would open both

    await asyncio.wait_for(_entrant(channel, tid, "alice", _credentials(created)["alice"], seen, before), 120)
    assert [assignment.match_no for assignment in seen] == [0, 1]
    assert checked and all(not shown for report in checked for shown in report.values()), checked
    # both matches over: every channel shows the seed, which hashes to the shared commitment
    tournament = (await tournaments.GetTournament(tournament_pb2.GetTournamentRequest(tournament_id=tid))).tournament
    assert tournament.finished and tournament.seed == SEED
    assert hashlib.sha256(bytes.fromhex(tournament.seed)).hexdigest() == tournament.seed_commitment
    for match in tournament.matches:
        log = await games.GetLog(game_service_pb2.GetLogRequest(game_id=match.game_id))
        assert log.reveal.seed == deal_seed(tournament.seed, match.deal_no)
        assert hashlib.sha256(bytes.fromhex(log.reveal.seed)).hexdigest() == log.header.seed_commitment
        assert "seed" in _secrets_shown(log.events, None)
    # the verifier's script of docs/tournaments.md says so too
    script = next(block for block in BLOCK.findall((REPO / "docs" / "tournaments.md").read_text())
                  if "GetTournament" in block)
    (tmp_path / "check_deals.py").write_text(script)
    process = await asyncio.create_subprocess_exec(
        sys.executable, str(tmp_path / "check_deals.py"), f"127.0.0.1:{server.port}", tid, created.seed_commitment,
        env={**os.environ, "PYTHONPATH": str(REPO)}, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 0, err.decode()
    assert "2 matches: every deal follows from the committed seed" in out.decode()


# -- register under another entrant's name ----------------------------------------------------


async def test_registering_under_another_entrants_name_is_refused_and_locks_nobody_out(stubs: Any) -> None:
    channel, tournaments, _ = stubs
    created = await tournaments.CreateTournament(tournament_pb2.CreateTournamentRequest(
        game="all_fours", entrants=["alice", "mallory"], players=2, matches=2, seed=SEED, clock=CLOCK))
    tid, credentials = created.tournament_id, _credentials(created)
    assert set(credentials) == {"alice", "mallory"} and credentials["alice"] != credentials["mallory"]
    for forged in ("", "x" * 43, credentials["mallory"], credentials["alice"][:-1]):
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await tournaments.RegisterEntrant(
                tournament_pb2.RegisterEntrantRequest(tournament_id=tid, name="alice", credential=forged))
        assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
        assert error_reason(refused.value) == ("CREDENTIAL_REQUIRED" if not forged else "CREDENTIAL_INVALID")
    with pytest.raises(grpc.aio.AioRpcError) as unknown:  # an entrant token is no credential either
        await tournaments.Assignments(tournament_pb2.AssignmentsRequest(tournament_id=tid),
                                      metadata=_metadata(credentials["alice"])).read()
    assert unknown.value.code() == grpc.StatusCode.PERMISSION_DENIED
    # the real entrants register and play the whole tournament
    played: dict[str, list[tournament_pb2.AssignmentsResponse]] = {"alice": [], "mallory": []}
    await asyncio.wait_for(asyncio.gather(*(
        _entrant(channel, tid, name, credentials[name], played[name]) for name in played)), 120)
    standings = (await tournaments.GetStandings(tournament_pb2.GetStandingsRequest(tournament_id=tid))).standings
    assert standings.finished and standings.played == 2 and len(played["alice"]) == 2
