"""TableService: a match with the service's built-in bots at some seats (the web table's "new game").

:class:`Tables` creates the match as CreateGame does and plays each bot seat in process with
:func:`~cardgames.service.tournament.players.play_seat`, holding that seat's token only, as a
tournament's built-in entrants are played: a bot is shown what its seat may see and nothing
else. The people's tokens go back to the caller. The bots stop when the match is over, or when
the service stops (a restarted service does not resume them). At most ``limit`` tables with bots
are played at once (RESOURCE_EXHAUSTED, TABLES_FULL, past it).
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass
from typing import Any

import grpc

from cardgames.engine.core.echo import echo
from cardgames.engine.core.registry import get_game
from cardgames.service.errors import InvalidRequest, WorkersBusy
from cardgames.service.games import Games
from cardgames.service.grpc_api import request_options
from cardgames.service.grpc_errors import unary
from cardgames.service.grpc_tables import request_time_control
from cardgames.service.tournament.log import BUILTIN_KINDS
from cardgames.service.tournament.players import play_seat, policy_for
from cardgames.v1 import table_pb2, table_pb2_grpc

SERVICE_NAME = table_pb2.DESCRIPTOR.services_by_name["TableService"].full_name
#: Tables with bots played at once, at most.
DEFAULT_LIMIT = 200


class TablesFull(WorkersBusy):
    """Too many tables with bots are being played (RESOURCE_EXHAUSTED, as WORKERS_BUSY)."""

    reason = "TABLES_FULL"


@dataclass(frozen=True)
class Table:
    """A new table: the match's id, each person's token ("" at a bot's seat), each seat's bot ("" for a person)."""

    game_id: str
    seat_tokens: tuple[str, ...]
    sequence: int
    seed_commitment: str
    bots: tuple[str, ...]


class Tables:
    """The tables with bots this service plays."""

    def __init__(self, games: Games, *, limit: int = DEFAULT_LIMIT) -> None:
        self.games = games
        self.limit = limit
        self.running: set[asyncio.Task[None]] = set()

    async def create(
        self,
        game: str,
        options: Mapping[str, Any],
        players: int | None,
        bots: Sequence[str],
        time_control: Mapping[str, Any] | None = None,
    ) -> Table:
        """A new match with a bot at each seat ``bots`` names; ``time_control`` as CreateGame's."""
        for seat, kind in enumerate(bots):
            if kind and kind not in BUILTIN_KINDS:
                raise InvalidRequest(
                    f"seat {seat}: {echo(kind)} is not a built-in bot ({', '.join(BUILTIN_KINDS)})",
                    reason="INVALID_SETUP",
                )
        if any(bots) and len(self.running) >= self.limit:
            raise TablesFull(f"{self.limit} tables with bots are being played: try again later")
        created = await self.games.create(game, options, players, time_control=time_control)
        seats = len(created.seat_tokens)
        if len(bots) > seats:
            raise InvalidRequest(f"{len(bots)} bot kinds for {seats} seats", reason="INVALID_SETUP")
        kinds = tuple(bots) + ("",) * (seats - len(bots))
        if any(kinds):
            config = get_game(game).make_config(dict(options), players)
            task = asyncio.create_task(
                self._play(created.game_id, created.seat_tokens, kinds, config, game), name=f"table-{created.game_id}"
            )
            self.running.add(task)
            task.add_done_callback(self.running.discard)
        return Table(
            created.game_id,
            tuple("" if kind else token for kind, token in zip(kinds, created.seat_tokens, strict=True)),
            created.sequence,
            created.seed_commitment,
            kinds,
        )

    async def _play(self, game_id: str, tokens: Sequence[str], kinds: Sequence[str], config: Any, game: str) -> None:
        seed = secrets.token_hex(32)  # the bots' own randomness (the deals use the match's seed)
        await asyncio.gather(
            *(
                play_seat(
                    self.games, game_id, token, seat, policy_for(game, kind, config), seed, in_thread=kind != "random"
                )
                for seat, (kind, token) in enumerate(zip(kinds, tokens, strict=True))
                if kind
            )
        )

    async def close(self) -> None:
        """Stop every bot (the service is stopping)."""
        tasks = list(self.running)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with suppress(asyncio.CancelledError, Exception):
                await task


class TableServiceApi(table_pb2_grpc.TableServiceServicer):
    def __init__(self, tables: Tables) -> None:
        self.tables = tables

    @unary
    async def CreateTable(
        self, request: table_pb2.CreateTableRequest, context: grpc.aio.ServicerContext
    ) -> table_pb2.CreateTableResponse:
        table = await self.tables.create(
            request.game,
            request_options(request),
            request.players if request.HasField("players") else None,
            request.bots,
            request_time_control(request),
        )
        return table_pb2.CreateTableResponse(
            game_id=table.game_id,
            seat_tokens=table.seat_tokens,
            sequence=table.sequence,
            seed_commitment=table.seed_commitment,
            bots=table.bots,
        )


def add_table_service(games: Games, server: grpc.aio.Server) -> Tables:
    tables = Tables(games)
    table_pb2_grpc.add_TableServiceServicer_to_server(TableServiceApi(tables), server)
    return tables
