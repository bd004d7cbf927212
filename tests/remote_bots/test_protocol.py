"""The bot protocol end to end over gRPC: a remote bot in a tournament, decisions, clocks, reconnects."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import grpc

from cardgames.clients.remote_bot import play_seat, play_tournament
from cardgames.service.server import Running
from cardgames.service.tournament.log import ClockOptions
from cardgames.v1 import bots_pb2, bots_pb2_grpc, tournament_pb2, tournament_pb2_grpc

SEED = "d0" * 32


def random_choice(seed: int = 1) -> Any:
    rng = random.Random(seed)

    def choose(decision: dict[str, Any]) -> int:
        assert decision["legal"] and decision["type"] == "decision"
        return rng.randrange(len(decision["legal"]))

    return choose


async def test_a_remote_bot_plays_a_whole_tournament_against_a_built_in_one(
    server: Running, channel: grpc.aio.Channel
) -> None:
    stub = tournament_pb2_grpc.TournamentServiceStub(channel)
    created = await stub.CreateTournament(tournament_pb2.CreateTournamentRequest(
        game="all_fours", entrants=["remote", "random"], players=2, matches=2, duplicate=True, trusted=True,
        seed=SEED, clock=tournament_pb2.MatchClock(move_ms=5000, bank_ms=10000, on_timeout="forfeit"),
    ))
    assert created.matches == 2
    assert [credential.name for credential in created.credentials] == ["remote"]
    credential = created.credentials[0].credential
    await asyncio.wait_for(play_tournament(channel, created.tournament_id, "remote", random_choice(),
                                           credential=credential), 60)
    table = (await stub.GetStandings(tournament_pb2.GetStandingsRequest(tournament_id=created.tournament_id)))
    standings = table.standings
    assert standings.finished and standings.played == 2
    assert sum(row.wins + row.draws + row.losses for row in standings.rows) == 4
    assert all(row.forfeits == 0 and row.timeouts == 0 for row in standings.rows)
    assert standings.HasField("sprt") and standings.sprt.decision in ("H0", "H1", "continue")


async def test_decisions_carry_view_legal_commands_and_clock_and_end_with_the_outcome(
    server: Running, channel: grpc.aio.Channel
) -> None:
    games, clocks = server.games, server.bots.clocks  # type: ignore[union-attr]
    created = await games.create("all_fours", {}, 2, seed=SEED)
    await clocks.keep(created.game_id, created.seat_tokens, ClockOptions(move_ms=4000, bank_ms=1000))
    bots = bots_pb2_grpc.BotServiceStub(channel)
    seen: list[dict[str, Any]] = []

    def choose(decision: dict[str, Any]) -> int:
        seen.append(decision)
        return 0

    results = await asyncio.wait_for(asyncio.gather(
        play_seat(channel, created.game_id, created.seat_tokens[0], choose),
        play_seat(channel, created.game_id, created.seat_tokens[1], choose),
    ), 60)
    assert results[0] == results[1] and sorted(results[0]) == [0, 1]
    first = seen[0]
    assert first["clock"]["on_timeout"] == "forfeit" and 0 < first["clock"]["move_ms"] <= 4000
    assert first["view"]["viewer"] == first["seat"]
    # a spectator has no decisions: Decisions needs a seat token
    try:
        async for _ in bots.Decisions(bots_pb2.DecisionsRequest(game_id=created.game_id)):
            raise AssertionError("no message without a token")
    except grpc.aio.AioRpcError as error:
        assert error.code() == grpc.StatusCode.UNAUTHENTICATED


async def test_a_bot_that_reconnects_resumes_its_seat(server: Running, channel: grpc.aio.Channel) -> None:
    created = await server.games.create("all_fours", {}, 2, seed=SEED)
    bots = bots_pb2_grpc.BotServiceStub(channel)
    view = await server.games.view(created.game_id, None)
    seat = view.to_act[0]
    metadata = (("cardgames-token", created.seat_tokens[seat]),)
    call = bots.Decisions(bots_pb2.DecisionsRequest(game_id=created.game_id), metadata=metadata)
    first = await call.read()
    call.cancel()  # the bot goes away without answering
    again = bots.Decisions(bots_pb2.DecisionsRequest(game_id=created.game_id), metadata=metadata)
    second = await again.read()
    again.cancel()
    assert second.sequence == first.sequence and len(second.legal_commands) == len(first.legal_commands)
