"""Remote bots over gRPC: play a seat from BotService.Decisions, or every seat a tournament assigns.

A bot here is one function, ``choose(decision) -> command``: ``decision`` is plain data
(the JSON of the bridge's lines, docs/bot-authors.md) and the command a FORMAT.md dict
(``{"type": "play", "card": "AS"}``) or the index of one of ``decision["legal"]``::

    {"type": "decision", "game": "all_fours", "game_id": "...", "seat": 1, "sequence": 42,
     "view": {...}, "legal": [{...}, ...], "legal_total": 17,
     "clock": {"move_ms": ..., "bank_ms": ...} or null,
     "events": [{"sequence": 41, "event": {...}}, ...], "rejected": null}

``legal`` holds the first 1,000 legal commands when there are more (``legal_total`` says how
many: a crowded Seep floor has millions); an index below ``legal_total`` names any of them (the
bot asks GameService.ListLegalCommands for one past the page).

A refused command is decided again with ``rejected`` set ({"reason", "message"}), up to
:data:`ATTEMPTS` times; after that the decision is left to the match's clock (nothing is
ever played in the bot's place here). ``choose`` may be a coroutine function.

:func:`play_seat` plays one seat until the match ends and returns its outcome;
:func:`play_tournament` registers with the entrant's credential (the one CreateTournament
gave for it) or reuses an entrant token, follows the match assignments and plays each
assigned seat, until the tournament ends. Both reconnect after a lost connection and resume
where they were (the service sends the pending decision again); a bot that crashed starts
again with its credential: it registers again and is assigned its open matches again.

A call the service refuses with RESOURCE_EXHAUSTED and a retry hint (the bot over its rate
limit, or the service past its capacity: nothing was done) is sent again after the hint,
jittered upwards (cardgames.clients.retries), up to :data:`BOT_RETRY`'s bounds: under overload
a bot slows down instead of leaving its seat. A resent command carries the same
``expected_sequence``, so it can never be applied twice. The time spent waiting is the bot's
own: its clock keeps running.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import random
from collections.abc import Awaitable, Callable, Mapping
from functools import partial
from typing import Any, TypeVar

import grpc
from grpc_status import rpc_status

from cardgames import wire
from cardgames.clients.retries import Refusals, Retry
from cardgames.v1 import (
    bots_pb2,
    bots_pb2_grpc,
    game_service_pb2,
    game_service_pb2_grpc,
    tournament_pb2,
    tournament_pb2_grpc,
)

TOKEN_METADATA = "cardgames-token"
#: How often one decision is asked again after a refused command.
ATTEMPTS = 3
#: Codes after which a stream is opened again (the server restarts or the network fails).
RECONNECT = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN)

#: How long a bot keeps sending a call the service refuses with a retry hint: up to 10 minutes of
#: refusals in a row (of one call, or of one stream's opening), each resend after the hint x [1, 1.5).
BOT_RETRY = Retry(timeout=600.0, refusals=10_000)

Choose = Callable[[dict[str, Any]], Any]
T = TypeVar("T")
log = logging.getLogger(__name__)
_JITTER = random.Random()  # the spread of resends only: never a decision


def refusals(retry: Retry | None = None) -> Refusals:
    """A count of refusals in a row (with the pause before each resend) under ``retry`` (default BOT_RETRY)."""
    return Refusals(retry or BOT_RETRY, _JITTER)


async def resend_refused(send: Callable[[], Awaitable[T]], retry: Retry | None = None) -> T:
    """``await send()``, sent again after each refusal with a retry hint (jittered, bounded by ``retry``);
    any other failure, or the last refusal past the bounds, is raised."""
    refused = refusals(retry)
    while True:
        try:
            return await send()
        except grpc.aio.AioRpcError as error:
            pause = refused.wait(error)
            if pause is None:
                raise
        await asyncio.sleep(pause)


def decision_data(message: bots_pb2.DecisionsResponse, game_id: str) -> dict[str, Any]:
    """A Decisions message as plain data (the bridge's line)."""
    view = message.view
    game = view.game_name
    clock = None
    if message.HasField("clock"):
        clock = {
            "move_ms": message.clock.move_ms,
            "bank_ms": message.clock.bank_ms,
            "deadline_unix_ms": message.clock.deadline_unix_ms,
            "on_timeout": message.clock.on_timeout,
        }
    return {
        "type": "decision",
        "game": game,
        "game_id": game_id,
        "seat": view.seat,
        "sequence": message.sequence,
        "view": wire.unwrap(view)[1],
        "legal": [wire.unwrap(command)[1] for command in message.legal_commands],
        "legal_total": message.legal_total,
        "clock": clock,
        "events": [{"sequence": entry.sequence, "event": wire.unwrap(entry.event)[1]} for entry in message.events],
        "rejected": None,
    }


def error_reason(error: grpc.aio.AioRpcError) -> str:
    """The ErrorInfo reason of a refused call (its status code's name when it has none)."""
    status = rpc_status.from_call(error)
    if status is not None:
        from google.rpc import error_details_pb2

        for detail in status.details:
            info = error_details_pb2.ErrorInfo()
            if detail.Unpack(info):
                return str(info.reason)
    return str(error.code().name)


async def _choose(choose: Choose, decision: dict[str, Any]) -> Any:
    answer = choose(decision)
    if inspect.isawaitable(answer):
        answer = await answer
    return answer


async def _command(
    answer: Any,
    decision: Mapping[str, Any],
    service: game_service_pb2_grpc.GameServiceStub,
    metadata: tuple[tuple[str, str], ...],
    retry: Retry | None = None,
) -> Any:
    """The command an answer names: itself, or the legal command at an index (below ``legal_total``:
    one past the listed page is asked of the service)."""
    if not isinstance(answer, int) or isinstance(answer, bool):
        return answer
    legal, total = decision["legal"], max(decision.get("legal_total", 0), len(decision["legal"]))
    if not 0 <= answer < total:
        raise ValueError(f"index {answer} is not one of the {total} legal commands")
    if answer < len(legal):
        return legal[answer]
    request = game_service_pb2.ListLegalCommandsRequest(game_id=decision["game_id"], offset=answer, page_size=1)
    page = await resend_refused(partial(service.ListLegalCommands, request, metadata=metadata), retry)
    if page.sequence != decision["sequence"] or not page.commands:
        raise ValueError(f"the match moved on before legal command {answer} was fetched")
    return wire.unwrap(page.commands[0])[1]


async def play_seat(
    channel: grpc.aio.Channel, game_id: str, seat_token: str, choose: Choose, *, reconnect_delay: float = 0.5,
    retry: Retry | None = None,
) -> list[int]:
    """Play the seat of ``seat_token`` until the match is over; returns the outcome (0 best, per seat).

    ``retry``: the bounds on resending refused calls (default :data:`BOT_RETRY`)."""
    bots = bots_pb2_grpc.BotServiceStub(channel)
    service = game_service_pb2_grpc.GameServiceStub(channel)
    metadata = ((TOKEN_METADATA, seat_token),)
    last: int | None = None
    refused = refusals(retry)
    while True:
        request = bots_pb2.DecisionsRequest(game_id=game_id)
        if last is not None:
            request.after_sequence = last
        try:
            call = bots.Decisions(request, metadata=metadata)
            async for message in call:
                refused.reset()
                last = message.sequence
                if message.view.over:
                    call.cancel()  # done with it: leave no stream open behind the match
                    return list(message.outcome)
                await _decide(service, metadata, decision_data(message, game_id), choose, retry)
            return []  # the stream ended without the match's end (the server stops)
        except grpc.aio.AioRpcError as error:
            pause = refused.wait(error)
            if pause is not None:
                log.info("game %s: decisions refused (%s); again in %.3f s", game_id, error.code().name, pause)
                await asyncio.sleep(pause)
                continue
            if error.code() not in RECONNECT:
                raise
            log.info("game %s: connection lost (%s); reconnecting", game_id, error.code().name)
            await asyncio.sleep(reconnect_delay)


async def _decide(
    service: game_service_pb2_grpc.GameServiceStub,
    metadata: tuple[tuple[str, str], ...],
    decision: dict[str, Any],
    choose: Choose,
    retry: Retry | None = None,
) -> None:
    game = decision["game"]
    for _ in range(ATTEMPTS):
        try:
            command = await _command(await _choose(choose, decision), decision, service, metadata, retry)
            message = wire.wrap_command(game, command)
        except (ValueError, TypeError, wire.WireError) as error:
            decision = {**decision, "rejected": {"reason": "INVALID_COMMAND", "message": str(error)}}
            continue
        request = game_service_pb2.SubmitCommandRequest(
            game_id=decision["game_id"], command=message, expected_sequence=decision["sequence"]
        )
        try:  # a resend is safe: expected_sequence makes a second copy STALE_SEQUENCE, never a second move
            await resend_refused(partial(service.SubmitCommand, request, metadata=metadata), retry)
            return
        except grpc.aio.AioRpcError as error:
            reason = error_reason(error)
            if reason in ("STALE_SEQUENCE", "DEADLINE_PASSED", "GAME_OVER") or error.code() in RECONNECT:
                return  # the match moved on: the next message says where it is
            if error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED:
                log.warning("game %s: the command was refused (%s) past the bot's retry bounds; the clock decides",
                            decision["game_id"], reason)
                return
            decision = {**decision, "rejected": {"reason": reason, "message": error.details() or ""}}
    log.warning("game %s: %d commands refused for one decision; the clock decides", decision["game_id"], ATTEMPTS)


async def register(
    channel: grpc.aio.Channel, tournament_id: str, name: str, credential: str, *, reconnect_delay: float = 0.5,
    retry: Retry | None = None,
) -> str:
    """Register ``name`` with its credential (again after a crash): its new entrant token.

    A refused registration (no such entrant: ``UNKNOWN_ENTRANT``; a wrong credential:
    ``PERMISSION_DENIED``) raises; a server that is away is waited for, one that refuses with a
    retry hint is asked again after it.
    """
    tournaments = tournament_pb2_grpc.TournamentServiceStub(channel)
    request = tournament_pb2.RegisterEntrantRequest(tournament_id=tournament_id, name=name, credential=credential)
    while True:
        try:
            reply = await resend_refused(partial(tournaments.RegisterEntrant, request), retry)
            return str(reply.entrant_token)
        except grpc.aio.AioRpcError as error:
            if error.code() not in RECONNECT:
                raise
            await asyncio.sleep(reconnect_delay)


async def play_tournament(
    channel: grpc.aio.Channel,
    tournament_id: str,
    name: str,
    choose: Choose,
    *,
    credential: str | None = None,
    entrant_token: str | None = None,
    on_token: Callable[[str], None] | None = None,
    reconnect_delay: float = 0.5,
    retry: Retry | None = None,
) -> None:
    """Play every seat the tournament assigns to ``name`` until the end.

    ``credential``: the entrant's credential from CreateTournament, to register with (and to
    register again when ``entrant_token`` is refused); ``entrant_token``: a token from an
    earlier registration, used as long as it is valid; ``retry``: the bounds on resending refused
    calls (default :data:`BOT_RETRY`).
    """
    if credential is None and entrant_token is None:
        raise ValueError("play_tournament needs the entrant's credential (or an entrant token)")
    tournaments = tournament_pb2_grpc.TournamentServiceStub(channel)

    async def fresh_token() -> str:
        assert credential is not None
        token = await register(channel, tournament_id, name, credential, reconnect_delay=reconnect_delay,
                               retry=retry)
        if on_token is not None:
            on_token(token)
        return token

    fresh = entrant_token is None
    if entrant_token is None:
        entrant_token = await fresh_token()
    playing: dict[tuple[int, int], asyncio.Task[list[int]]] = {}
    refused = refusals(retry)
    try:
        while True:
            try:
                stream = tournaments.Assignments(
                    tournament_pb2.AssignmentsRequest(tournament_id=tournament_id),
                    metadata=((TOKEN_METADATA, entrant_token),),
                )
                async for assignment in stream:
                    fresh = False
                    refused.reset()
                    key = (assignment.match_no, assignment.seat)
                    if key in playing and not playing[key].done():
                        continue
                    playing[key] = asyncio.create_task(
                        play_seat(channel, assignment.game_id, assignment.seat_token, choose,
                                  reconnect_delay=reconnect_delay, retry=retry)
                    )
                break
            except grpc.aio.AioRpcError as error:
                # An old token (not one just issued) that the server no longer knows: register again. A
                # superseded one (ENTRANT_SUPERSEDED) means another instance registered since: it plays on.
                if error_reason(error) == "ENTRANT_TOKEN_INVALID" and credential is not None and not fresh:
                    entrant_token, fresh = await fresh_token(), True
                    continue
                pause = refused.wait(error)
                if pause is not None:
                    await asyncio.sleep(pause)
                    continue
                if error.code() not in RECONNECT:
                    raise
                await asyncio.sleep(reconnect_delay)
        await asyncio.gather(*playing.values(), return_exceptions=True)
    finally:
        for task in playing.values():
            task.cancel()


async def with_channel(address: str, run: Callable[[grpc.aio.Channel], Awaitable[Any]]) -> Any:
    """Run ``run(channel)`` on an insecure channel to ``address``."""
    async with grpc.aio.insecure_channel(address) as channel:
        return await run(channel)
