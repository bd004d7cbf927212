"""TournamentService over gRPC: requests to :class:`~cardgames.service.tournament.manager.Tournaments`, results
to messages."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import aclosing
from typing import Any

import grpc
from cardgames import wire
from cardgames.v1 import tournament_pb2, tournament_pb2_grpc

from cardgames.service.games import InvalidOptions, ServiceError
from cardgames.service.grpc_errors import error_status, token_of, unary
from cardgames.service.tournament.log import ClockOptions
from cardgames.service.tournament.manager import TournamentInfo, Tournaments
from cardgames.service.tournament.standings import Standings


def standings_message(table: Standings) -> tournament_pb2.Standings:
    message = tournament_pb2.Standings(
        tournament_id=table.tournament_id,
        game=table.game,
        played=table.played,
        total=table.total,
        finished=table.finished,
        rows=[
            tournament_pb2.StandingsRow(
                rank=row.rank, name=row.name, bot=row.bot or "", matches=row.matches, wins=row.wins,
                draws=row.draws, losses=row.losses, points=row.points, score=row.score, mu=row.mu,
                sigma=row.sigma, ordinal=row.ordinal, forfeits=row.forfeits, timeouts=row.timeouts,
            )
            for row in table.rows
        ],
        crosstable=[
            tournament_pb2.CrosstableEntry(entrant=a, opponent=b, wins=r[0], draws=r[1], losses=r[2])
            for a, against in table.crosstable.items()
            for b, r in against.items()
        ],
    )
    message.seed_commitment = table.seed_commitment
    message.seed = table.seed
    if table.sprt is not None:
        test = table.sprt
        message.sprt.CopyFrom(tournament_pb2.SprtResult(
            wins=test.wins, draws=test.draws, losses=test.losses, elo0=test.elo0, elo1=test.elo1,
            alpha=test.alpha, beta=test.beta, model=test.model, llr=test.llr, lower=test.lower,
            upper=test.upper, decision=test.decision,
        ))
    return message


def tournament_message(info: TournamentInfo) -> tournament_pb2.Tournament:
    return tournament_pb2.Tournament(
        tournament_id=info.tournament_id, game=info.game, players=info.players,
        entrants=[tournament_pb2.TournamentEntrant(name=name, bot=bot) for name, bot in info.entrants],
        duplicate=info.duplicate, scheme=info.scheme, trusted=info.trusted, parallel=info.parallel,
        seed_commitment=info.seed_commitment, finished=info.finished, seed=info.seed,
        matches=[
            tournament_pb2.TournamentMatch(
                match_no=match.match_no, deal_no=match.deal_no, table_no=match.table_no, rotation=match.rotation,
                seats=list(match.seats), status=match.status, game_id=match.game_id, ranks=list(match.ranks),
            )
            for match in info.matches
        ],
    )


class TournamentServiceApi(tournament_pb2_grpc.TournamentServiceServicer):
    def __init__(self, tournaments: Tournaments) -> None:
        self.tournaments = tournaments

    @unary
    async def CreateTournament(
        self, request: tournament_pb2.CreateTournamentRequest, context: grpc.aio.ServicerContext
    ) -> tournament_pb2.CreateTournamentResponse:
        options: dict[str, Any] = {}
        if request.HasField("options") and request.options.WhichOneof("game") is not None:
            if request.options.WhichOneof("game") != request.game:
                raise InvalidOptions(f"options for another game given to a {request.game!r} tournament")
            try:
                options = wire.options_dict(request.options)
            except wire.WireError as error:
                raise InvalidOptions(f"invalid options: {error}") from error
        clock = None
        if request.HasField("clock"):
            given = request.clock
            clock = ClockOptions(
                move_ms=given.move_ms, bank_ms=given.bank_ms, on_timeout=given.on_timeout or "forfeit",
                reconnect_ms=given.reconnect_ms if given.HasField("reconnect_ms") else None,
            )
        created = await self.tournaments.create(
            request.game,
            list(request.entrants),
            players=request.players if request.HasField("players") else None,
            options=options,
            matches=request.matches if request.HasField("matches") else None,
            duplicate=request.duplicate,
            seed=request.seed if request.HasField("seed") else None,
            clock=clock,
            parallel=request.parallel or 1,
            trusted=request.trusted,
        )
        return tournament_pb2.CreateTournamentResponse(
            tournament_id=created.tournament_id, matches=created.matches, seed_commitment=created.seed_commitment,
            credentials=[tournament_pb2.EntrantCredential(name=name, credential=credential)
                         for name, credential in created.credentials.items()],
        )

    @unary
    async def RegisterEntrant(
        self, request: tournament_pb2.RegisterEntrantRequest, context: grpc.aio.ServicerContext
    ) -> tournament_pb2.RegisterEntrantResponse:
        token = await self.tournaments.register(request.tournament_id, request.name, request.credential)
        return tournament_pb2.RegisterEntrantResponse(entrant_token=token)

    async def Assignments(
        self, request: tournament_pb2.AssignmentsRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[tournament_pb2.AssignmentsResponse]:
        try:
            stream = await self.tournaments.assignments(request.tournament_id, token_of(context))
        except ServiceError as error:
            await context.abort_with_status(error_status(error))
            return
        async with aclosing(stream):  # type: ignore[type-var]
            try:
                async for assignment in stream:
                    yield tournament_pb2.AssignmentsResponse(
                        tournament_id=assignment.tournament_id, match_no=assignment.match_no,
                        game_id=assignment.game_id, game=assignment.game, seat=assignment.seat,
                        seat_token=assignment.seat_token, seats=list(assignment.seats),
                    )
            except ServiceError as error:  # the entrant registered again: this stream is no longer its
                await context.abort_with_status(error_status(error))

    @unary
    async def GetStandings(
        self, request: tournament_pb2.GetStandingsRequest, context: grpc.aio.ServicerContext
    ) -> tournament_pb2.GetStandingsResponse:
        table = await self.tournaments.standings(request.tournament_id)
        return tournament_pb2.GetStandingsResponse(standings=standings_message(table))

    @unary
    async def GetTournament(
        self, request: tournament_pb2.GetTournamentRequest, context: grpc.aio.ServicerContext
    ) -> tournament_pb2.GetTournamentResponse:
        info = await self.tournaments.describe(request.tournament_id)
        return tournament_pb2.GetTournamentResponse(tournament=tournament_message(info))

    async def WatchStandings(
        self, request: tournament_pb2.WatchStandingsRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[tournament_pb2.WatchStandingsResponse]:
        try:
            await self.tournaments.state(request.tournament_id)
        except ServiceError as error:
            await context.abort_with_status(error_status(error))
            return
        stream = self.tournaments.watch(request.tournament_id)
        async with aclosing(stream):  # type: ignore[type-var]
            async for table in stream:
                yield tournament_pb2.WatchStandingsResponse(standings=standings_message(table))
