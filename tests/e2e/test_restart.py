"""A whole All Fours match survives ``kill -9`` of the server, twice, with no accepted move lost.

The real ``cardgames serve`` runs as a child process on a SQLite file. Four clients, each
holding only its own seat's token, play the match with random bots. The server is killed
(SIGKILL) mid-match and restarted on the same port and file; the bots' watches reconnect
and resume by themselves. At the end the log must hold exactly the commands the service
accepted (plus, at most, a command whose answer the kill swallowed), in order, and every
bot must have seen every event once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from cardgames.clients import Accepted, GameClient, LogEvent, Retry, Update
from cardgames.clients.bots import RandomBot
from tests.e2e.server_process import ServerProcess

GAME = "all_fours"
SEED = 11
#: Accepted commands before each kill (a match of this seed takes well over 100).
KILL_AFTER = (25, 70)


def command_of(event: Mapping[str, Any]) -> tuple[int, dict[str, Any]] | None:
    """The (seat, command) an All Fours player event records, for the first event of a command."""
    kind = event["type"]
    if kind == "card_played":
        return event["seat"], {"type": "play", "card": event["card"]}
    if kind in ("stood", "begged"):
        return event["seat"], {"type": "stand" if kind == "stood" else "beg"}
    if kind in ("gave_one", "pack_run"):
        return event["dealer"], {"type": "give_one" if kind == "gave_one" else "run_pack"}
    if kind == "card_exposed":
        return event["seat"], {"type": "play", "card": event["card"]}
    if kind == "exposed_card_called":
        return event["caller"], {"type": "call", "owner": event["owner"], "card": event["card"]}
    return None


async def until(condition: Callable[[], bool], timeout: float = 60.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        assert loop.time() < deadline, "timed out"
        await asyncio.sleep(0.005)


async def test_a_match_survives_kill_9_and_restarts(tmp_path: Path) -> None:
    store = f"sqlite://{tmp_path}/games.sqlite"
    server = await ServerProcess.start(store, tmp_path)
    port = server.port
    address = f"127.0.0.1:{port}"
    async with GameClient(address) as admin:
        created = await admin.create_game(GAME, players=4, seed=SEED)

    accepted: list[tuple[int, dict[str, Any], Accepted]] = []
    updates: dict[int, list[Update]] = {seat: [] for seat in range(4)}

    def recorder(seat: int) -> Callable[[Mapping[str, Any], Accepted], None]:
        return lambda command, answer: accepted.append((seat, dict(command), answer))

    clients = [GameClient(address, retry=Retry(timeout=60)) for _ in range(4)]  # one connection each
    bots = [
        RandomBot(clients[seat].seat(created.game_id, token), seed=seat, on_accepted=recorder(seat),
                  on_update=updates[seat].append, after_sequence=created.sequence)  # sees every event
        for seat, token in enumerate(created.tokens)
    ]
    tasks = [asyncio.create_task(bot.run()) for bot in bots]
    try:
        for threshold in KILL_AFTER:
            def reached(threshold: int = threshold) -> bool:
                return len(accepted) >= threshold or any(task.done() for task in tasks)

            await until(reached)
            assert not any(task.done() for task in tasks), "the match ended (or a bot failed) before the kill"
            await server.kill()
            await asyncio.sleep(0.2)  # the bots find the service gone meanwhile
            server = await ServerProcess.start(store, tmp_path, port=port)
        finals = await asyncio.wait_for(asyncio.gather(*tasks), 120)
        async with GameClient(address) as reader:
            log = await reader.spectator(created.game_id).log()
    finally:
        for task in tasks:
            task.cancel()
        for client in clients:
            await client.close()
        await server.kill()

    assert all(final.over and final.sequence == log.sequence for final in finals)
    events: dict[int, LogEvent] = {event.sequence: event for event in log.events}
    assert list(events) == list(range(1, log.sequence + 1)) and not any(e.redacted for e in log.events)

    def player(first: int, last: int) -> tuple[int, dict[str, Any]] | None:
        """The command a batch of events records (its first player event)."""
        return next((found for n in range(first, last + 1) if (found := command_of(events[n].event))), None)

    # Every accepted command is in the log, at the sequences the service answered, with the same events.
    ends: dict[int, int] = {}
    for seat, command, answer in accepted:
        first = answer.sequence - len(answer.events) + 1
        assert [event.sequence for event in answer.events] == list(range(first, answer.sequence + 1))
        for event in answer.events:
            logged = events[event.sequence]
            assert logged.type == event.type
            if not event.redacted:
                assert logged.event == event.event
        assert player(first, answer.sequence) == (seat, command)
        ends[first] = answer.sequence

    # And nothing else: after the deal, the log is the accepted batches one after the other,
    # except where a kill swallowed an answer (that command's batch then runs to the next one).
    unanswered = {expected + 1: (bot.seat.seat, dict(command)) for bot in bots for command, expected in bot.unanswered}
    answered_in_log, swallowed = [], []
    first = created.sequence + 1
    while first <= log.sequence:
        last = ends.get(first)
        if last is None:
            last = next((n - 1 for n in range(first + 1, log.sequence + 1) if n in ends), log.sequence)
            assert unanswered.get(first) == player(first, last), (first, unanswered)
            swallowed.append(first)
        else:
            answered_in_log.append(player(first, last))
        first = last + 1
    in_order = [(seat, command) for seat, command, _ in sorted(accepted, key=lambda item: item[2].sequence)]
    assert answered_in_log == in_order  # the accepted commands are the log's player events, in order
    assert len(swallowed) <= len(KILL_AFTER)  # at most one swallowed answer per kill

    # Every bot saw every event exactly once, across both restarts, and resumed its watch.
    for seat, seen in updates.items():
        sequences = [event.sequence for update in seen for event in update.events]
        assert sequences == list(range(created.sequence + 1, log.sequence + 1)), seat
        assert sum(update.resumed for update in seen) >= len(KILL_AFTER), seat
