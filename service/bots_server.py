"""The services for bots next to GameService: BotService (decisions and clocks) and TournamentService.

:func:`add_bot_services` puts both on a gRPC server over the same application layer, with
one :class:`~cardgames.service.clocks.ClockKeeper` and one :class:`~cardgames.service.tournament.manager.Tournaments`.
"""

from __future__ import annotations

from dataclasses import dataclass

import grpc

from cardgames.service.bot_service import BotServiceApi
from cardgames.service.clocks import ClockKeeper
from cardgames.service.games import Games
from cardgames.service.tournament.grpc_api import TournamentServiceApi
from cardgames.service.tournament.manager import Tournaments
from cardgames.v1 import bots_pb2, bots_pb2_grpc, tournament_pb2, tournament_pb2_grpc

BOT_SERVICE = bots_pb2.DESCRIPTOR.services_by_name["BotService"].full_name
TOURNAMENT_SERVICE = tournament_pb2.DESCRIPTOR.services_by_name["TournamentService"].full_name
NAMES = (BOT_SERVICE, TOURNAMENT_SERVICE)


@dataclass
class BotServices:
    clocks: ClockKeeper
    tournaments: Tournaments

    async def close(self) -> None:
        await self.tournaments.close()
        await self.clocks.close()


def add_bot_services(games: Games, server: grpc.aio.Server) -> BotServices:
    clocks = ClockKeeper(games)
    tournaments = Tournaments(games, clocks=clocks)
    bots_pb2_grpc.add_BotServiceServicer_to_server(BotServiceApi(games, clocks), server)
    tournament_pb2_grpc.add_TournamentServiceServicer_to_server(TournamentServiceApi(tournaments), server)
    return BotServices(clocks, tournaments)
