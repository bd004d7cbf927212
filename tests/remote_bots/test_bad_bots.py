"""Bad bots: garbage, illegal commands, floods, silence and disconnects.

The server keeps running, the other matches are unaffected, and the match's log says
exactly what happened (a refused call writes nothing; a timeout is a seat_timed_out event
with its reason and consequence).
"""

from __future__ import annotations

import asyncio
import random
from typing import Any

import grpc

from cardgames import wire
from cardgames.clients.remote_bot import error_reason, play_seat
from cardgames.engine.core.events import SeatTimedOut
from cardgames.service.server import Running
from cardgames.service.tournament.log import ClockOptions
from cardgames.v1 import bots_pb2, bots_pb2_grpc, game_service_pb2, game_service_pb2_grpc

SEED = "e4" * 32


def _random(decision: dict[str, Any]) -> int:
    return random.Random(decision["sequence"] * 31 + decision["seat"]).randrange(len(decision["legal"]))


async def _events(server: Running, game_id: str) -> list[Any]:
    return [entry.event for entry in (await server.games.log(game_id, None)).entries]


async def test_a_flooding_garbage_sending_bot_hurts_nothing_but_its_own_seat(
    server: Running, channel: grpc.aio.Channel
) -> None:
    games, clocks = server.games, server.bots.clocks  # type: ignore[union-attr]
    bad = await games.create("all_fours", {}, 2, seed=SEED)
    good = await games.create("all_fours", {}, 2, seed=SEED)
    await clocks.keep(bad.game_id, bad.seat_tokens, ClockOptions(move_ms=1500, on_timeout="forfeit"))
    await clocks.keep(good.game_id, good.seat_tokens, ClockOptions(move_ms=30_000, on_timeout="forfeit"))
    seat = (await games.view(bad.game_id, None)).to_act[0]
    other = 1 - seat
    start_sequence = (await games.view(bad.game_id, None)).sequence
    stub = game_service_pb2_grpc.GameServiceStub(channel)
    metadata = (("cardgames-token", bad.seat_tokens[seat]),)

    async def misbehave() -> dict[str, int]:
        reasons: dict[str, int] = {}

        def count(reason: str) -> None:
            reasons[reason] = reasons.get(reason, 0) + 1

        raw = channel.unary_unary("/cardgames.v1.GameService/SubmitCommand",
                                  request_serializer=lambda b: b, response_deserializer=lambda b: b)
        for garbage in (b"\xff\xfe\xfd garbage", b"\x0a\xff", bytes(range(256))):
            try:
                await raw(garbage, metadata=metadata)
            except grpc.aio.AioRpcError as error:
                count(error_reason(error))
        illegal = [
            wire.wrap_command("all_fours", {"type": "play", "card": "JK"}),  # not a card of this game
            wire.wrap_command("seep", {"type": "throw", "card": "AS"}),  # another game's command
            game_service_pb2.Command(),  # no command at all
        ]
        for command in illegal:
            try:
                await stub.SubmitCommand(game_service_pb2.SubmitCommandRequest(game_id=bad.game_id, command=command),
                                         metadata=metadata)
            except grpc.aio.AioRpcError as error:
                count(error_reason(error))

        async def one() -> None:  # the flood: the other seat's token, out of turn
            try:
                await stub.SubmitCommand(game_service_pb2.SubmitCommandRequest(
                    game_id=bad.game_id, command=illegal[0]), metadata=(("cardgames-token", bad.seat_tokens[other]),))
            except grpc.aio.AioRpcError as error:
                count(error_reason(error))

        await asyncio.gather(*(one() for _ in range(400)))
        return reasons  # and then it never answers: its clock runs out

    reasons, outcome = await asyncio.wait_for(asyncio.gather(
        misbehave(),
        asyncio.gather(play_seat(channel, good.game_id, good.seat_tokens[0], _random),
                       play_seat(channel, good.game_id, good.seat_tokens[1], _random)),
    ), 120)
    assert reasons.get("INVALID_COMMAND", 0) >= 2 and sum(reasons.values()) == 406
    # (GAME_OVER: on a slow machine the flood can outlast the bad seat's clock, which ends its match)
    allowed = {"MALFORMED_REQUEST", "INVALID_COMMAND", "ILLEGAL_MOVE", "NOT_YOUR_TURN", "RATE_LIMITED", "GAME_OVER"}
    assert set(reasons) <= allowed
    # the good match was played to its end, without a timeout
    assert sorted(outcome[0]) == [0, 1]
    assert not any(isinstance(e, SeatTimedOut) for e in await _events(server, good.game_id))

    async def bad_over() -> bool:
        return (await games.view(bad.game_id, None)).over

    for _ in range(600):
        if await bad_over():
            break
        await asyncio.sleep(0.05)
    events = await _events(server, bad.game_id)
    # nothing the bad bot sent was written: the log goes from the deal straight to its timeout
    assert len(events) == start_sequence + 1
    last = events[-1]
    assert isinstance(last, SeatTimedOut) and (last.seat, last.consequence) == (seat, "forfeit")
    health = await stub.GetView(game_service_pb2.GetViewRequest(game_id=good.game_id))
    assert health.view.over  # the server still answers


async def test_a_disconnected_bot_is_waited_for_then_auto_moved_and_resumes_on_reconnect(
    server: Running, channel: grpc.aio.Channel
) -> None:
    games, clocks = server.games, server.bots.clocks  # type: ignore[union-attr]
    created = await games.create("all_fours", {}, 2, seed=SEED)
    await clocks.keep(created.game_id, created.seat_tokens,
                      ClockOptions(move_ms=60_000, on_timeout="auto_move", reconnect_ms=200))
    seat = (await games.view(created.game_id, None)).to_act[0]
    bots = bots_pb2_grpc.BotServiceStub(channel)
    opponent = asyncio.create_task(play_seat(channel, created.game_id, created.seat_tokens[1 - seat], _random))
    metadata = (("cardgames-token", created.seat_tokens[seat]),)
    call = bots.Decisions(bots_pb2.DecisionsRequest(game_id=created.game_id), metadata=metadata)
    first = await call.read()
    call.cancel()  # the bot's connection drops

    async def timed_out() -> list[SeatTimedOut]:
        return [e for e in await _events(server, created.game_id) if isinstance(e, SeatTimedOut)]

    for _ in range(1500):
        if await timed_out():
            break
        await asyncio.sleep(0.02)
    (event,) = await timed_out()
    assert (event.seat, event.reason, event.consequence) == (seat, "disconnected", "auto_move")
    assert 150 <= event.waited_ms < 5000
    # the bot comes back: it resumes its seat after the last sequence it saw
    again = bots.Decisions(bots_pb2.DecisionsRequest(game_id=created.game_id, after_sequence=first.sequence),
                           metadata=metadata)
    resumed = await asyncio.wait_for(again.read(), 30)
    again.cancel()
    opponent.cancel()
    assert resumed.sequence > first.sequence
    assert any(entry.event.all_fours.WhichOneof("event") == "seat_timed_out" for entry in resumed.events)
