"""The Python client against an in-process server: calls, typed errors, watch and resume."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Awaitable, Callable
from pathlib import Path

import grpc
import pytest

from cardgames.clients import (
    AuthError,
    CardgamesError,
    CommandRejected,
    GameClient,
    GameNotFound,
    InvalidRequest,
    RateLimited,
    ResourceExhausted,
    Retry,
    SeatHandle,
    ServiceUnavailable,
    StaleSequence,
    seed_hex,
)
from cardgames.clients.errors import from_rpc_error
from cardgames.service.guards import Limits, limited_status
from cardgames.service.server import Running, start
from cardgames.service.store import EventStore
from tests.clients.conftest import FAST, GAME, SEED

NO_SUCH_GAME = "00000000-0000-0000-0000-000000000000"


async def seats_of(client: GameClient, players: int | None = None) -> tuple[str, list[SeatHandle], int]:
    created = await client.create_game(GAME, players=players, seed=SEED)
    return created.game_id, [client.seat(created.game_id, token) for token in created.tokens], created.sequence


async def step(seats: list[SeatHandle]) -> bool:
    """One command by the seat to act (its first legal one); False once the match is over."""
    view = await seats[0].view()
    if view.over:
        return False
    seat = seats[view.to_act[0]]
    legal = await seat.legal_commands()
    await seat.submit(legal.commands[0], expected_sequence=legal.sequence)
    return True


async def test_create_join_and_views(client: GameClient) -> None:
    created = await client.create_game(GAME, seed=SEED)
    assert created.game == GAME and len(created.tokens) == 4 and len(set(created.tokens)) == 4
    for number, token in enumerate(created.tokens):
        seat = await client.join(created.game_id, token)
        assert seat.seat == number and seat.game == GAME
        view = await seat.view()
        assert view.seat == number and view.game_id == created.game_id and view.sequence == created.sequence
        assert view.my_turn == (number in view.to_act) and not view.over
        assert len(view.data["hand"]) == view.data["hand_sizes"][number] > 0
    public = await client.spectator(created.game_id).view()
    assert public.seat is None and public.data["hand"] == [] and not public.my_turn
    earlier = await client.spectator(created.game_id).view(sequence=1)
    assert earlier.sequence == 1


async def test_seeds_a_person_gives_are_hashed(client: GameClient) -> None:
    assert seed_hex(7) == seed_hex("7") == hashlib.sha256(b"7").hexdigest()  # docs/shuffle.md
    assert seed_hex("AB" * 32) == "ab" * 32 and seed_hex("ab") == hashlib.sha256(b"ab").hexdigest()
    first = await client.create_game(GAME, seed=SEED)
    second = await client.create_game(GAME, seed=seed_hex(SEED))
    hand = (await client.seat(first.game_id, first.tokens[0]).view()).data["hand"]
    assert hand == (await client.seat(second.game_id, second.tokens[0]).view()).data["hand"]


async def test_options_players_and_stacked_decks(client: GameClient) -> None:
    created = await client.create_game(GAME, players=2, options={"target_score": 7}, seed=SEED, dealer=1)
    view = await client.spectator(created.game_id).view()
    assert len(created.tokens) == 2 and view.data["target_score"] == 7 and view.data["dealer"] == 1


async def test_legal_commands_and_submit(client: GameClient) -> None:
    _, seats, start_sequence = await seats_of(client)
    view = await seats[0].view()
    actor = seats[view.to_act[0]]
    legal = await actor.legal_commands()
    assert legal.sequence == start_sequence and legal.seat == view.to_act[0]
    assert legal.commands and all(isinstance(command, dict) and "type" in command for command in legal.commands)
    idle = seats[next(s for s in range(4) if s not in view.to_act)]
    assert (await idle.legal_commands()).commands == []
    accepted = await actor.submit(legal.commands[0], expected_sequence=legal.sequence)
    assert [event.sequence for event in accepted.events] == list(range(legal.sequence + 1, accepted.sequence + 1))
    assert accepted.events[0].type == accepted.events[0].event["type"]
    assert (await actor.view()).sequence == accepted.sequence


async def test_rejections_are_typed(client: GameClient) -> None:
    _, seats, start_sequence = await seats_of(client)
    view = await seats[0].view()
    actor = seats[view.to_act[0]]
    idle = seats[next(s for s in range(4) if s not in view.to_act)]
    hand = set(view.data["hand"]) if actor is seats[0] else set((await actor.view()).data["hand"])
    unheld = next(card for card in ("AS", "KH", "2C", "7D") if card not in hand)

    with pytest.raises(CommandRejected) as caught:
        await idle.submit({"type": "stand"})
    error = caught.value
    assert (error.code, error.reason, error.status) == ("not_your_turn", "NOT_YOUR_TURN",
                                                        grpc.StatusCode.FAILED_PRECONDITION)
    assert error.rule and error.message and "not_your_turn" in str(error)

    with pytest.raises(CommandRejected) as caught:
        await actor.submit({"type": "give_one"})
    assert caught.value.code == "illegal_move" and caught.value.rule

    with pytest.raises(CommandRejected) as caught:
        await actor.submit({"type": "play", "card": unheld})
    assert caught.value.code == "invalid_command" and caught.value.status == grpc.StatusCode.INVALID_ARGUMENT

    with pytest.raises(CommandRejected) as caught:  # refused by the client: no such message
        await actor.submit({"type": "checkmate"})
    assert caught.value.code == "invalid_command" and caught.value.status is None

    legal = await actor.legal_commands()
    with pytest.raises(StaleSequence) as stale:
        await actor.submit(legal.commands[0], expected_sequence=legal.sequence - 1)
    assert stale.value.latest == legal.sequence and stale.value.status == grpc.StatusCode.ABORTED
    assert (await actor.view()).sequence == start_sequence  # nothing was written
    await actor.submit({"type": "stand", "ignored": True}, expected_sequence=legal.sequence)  # extra keys ignored


async def test_auth_not_found_and_invalid_requests(client: GameClient) -> None:
    game_id, seats, _ = await seats_of(client)
    spectator, forged = client.spectator(game_id), client.seat(game_id, "forged")
    cases: list[tuple[Callable[[], Awaitable[object]], type[CardgamesError], str]] = [
        (lambda: spectator.submit({"type": "stand"}), AuthError, "TOKEN_REQUIRED"),
        (lambda: spectator.legal_commands(), AuthError, "TOKEN_REQUIRED"),
        (lambda: forged.view(), AuthError, "TOKEN_INVALID"),
        (lambda: client.join(game_id, "forged"), AuthError, "TOKEN_INVALID"),
        (lambda: client.seat(NO_SUCH_GAME, "x").view(), GameNotFound, "GAME_NOT_FOUND"),
        (lambda: client.spectator("not-an-id").log(), InvalidRequest, "INVALID_GAME_ID"),
        (lambda: client.create_game("chess"), InvalidRequest, "UNKNOWN_GAME"),
        (lambda: client.create_game(GAME, players=99), InvalidRequest, "INVALID_OPTIONS"),
        (lambda: client.create_game(GAME, options={"no_such_option": 1}), InvalidRequest, "INVALID_OPTIONS"),
        (lambda: client.create_game(GAME, options={"target_score": 0}), InvalidRequest, "INVALID_OPTIONS"),
        (lambda: client.create_game(GAME, dealer=9), InvalidRequest, "INVALID_SETUP"),
        (lambda: seats[0].view(sequence=10_000), InvalidRequest, "INVALID_SEQUENCE"),
    ]
    for call, kind, reason in cases:
        with pytest.raises(kind) as caught:
            await call()
        assert caught.value.reason == reason, (reason, caught.value)


async def test_watch_then_resume_after_a_sequence(client: GameClient) -> None:
    _, seats, start_sequence = await seats_of(client)
    watch = seats[1].watch()
    first = await anext(watch)
    assert first.sequence == start_sequence and not first.events and first.view.seat == 1 and not first.resumed
    seen: list[int] = []
    for _ in range(3):
        await step(seats)
        update = await anext(watch)
        seen += [event.sequence for event in update.events]
        assert update.view.sequence == update.sequence
    await watch.aclose()
    last = seen[-1]
    for _ in range(3):
        await step(seats)
    resumed = seats[1].watch(after_sequence=last)
    catch_up = await anext(resumed)
    seen += [event.sequence for event in catch_up.events]
    await resumed.aclose()
    assert seen == list(range(start_sequence + 1, catch_up.sequence + 1))
    log = await seats[1].log(after_sequence=start_sequence)
    assert [event.sequence for event in log.events] == seen


async def test_a_watch_ends_with_the_match_and_log_shows_everything_then(client: GameClient) -> None:
    game_id, seats, start_sequence = await seats_of(client, players=2)
    spectator = client.spectator(game_id)
    during = await spectator.log()
    assert any(event.redacted for event in during.events)  # dealt cards and the seed are hidden

    async def watch() -> list[int]:
        return [event.sequence async for update in spectator.watch() for event in update.events]

    watching = asyncio.create_task(watch())
    await asyncio.sleep(0.05)
    while await step(seats):
        pass
    seen = await asyncio.wait_for(watching, 30)
    log = await spectator.log()
    assert seen == list(range(start_sequence + 1, log.sequence + 1))
    assert not any(event.redacted for event in log.events)
    assert [event.sequence for event in (await spectator.log(after_sequence=3, limit=2)).events] == [4, 5]
    with pytest.raises(CommandRejected) as caught:
        await seats[0].submit({"type": "stand"})
    assert caught.value.code == "game_over"


async def test_watch_and_reads_survive_a_server_restart(tmp_path: Path) -> None:
    url = f"sqlite://{tmp_path}/games.sqlite"
    running = await start("127.0.0.1:0", EventStore.from_url(url))
    port = running.port
    async with GameClient(f"127.0.0.1:{port}", retry=FAST) as client:
        _, seats, start_sequence = await seats_of(client)
        watch = seats[2].watch()
        updates = [await anext(watch)]
        await step(seats)
        updates.append(await anext(watch))
        await running.stop(grace=None)
        await asyncio.sleep(0.3)  # the service is away for a while
        running = await start(f"127.0.0.1:{port}", EventStore.from_url(url))
        try:
            view = await seats[0].view()  # a read simply waits for the service
            assert view.sequence == updates[-1].sequence
            for _ in range(3):
                await step(seats)
            while updates[-1].sequence < (await seats[0].view()).sequence:
                updates.append(await asyncio.wait_for(anext(watch), 10))
            await watch.aclose()
        finally:
            await running.stop(grace=None)
    assert any(update.resumed for update in updates)
    seen = [event.sequence for update in updates for event in update.events]
    assert seen == list(range(start_sequence + 1, updates[-1].sequence + 1))  # nothing missed or repeated


async def test_calls_give_up_when_the_service_stays_away(server: Running) -> None:
    port = server.port
    retry = Retry(timeout=0.4, initial=0.02, maximum=0.1, call_timeout=0.2)
    async with GameClient(f"127.0.0.1:{port}", retry=retry) as client:
        _, seats, _ = await seats_of(client)
        watch = seats[0].watch()
        await anext(watch)
        await server.stop(grace=None)
        with pytest.raises(ServiceUnavailable):
            await seats[0].view()
        with pytest.raises(ServiceUnavailable):  # the submit waited for a connection that never came
            await seats[0].submit({"type": "stand"})
        with pytest.raises(ServiceUnavailable):
            await anext(watch)


async def test_rate_limited_calls_wait_and_go_through() -> None:
    running = await start("127.0.0.1:0", EventStore.from_url("memory:"), limits=Limits(rate=20, burst=2))
    try:
        async with GameClient(f"127.0.0.1:{running.port}", retry=FAST) as client:
            game_id, seats, _ = await seats_of(client)
            views = [await seats[0].view() for _ in range(6)]  # beyond the burst: each waits its turn
            assert len({view.sequence for view in views}) == 1
        impatient = Retry(timeout=0.0, call_timeout=1.0)
        async with GameClient(f"127.0.0.1:{running.port}", retry=impatient) as client:
            with pytest.raises(RateLimited) as caught:
                for _ in range(5):
                    await client.seat(game_id, str(seats[0].token)).view()
            assert caught.value.retry_after > 0 and caught.value.status == grpc.StatusCode.RESOURCE_EXHAUSTED
    finally:
        await running.stop(grace=None)


def test_a_rate_limited_call_waits_what_the_status_says() -> None:
    """RetryInfo first, then the grpc-retry-pushback-ms trailer, then ErrorInfo's retry_after_ms."""

    def wait(trailers: tuple[tuple[str, str | bytes], ...]) -> float:
        limited = from_rpc_error(grpc.aio.AioRpcError(grpc.StatusCode.RESOURCE_EXHAUSTED, grpc.aio.Metadata(),
                                                      grpc.aio.Metadata(*trailers), "too many calls"))
        assert isinstance(limited, RateLimited)
        return limited.retry_after

    status = limited_status("too many calls", 250)
    assert wait(status.trailing_metadata) == 0.25
    details = tuple((key, value) for key, value in status.trailing_metadata if key == "grpc-status-details-bin")
    assert wait((*details, ("grpc-retry-pushback-ms", "5000"))) == 0.25
    assert wait((("grpc-retry-pushback-ms", "5000"),)) == 5.0


def test_errors_without_rich_details() -> None:
    def error(code: grpc.StatusCode) -> CardgamesError:
        return from_rpc_error(grpc.aio.AioRpcError(code, grpc.aio.Metadata(), grpc.aio.Metadata(), "details"))

    assert isinstance(error(grpc.StatusCode.UNAVAILABLE), ServiceUnavailable)
    assert isinstance(error(grpc.StatusCode.UNAUTHENTICATED), AuthError)
    assert isinstance(error(grpc.StatusCode.NOT_FOUND), GameNotFound)
    assert isinstance(error(grpc.StatusCode.INVALID_ARGUMENT), InvalidRequest)
    exhausted = error(grpc.StatusCode.RESOURCE_EXHAUSTED)  # no retry hint: not a RateLimited, never resent
    assert type(exhausted) is ResourceExhausted and exhausted.reason == "RESOURCE_EXHAUSTED"
    internal = error(grpc.StatusCode.INTERNAL)
    assert type(internal) is CardgamesError and internal.reason == "INTERNAL" and internal.message == "details"
