"""One game cannot starve the others: costly engine work runs in worker processes, with a deadline.

The attack: a Seep game created with the option to throw a card that could capture (B-7), whose
seats throw every card, crowds the floor to dozens of loose cards; counting its groupings then
takes seconds (pure install; tenths of a second compiled), and a bot or a client asks for them at
every position. Before, the count ran on the event loop and every other game's calls waited for it.
Here, over real gRPC, a game on such a floor (38 loose cards: 2 x 10^13 groupings) is counted in a
worker while an ordinary game goes on; a count past the deadline is a typed error and its worker is
replaced; a worker killed under a task is replaced and the task answered; and nothing is left running
once the server stops.
"""

from __future__ import annotations

import asyncio
import os
import pickle
import random
import signal
from collections.abc import AsyncIterator
from typing import Any
from uuid import UUID

import grpc
import msgspec
import pytest
from cardgames import wire
from cardgames.engine.bots import ISMCTSPolicy, get_policy
from cardgames.engine.core.events import AUTO_MOVE, SeatTimedOut
from cardgames.engine.core.protocol import Rejection
from cardgames.engine.core.registry import get_game
from cardgames.service import workers as workers_module
from cardgames.service.clocks import ClockKeeper
from cardgames.service.games import Games, Rejected, WorkDeadline
from cardgames.service.server import Running, start
from cardgames.service.store import EventStore
from cardgames.service.tournament.log import ClockOptions
from cardgames.service.workers import Workers
from cardgames.v1 import bots_pb2, bots_pb2_grpc, game_service_pb2, game_service_pb2_grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status

pb = game_service_pb2
B7 = {"throw_when_capture_available": True}
SEED = "b7" * 32
#: Every seat throws until this many cards lie loose: 2 x 10^13 groupings, a count of about three
#: seconds in a pure install (a tenth of that compiled), far longer than a few ordinary commands.
CROWDED = 38


async def crowded_game(games: Games, loose: int = CROWDED) -> tuple[str, list[str], int]:
    """A B-7 Seep game whose seats have thrown until ``loose`` cards lie loose; the seat to act.
    (Throws only: nothing here lists the crowded floors on the way.)"""
    created = await games.create("seep", B7, seed=SEED)
    game_id, tokens = created.game_id, created.seat_tokens
    while True:
        view = await games.view(game_id, None)
        seat = view.to_act[0]
        if len(view.view.loose) >= loose:
            return game_id, tokens, seat
        own = await games.view(game_id, tokens[seat])
        if own.view.phase == "bid":
            bid = (await games.legal_listing(game_id, tokens[seat])).commands[0]
            await games.submit(game_id, tokens[seat], msgspec.to_builtins(bid), view.sequence)
            continue
        for card in own.view.hand:
            try:
                await games.submit(game_id, tokens[seat], {"type": "throw", "card": card}, view.sequence)
                break
            except Rejected:
                continue  # the opening play's restriction: not a throw
        else:
            raise AssertionError("no card could be thrown")


def reason(error: grpc.aio.AioRpcError) -> tuple[str, dict[str, str]]:
    status = rpc_status.from_call(error)
    assert status is not None
    info = error_details_pb2.ErrorInfo()
    for detail in status.details:
        if detail.Unpack(info):
            return str(info.reason), dict(info.metadata)
    return "", {}


def alive(pid: int) -> bool:
    """Whether a process with this id exists (a zombie not yet reaped counts)."""
    return os.path.exists(f"/proc/{pid}")


async def until(condition: Any, timeout: float = 60.0) -> None:
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.005)


@pytest.fixture
def crowded_listings(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The sizes of the floors this process lists past 16 loose cards (there should be none)."""
    rules = get_game("seep")
    original = rules.legal_commands
    listed: list[int] = []

    def watched(state: Any, seat: int) -> Any:
        if len(state.loose) > 16:
            listed.append(len(state.loose))
        return original(state, seat)

    monkeypatch.setattr(rules, "legal_commands", watched)
    return listed


async def serving(workers: Workers) -> Running:
    return await start("127.0.0.1:0", EventStore.from_url("memory:"), workers=workers)


@pytest.fixture
async def server() -> AsyncIterator[Running]:
    """The conftest's server (its ``channel`` too), with one worker and a deadline no count here reaches."""
    running = await serving(Workers(1, 120.0))
    try:
        yield running
    finally:
        await running.stop(0)


class Ordinary:
    """An ordinary Seep game played over gRPC: each seat to act sends a random listed command."""

    def __init__(self, channel: grpc.aio.Channel) -> None:
        self.stub = game_service_pb2_grpc.GameServiceStub(channel)
        self.rng = random.Random(5)

    async def create(self) -> None:
        created = await self.stub.CreateGame(pb.CreateGameRequest(game="seep", seed="0d" * 32))
        self.game_id, self.tokens = created.game_id, list(created.seat_tokens)

    async def play(self) -> int:
        """One command of the seat to act; the game's sequence after it."""
        view = (await self.stub.GetView(pb.GetViewRequest(game_id=self.game_id))).view
        metadata = (("cardgames-token", self.tokens[view.to_act[0]]),)
        legal = await self.stub.ListLegalCommands(pb.ListLegalCommandsRequest(game_id=self.game_id),
                                                  metadata=metadata)
        command = legal.commands[self.rng.randrange(len(legal.commands))]
        reply = await self.stub.SubmitCommand(pb.SubmitCommandRequest(
            game_id=self.game_id, command=command, expected_sequence=legal.sequence), metadata=metadata)
        assert reply.sequence > legal.sequence
        return int(reply.sequence)


async def test_an_ordinary_game_plays_on_while_a_crowded_floor_is_counted(
    server: Running, channel: grpc.aio.Channel, crowded_listings: list[int]
) -> None:
    game_id, tokens, seat = await crowded_game(server.games)
    await server.games.pool.start()
    stub = game_service_pb2_grpc.GameServiceStub(channel)
    metadata = (("cardgames-token", tokens[seat]),)
    ordinary = Ordinary(channel)
    await ordinary.create()
    counting = asyncio.ensure_future(stub.ListLegalCommands(pb.ListLegalCommandsRequest(game_id=game_id),
                                                            metadata=metadata))
    await until(lambda: server.games.pool.running == 1 or counting.done())  # the count has started
    sequences = [await ordinary.play() for _ in range(12)]
    # twelve commands of the other game were served while the count was still running: before,
    # the count held the event loop, and not one of them was answered before it ended
    assert not counting.done()
    first = await counting
    assert sequences == sorted(sequences) and first.total > 10**13 and len(first.commands) >= 1
    # a command picked at an index deep in the listing, fetched by its index, is accepted; the
    # count is not made again (the worker kept the listing), and this process listed no crowded floor
    index = random.Random(9).randrange(first.total)
    picked = await stub.ListLegalCommands(pb.ListLegalCommandsRequest(game_id=game_id, offset=index, page_size=1),
                                          metadata=metadata)
    assert picked.total == first.total and len(picked.commands) == 1
    reply = await stub.SubmitCommand(pb.SubmitCommandRequest(
        game_id=game_id, command=picked.commands[0], expected_sequence=first.sequence), metadata=metadata)
    assert reply.sequence > first.sequence
    assert server.games.pool.listings_made == 1 and crowded_listings == []
    log = await server.games.log(game_id, tokens[seat], after=first.sequence)
    assert log.entries[0].command == wire.unwrap(picked.commands[0])[1]


async def test_a_count_past_the_deadline_is_deadline_exceeded_and_its_worker_replaced(
    crowded_listings: list[int],
) -> None:
    running = await serving(Workers(1, 0.05))
    try:
        game_id, tokens, seat = await crowded_game(running.games)
        pool = running.games.pool
        await pool.start()
        [first_pid] = pool.pids
        metadata = (("cardgames-token", tokens[seat]),)
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            stub = game_service_pb2_grpc.GameServiceStub(channel)
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await stub.ListLegalCommands(pb.ListLegalCommandsRequest(game_id=game_id), metadata=metadata)
            assert caught.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
            assert reason(caught.value) == ("WORK_DEADLINE", {"deadline_ms": "50", "work": "page"})
            # the worker that ran the count was killed (and reaped), and another took its place
            await until(lambda: pool.replaced == 1 and len(pool.pids) == 1 and pool.pids != [first_pid])
            assert not alive(first_pid)
            await pool.start()
            # a bot's decision on the same floor: the stream ends with the same typed error, not UNKNOWN
            call = bots_pb2_grpc.BotServiceStub(channel).Decisions(bots_pb2.DecisionsRequest(game_id=game_id),
                                                                   metadata=metadata)
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await call.read()
            assert caught.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
            assert reason(caught.value)[0] == "WORK_DEADLINE"
            # ordinary games are served as before (in this process: no worker is involved)
            ordinary = Ordinary(channel)
            await ordinary.create()
            assert await ordinary.play() > 0
        assert crowded_listings == []
    finally:
        await running.stop(0)


async def test_a_worker_killed_mid_task_is_replaced_and_the_task_answered(
    server: Running, channel: grpc.aio.Channel
) -> None:
    game_id, tokens, seat = await crowded_game(server.games)
    pool = server.games.pool
    await pool.start()
    [first_pid] = pool.pids
    stub = game_service_pb2_grpc.GameServiceStub(channel)
    counting = asyncio.ensure_future(stub.ListLegalCommands(pb.ListLegalCommandsRequest(game_id=game_id),
                                                            metadata=(("cardgames-token", tokens[seat]),)))
    await until(lambda: pool.running == 1)
    os.kill(first_pid, signal.SIGKILL)
    reply = await counting  # run again on the worker that replaced it
    assert reply.total > 10**13 and len(reply.commands) >= 1
    assert pool.replaced == 1 and len(pool.pids) == 1 and pool.pids != [first_pid] and not alive(first_pid)


async def test_stopping_the_server_leaves_no_worker_behind() -> None:
    running = await serving(Workers(2, 60.0))
    game_id, tokens, seat = await crowded_game(running.games, loose=20)
    page = await running.games.legal_commands(game_id, tokens[seat])  # listed in a worker
    assert page.total > 10**4
    pids = running.games.pool.pids
    assert len(pids) == 2 and all(alive(pid) for pid in pids)
    await running.stop(0)
    assert not any(alive(pid) for pid in pids) and running.games.pool.pids == []


async def test_one_games_flood_waits_behind_its_own_and_is_refused_past_its_share(
    server: Running, channel: grpc.aio.Channel
) -> None:
    """With the one worker counting game A, A's further requests wait; game B's request is served
    before A's third (round robin by game), and A's sixth request is refused at once (RESOURCE_EXHAUSTED)."""
    a_id, a_tokens, a_seat = await crowded_game(server.games)
    b_id, b_tokens, b_seat = await crowded_game(server.games, loose=CROWDED - 2)
    pool = server.games.pool
    await pool.start()
    stub = game_service_pb2_grpc.GameServiceStub(channel)
    finished: list[str] = []

    async def page(name: str, game_id: str, token: str, offset: int) -> Any:
        reply = await stub.ListLegalCommands(pb.ListLegalCommandsRequest(game_id=game_id, offset=offset, page_size=1),
                                             metadata=(("cardgames-token", token),))
        finished.append(name)
        return reply

    first = asyncio.ensure_future(page("A1", a_id, a_tokens[a_seat], 0))
    await until(lambda: pool.running == 1)
    waiting = [asyncio.ensure_future(page(f"A{n}", a_id, a_tokens[a_seat], n)) for n in range(2, 6)]
    await until(lambda: pool._queued == 4)
    other = asyncio.ensure_future(page("B1", b_id, b_tokens[b_seat], 0))
    await until(lambda: pool._queued == 5)
    with pytest.raises(grpc.aio.AioRpcError) as caught:  # a fifth request of A waiting: refused
        await page("A6", a_id, a_tokens[a_seat], 6)
    assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert reason(caught.value)[0] == "WORKERS_BUSY"
    await asyncio.gather(first, other, *waiting)
    assert finished.index("B1") < finished.index("A3") and finished.index("A2") < finished.index("B1")


async def test_an_automatic_move_on_a_crowded_floor_is_found_in_a_worker(crowded_listings: list[int]) -> None:
    """A seat whose clock runs out under ``auto_move`` plays its first legal command: on a crowded floor
    that command is listed in a worker (before, the clock's timer counted the floor on the event loop)."""
    games = Games(EventStore.from_url("memory:"), pool=Workers(1, 120.0))
    keeper = ClockKeeper(games)
    try:
        game_id, tokens, seat = await crowded_game(games, loose=20)
        before = await games.view(game_id, None)
        position = (await games.game(game_id)).state
        first = (await games.legal_commands(game_id, tokens[seat], 0, 1)).commands[0]  # (in a worker)
        await keeper.keep(game_id, tokens, ClockOptions(move_ms=20, on_timeout=AUTO_MOVE))
        await until(lambda: games.cache[UUID(game_id)].sequence > before.sequence)
        entries = (await games.log(game_id, None, after=before.sequence)).entries
        assert entries[0].event == SeatTimedOut(seat, AUTO_MOVE, "disconnected", entries[0].event.waited_ms)
        assert games.pool.listings_made == 1 and crowded_listings == []
        # the first legal command's events follow the timeout (the log as the seat itself reads it)
        expected = get_game("seep").decide(position.game, seat, first)
        assert not isinstance(expected, Rejection)
        own = (await games.log(game_id, tokens[seat], after=before.sequence + 1)).entries
        assert [entry.event for entry in own[:len(expected)]] == list(expected)
    finally:
        await keeper.close()
        await games.close()


async def test_workers_that_cannot_start_fail_the_call_and_are_not_started_again_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(workers_module, "WORKER_MAIN", "import sys; sys.exit(3)")
    pool = Workers(1, 5.0)
    try:
        with pytest.raises(workers_module.Failed):
            await pool.run("page", "seep", "key", None, 0, 0, 1, 0.2, False, owner="game")
        with pytest.raises(workers_module.Failed):  # at once: no new process for a while
            await pool.run("page", "seep", "key", None, 0, 0, 1, 0.2, False, owner="game")
        assert pool.pids == [] and pool.replaced == 0
    finally:
        await pool.close()


# ---------------------------------------------------------------------------
# Built-in bots' decisions (service/tournament/players.py goes through Games.choose).


@pytest.fixture
async def games() -> AsyncIterator[Games]:
    games = Games(EventStore.from_url("memory:"), pool=Workers(1, 120.0))
    try:
        yield games
    finally:
        await games.close()


async def decide(games: Games, game_id: str, token: str, policy: Any, **options: Any) -> Any:
    view = await games.view(game_id, token)
    assert view.seat is not None
    command = await games.choose(game_id, token, view.sequence, policy, view.view, random.Random(1), **options)
    assert command is not None
    await games.submit(game_id, token, msgspec.to_builtins(command), view.sequence)  # a legal command
    return command


async def test_a_decision_on_an_ordinary_position_stays_in_this_process(games: Games) -> None:
    created = await games.create("seep", {}, seed=SEED)
    view = await games.view(created.game_id, None)
    policy = get_policy("seep", "heuristic", config=get_game("seep").make_config({}, None))
    await decide(games, created.game_id, created.seat_tokens[view.to_act[0]], policy)
    assert games.pool.pids == []  # no worker was even started


async def test_a_decision_on_a_crowded_floor_and_a_search_are_made_in_a_worker(
    games: Games, crowded_listings: list[int]
) -> None:
    game_id, tokens, seat = await crowded_game(games, loose=20)
    config = get_game("seep").make_config(B7, None)
    await decide(games, game_id, tokens[seat], get_policy("seep", "heuristic", config=config))
    assert games.pool.listings_made == 1 and crowded_listings == []
    created = await games.create("seep", {}, seed=SEED)
    following = (await games.view(created.game_id, None)).to_act[0]
    search = get_policy("seep", "ismcts", config=get_game("seep").make_config({}, None), iterations=20)
    await decide(games, created.game_id, created.seat_tokens[following], search, searches=True)
    assert games.pool.listings_made == 2


async def test_a_decision_past_the_deadline_is_typed_or_made_again_by_the_fallback() -> None:
    games = Games(EventStore.from_url("memory:"), pool=Workers(1, 0.3))
    try:
        created = await games.create("seep", {}, seed=SEED)
        token = created.seat_tokens[(await games.view(created.game_id, None)).to_act[0]]
        search = get_policy("seep", "ismcts", config=get_game("seep").make_config({}, None), iterations=10**6)
        view = await games.view(created.game_id, token)
        await games.pool.start()
        with pytest.raises(WorkDeadline):
            await games.choose(created.game_id, token, view.sequence, search, view.view, random.Random(1),
                               searches=True)
        fallback = get_policy("seep", "random")
        await decide(games, created.game_id, token, search, searches=True, fallback=fallback)
        assert games.pool.replaced >= 1  # (the second search may have timed out waiting for the new worker)
    finally:
        await games.close()


def test_a_search_bot_crosses_to_a_worker_with_its_memory() -> None:
    """The search bot is pickled with what it remembers and chooses in the copy as it would have here."""
    game = get_game("seep")
    from cardgames.engine.core.protocol import Setup
    from cardgames.engine.core.replay import new_match

    state, _ = new_match(game, game.make_config({}, None), Setup(seed=SEED))
    seat = game.to_act(state)[0]
    policy = ISMCTSPolicy("seep", state.config, iterations=30)
    policy.observe(game.view(state, seat))
    copy = pickle.loads(pickle.dumps(policy))
    assert copy.game is game and copy._memory == policy._memory
    legal = game.legal_commands(state, seat)
    assert copy.choose(game.view(state, seat), legal, random.Random(3)) == policy.choose(
        game.view(state, seat), legal, random.Random(3))
