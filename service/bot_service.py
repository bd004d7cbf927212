"""The bot protocol: BotService.Decisions, one message per decision of the caller's seat.

A bot holds a seat token. ``Decisions`` follows the match for that seat and sends a
message whenever the seat is to act: the seat's view, its legal commands (the first page
of them, and how many there are: GameService.ListLegalCommands gives the others by index)
and its clock (service/clocks.py), with every event since the previous message as the seat may see
them; the bot answers with GameService.SubmitCommand and the message's sequence as
``expected_sequence``. A refused command changes nothing: the bot sends another one for
the same decision. The last message comes once the match is over, with the outcome. A
decision whose listing cannot be made in time (a crowded floor's count past the engine workers'
deadline) ends the stream with that error (DEADLINE_EXCEEDED, WORK_DEADLINE). While
the stream is open the seat counts as connected (the clock's ``reconnect_ms``); a bot that
reconnects calls Decisions again (``after_sequence``: the events it missed) and is sent its
pending decision.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import aclosing
from dataclasses import dataclass
from typing import Any

import grpc
import msgspec
from cardgames.v1 import bots_pb2, bots_pb2_grpc

from cardgames.service.clocks import ClockInfo, ClockKeeper
from cardgames.service.games import Entry, Games, MissingToken, ServiceError, ViewResult
from cardgames.service.grpc_api import entry_messages, field_number, view_message, with_commands
from cardgames.service.grpc_errors import error_status, token_of

log = logging.getLogger(__name__)
_LEGAL_COMMANDS = field_number(bots_pb2.DecisionsResponse, "legal_commands")


@dataclass(frozen=True)
class Decision:
    """One message of the stream: a decision (``legal`` not empty) or the end (``outcome`` set)."""

    sequence: int
    entries: list[Entry]
    view: ViewResult
    legal: list[Any]  #: the first page of the legal commands
    clock: ClockInfo | None
    outcome: list[int]
    legal_total: int = 0  #: how many legal commands there are in all
    legal_encoded: bytes = b""  #: the page's commands a worker serialized, after ``legal``


async def final_ranks(games: Games, game_id: str) -> tuple[list[int], int, Any]:
    """The outcome of an ended match per seat (0 best), its last sequence, and its folded state."""
    live = await games.game(game_id)
    return list(live.rules.outcome(live.state)), live.sequence, live.state


async def decisions(
    games: Games, clocks: ClockKeeper | None, game_id: str, token: str | None, after: int | None = None
) -> AsyncIterator[Decision]:
    """The stream of a seat's decisions (see the module's docstring). Refuses a call without a seat token."""
    if not token:
        raise MissingToken("Decisions acts for a seat: send its token in the cardgames-token metadata")
    items = await games.watch(game_id, token, after)  # refuses a wrong token now
    return _decisions(games, clocks, game_id, token, items)


async def _decisions(
    games: Games, clocks: ClockKeeper | None, game_id: str, token: str, items: Any
) -> AsyncIterator[Decision]:
    seat: int | None = None
    pending: list[Entry] = []
    try:
        async with aclosing(items):
            async for item in items:
                view = item.view
                if seat is None:
                    seat = view.seat
                    if seat is not None and clocks is not None:
                        clocks.connected(game_id, seat)
                pending.extend(item.entries)
                if view.over:
                    outcome, _, _ = await final_ranks(games, game_id)
                    yield Decision(item.sequence, pending, view, [], None, outcome)
                    return
                if seat is None or seat not in view.to_act:
                    continue
                legal = await games.legal_commands(game_id, token, wire=_LEGAL_COMMANDS)
                if legal.sequence != item.sequence:
                    continue  # the match moved on meanwhile: the next item holds the decision
                clock = clocks.clock_for(game_id, seat) if clocks is not None else None
                yield Decision(item.sequence, pending, view, legal.commands, clock, [], legal.total, legal.encoded)
                pending = []
    finally:
        if seat is not None and clocks is not None:
            clocks.disconnected(game_id, seat)


def clock_message(clock: ClockInfo) -> bots_pb2.Clock:
    return bots_pb2.Clock(**msgspec.structs.asdict(clock))


def decision_message(decision: Decision) -> bots_pb2.DecisionsResponse | bytes:
    game = decision.view.game
    message = bots_pb2.DecisionsResponse(
        sequence=decision.sequence,
        events=entry_messages(game, decision.entries),
        view=view_message(decision.view),
        legal_total=decision.legal_total,
        clock=clock_message(decision.clock) if decision.clock is not None else None,
        outcome=decision.outcome,
    )
    return with_commands(message, "legal_commands", game, decision.legal, decision.legal_encoded)


class BotServiceApi(bots_pb2_grpc.BotServiceServicer):
    """BotService over gRPC."""

    def __init__(self, games: Games, clocks: ClockKeeper | None) -> None:
        self.games = games
        self.clocks = clocks

    async def Decisions(  # type: ignore[override]  # (bytes: cardgames.service.grpc_api.PreEncoded)
        self, request: bots_pb2.DecisionsRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[bots_pb2.DecisionsResponse | bytes]:
        after = request.after_sequence if request.HasField("after_sequence") else None
        try:
            stream = await decisions(self.games, self.clocks, request.game_id, token_of(context), after)
        except ServiceError as error:
            await context.abort_with_status(error_status(error))
            return
        try:
            async with aclosing(stream):  # type: ignore[type-var]
                async for decision in stream:
                    yield decision_message(decision)
        except ServiceError as error:  # e.g. a crowded position's listing past the workers' deadline
            await context.abort_with_status(error_status(error))
