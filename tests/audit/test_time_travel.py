"""GetView at an earlier sequence: for every viewer and every sequence, exactly that viewer's view then.

The expected view is the engine's own: the log's first ``s`` events folded, then
``view(state, viewer)``; the head is the chain hash of entry ``s``. Sequences outside
1..latest are refused. With and without snapshots (the store folds from the nearest one).
"""

from __future__ import annotations

import random
from uuid import UUID

import grpc
import msgspec
import pytest

from cardgames.engine.core.registry import get_game
from cardgames.engine.core.replay import fold
from cardgames.service.games import Games, InvalidRequest
from cardgames.service.server import start
from cardgames.service.store import EventStore
from cardgames.v1 import game_service_pb2 as pb
from cardgames.v1 import game_service_pb2_grpc
from tests.audit.helpers import GAMES, play_to_end


@pytest.mark.parametrize("snapshot_every", [0, 7])
@pytest.mark.parametrize("game", GAMES)
async def test_every_viewer_at_every_earlier_sequence(game: str, snapshot_every: int) -> None:
    games = Games(EventStore.from_url("memory:"), snapshot_every=snapshot_every)
    try:
        created = await games.create(game, {}, None)
        rng = random.Random(11)
        await play_to_end(games, created, rng, limit=25)
        rules = get_game(game)
        key = UUID(created.game_id)
        pairs = games.store.log(key, rules)
        events = [event for event, _ in pairs]
        config = msgspec.convert(games.store.header(key).config, rules.Config)
        latest = len(events)
        viewers = [None, *range(len(created.seat_tokens))]
        state = rules.initial(config)
        for sequence, (event, note) in enumerate(pairs, start=1):
            state = rules.evolve(state, event)
            for viewer in viewers:
                token = None if viewer is None else created.seat_tokens[viewer]
                view = await games.view(created.game_id, token, sequence)
                assert view.sequence == sequence and view.seat == viewer
                assert msgspec.to_builtins(view.view) == msgspec.to_builtins(rules.view(state, viewer))
                assert view.to_act == tuple(rules.to_act(state)) and view.over == rules.is_over(state)
                assert view.head == note.hash != ""
        now = await games.view(created.game_id, None)
        assert now == await games.view(created.game_id, None, latest) and now.head == pairs[-1][1].hash
        for outside in (0, -1, latest + 1, 10**9):
            with pytest.raises(InvalidRequest) as refused:
                await games.view(created.game_id, None, outside)
            assert refused.value.reason == "INVALID_SEQUENCE"
    finally:
        await games.close()


@pytest.mark.parametrize("game", GAMES)
async def test_earlier_views_of_a_finished_match_are_still_the_viewers_own(game: str) -> None:
    """Once over, the log shows everything; a view at an earlier sequence still shows what that viewer saw."""
    games = Games(EventStore.from_url("memory:"))
    try:
        created = await games.create(game, {}, None)
        await play_to_end(games, created, random.Random(2))
        rules = get_game(game)
        events = games.store.events(UUID(created.game_id), rules)
        config = msgspec.convert(games.store.header(UUID(created.game_id)).config, rules.Config)
        for sequence in range(1, len(events), max(1, len(events) // 12)):
            state = fold(rules, rules.initial(config), events[:sequence])
            public = await games.view(created.game_id, None, sequence)
            assert msgspec.to_builtins(public.view) == msgspec.to_builtins(rules.view(state, None))
            seat = await games.view(created.game_id, created.seat_tokens[1], sequence)
            assert msgspec.to_builtins(seat.view) == msgspec.to_builtins(rules.view(state, 1))
    finally:
        await games.close()


async def test_time_travel_over_grpc() -> None:
    running = await start("127.0.0.1:0", EventStore.from_url("memory:"))
    try:
        created = await running.games.create("seep", {}, None)
        await play_to_end(running.games, created, random.Random(4), limit=15)
        log = await running.games.log(created.game_id, None)
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            stub = game_service_pb2_grpc.GameServiceStub(channel)
            for sequence in (1, 5, len(log.entries)):
                for seat in (None, 0, 3):
                    metadata = () if seat is None else (("cardgames-token", created.seat_tokens[seat]),)
                    reply = await stub.GetView(pb.GetViewRequest(game_id=created.game_id, sequence=sequence),
                                               metadata=metadata)
                    assert reply.view.sequence == sequence and reply.view.head == log.entries[sequence - 1].hash
                    assert reply.view.HasField("seat") == (seat is not None)
            for outside in (0, len(log.entries) + 1):
                with pytest.raises(grpc.aio.AioRpcError) as refused:
                    await stub.GetView(pb.GetViewRequest(game_id=created.game_id, sequence=outside))
                assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    finally:
        await running.stop()
