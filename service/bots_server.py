"""The services for bots next to GameService: BotService (decisions and clocks), TournamentService and
TableService (matches with built-in bots at some seats, service/tables.py).

:func:`add_bot_services` puts them on a gRPC server over the same application layer, with
one :class:`~cardgames.service.clocks.ClockKeeper`, one :class:`~cardgames.service.tournament.manager.Tournaments`
and one :class:`~cardgames.service.tables.Tables`.
"""

from __future__ import annotations

from dataclasses import dataclass

import grpc

from cardgames.service.bot_service import BotServiceApi
from cardgames.service.clocks import ClockKeeper
from cardgames.service.games import Games
from cardgames.service.tables import SERVICE_NAME as TABLE_SERVICE
from cardgames.service.tables import Tables, add_table_service
from cardgames.service.tournament.grpc_api import TournamentServiceApi
from cardgames.service.tournament.manager import Tournaments
from cardgames.v1 import bots_pb2, bots_pb2_grpc, tournament_pb2, tournament_pb2_grpc

BOT_SERVICE = bots_pb2.DESCRIPTOR.services_by_name["BotService"].full_name
TOURNAMENT_SERVICE = tournament_pb2.DESCRIPTOR.services_by_name["TournamentService"].full_name
NAMES = (BOT_SERVICE, TOURNAMENT_SERVICE, TABLE_SERVICE)


@dataclass
class BotServices:
    clocks: ClockKeeper
    tournaments: Tournaments
    tables: Tables

    async def close(self) -> None:
        await self.tables.close()
        await self.tournaments.close()
        await self.clocks.close()


def add_bot_services(games: Games, server: grpc.aio.Server) -> BotServices:
    clocks = ClockKeeper(games)
    tournaments = Tournaments(games, clocks=clocks)
    bots_pb2_grpc.add_BotServiceServicer_to_server(BotServiceApi(games, clocks), server)
    tournament_pb2_grpc.add_TournamentServiceServicer_to_server(TournamentServiceApi(tournaments), server)
    tables = add_table_service(games, server)
    return BotServices(clocks, tournaments, tables)
