"""The Python client over gRPC: a clocked game, the seat lifecycle, presence, typed errors."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from cardgames.clients import AuthError, CommandRejected, GameClient, InvalidRequest, Retry, TimeControl
from cardgames.service.server import Running

FAST = Retry(timeout=10.0, initial=0.02, maximum=0.2, call_timeout=5.0)


@pytest.fixture
async def client(server: Running) -> AsyncIterator[GameClient]:
    async with GameClient(f"127.0.0.1:{server.port}", retry=FAST) as connected:
        yield connected


async def test_a_clocked_game_shows_its_clocks_and_the_owner_handles_a_seat(client: GameClient) -> None:
    control = TimeControl(initial_ms=60_000, increment_ms=1_000, move_ms=30_000, on_timeout="forfeit")
    created = await client.create_game("seep", time_control=control)
    assert created.owner_token
    spectator = client.spectator(created.game_id)
    view = await spectator.view()
    assert view.time_control == TimeControl(60_000, 1_000, 30_000, "forfeit", "heuristic")
    seat = view.to_act[0]
    status = view.seats[seat]
    assert status.running and 0 < status.remaining_ms <= 30_000
    assert status.remaining_at(view.server_time_ms, view.server_time_ms + 1_000) == status.remaining_ms - 1_000
    assert not view.seats[(seat + 1) % 4].running and view.seats[(seat + 1) % 4].remaining_ms == 60_000
    # presence: a seat's watch shows in the spectator's stream
    updates = spectator.watch(presence=True)
    await anext(updates)
    player = client.seat(created.game_id, created.tokens[1]).watch()
    await anext(player)
    came = await asyncio.wait_for(anext(updates), 5)
    assert came.presence == ((1, True),) and came.view.seats[1].connected
    await player.aclose()
    await updates.aclose()
    # the owner hands seat 0 to a bot and reissues seat 2's token
    owner = client.owner(created.game_id, created.owner_token)
    await owner.hand_over(0, "random")
    reissued = await owner.reissue_token(2)
    with pytest.raises(AuthError):
        await client.seat(created.game_id, created.tokens[2]).view()
    assert (await client.seat(created.game_id, reissued.token).view()).seat == 2
    with pytest.raises(AuthError):  # a seat's token is not the owner's
        await client.owner(created.game_id, created.tokens[3]).reissue_token(3)
    await client.seat(created.game_id, created.tokens[3]).resign()
    with pytest.raises(CommandRejected) as over:
        await client.seat(created.game_id, created.tokens[1]).resign()
    assert over.value.code == "game_over"


async def test_bad_time_controls_and_an_abort(client: GameClient) -> None:
    with pytest.raises(InvalidRequest) as refused:
        await client.create_game("all_fours", time_control=TimeControl(move_ms=-1))
    assert refused.value.reason == "INVALID_TIME_CONTROL"
    created = await client.create_game("all_fours", players=2)
    await client.seat(created.game_id, created.tokens[1]).abort()
    assert (await client.spectator(created.game_id).view()).over


async def test_the_bot_protocol_carries_the_games_clock(server: Running, client: GameClient) -> None:
    import grpc

    from cardgames.v1 import bots_pb2, bots_pb2_grpc

    created = await client.create_game("all_fours", players=2, time_control=TimeControl(move_ms=20_000))
    seat = (await client.spectator(created.game_id).view()).to_act[0]
    async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
        stream = bots_pb2_grpc.BotServiceStub(channel).Decisions(
            bots_pb2.DecisionsRequest(game_id=created.game_id), metadata=(("cardgames-token", created.tokens[seat]),)
        )
        decision = await anext(stream.__aiter__())
        stream.cancel()
    clock = decision.clock
    assert clock.on_timeout == "bot_plays" and clock.per_move_ms == 20_000 and 0 < clock.move_ms <= 20_000
    assert clock.deadline_unix_ms == decision.view.seats[seat].deadline_ms
