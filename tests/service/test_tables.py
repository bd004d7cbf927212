"""TableService: a match with built-in bots at some seats; the caller gets the people's tokens only."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any, cast

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from cardgames.service.server import Running
from cardgames.v1 import game_service_pb2, game_service_pb2_grpc, seep_pb2, table_pb2, table_pb2_grpc


@pytest.fixture
async def stubs(server: Running) -> AsyncIterator[tuple[Any, Any]]:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
        yield table_pb2_grpc.TableServiceStub(channel), game_service_pb2_grpc.GameServiceStub(channel)


def _reason(error: grpc.aio.AioRpcError) -> str:
    status = rpc_status.from_call(error)
    assert status is not None
    info = error_details_pb2.ErrorInfo()
    status.details[0].Unpack(info)
    return info.reason


async def test_bots_play_every_seat_but_the_persons(stubs: tuple[Any, Any]) -> None:
    tables, games = stubs
    made = await tables.CreateTable(table_pb2.CreateTableRequest(game="all_fours", players=2, bots=["", "random"]))
    assert made.bots == ["", "random"] and made.seat_tokens[0] and made.seat_tokens[1] == ""
    token = (("cardgames-token", made.seat_tokens[0]),)
    for _ in range(2000):  # the person plays the first legal command each time; the bot answers
        view = (await games.GetView(game_service_pb2.GetViewRequest(game_id=made.game_id), metadata=token)).view
        if view.over:
            break
        if 0 not in view.to_act:
            await asyncio.sleep(0.01)
            continue
        legal = await games.ListLegalCommands(
            game_service_pb2.ListLegalCommandsRequest(game_id=made.game_id, page_size=1), metadata=token
        )
        if legal.commands:
            try:
                await games.SubmitCommand(
                    game_service_pb2.SubmitCommandRequest(
                        game_id=made.game_id, command=legal.commands[0], expected_sequence=legal.sequence
                    ),
                    metadata=token,
                )
            except grpc.aio.AioRpcError as error:
                assert error.code() == grpc.StatusCode.ABORTED  # the bot moved first: decide again
    assert view.over


async def test_bad_tables_are_refused(stubs: tuple[Any, Any]) -> None:
    tables, _ = stubs
    for request, reason in [
        (table_pb2.CreateTableRequest(game="seep", bots=["", "genius"]), "INVALID_SETUP"),
        (table_pb2.CreateTableRequest(game="seep", bots=["random"] * 5), "INVALID_SETUP"),
        (table_pb2.CreateTableRequest(game="chess"), "UNKNOWN_GAME"),
        (
            table_pb2.CreateTableRequest(
                game="all_fours", options=game_service_pb2.Options(seep=seep_pb2.SeepOptions())
            ),
            "INVALID_OPTIONS",
        ),
    ]:
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await tables.CreateTable(request)
        assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT, request
        assert _reason(caught.value) == reason


async def test_a_full_service_refuses_more_tables(server: Running, stubs: tuple[Any, Any]) -> None:
    tables, _ = stubs
    assert server.bots is not None
    server.bots.tables.limit = 1
    await tables.CreateTable(table_pb2.CreateTableRequest(game="seep", bots=["", "random", "random", "random"]))
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await tables.CreateTable(table_pb2.CreateTableRequest(game="seep", bots=["", "random", "random", "random"]))
    assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED and _reason(caught.value) == "TABLES_FULL"


async def test_a_bad_time_control_is_refused_and_creates_nothing(
    server: Running, stubs: tuple[Any, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    tables, _ = stubs
    made: list[object] = []
    create = server.games.store.create

    def counted(*args: Any, **kwargs: Any) -> Any:
        made.append(args)
        return create(*args, **kwargs)

    monkeypatch.setattr(server.games.store, "create", counted)
    for control in [
        game_service_pb2.TimeControl(initial_ms=-5),
        game_service_pb2.TimeControl(),  # neither a bank nor a limit per decision
        game_service_pb2.TimeControl(move_ms=10_000, on_timeout=cast(Any, 99)),  # a number the enum has not,
    ]:
        request = table_pb2.CreateTableRequest(game="seep", bots=["", "random"], time_control=control)
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await tables.CreateTable(request)
        assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT, control
        assert _reason(caught.value) == "INVALID_TIME_CONTROL"
    assert made == []
    assert server.bots is not None and not server.bots.tables.running
    good = game_service_pb2.TimeControl(move_ms=30_000)
    table = await tables.CreateTable(table_pb2.CreateTableRequest(game="seep", bots=["", "random"], time_control=good))
    assert len(made) == 1 and table.game_id
