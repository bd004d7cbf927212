"""Clients under refusals: a call refused with RESOURCE_EXHAUSTED and a retry hint is sent again, never
before the hint, at jittered times, a bounded number of times; one without a hint is not sent again.

The refusals come from a real gRPC server in front of the service (tests/clients/refusing.py) that
answers as an overloaded service does (RetryInfo and the grpc-retry-pushback-ms trailer).
"""

from __future__ import annotations

import asyncio
import statistics
from collections.abc import AsyncIterator, Awaitable, Callable

import grpc
import pytest

from cardgames.clients import GameClient, RateLimited, ResourceExhausted, Retry, SeatHandle
from cardgames.clients.bots import RandomBot
from cardgames.clients.sync import SyncGameClient
from cardgames.service.server import Running
from tests.clients.conftest import GAME, SEED
from tests.clients.refusing import Policy, RefusingProxy, bare_refusal, refuse_first

#: Quick to give up on an unreachable service; patient with refusals.
PATIENT = Retry(timeout=30.0, initial=0.02, maximum=0.2, call_timeout=5.0, refusals=5)
#: Starts a proxy in front of the test's server with a policy (stopped after the test).
Proxies = Callable[[Policy], Awaitable[RefusingProxy]]


@pytest.fixture
async def proxies(server: Running) -> AsyncIterator[Proxies]:
    started: list[RefusingProxy] = []

    async def make(policy: Policy) -> RefusingProxy:
        proxy = await RefusingProxy(f"127.0.0.1:{server.port}", policy).start()
        started.append(proxy)
        return proxy

    yield make
    for proxy in started:
        await proxy.stop()


def no_early_resend(proxy: RefusingProxy) -> None:
    assert proxy.refused(), "the proxy refused nothing: the test proves nothing"
    assert proxy.early() == [], f"resent before the hint: {proxy.early()[:5]}"


async def test_a_whole_match_completes_when_every_call_is_refused_twice_first(proxies: Proxies) -> None:
    """CreateGame, GetView, ListLegalCommands, SubmitCommand (with its sequence), GetLog and Watch's
    openings: each is refused twice, then goes through; the match is played to its end."""
    proxy = await proxies(refuse_first(2, 20))
    async with GameClient(proxy.address, retry=PATIENT) as client:
        created = await client.create_game(GAME, players=2, seed=SEED)
        seats = [client.seat(created.game_id, token) for token in created.tokens]
        watch = seats[0].watch()
        first = await anext(watch)
        moves = 0
        while not (view := await seats[0].view()).over and moves < 400:
            seat = seats[view.to_act[0]]
            legal = await seat.legal_commands()
            await seat.submit(legal.commands[0], expected_sequence=legal.sequence)
            moves += 1
        assert view.over
        updates = [first]
        while not updates[-1].view.over:
            updates.append(await asyncio.wait_for(anext(watch), 10))
        log = await seats[1].log()
    seen = [event.sequence for update in updates for event in update.events]
    assert seen == list(range(first.sequence + 1, log.sequence + 1))  # the watch missed nothing
    methods = {arrival.method.rsplit("/", 1)[-1] for arrival in proxy.refused()}
    assert {"CreateGame", "GetView", "ListLegalCommands", "SubmitCommand", "GetLog", "Watch"} <= methods
    assert all(arrival.nth < 2 for arrival in proxy.refused())
    no_early_resend(proxy)


async def test_the_pushback_trailer_alone_is_a_hint_too(proxies: Proxies) -> None:
    proxy = await proxies(lambda arrival: bare_refusal("150") if arrival.nth == 0 else None)
    async with GameClient(proxy.address, retry=PATIENT) as client:
        created = await client.create_game(GAME, seed=SEED)
        await client.seat(created.game_id, created.tokens[0]).view()
    assert [arrival.nth for arrival in proxy.arrivals] == [0, 1, 0, 1]
    assert all(gap >= 0.15 for _, gap in proxy.resend_gaps())
    no_early_resend(proxy)


async def test_resends_are_jittered_and_never_before_the_hint(proxies: Proxies) -> None:
    """Twenty clients refused at the same moment with the same hint come back at twenty moments, each
    at least the hint later and at most hint x (1 + jitter) (plus scheduling)."""
    proxy = await proxies(refuse_first(1, 200, methods=("GetView",)))
    async with GameClient(proxy.address, retry=PATIENT) as client:  # 20 seats: 20 different calls
        tokens = [(made.game_id, token) for _ in range(10)
                  for made in [await client.create_game(GAME, players=2, seed=SEED)] for token in made.tokens]
    clients = [GameClient(proxy.address, retry=PATIENT) for _ in range(20)]
    try:
        await asyncio.gather(*(each.seat(*tokens[i]).view() for i, each in enumerate(clients)))
    finally:
        await asyncio.gather(*(each.close() for each in clients))
    gaps = [gap for _, gap in proxy.resend_gaps()]
    assert len(gaps) == 20
    assert min(gaps) >= 0.2 and max(gaps) < 0.2 * (1 + PATIENT.jitter) + 0.25
    assert statistics.pstdev(gaps) > 0.01 and max(gaps) - min(gaps) > 0.03, gaps  # spread, not one instant
    no_early_resend(proxy)


async def test_refusals_are_bounded_and_end_in_a_typed_error(proxies: Proxies) -> None:
    proxy = await proxies(refuse_first(1_000, 10, methods=("GetView", "Watch")))
    retry = Retry(timeout=30.0, call_timeout=5.0, refusals=3)
    async with GameClient(proxy.address, retry=retry) as client:
        created = await client.create_game(GAME, seed=SEED)
        seat = client.seat(created.game_id, created.tokens[0])
        with pytest.raises(RateLimited) as caught:
            await seat.view()
        assert caught.value.refusals == 4 and caught.value.status == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert caught.value.retry_after == 0.01
        with pytest.raises(RateLimited) as watched:
            await anext(seat.watch())
        assert watched.value.refusals == 4
    counts = {name: sum(arrival.method.endswith(name) for arrival in proxy.arrivals) for name in ("GetView", "Watch")}
    assert counts == {"GetView": 4, "Watch": 4}  # the first call and three resends, then the error
    no_early_resend(proxy)


async def test_refusals_stop_within_the_retry_timeout(proxies: Proxies) -> None:
    proxy = await proxies(refuse_first(1_000, 100, methods=("GetView",)))
    retry = Retry(timeout=0.5, call_timeout=5.0, refusals=1_000)
    async with GameClient(proxy.address, retry=retry) as client:
        created = await client.create_game(GAME, seed=SEED)
        loop = asyncio.get_running_loop()
        began = loop.time()
        with pytest.raises(RateLimited):
            await client.seat(created.game_id, created.tokens[0]).view()
        assert loop.time() - began < 1.0
    assert 2 <= len(proxy.refused()) <= 5


async def test_no_hint_no_resend(proxies: Proxies) -> None:
    """A RESOURCE_EXHAUSTED without a hint (no RetryInfo, no trailer; or a trailer that says not to)
    is raised at once: nothing says the same call could go through later."""
    def refusing(trailer: str | None) -> Policy:
        return lambda arrival: bare_refusal(trailer) if arrival.method.endswith("GetView") else None

    for trailer in (None, "-1", "soon"):
        proxy = await proxies(refusing(trailer))
        async with GameClient(proxy.address, retry=PATIENT) as client:
            created = await client.create_game(GAME, seed=SEED)
            with pytest.raises(ResourceExhausted) as caught:
                await client.seat(created.game_id, created.tokens[0]).view()
        assert not isinstance(caught.value, RateLimited)
        assert sum(arrival.method.endswith("GetView") for arrival in proxy.arrivals) == 1


async def test_a_command_without_its_sequence_is_not_resent(proxies: Proxies) -> None:
    """Only expected_sequence makes a resent command impossible to apply twice: without it the refusal is raised."""
    proxy = await proxies(refuse_first(1, 10, methods=("SubmitCommand",)))
    async with GameClient(proxy.address, retry=PATIENT) as client:
        created = await client.create_game(GAME, players=2, seed=SEED)
        seats: list[SeatHandle] = [client.seat(created.game_id, token) for token in created.tokens]
        view = await seats[0].view()
        seat = seats[view.to_act[0]]
        legal = await seat.legal_commands()
        with pytest.raises(RateLimited):
            await seat.submit(legal.commands[0])
        accepted = await seat.submit(legal.commands[0])  # a new call (another arrival): let through
        assert accepted.sequence > legal.sequence
    assert [arrival.nth for arrival in proxy.arrivals if arrival.method.endswith("SubmitCommand")] == [0, 1]


async def test_the_random_bot_and_the_sync_client_finish_under_refusals(proxies: Proxies) -> None:
    proxy = await proxies(refuse_first(1, 15))
    async with GameClient(proxy.address, retry=PATIENT) as client:
        created = await client.create_game(GAME, players=2, seed=SEED)
        seats = [client.seat(created.game_id, token) for token in created.tokens]
        bots = [RandomBot(seat, seed=i) for i, seat in enumerate(seats)]
        outcomes = await asyncio.wait_for(asyncio.gather(*(bot.run() for bot in bots)), 120)
    assert all(outcome.over for outcome in outcomes)

    def blocking() -> bool:
        with SyncGameClient(proxy.address, retry=PATIENT) as sync:
            made = sync.create_game(GAME, seed=SEED + 1)
            return sync.seat(made.game_id, made.tokens[0]).view().game == GAME

    assert await asyncio.to_thread(blocking)
    no_early_resend(proxy)



async def test_the_random_bot_outlasts_its_clients_bounds(proxies: Proxies) -> None:
    """Each call refused three times, a client that resends only once: the client raises RateLimited, the bot
    waits the hint again and looks again (the same sequence: nothing applied twice), and finishes the match."""
    proxy = await proxies(refuse_first(3, 10))
    async with GameClient(proxy.address, retry=PATIENT) as client:
        created = await client.create_game(GAME, players=2, seed=SEED)
    async with GameClient(proxy.address, retry=Retry(call_timeout=5.0, refusals=1)) as client:
        bots = [RandomBot(client.seat(created.game_id, token), seed=i) for i, token in enumerate(created.tokens)]
        finals = await asyncio.wait_for(asyncio.gather(*(bot.run() for bot in bots)), 120)
    assert all(final.over for final in finals)
    assert max(arrival.nth for arrival in proxy.refused()) == 2
    no_early_resend(proxy)
