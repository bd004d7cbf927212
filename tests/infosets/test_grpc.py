"""No answer depends on an unseen card, over gRPC against a real server on localhost (port 0).

The same check as test_engine.py at fewer positions (their first commands, so that each world
is quick to reach over the wire), through the service's own doors. For each viewer (every
seat, with its token, and a spectator, with none) and one redeal of what it cannot see
(tests/infosets/worlds.py): two games are created, one with the position's own shuffle orders
stacked and one with the redeal's, both with the match's seed (so the seed commitment and every
later shuffle are the same), and the position's command history is sent to each with the seats'
tokens. Then the viewer is told, in both games: GetView, ListLegalCommands and GetLog (as that
viewer), and the answers to a battery of SubmitCommand calls (tests/infosets/batteries.py)
naming any card: gRPC status code, status message and every error detail (google.rpc ErrorInfo
with its metadata, the cardgames Rejection, BadRequest or any other). They must be the same.

What is left out of the comparison, and why:

* the game id, the chain hashes of the log (``hash``, ``head``, the header's ``genesis``): each
  game's chain starts from its own id, so they differ between any two games; a hash commits to
  every event, hidden ones included, under a salt derived from the server's secret seed, so it
  shows nothing of them until the seed is revealed at the end (docs/log-format.md);
* the All Fours A14 exception, exactly as in test_engine.py (worlds.disclosed);
* an accepted command moves the game on: in each game only one of the battery's accepted
  commands is sent, the last (the first that both worlds accept), and of its answer the sequence
  and the kinds of its events are compared (the events may show the viewer cards it could not
  see before: a card drawn, the next deal); whether the others are accepted is the engine's
  answer, which test_engine.py compares.
"""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
from google.protobuf.json_format import MessageToDict
from google.protobuf.message import Message
from grpc_status import rpc_status

import cardgames.engine.all_fours as all_fours
from cardgames import wire
from cardgames.engine.core.commands import to_dict
from cardgames.engine.core.protocol import PUBLIC, Rejection, Viewer
from cardgames.service.grpc_api import TOKEN_METADATA
from cardgames.service.server import start
from cardgames.service.store import EventStore
from cardgames.v1 import common_pb2, game_service_pb2, game_service_pb2_grpc
from tests.infosets.batteries import battery
from tests.infosets.check import redeal_world, viewers
from tests.infosets.old_rules import old_decide
from tests.infosets.worlds import GAMES, Position, Stats, disclosed, disclosed_calls, parsed, positions

pb = game_service_pb2
pytestmark = pytest.mark.slow

#: Positions per game, among the first ``WITHIN`` commands of their matches, and commands per battery.
POSITIONS = {"all_fours": 16, "seep": 12, "contract_rummy": 12}
WITHIN = 24
BATTERY = 24
#: Keys that differ between any two games (see the module).
PER_GAME = frozenset({"game_id", "hash", "head", "genesis"})


@pytest.fixture
async def stub() -> AsyncIterator[game_service_pb2_grpc.GameServiceStub]:
    store = EventStore.from_url("memory:")
    running = await start("127.0.0.1:0", store)
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            yield game_service_pb2_grpc.GameServiceStub(channel)
    finally:
        await running.stop(grace=None)
        store.close()


def auth(token: str | None) -> tuple[tuple[str, str], ...]:
    return ((TOKEN_METADATA, token),) if token else ()


def plain(message: Message) -> Any:
    """A message as plain data, without what differs between any two games."""
    return _without(MessageToDict(message, preserving_proto_field_name=True))


def _without(data: Any) -> Any:
    if isinstance(data, dict):
        return {key: _without(value) for key, value in data.items() if key not in PER_GAME}
    if isinstance(data, list):
        return [_without(item) for item in data]
    return data


def wire_options(game_name: str, options: dict[str, Any]) -> Any:
    """The option set as CreateGame takes it (null written as the wire says)."""
    sent = {key: value for key, value in options.items() if value is not None}
    if game_name == "seep" and sent.get("first_dealer") == "random":
        del sent["first_dealer"]  # unset is random
    if game_name == "contract_rummy" and options.get("max_stock_refills", 0) is None:
        sent["max_stock_refills"] = -1
    return wire.wrap_options(game_name, sent)


async def answer(call: Any) -> Any:
    """What a call is answered: its response, or its status code, message and every detail."""
    try:
        return ("ok", plain(await call))
    except grpc.aio.AioRpcError as error:
        status = rpc_status.from_call(error)
        details = plain(status) if status is not None else None
        return (error.code().name, error.details(), details)


async def world(stub: Any, position: Position, orders: list[tuple[str, ...]]) -> tuple[str, list[str]]:
    """A game at the position, its shuffles stacked with ``orders``: its id and seat tokens."""
    match = position.match
    created = await stub.CreateGame(
        pb.CreateGameRequest(
            game=match.game_name,
            options=wire_options(match.game_name, match.options),
            seed=match.seed,
            decks=[common_pb2.CardList(cards=order) for order in orders],
        )
    )
    tokens = list(created.seat_tokens)
    for seat, command, _ in match.steps[: position.at]:
        await stub.SubmitCommand(
            pb.SubmitCommandRequest(
                game_id=created.game_id, command=wire.wrap_command(match.game_name, to_dict(command))
            ),
            metadata=auth(tokens[seat]),
        )
    return created.game_id, tokens


async def told(
    stub: Any, game_name: str, game_id: str, token: str | None, commands: list[dict[str, Any]], send: list[int]
) -> dict[str, Any]:
    """Everything the viewer holding ``token`` is told: view, listing, log, and the answers to the
    commands at ``send`` (in that order)."""
    metadata = auth(token)
    told: dict[str, Any] = {
        "view": await answer(stub.GetView(pb.GetViewRequest(game_id=game_id), metadata=metadata)),
        "listing": await answer(
            stub.ListLegalCommands(pb.ListLegalCommandsRequest(game_id=game_id, page_size=200), metadata=metadata)
        ),
        "log": await answer(stub.GetLog(pb.GetLogRequest(game_id=game_id), metadata=metadata)),
    }
    for index in send:
        request = pb.SubmitCommandRequest(game_id=game_id, command=wire.wrap_command(game_name, commands[index]))
        told[f"command {index}"] = accepted(await answer(stub.SubmitCommand(request, metadata=metadata)))
    return told


def accepted(reply: Any) -> Any:
    """An accepted command's answer as far as it must be the same: the sequence and the kinds of its
    events (they may show the viewer cards it could not see before: a card drawn, a new deal)."""
    if reply[0] != "ok":
        return reply
    events = reply[1].get("events", [])
    return ("ok", reply[1]["sequence"], [sorted(entry["event"][next(iter(entry["event"]))]) for entry in events])


def _commands(position: Position, viewer: Viewer, rng: random.Random) -> list[dict[str, Any]]:
    """The viewer's battery (a spectator's: a few seat commands), the commands the wire can carry."""
    match = position.match
    rules = match.rules
    seat = 0 if viewer is None else viewer
    view = rules.view(position.state, seat)
    listing = [] if viewer is None else rules.legal_commands(position.state, viewer)
    listed = [to_dict(listing[i]) for i in rng.sample(range(len(listing)), min(4, len(listing)))]
    pool = [c for c in battery(match.game_name, match.config, view, [], rng) if _carried(match.game_name, c)]
    return rng.sample(pool, min(3 if viewer is None else BATTERY, len(pool))) + listed


def _carried(game_name: str, command: dict[str, Any]) -> bool:
    try:
        wire.wrap_command(game_name, command)
    except wire.WireError:
        return False
    return True


def _listed(reply: Any, exempt: list[Any]) -> list[Any]:
    """A listing's total and commands, less the disclosed calls (which it may hold or not)."""
    if reply[0] != "ok":
        return [reply]
    commands = reply[1].get("commands", [])
    kept = [command for command in commands if command not in exempt]
    return [int(reply[1].get("total", 0)) - (len(commands) - len(kept)), *kept]


def difference(
    base: dict[str, Any], other: dict[str, Any], commands: list[Any], exempt: set[int], calls: list[Any]
) -> str | None:
    """The first thing told differently, but for the disclosed ``calls`` (the battery's at ``exempt``)."""
    for key in ("view", "log"):
        if base[key] != other[key]:
            return f"{key}: {base[key]}\n  !=\n{other[key]}"
    for key in sorted(set(base) | set(other)):
        if not key.startswith("command"):
            continue
        index = int(key.split()[1])
        one, two = base.get(key), other.get(key)
        if index in exempt and (one is None or two is None or "ok" in (one[0], two[0])):
            continue  # accepted in one world (not sent, or sent) and refused in the other: disclosed
        if one != two:
            return f"SubmitCommand {commands[index]}: {one}\n  !=\n{two}"
    if _listed(base["listing"], calls) != _listed(other["listing"], calls):
        return f"listing: {base['listing']}\n  !=\n{other['listing']}"
    return None


async def grpc_check(stub: Any, game_name: str, count: int, seed: str) -> tuple[str | None, int]:
    """The check over gRPC at ``count`` positions: the first thing told differently (or None), and
    how many (position, viewer) pairs were compared."""
    rng = random.Random(seed)
    stats = Stats()
    compared = 0
    for position in positions(game_name, count, seed=seed, within=WITHIN):
        match = position.match
        rules = match.rules
        shuffles = position.shuffles
        first = shuffles[position.deal_of(len(shuffles) - 1)].step
        for viewer in viewers(match.config.players):
            found = redeal_world(position, viewer, rng, False, first, stats)
            if found is None:
                continue
            orders, redealt = found
            raw = _commands(position, viewer, rng)
            commands = parsed(rules, raw)
            accepted = [
                [viewer is not None and not isinstance(rules.decide(state, viewer, c), Rejection) for c in commands]
                for state in (position.state, redealt.state)
            ]
            both = [i for i in range(len(commands)) if accepted[0][i] and accepted[1][i]]
            answers = []
            for world_orders, world_accepted in zip(([s.order for s in shuffles], orders), accepted, strict=True):
                game_id, tokens = await world(stub, position, world_orders)
                send = [i for i in range(len(commands)) if not world_accepted[i]] + both[:1]
                token = None if viewer is None else tokens[viewer]
                answers.append(await told(stub, game_name, game_id, token, raw, send))
            exempt = disclosed(game_name, position.state, viewer, commands)
            wrapped = [plain(wire.wrap_command(game_name, command)) for command in raw]
            calls = [plain(wire.wrap_command(game_name, c)) for c in disclosed_calls(game_name, position.state, viewer)]
            found_difference = difference(answers[0], answers[1], wrapped, exempt, calls)
            compared += 1
            if found_difference is not None:
                who = "a spectator" if viewer is None else f"seat {viewer}"
                return (
                    f"over gRPC {who} is told something that depends on a card it cannot see: {found_difference}\n"
                    f"position: {position.describe()}"
                ), compared
    return None, compared


@pytest.mark.parametrize("game_name", GAMES)
async def test_no_answer_over_grpc_depends_on_an_unseen_card(stub: Any, game_name: str) -> None:
    found, compared = await grpc_check(stub, game_name, POSITIONS[game_name], f"grpc/{game_name}")
    assert found is None, found
    assert compared >= POSITIONS[game_name] * 3, compared


async def test_the_grpc_check_finds_the_old_call_leak(stub: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """All Fours before rules version 2 (tests/infosets/old_rules.py), through the server."""
    monkeypatch.setattr(all_fours, "decide", old_decide(call=True))
    found, _ = await grpc_check(stub, "all_fours", 4, "grpc/old-call")
    assert found is not None and "INVALID_ARGUMENT" in found and "does not hold" in found, found


async def test_the_grpc_check_finds_a_log_that_shows_a_hand(stub: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A log that showed everyone the cards dealt to a seat (the view still right)."""
    monkeypatch.setattr(all_fours, "audience", lambda event: PUBLIC)
    found, _ = await grpc_check(stub, "all_fours", 2, "grpc/log-leak")
    assert found is not None and found.startswith("over gRPC") and "log:" in found, found
