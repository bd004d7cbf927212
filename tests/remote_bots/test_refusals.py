"""Remote bots and a tournament under refusals: every call a bot makes (RegisterEntrant, Assignments,
Decisions, SubmitCommand, ListLegalCommands) is refused with RESOURCE_EXHAUSTED and a retry hint before
it goes through; the bots slow down, never resend before the hint, and every match ends normally.

The refusals come from a real gRPC server in front of the service (tests/clients/refusing.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from functools import partial

import grpc
import pytest

from cardgames import wire
from cardgames.clients.remote_bot import play_seat, play_tournament, resend_refused
from cardgames.clients.retries import Retry
from cardgames.service.guards import Limits
from cardgames.service.server import Running, start
from cardgames.service.store import EventStore
from cardgames.v1 import game_service_pb2, game_service_pb2_grpc, tournament_pb2, tournament_pb2_grpc
from tests.clients.refusing import RefusingProxy, refuse_first
from tests.remote_bots.test_bridge import PERL_BOT, run_bridge
from tests.remote_bots.test_protocol import SEED, random_choice


@pytest.fixture
async def proxy(server: Running) -> AsyncIterator[RefusingProxy]:
    """Every call refused twice (10 ms hint), then forwarded."""
    started = await RefusingProxy(f"127.0.0.1:{server.port}", refuse_first(2, 10)).start()
    yield started
    await started.stop()


async def test_a_tournament_of_remote_bots_finishes_under_refusals(
    proxy: RefusingProxy, channel: grpc.aio.Channel
) -> None:
    stub = tournament_pb2_grpc.TournamentServiceStub(channel)
    created = await stub.CreateTournament(tournament_pb2.CreateTournamentRequest(
        game="all_fours", entrants=["alice", "bob", "random"], players=2, matches=1, trusted=True, seed=SEED,
        clock=tournament_pb2.MatchClock(move_ms=5000, bank_ms=20000, on_timeout="forfeit"),
    ))
    credentials = {entry.name: entry.credential for entry in created.credentials}
    async with grpc.aio.insecure_channel(proxy.address) as refused:
        await asyncio.wait_for(asyncio.gather(*(
            play_tournament(refused, created.tournament_id, name, random_choice(i), credential=credentials[name])
            for i, name in enumerate(("alice", "bob"))
        )), 120)
    standings = (await stub.GetStandings(tournament_pb2.GetStandingsRequest(
        tournament_id=created.tournament_id))).standings
    assert standings.finished and standings.played == created.matches == 3  # one match a pairing
    assert all(row.forfeits == 0 and row.timeouts == 0 for row in standings.rows)
    methods = {arrival.method.rsplit("/", 1)[-1] for arrival in proxy.refused()}
    assert {"RegisterEntrant", "Assignments", "Decisions", "SubmitCommand"} <= methods
    assert proxy.early() == []


async def test_remote_bots_play_a_match_under_refusals(proxy: RefusingProxy, channel: grpc.aio.Channel) -> None:
    games = game_service_pb2_grpc.GameServiceStub(channel)
    created = await games.CreateGame(game_service_pb2.CreateGameRequest(game="all_fours", players=2, seed=SEED))
    async with grpc.aio.insecure_channel(proxy.address) as refused:
        outcomes = await asyncio.wait_for(asyncio.gather(*(
            play_seat(refused, created.game_id, token, random_choice(seat))
            for seat, token in enumerate(created.seat_tokens)
        )), 120)
    assert outcomes[0] == outcomes[1] and sorted(outcomes[0]) in ([0, 1], [0, 0])
    submits = [arrival for arrival in proxy.arrivals if arrival.method.endswith("SubmitCommand")]
    assert any(arrival.refused for arrival in submits) and proxy.early() == []
    # Each command went through once: its third arrival (after two refusals), and no other copy.
    assert sorted(arrival.nth for arrival in submits if not arrival.refused) == [2] * (len(submits) // 3)


async def test_a_bot_gives_up_after_its_bounds(server: Running, channel: grpc.aio.Channel) -> None:
    """A bot's patience is bounded too: past ``retry.refusals`` in a row the refusal is raised."""
    games = game_service_pb2_grpc.GameServiceStub(channel)
    created = await games.CreateGame(game_service_pb2.CreateGameRequest(game="all_fours", players=2, seed=SEED))
    wall = await RefusingProxy(f"127.0.0.1:{server.port}", refuse_first(1_000, 5, methods=("Decisions",))).start()
    try:
        async with grpc.aio.insecure_channel(wall.address) as refused:
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await play_seat(refused, created.game_id, created.seat_tokens[0], random_choice(),
                                retry=Retry(refusals=3))
    finally:
        await wall.stop()
    assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert len(wall.refused()) == 4 and wall.early() == []


async def test_remote_bots_finish_under_the_services_own_rate_limit() -> None:
    """No proxy: the service's rate limiter (service/guards.py) refuses the bots' commands (RATE_LIMITED with
    RetryInfo and the pushback trailer); the bots wait and resend, and the match ends with no timeout."""
    running = await start("127.0.0.1:0", EventStore.from_url("memory:"), limits=Limits(rate=15, burst=2))
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            games = game_service_pb2_grpc.GameServiceStub(channel)
            created = await games.CreateGame(game_service_pb2.CreateGameRequest(
                game="all_fours", players=2, seed=SEED,
                time_control=game_service_pb2.TimeControl(move_ms=10_000,
                                                          on_timeout=game_service_pb2.ON_TIMEOUT_FORFEIT)))
            outcomes = await asyncio.wait_for(asyncio.gather(*(
                play_seat(channel, created.game_id, token, random_choice(seat))
                for seat, token in enumerate(created.seat_tokens)
            )), 120)
            request = game_service_pb2.GetLogRequest(game_id=created.game_id)
            log = await resend_refused(partial(games.GetLog, request,
                                               metadata=(("cardgames-token", created.seat_tokens[0]),)))
        assert outcomes[0] == outcomes[1] and sorted(outcomes[0]) in ([0, 1], [0, 0])
        kinds = {wire.unwrap(entry.event)[1]["type"] for entry in log.events}
        assert "seat_timed_out" not in kinds and "card_played" in kinds, kinds
        assert running.rate_limit is not None and running.rate_limit.callers.buckets  # the limits were in force
    finally:
        await running.stop(grace=None)


async def test_a_perl_bot_plays_through_the_bridge_under_refusals(proxy: RefusingProxy, server: Running) -> None:
    """``cardgames bridge`` (a process of its own) plays its program's seat through the refusing server."""
    created = await server.games.create("all_fours", {}, 2, seed=SEED)
    async with grpc.aio.insecure_channel(proxy.address) as refused:
        bridged, python = await asyncio.wait_for(asyncio.gather(
            run_bridge("--server", proxy.address, "--game-id", created.game_id, "--token", created.seat_tokens[0],
                   "--", "perl", str(PERL_BOT)),
            play_seat(refused, created.game_id, created.seat_tokens[1], random_choice()),
        ), 120)
    code, output = bridged
    assert code == 0, output
    assert "match over" in output and sorted(python) == [0, 1]
    bridge_token = created.seat_tokens[0]
    assert any(arrival.key[1] == bridge_token for arrival in proxy.refused())  # the bridge's calls were refused too
    assert proxy.early() == []
