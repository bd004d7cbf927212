"""A bad input of about 4 MB (the server's message size limit) gets its typed error, over real gRPC.

Every kind of input an error repeats (a game name, an option value, a game id, a seed, a card
code, a malformed command, the request bytes themselves) is sent at about 4 MB: the answer is
the typed error with a short message, never RESOURCE_EXHAUSTED "Stream removed" (the error's
trailers used to grow with the input, past the peer's metadata limit from about 20 KB).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from cardgames import wire
from cardgames.service.grpc_api import TOKEN_METADATA
from cardgames.service.server import Running
from cardgames.v1 import common_pb2, game_service_pb2

pb = game_service_pb2
#: Just under gRPC's default 4 MiB receive limit, with room for the rest of the request.
BIG = 4_000_000
HUGE = "x" * BIG
#: What an error's text may be at most: 512 bytes (engine/core/echo.py), a few times over in the trailers.
SHORT = 600
TRAILERS = 8 * 1024



def auth(token: str) -> tuple[tuple[str, str], ...]:
    return ((TOKEN_METADATA, token),)


async def typed(call: Awaitable[Any], code: grpc.StatusCode, reason: str) -> str:
    """The call fails with ``code`` and ErrorInfo ``reason``, its message and trailers short; the message."""
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    return checked(caught.value, code, reason)


def checked(error: grpc.aio.AioRpcError, code: grpc.StatusCode, reason: str) -> str:
    """``error`` is ``code`` with ErrorInfo ``reason``, and its message and trailers are short; the message."""
    assert error.code() == code, (error.code(), (error.details() or "")[:200])
    status = rpc_status.from_call(error)
    assert status is not None
    info = error_details_pb2.ErrorInfo()
    assert status.details[0].Unpack(info) and info.reason == reason
    for detail in status.details[1:]:
        rejection = common_pb2.Rejection()
        if detail.Unpack(rejection):
            assert len(rejection.message.encode()) <= SHORT
    message = error.details() or ""
    assert len(message.encode()) <= SHORT and all(len(value) <= SHORT for value in info.metadata.values())
    size = sum(len(key) + len(value) for key, value in error.trailing_metadata() or ())
    assert size <= TRAILERS
    return message


async def test_a_huge_game_name_option_seed_or_deck_at_create_game(stub: Any) -> None:
    message = await typed(stub.CreateGame(pb.CreateGameRequest(game=HUGE)),
                          grpc.StatusCode.INVALID_ARGUMENT, "UNKNOWN_GAME")
    assert "unknown game 'xxxx" in message and "(4,000,000 characters)" in message
    await typed(stub.CreateGame(pb.CreateGameRequest(game=HUGE, options=wire.wrap_options("seep", {}))),
                grpc.StatusCode.INVALID_ARGUMENT, "INVALID_OPTIONS")
    big_options: list[tuple[str, dict[str, Any], str]] = [
        ("contract_rummy", {"first_dealer": HUGE}, "first_dealer"),
        ("contract_rummy", {"hand_sizes": [1] * (BIG // 2)}, "hand_sizes"),
        ("all_fours", {"kick_values": {HUGE: 1}}, "kick_values"),
        ("all_fours", {"kick_values": {str(rank): 1 for rank in range(300_000)}}, "kick_values"),
    ]
    for game, options, key in big_options:
        request = pb.CreateGameRequest(game=game, options=wire.wrap_options(game, options))
        message = await typed(stub.CreateGame(request), grpc.StatusCode.INVALID_ARGUMENT, "INVALID_OPTIONS")
        assert key in message
    await typed(stub.CreateGame(pb.CreateGameRequest(game="seep", seed=HUGE)),
                grpc.StatusCode.INVALID_ARGUMENT, "INVALID_SEED")
    for cards in ([HUGE], ["AS"] * (BIG // 4)):
        deck = common_pb2.CardList(cards=cards)
        for game in ("seep", "all_fours", "contract_rummy"):
            await typed(stub.CreateGame(pb.CreateGameRequest(game=game, decks=[deck])),
                        grpc.StatusCode.INVALID_ARGUMENT, "INVALID_SETUP")


async def test_a_huge_game_id_in_every_call(stub: Any) -> None:
    calls: list[Callable[[], Awaitable[Any]]] = [
        lambda: stub.GetView(pb.GetViewRequest(game_id=HUGE)),
        lambda: stub.GetLog(pb.GetLogRequest(game_id=HUGE)),
        lambda: stub.ListLegalCommands(pb.ListLegalCommandsRequest(game_id=HUGE), metadata=auth("t")),
        lambda: stub.SubmitCommand(pb.SubmitCommandRequest(game_id=HUGE, command=wire.wrap_command(
            "seep", {"type": "throw", "card": "AS"})), metadata=auth("t")),
        lambda: stub.CommitEntropy(pb.CommitEntropyRequest(game_id=HUGE, commitment="0" * 64), metadata=auth("t")),
        lambda: stub.RevealEntropy(pb.RevealEntropyRequest(game_id=HUGE, entropy="0" * 64), metadata=auth("t")),
        lambda: anext(stub.Watch(pb.WatchRequest(game_id=HUGE)).__aiter__()),
    ]
    for call in calls:
        message = await typed(call(), grpc.StatusCode.INVALID_ARGUMENT, "INVALID_GAME_ID")
        assert message.startswith("not a game id: 'xxxx") and "(4,000,000 characters)" in message


async def test_a_huge_entropy_or_commitment(stub: Any) -> None:
    created = await stub.CreateGame(pb.CreateGameRequest(game="seep", seat_entropy=True))
    await typed(stub.CommitEntropy(pb.CommitEntropyRequest(game_id=created.game_id, commitment=HUGE),
                                   metadata=auth(created.seat_tokens[0])),
                grpc.StatusCode.INVALID_ARGUMENT, "INVALID_ENTROPY")
    await typed(stub.RevealEntropy(pb.RevealEntropyRequest(game_id=created.game_id, entropy=HUGE),
                                   metadata=auth(created.seat_tokens[0])),
                grpc.StatusCode.INVALID_ARGUMENT, "INVALID_ENTROPY")


#: Per game, commands whose card codes (or other strings) are about 4 MB, or that hold 4 MB of them.
COMMANDS: dict[str, list[dict[str, Any]]] = {
    "all_fours": [{"type": "play", "card": HUGE}, {"type": "call", "owner": 1, "card": HUGE}],
    "seep": [{"type": "throw", "card": HUGE}, {"type": "capture", "card": "AS", "groups": [[HUGE]]},
             {"type": "capture", "card": "AS", "groups": [["XX"] * (BIG // 4)]},
             {"type": "build", "card": HUGE, "value": 9, "groups": [["AS"]]}],
    "contract_rummy": [{"type": "discard", "card": HUGE}, {"type": "lay_off", "card": HUGE, "meld": 0},
                       {"type": "meld", "melds": [[HUGE]]}, {"type": "meld", "melds": [["XX"] * (BIG // 4)]},
                       {"type": "swap_joker", "card": "7H", "meld": 0, "joker_to": {"meld": 0, "as": HUGE}}],
}


@pytest.mark.parametrize("game", sorted(COMMANDS))
async def test_a_huge_card_code_or_command_from_every_seat(stub: Any, game: str) -> None:
    created = await stub.CreateGame(pb.CreateGameRequest(game=game, seed="ab" * 32))
    for command in COMMANDS[game]:
        for token in created.seat_tokens:
            request = pb.SubmitCommandRequest(game_id=created.game_id, command=wire.wrap_command(game, command))
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await stub.SubmitCommand(request, metadata=auth(token))
            code = caught.value.code()  # invalid_command, or not_your_turn for a seat not to act (FORMAT.md)
            reason = "INVALID_COMMAND" if code == grpc.StatusCode.INVALID_ARGUMENT else "NOT_YOUR_TURN"
            checked(caught.value, grpc.StatusCode.FAILED_PRECONDITION if reason == "NOT_YOUR_TURN" else code, reason)


async def test_huge_bytes_that_are_no_message(server: Running) -> None:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
        for method in ("CreateGame", "GetView", "SubmitCommand"):
            raw = channel.unary_unary(f"/cardgames.v1.GameService/{method}")  # bytes in, bytes out
            await typed(raw(b"\xff" * BIG), grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST")
