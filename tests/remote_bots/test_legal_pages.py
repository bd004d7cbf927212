"""Legal commands in pages over real gRPC: a crowded Seep floor (B-7: every seat throws) lists
hundreds of thousands of groupings and more; the service makes only the page asked for.

Before pages, ListLegalCommands made every command: 72,529 of them on the slowest floor the
default rules can produce (4.2 MB, about the largest message a client takes by default), and
under the option to throw a card that could capture a floor of 40 cards has 10^17, which no
list could hold: one such request would have taken the server down.

A page also stops once its commands have taken ``PAGE_SECONDS`` of CPU time to make (one command
at least), which depends on the machine: a test that counts a page's commands sets the budget
(unlimited: every page is full; spent: every page is one command), and any other test takes the
pages as they come and checks that together they are exactly the listing.
"""

from __future__ import annotations

import math
import random
from typing import Any

import grpc
import msgspec
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from cardgames import wire
from cardgames.clients.bots.random_bot import RandomBot
from cardgames.clients.client import GameClient
from cardgames.clients.remote_bot import _decide, decision_data
from cardgames.engine.core.registry import get_game
from cardgames.service.games import DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, Games, Rejected
from cardgames.service.games import paging as paging_module
from cardgames.service.server import Running
from cardgames.v1 import bots_pb2, bots_pb2_grpc, game_service_pb2, game_service_pb2_grpc

pb = game_service_pb2
SEED = "b7" * 32
#: Every seat throws until the floor holds this many loose cards: some 10^5 to 10^6 commands.
CROWDED = 22


async def crowded_game(games: Games) -> tuple[str, list[str], int]:
    """A Seep game under B-7 in which every seat has thrown until the floor is crowded; the seat to act."""
    created = await games.create("seep", {"throw_when_capture_available": True}, seed=SEED)
    game_id, tokens = created.game_id, created.seat_tokens
    while True:
        view = await games.view(game_id, None)
        seat = view.to_act[0]
        legal = await games.legal_listing(game_id, tokens[seat])
        if len(view.view.loose) >= CROWDED:
            return game_id, tokens, seat
        own = await games.view(game_id, tokens[seat])
        for card in own.view.hand:
            try:
                await games.submit(game_id, tokens[seat], {"type": "throw", "card": card}, legal.sequence)
                break
            except Rejected:
                continue  # the bid, the opening play's restriction: not a throw
        else:
            await games.submit(game_id, tokens[seat], msgspec.to_builtins(legal.commands[0]), legal.sequence)


@pytest.fixture
def unlimited_pages(monkeypatch: pytest.MonkeyPatch) -> None:
    """No time budget for a page: every page holds all the commands asked for, on any machine."""
    monkeypatch.setattr(paging_module, "PAGE_SECONDS", math.inf)


def plain(command: Any) -> Any:
    """A command as the wire gives it back: FORMAT.md JSON (lists, not tuples)."""
    return msgspec.json.decode(msgspec.json.encode(command))


def reason(error: grpc.aio.AioRpcError) -> str:
    status = rpc_status.from_call(error)
    assert status is not None
    info = error_details_pb2.ErrorInfo()
    for detail in status.details:
        if detail.Unpack(info):
            return str(info.reason)
    return ""


@pytest.mark.usefixtures("unlimited_pages")
async def test_a_crowded_floor_is_listed_page_by_page(server: Running, channel: grpc.aio.Channel) -> None:
    """Pages together give exactly the listing, in order, each as long as asked (no time budget: the
    server's own may stop a page short on a slow machine; short pages: the test after the last)."""
    game_id, tokens, seat = await crowded_game(server.games)
    listing = (await server.games.legal_listing(game_id, tokens[seat])).commands
    total = len(listing)
    assert total > 100 * DEFAULT_PAGE_SIZE  # hundreds of thousands of groupings
    stub = game_service_pb2_grpc.GameServiceStub(channel)
    metadata = (("cardgames-token", tokens[seat]),)

    async def page(offset: int = 0, size: int = 0) -> Any:
        request = pb.ListLegalCommandsRequest(game_id=game_id, offset=offset, page_size=size)
        return await stub.ListLegalCommands(request, metadata=metadata)

    def commands(reply: Any) -> list[Any]:
        return [wire.unwrap(command)[1] for command in reply.commands]

    async def fetched(offset: int = 0, size: int = DEFAULT_PAGE_SIZE) -> list[Any]:
        """``size`` commands from ``offset`` (or up to the end), going on after a short page as a client does
        (a page stops once its commands have taken PAGE_SECONDS to make, one command at least)."""
        received: list[Any] = []
        while len(received) < size:
            reply = await page(offset + len(received), size - len(received))
            assert reply.offset == offset + len(received) and reply.total == total
            assert reply.commands or offset + len(received) >= total
            if not reply.commands:
                break
            assert len(reply.commands) == min(size - len(received), total - offset - len(received))
            received += commands(reply)
        return received

    first = await page()
    assert first.total == total and first.offset == 0 and first.seat == seat
    assert commands(first) == [plain(command) for command in listing[:len(first.commands)]]
    assert len(first.commands) == DEFAULT_PAGE_SIZE
    assert first.ByteSize() < 200_000
    assert await fetched() == [plain(command) for command in listing[:DEFAULT_PAGE_SIZE]]
    largest = await fetched(total - MAX_PAGE_SIZE, MAX_PAGE_SIZE)
    assert largest == [plain(command) for command in listing[total - MAX_PAGE_SIZE:]]
    assert len(await fetched(total - 3, 10)) == 3
    assert (await page(total)).commands == [] and (await page(total + 5)).total == total
    # any command by its index, the same as in any page holding it, and accepted
    rng = random.Random(7)
    index = rng.randrange(total)
    one = commands(await page(index, 1))
    assert one == (await fetched(index - 2, 5))[2:3] == [plain(listing[index])]
    reply = await stub.SubmitCommand(pb.SubmitCommandRequest(
        game_id=game_id, command=wire.wrap_command("seep", one[0]), expected_sequence=first.sequence,
    ), metadata=metadata)
    assert reply.sequence > first.sequence


@pytest.mark.parametrize(("offset", "size"), [(-1, 0), (0, -1), (0, MAX_PAGE_SIZE + 1)])
async def test_a_bad_page_is_refused_and_changes_nothing(
    server: Running, channel: grpc.aio.Channel, offset: int, size: int
) -> None:
    created = await server.games.create("seep", {}, seed=SEED)
    stub = game_service_pb2_grpc.GameServiceStub(channel)
    seat = (await server.games.view(created.game_id, None)).to_act[0]
    before = await server.games.view(created.game_id, None)
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await stub.ListLegalCommands(pb.ListLegalCommandsRequest(game_id=created.game_id, offset=offset,
                                                                 page_size=size),
                                     metadata=(("cardgames-token", created.seat_tokens[seat]),))
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert reason(caught.value) == "INVALID_PAGE"
    assert str(offset if offset < 0 else size) in (caught.value.details() or "")
    assert (await server.games.view(created.game_id, None)).sequence == before.sequence


@pytest.mark.usefixtures("unlimited_pages")
async def test_a_bots_decision_carries_the_first_page_and_the_total(
    server: Running, channel: grpc.aio.Channel
) -> None:
    game_id, tokens, seat = await crowded_game(server.games)
    total = len((await server.games.legal_listing(game_id, tokens[seat])).commands)
    bots = bots_pb2_grpc.BotServiceStub(channel)
    call = bots.Decisions(bots_pb2.DecisionsRequest(game_id=game_id), metadata=(("cardgames-token", tokens[seat]),))
    decision = await call.read()
    call.cancel()
    assert decision.legal_total == total and len(decision.legal_commands) == DEFAULT_PAGE_SIZE


@pytest.mark.usefixtures("unlimited_pages")
async def test_the_random_bot_picks_beyond_the_first_page(server: Running) -> None:
    game_id, tokens, seat = await crowded_game(server.games)
    listing = (await server.games.legal_listing(game_id, tokens[seat])).commands
    sequence = (await server.games.view(game_id, None)).sequence
    async with GameClient(f"127.0.0.1:{server.port}") as client:
        handle = client.seat(game_id, tokens[seat])
        legal = await handle.legal_commands()
        assert legal.total == len(listing) and len(legal.commands) == DEFAULT_PAGE_SIZE
        bot = RandomBot(handle, seed=3)
        view = await handle.view()
        await bot.act(view)
    [(command, accepted)] = bot.accepted
    expected = random.Random(3).randrange(len(listing))
    assert expected >= DEFAULT_PAGE_SIZE  # (the seed is chosen so: the pick is fetched by its index)
    assert command == plain(listing[expected]) and accepted.sequence > sequence


async def test_the_pages_of_one_position_share_one_listing(
    server: Running, channel: grpc.aio.Channel, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bot asks for a page, then for a command by its index: the position is counted once, in a
    worker process (a floor past 16 loose cards is costly), never on the event loop."""
    game_id, tokens, seat = await crowded_game(server.games)  # lists the position it stops at
    pool = server.games.pool
    made = pool.listings_made
    rules = get_game("seep")
    listed: list[int] = []
    original = rules.legal_commands

    def counting(state: Any, seat: int) -> Any:
        listed.append(seat)
        return original(state, seat)

    monkeypatch.setattr(rules, "legal_commands", counting)
    stub = game_service_pb2_grpc.GameServiceStub(channel)
    metadata = (("cardgames-token", tokens[seat]),)
    first = await stub.ListLegalCommands(pb.ListLegalCommandsRequest(game_id=game_id), metadata=metadata)
    again = await stub.ListLegalCommands(pb.ListLegalCommandsRequest(game_id=game_id, offset=first.total - 1,
                                                                     page_size=1), metadata=metadata)
    assert listed == [] and len(again.commands) == 1 and pool.listings_made == made + 1
    await stub.SubmitCommand(pb.SubmitCommandRequest(game_id=game_id, command=again.commands[0],
                                                     expected_sequence=first.sequence), metadata=metadata)
    following = (await server.games.view(game_id, None)).to_act[0]
    for offset in (0, 3, 7):
        await stub.ListLegalCommands(pb.ListLegalCommandsRequest(game_id=game_id, offset=offset),
                                     metadata=(("cardgames-token", tokens[following]),))
    assert listed == [] and pool.listings_made == made + 2


@pytest.mark.usefixtures("unlimited_pages")
async def test_a_remote_bot_may_answer_any_index_below_the_total(server: Running, channel: grpc.aio.Channel) -> None:
    game_id, tokens, seat = await crowded_game(server.games)
    listing = (await server.games.legal_listing(game_id, tokens[seat])).commands
    metadata = (("cardgames-token", tokens[seat]),)
    call = bots_pb2_grpc.BotServiceStub(channel).Decisions(bots_pb2.DecisionsRequest(game_id=game_id),
                                                           metadata=metadata)
    message = await call.read()
    call.cancel()
    decision = decision_data(message, game_id)
    assert decision["legal_total"] == len(listing) and len(decision["legal"]) == DEFAULT_PAGE_SIZE
    index = len(listing) - 2  # far past the listed page
    service = game_service_pb2_grpc.GameServiceStub(channel)
    await _decide(service, metadata, decision, lambda _: index)
    log = await server.games.log(game_id, tokens[seat], after=decision["sequence"])
    assert log.entries[0].command == plain(listing[index])
    # an index past the total is refused before anything is sent (the bot is asked again)
    seen: list[Any] = []

    def past_the_end(again: dict[str, Any]) -> int:
        seen.append(again["rejected"])
        return len(listing)

    await _decide(service, metadata, {**decision, "sequence": log.sequence}, past_the_end)
    assert seen[0] is None and all(r["reason"] == "INVALID_COMMAND" for r in seen[1:]) and len(seen) == 3
    assert (await server.games.view(game_id, None)).sequence == log.sequence


async def test_a_page_slow_to_make_stops_short(
    server: Running, channel: grpc.aio.Channel, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A page deep into a huge listing makes each command by a walk: the page ends once its time
    is spent, with one command at least, and the next page goes on from there: pages one command
    long give exactly the listing, in order, none twice, none left out."""
    game_id, tokens, seat = await crowded_game(server.games)
    listing = (await server.games.legal_listing(game_id, tokens[seat])).commands
    # spent before the first command is made (a budget of 0 could still see a clock that has not moved)
    monkeypatch.setattr(paging_module, "PAGE_SECONDS", -1.0)
    stub = game_service_pb2_grpc.GameServiceStub(channel)
    metadata = (("cardgames-token", tokens[seat]),)
    offset = len(listing) // 3
    received: list[Any] = []
    while len(received) < 5:
        request = pb.ListLegalCommandsRequest(game_id=game_id, offset=offset + len(received), page_size=50)
        page = await stub.ListLegalCommands(request, metadata=metadata)
        assert len(page.commands) == 1 and page.total == len(listing)
        received += [wire.unwrap(command)[1] for command in page.commands]
    assert received == [plain(command) for command in listing[offset:offset + 5]]
