"""The random bot: whole matches through the client, reproducible with seeds, own seat only."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Mapping
from typing import Any

import pytest

from cardgames.clients import Accepted, CommandRejected, GameClient, LegalCommands, Update, View
from cardgames.clients.bots import RandomBot
from cardgames.clients.sync import SyncGameClient
from cardgames.service.server import Running
from tests.clients.conftest import GAME, SEED


async def play(client: GameClient, players: int = 4, bot_seed: int = 0) -> tuple[list[RandomBot], list[View], Any]:
    created = await client.create_game(GAME, players=players, seed=SEED)
    bots = [RandomBot(client.seat(created.game_id, token), seed=f"{bot_seed}:{seat}")
            for seat, token in enumerate(created.tokens)]
    finals = await asyncio.wait_for(asyncio.gather(*(bot.run() for bot in bots)), 60)
    return bots, finals, await client.spectator(created.game_id).log()


async def test_random_bots_play_a_whole_match(client: GameClient) -> None:
    bots, finals, log = await play(client)
    assert all(view.over and view.sequence == log.sequence for view in finals)
    assert [view.seat for view in finals] == [0, 1, 2, 3]
    accepted = sorted((answer.events[0].sequence, answer.sequence) for bot in bots for _, answer in bot.accepted)
    for (_, last), (first, _) in itertools.pairwise(accepted):
        assert first == last + 1  # the bots' commands account for every event after the deal
    assert accepted[-1][1] == log.sequence
    assert all(not bot.unanswered for bot in bots)


async def test_the_same_seeds_give_the_same_match(client: GameClient) -> None:
    _, _, first = await play(client, players=2)
    _, _, again = await play(client, players=2)
    _, _, other = await play(client, players=2, bot_seed=1)
    assert [event.event for event in first.events] == [event.event for event in again.events]
    assert [event.event for event in first.events] != [event.event for event in other.events]


async def test_hooks_choose_and_a_stale_view(client: GameClient) -> None:
    created = await client.create_game(GAME, seed=SEED)
    seen: list[Update] = []
    sent: list[Mapping[str, Any]] = []

    class FirstChoice(RandomBot):
        def choose(self, view: View, commands: list[dict[str, Any]]) -> dict[str, Any]:
            return commands[0]

    def record(command: Mapping[str, Any], answer: Accepted) -> None:
        sent.append(command)

    bots = [FirstChoice(client.seat(created.game_id, token), on_accepted=record, on_update=seen.append)
            for token in created.tokens]
    view = await bots[0].seat.view()
    actor = bots[view.to_act[0]]
    first = (await actor.seat.legal_commands()).commands[0]
    await actor.act(view)
    assert sent == [first]
    await actor.act(view)  # the game has moved past this view: nothing is sent
    assert len(sent) == 1
    await asyncio.gather(*(bot.run() for bot in bots))
    assert sum(len(bot.accepted) for bot in bots) == len(sent) and seen[-1].view.over


async def test_the_sync_client(server: Running) -> None:
    def run() -> list[int]:
        with SyncGameClient(f"127.0.0.1:{server.port}") as client:
            created = client.create_game(GAME, seed=SEED, players=2)
            seats = [client.seat(created.game_id, token) for token in created.tokens]
            view = seats[0].view()
            assert seats[0].seat == 0
            actor = seats[view.to_act[0]]
            legal = actor.legal_commands()
            accepted = actor.submit(legal.commands[0], expected_sequence=legal.sequence)
            watch = seats[1].watch(after_sequence=created.sequence)
            update = next(watch)
            watch.close()
            assert update.sequence == accepted.sequence
            assert client.spectator(created.game_id).log().sequence == accepted.sequence
            return [event.sequence for event in update.events]

    sequences = await asyncio.to_thread(run)
    assert sequences and sequences == sorted(sequences)


class _RefusingSeat:
    """A seat whose every submit is refused with ``reason`` (no service needed)."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        self.client = GameClient("127.0.0.1:1")

    async def legal_commands(self) -> LegalCommands:
        return LegalCommands(5, 0, [{"type": "stand"}])

    async def submit(self, command: Mapping[str, Any], expected_sequence: int | None = None) -> Accepted:
        raise CommandRejected("not_your_turn", "clock", "late", reason=self.reason)


async def test_a_passed_deadline_is_absorbed_other_rejections_raise() -> None:
    view = View("g", GAME, 5, 0, (0,), False, {})
    late = RandomBot(_RefusingSeat("DEADLINE_PASSED"))  # type: ignore[arg-type]
    await late.act(view)  # the clock's consequence comes through the watch: nothing to do
    assert late.accepted == []
    broken = RandomBot(_RefusingSeat("NOT_YOUR_TURN"))  # type: ignore[arg-type]
    with pytest.raises(CommandRejected):  # a listed command refused by the rules is a bug
        await broken.act(view)
    await late.seat.client.close()
    await broken.seat.client.close()
