"""The GameService over gRPC: requests to the application layer, results to messages.

Authentication: a seat's token goes in the call metadata under ``cardgames-token``.
Without it the caller is a spectator (GetView, Watch, GetLog show the public view);
SubmitCommand and ListLegalCommands need it.

Errors are rich statuses (service/grpc_errors.py has the reasons and their gRPC codes).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import aclosing
from typing import Any, TypeVar

import grpc
import msgspec
from google.protobuf.message import Message

from cardgames import wire
from cardgames.engine.core.echo import clip, echo
from cardgames.engine.core.protocol import Malformed
from cardgames.service import seat_lifecycle
from cardgames.service.games import (
    EntropyStatus,
    Entry,
    Games,
    InvalidOptions,
    LogResult,
    ServiceError,
    ViewResult,
)
from cardgames.service.grpc_errors import DOMAIN, TOKEN_METADATA, error_status, token_of, unary
from cardgames.service.grpc_tables import bot_name, request_time_control, seat_status, time_control_message
from cardgames.v1 import bots_pb2, game_service_pb2, game_service_pb2_grpc

__all__ = ["DOMAIN", "SERVICE_NAME", "TOKEN_METADATA", "GameServiceApi", "error_status"]

SERVICE_NAME = game_service_pb2.DESCRIPTOR.services_by_name["GameService"].full_name

M = TypeVar("M", bound=Message)


def request_options(request: Any) -> dict[str, Any]:
    """The options of a request with ``game`` and ``options`` fields (CreateGame's, CreateTable's), as a dict."""
    if not request.HasField("options") or request.options.WhichOneof("game") is None:
        return {}
    named = wire.game_of(request.options)
    if named != request.game:
        raise InvalidOptions(f"options for {named!r} given to a {echo(request.game)} game", game=clip(request.game, 64))
    try:
        return wire.options_dict(request.options)
    except wire.WireError as error:
        raise InvalidOptions(f"invalid options: {error}", game=clip(request.game, 64)) from error


def view_message(result: ViewResult) -> game_service_pb2.View:
    message = wire.wrap_view(
        result.game,
        msgspec.to_builtins(result.view),
        game_id=result.game_id,
        sequence=result.sequence,
        seat=result.seat,
        to_act=result.to_act,
        over=result.over,
    )
    message.head = result.head
    message.server_time_ms = result.server_time_ms
    message.seats.extend(seat_status(clock) for clock in result.seats)
    if result.time_control is not None:
        message.time_control.CopyFrom(time_control_message(msgspec.to_builtins(result.time_control)))
    return message


def fill_entry(message: game_service_pb2.LogEntry, game: str, entry: Entry) -> game_service_pb2.LogEntry:
    """Fill an empty LogEntry (a new one, or one just added to a response's repeated field)."""
    message.sequence = entry.sequence
    wire.fill_game(message.event, game, msgspec.to_builtins(entry.event))
    message.redacted = entry.redacted
    message.hash = entry.hash
    if entry.command is not None:
        if entry.seat is not None:
            message.seat = entry.seat
        wire.fill_game(message.command, game, entry.command)
    return message


def add_entries(container: Any, game: str, entries: list[Entry]) -> None:
    """Append the entries to a response's ``repeated LogEntry`` field, built in place (no copies)."""
    for entry in entries:
        fill_entry(container.add(), game, entry)


def with_commands(message: M, field: str, game: str, commands: Sequence[Any], encoded: bytes) -> M | bytes:
    """The message with its ``repeated Command`` field holding ``commands``, then ``encoded`` (entries
    of that field a worker serialized: :func:`field_number` tells it which). With encoded commands the
    answer is bytes, the message's followed by theirs (a parser appends a repeated field's entries
    wherever they stand), which :class:`PreEncoded` lets gRPC send as they are: parsing 1,000
    encoded builds into the message and serializing it again took the event loop 1.5-2 ms."""
    getattr(message, field).extend(wire.wrap_command(game, msgspec.to_builtins(command)) for command in commands)
    return message.SerializeToString() + encoded if encoded else message


def field_number(message_type: type[Message], field: str) -> int:
    return int(message_type.DESCRIPTOR.fields_by_name[field].number)


#: The methods whose answers may be bytes already (:func:`with_commands`).
PRE_ENCODED = frozenset({
    f"/{SERVICE_NAME}/ListLegalCommands",
    "/" + bots_pb2.DESCRIPTOR.services_by_name["BotService"].full_name + "/Decisions",
})


class PreEncoded(grpc.aio.ServerInterceptor):
    """Lets the methods of :data:`PRE_ENCODED` answer with bytes, sent as they are (their serializer
    passes bytes through). The innermost interceptor: the others keep a handler's serializer."""

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        handler = await continuation(handler_call_details)
        if handler is None or handler_call_details.method not in PRE_ENCODED:
            return handler
        serialize = handler.response_serializer

        def passing_bytes(response: Any) -> bytes:
            return response if isinstance(response, bytes) else serialize(response)

        return handler._replace(response_serializer=passing_bytes)


def entry_messages(game: str, entries: list[Entry]) -> list[game_service_pb2.LogEntry]:
    return [fill_entry(game_service_pb2.LogEntry(), game, entry) for entry in entries]


def log_header_message(header: Mapping[str, Any]) -> game_service_pb2.LogHeader:
    """The audit log's header as a message (docs/log-format.md); ``config`` as the game's Options."""
    commitments = header.get("seat_commitments")
    game = header["game"]
    return game_service_pb2.LogHeader(
        format=header["format"],
        version=header["version"],
        game=game,
        rules_version=header["rules_version"],
        game_id=header["game_id"],
        players=header["players"],
        config=wire.wrap(wire.Options, game, header["config"], ignore_unknown=True),
        dealer=header["dealer"],
        stacked=header["stacked"],
        seed_commitment=header["seed_commitment"],
        seed_given=header["seed_given"],
        seat_entropy=commitments is not None,
        seat_commitments=commitments or [],
        genesis=header.get("genesis", ""),
        time_control=time_control_message(header["time_control"]) if "time_control" in header else None,
    )


def log_response(result: LogResult) -> game_service_pb2.GetLogResponse:
    response = game_service_pb2.GetLogResponse(
        sequence=result.sequence, header=log_header_message(result.header), head=result.head
    )
    add_entries(response.events, result.game, result.entries)
    if result.reveal is not None:
        response.reveal.seed = result.reveal["seed"]
        response.reveal.seat_entropy.extend(result.reveal["seat_entropy"] or [])
    return response


def entropy_message(status: EntropyStatus) -> game_service_pb2.EntropyStatus:
    return game_service_pb2.EntropyStatus(
        seats=status.seats, committed=status.committed, revealed=status.revealed, started=status.started,
        sequence=status.sequence, head=status.head,
    )


def command_data(command: game_service_pb2.Command) -> tuple[str | None, Mapping[str, Any] | Malformed]:
    """The game a command names and its FORMAT.md data, or Malformed when it says nothing."""
    game = wire.game_of(command)
    if game is None:
        return None, Malformed("the request has no command")
    try:
        _, data = wire.unwrap(command)
    except wire.WireError as error:
        return game, Malformed(f"malformed command: {error}")
    if not isinstance(data, Mapping):
        return game, Malformed("the command names no type")
    return game, data


_COMMANDS = field_number(game_service_pb2.ListLegalCommandsResponse, "commands")


class GameServiceApi(game_service_pb2_grpc.GameServiceServicer):
    """The GameService RPCs on an application layer."""

    def __init__(self, games: Games) -> None:
        self.games = games

    @unary
    async def CreateGame(
        self, request: game_service_pb2.CreateGameRequest, context: grpc.aio.ServicerContext
    ) -> game_service_pb2.CreateGameResponse:
        created = await self.games.create(
            request.game,
            request_options(request),
            request.players if request.HasField("players") else None,
            seed=request.seed if request.HasField("seed") else None,
            decks=[list(deck.cards) for deck in request.decks],
            dealer=request.dealer if request.HasField("dealer") else None,
            seat_entropy=request.seat_entropy,
            time_control=request_time_control(request),
        )
        return game_service_pb2.CreateGameResponse(
            game_id=created.game_id, seat_tokens=created.seat_tokens, sequence=created.sequence,
            seed_commitment=created.seed_commitment, head=created.head, owner_token=created.owner_token,
        )

    @unary
    async def GetView(
        self, request: game_service_pb2.GetViewRequest, context: grpc.aio.ServicerContext
    ) -> game_service_pb2.GetViewResponse:
        sequence = request.sequence if request.HasField("sequence") else None
        result = await self.games.view(request.game_id, token_of(context), sequence)
        return game_service_pb2.GetViewResponse(view=view_message(result))

    @unary
    async def ListLegalCommands(  # type: ignore[override]  # (bytes: PreEncoded)
        self, request: game_service_pb2.ListLegalCommandsRequest, context: grpc.aio.ServicerContext
    ) -> game_service_pb2.ListLegalCommandsResponse | bytes:
        result = await self.games.legal_commands(request.game_id, token_of(context), request.offset, request.page_size,
                                                 wire=_COMMANDS)
        response = game_service_pb2.ListLegalCommandsResponse(
            sequence=result.sequence, seat=result.seat, total=result.total, offset=result.offset
        )
        return with_commands(response, "commands", result.game, result.commands, result.encoded)

    @unary
    async def SubmitCommand(
        self, request: game_service_pb2.SubmitCommandRequest, context: grpc.aio.ServicerContext
    ) -> game_service_pb2.SubmitCommandResponse:
        game, command = command_data(request.command)
        expected = request.expected_sequence if request.HasField("expected_sequence") else None
        accepted = await self.games.submit(request.game_id, token_of(context), command, expected, for_game=game)
        response = game_service_pb2.SubmitCommandResponse(sequence=accepted.sequence, head=accepted.head)
        add_entries(response.events, accepted.game, accepted.entries)
        return response

    async def Watch(
        self, request: game_service_pb2.WatchRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[game_service_pb2.WatchResponse]:
        after = request.after_sequence if request.HasField("after_sequence") else None
        try:
            items = await self.games.watch(request.game_id, token_of(context), after, presence=request.presence)
        except ServiceError as error:
            await context.abort_with_status(error_status(error))
            return
        async with aclosing(items):
            async for item in items:
                response = game_service_pb2.WatchResponse(sequence=item.sequence, view=view_message(item.view))
                add_entries(response.events, item.view.game, item.entries)
                response.presence.extend(
                    game_service_pb2.PresenceChange(seat=seat, connected=connected) for seat, connected in item.presence
                )
                yield response

    @unary
    async def GetLog(
        self, request: game_service_pb2.GetLogRequest, context: grpc.aio.ServicerContext
    ) -> game_service_pb2.GetLogResponse:
        result = await self.games.log(request.game_id, token_of(context), request.after_sequence, request.limit)
        return log_response(result)

    @unary
    async def CommitEntropy(
        self, request: game_service_pb2.CommitEntropyRequest, context: grpc.aio.ServicerContext
    ) -> game_service_pb2.CommitEntropyResponse:
        status = await self.games.commit_entropy(request.game_id, token_of(context), request.commitment)
        return game_service_pb2.CommitEntropyResponse(status=entropy_message(status))

    @unary
    async def RevealEntropy(
        self, request: game_service_pb2.RevealEntropyRequest, context: grpc.aio.ServicerContext
    ) -> game_service_pb2.RevealEntropyResponse:
        status = await self.games.reveal_entropy(request.game_id, token_of(context), request.entropy)
        return game_service_pb2.RevealEntropyResponse(status=entropy_message(status))

    @unary
    async def Resign(
        self, request: game_service_pb2.ResignRequest, context: grpc.aio.ServicerContext
    ) -> game_service_pb2.ResignResponse:
        written = await seat_lifecycle.resign(self.games, request.game_id, token_of(context))
        return game_service_pb2.ResignResponse(sequence=written.sequence, head=written.head)

    @unary
    async def Abort(
        self, request: game_service_pb2.AbortRequest, context: grpc.aio.ServicerContext
    ) -> game_service_pb2.AbortResponse:
        written = await seat_lifecycle.abort(self.games, request.game_id, token_of(context))
        return game_service_pb2.AbortResponse(sequence=written.sequence, head=written.head)

    @unary
    async def HandOver(
        self, request: game_service_pb2.HandOverRequest, context: grpc.aio.ServicerContext
    ) -> game_service_pb2.HandOverResponse:
        seat = request.seat if request.HasField("seat") else None
        written = await seat_lifecycle.hand_over(self.games, request.game_id, token_of(context), seat,
                                                 bot_name(request.bot))
        return game_service_pb2.HandOverResponse(sequence=written.sequence, head=written.head)

    @unary
    async def ReissueToken(
        self, request: game_service_pb2.ReissueTokenRequest, context: grpc.aio.ServicerContext
    ) -> game_service_pb2.ReissueTokenResponse:
        seat = request.seat if request.HasField("seat") else None
        written = await seat_lifecycle.reissue_token(self.games, request.game_id, token_of(context), seat)
        return game_service_pb2.ReissueTokenResponse(seat_token=written.token, sequence=written.sequence,
                                                     head=written.head)
