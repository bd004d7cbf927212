"""Every option's bounds, and matches played at them: scores and counters always fit the wire.

Per game: each integer option at its lowest and highest accepted value is accepted (by the
engine and by CreateGame over gRPC, and its log header reads it back), one past each is
refused with INVALID_ARGUMENT naming the option and its range. Matches with every numeric
option at an extreme, from match positions near the top that the bounds allow (a deck
start's match keys for the engine; the same keys set on the live game for the service),
are played to their end: every event and every viewer's view encodes, and over gRPC every
GetView, GetLog and Watch of every viewer answers. Last, a batch the wire cannot carry (a
game holding options from before the bounds) is refused, nothing is written, and the game
stays readable.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import UUID

import grpc
import msgspec
import pytest
from cardgames import wire
from cardgames.engine.all_fours import config as all_fours_config
from cardgames.engine.contract_rummy import config as rummy_config
from cardgames.engine.core.cards import RANKS
from cardgames.engine.core.options import IntRange
from cardgames.engine.core.protocol import OptionsError, Rejection, Setup
from cardgames.engine.core.registry import get_game
from cardgames.engine.core.replay import fold, new_match
from cardgames.engine.seep import config as seep_config
from cardgames.service.grpc_api import TOKEN_METADATA
from cardgames.service.server import Running
from cardgames.v1 import game_service_pb2
from google.rpc import error_details_pb2
from grpc_status import rpc_status

pb = game_service_pb2
SEED = "b0" * 32
M, G = 10**6, 10**9
INT32 = 2**31 - 1
CONFIGS = {"all_fours": all_fours_config, "seep": seep_config, "contract_rummy": rummy_config}


def option_bounds(game: str) -> Iterator[tuple[str, IntRange]]:
    """Every integer option of the game with its bounds (at the default table: 4 players)."""
    yield from CONFIGS[game].BOUNDS.items()


def edges(bounds: IntRange) -> tuple[list[int], list[int]]:
    """The values to accept (lowest, highest) and to refuse (one past each)."""
    return [bounds.low, bounds.high], [bounds.low - 1, bounds.high + 1]


# ---------------------------------------------------------------------------
# The options' extremes, in the engine.


@pytest.mark.parametrize("game", sorted(CONFIGS))
def test_every_integer_option_is_bounded_and_the_refusal_names_it_and_its_range(game: str) -> None:
    rules = get_game(game)
    for key, bounds in option_bounds(game):
        accepted, refused = edges(bounds)
        for value in accepted:
            assert getattr(rules.make_config({key: value}, None), key) == value
        wrong: list[object] = [*refused, 2**31, -(2**31) - 1, 10**100, True, 1.0, "1"]
        for bad in wrong:
            with pytest.raises(OptionsError) as caught:
                rules.make_config({key: bad}, None)
            assert key in str(caught.value) and str(bounds) in str(caught.value), (key, bad, caught.value)


def test_all_fours_kick_values_are_bounded_per_rank() -> None:
    points = all_fours_config.POINTS
    every = {rank: points.high for rank in RANKS}
    assert all_fours_config.make_config({"kick_values": every}, None).kick_values == every
    assert all_fours_config.make_config({"kick_values": {"A": points.low}}, None).kick_values == {"A": 0}
    for value in (points.low - 1, points.high + 1):
        with pytest.raises(OptionsError, match=r"kick_values\['J'\] must be an integer in 0\.\.1,000,000"):
            all_fours_config.make_config({"kick_values": {"J": value}}, None)


def test_contract_rummy_hand_sizes_fit_the_deck_and_max_stock_refills_is_never_negative() -> None:
    make = rummy_config.make_config
    assert make({"hand_sizes": [1] * 7}, None).hand_sizes == (1,) * 7
    assert make({"hand_sizes": [12] * 7}, 4).hand_sizes == (12,) * 7  # 4 x 12 + 2 = 50 <= 53
    with pytest.raises(OptionsError, match=r"hand_sizes must be 7 integers in 1\.\.12 for 4 players"):
        make({"hand_sizes": [13] * 7}, 4)
    largest = rummy_config.MAX_HAND
    assert make({"hand_sizes": [largest] * 7, "deck_policy": "classic"}, 3).hand_sizes == (largest,) * 7
    for sizes in ([0] * 7, [largest + 1] * 7, [1] * 6, [1] * 8):
        with pytest.raises(OptionsError, match=rf"hand_sizes must be 7 integers in 1\.\.{largest}"):
            make({"hand_sizes": sizes, "deck_policy": "classic"}, 3)
    assert make({"max_stock_refills": None}, None).max_stock_refills is None
    for value in (-1, -2):  # the rules: an integer >= 0, or null
        with pytest.raises(OptionsError, match=r"max_stock_refills must be an integer in 0\.\.1,000,000 or null"):
            make({"max_stock_refills": value}, None)
    for seat in (-1, 8, "-1", "\u0663", "\xb2", "08 "):  # a seat of the largest table, in ASCII digits
        with pytest.raises(OptionsError, match="first_dealer"):
            make({"first_dealer": seat, "allow_six_to_eight": True, "players": 8}, None)
    assert make({"first_dealer": "07", "allow_six_to_eight": True}, 8).first_dealer == "7"


def test_docs_list_every_option_with_its_range() -> None:
    """docs/service.md, "Options and their ranges": a table per game, its rows as the configs say."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "service.md").read_text()
    section = text.split("## Options and their ranges", 1)[1].split("\n## ", 1)[0]
    titles = {"all_fours": "All Fours", "seep": "Seep", "contract_rummy": "Contract Rummy"}
    for game, config in CONFIGS.items():
        table = section.split(f"### {titles[game]}\n", 1)[1].split("\n### ", 1)[0]
        rows = {line.split("|")[1].strip(" `"): line.split("|")[3] for line in table.splitlines()
                if line.startswith("| `")}
        assert set(rows) == set(config.Config.__struct_fields__)
        for key, bounds in config.BOUNDS.items():
            assert f"`{bounds}`" in rows[key], key
        for key, values in config.CHOICES.items():
            assert [value.strip(" `") for value in rows[key].split(",")] == list(values), key
        for key in config.FLAGS:
            assert rows[key].strip() == "`true`, `false`", key


# ---------------------------------------------------------------------------
# Matches at the extremes, in the engine: every event and every view encodes.

ALL_RANKS_MAX = {rank: M for rank in RANKS}
#: (game, players, options, match keys before the first deal) with every numeric option at one end,
#: starting as near the top as the bounds allow (each game's config.py says why the top is there).
MATCHES: list[tuple[str, int, dict[str, Any], dict[str, Any]]] = [
    ("all_fours", 4, {"target_score": G, "kick_values": ALL_RANKS_MAX, "give_one_points": M,
                      "hang_jack_points": M, "game_point_value": M}, {"scores": [G - 1, G - 1]}),
    ("all_fours", 2, {"target_score": G, "kick_values": {}, "give_one_points": M, "hang_jack_points": M,
                      "game_point_value": M}, {"scores": [G - 1, G - 1]}),
    ("all_fours", 4, {"target_score": 1, "kick_values": {}, "give_one_points": 0, "hang_jack_points": 0,
                      "game_point_value": 0}, {}),
    ("seep", 4, {"sweep_points": M, "opening_sweep_points": M, "last_play_sweep_points": M,
                 "ten_of_diamonds_points": M, "majority_cards_bonus": M, "minimum_deal_points": -G,
                 "baazi_lead": G, "baazis_to_play": M, "max_houses_on_floor": M},
     {"difference": G - 1, "baazis": [M - 1, 0]}),
    ("seep", 4, {"sweep_points": -M, "opening_sweep_points": -M, "last_play_sweep_points": -M,
                 "ten_of_diamonds_points": -M, "majority_cards_bonus": -M, "minimum_deal_points": G,
                 "baazi_lead": G, "baazis_to_play": M, "max_houses_on_floor": 1},
     {"difference": -(G - 1), "baazis": [0, M - 1]}),
    ("seep", 4, {"sweep_points": M, "minimum_deal_points": -G, "baazi_lead": 1, "baazis_to_play": 1}, {}),
    ("contract_rummy", 3, {"ace_value": M, "joker_value": M, "max_stock_refills": 0, "deck_policy": "classic"},
     {"deal": 7, "scores": [6 * 158 * M] * 3}),
    ("contract_rummy", 4, {"ace_value": -M, "joker_value": -M, "max_stock_refills": 0},
     {"deal": 7, "scores": [-6 * 158 * M] * 4}),
]
MATCH_IDS = [f"{game}-{index}" for index, (game, *_) in enumerate(MATCHES)]


def numbers(data: Any) -> Iterator[int]:
    """Every int in plain data."""
    if isinstance(data, bool):
        return
    if isinstance(data, int):
        yield data
    elif isinstance(data, dict):
        for value in data.values():
            yield from numbers(value)
    elif isinstance(data, list | tuple):
        for value in data:
            yield from numbers(value)


def encoded(game: str, kind: type[Any], value: Any) -> Any:
    """``value`` through its wire message and back (raises when it does not fit)."""
    return wire.from_message(getattr(wire.wrap(kind, game, msgspec.to_builtins(value)), game))


@pytest.mark.parametrize(("game", "players", "options", "match"), MATCHES, ids=MATCH_IDS)
def test_random_matches_at_the_extremes_encode_every_event_and_view(
    game: str, players: int, options: dict[str, Any], match: dict[str, Any]
) -> None:
    rules = get_game(game)
    config = rules.make_config(options, players)
    largest = 0
    for seed in range(3):
        rng = random.Random(seed)
        state, events = new_match(rules, config, Setup(seed=f"{seed:064x}", match=match))
        for _ in range(600):
            for event in events:
                largest = max(largest, *map(abs, numbers(encoded(game, wire.Event, event))), 0)
            for viewer in (None, *range(players)):
                largest = max(largest, *map(abs, numbers(encoded(game, wire.View, rules.view(state, viewer)))), 0)
            if rules.is_over(state):
                break
            seat = rng.choice(list(rules.to_act(state)))
            legal = rules.legal_commands(state, seat)
            outcome = rules.decide(state, seat, legal[rng.randrange(len(legal))])
            assert not isinstance(outcome, Rejection)
            events = list(outcome)
            state = fold(rules, state, events)
    assert largest <= INT32
    top = max(abs(value) for value in numbers(match)) if match else 1
    assert largest >= top  # the matches reached the numbers they were meant to try


# ---------------------------------------------------------------------------
# Over gRPC: the same extremes at CreateGame, and matches served to every viewer.



def auth(token: str | None) -> tuple[tuple[str, str], ...]:
    return ((TOKEN_METADATA, token),) if token else ()


def error_info(error: grpc.aio.AioRpcError) -> error_details_pb2.ErrorInfo:
    status = rpc_status.from_call(error)
    assert status is not None
    info = error_details_pb2.ErrorInfo()
    assert status.details[0].Unpack(info)
    return info


async def create(stub: Any, game: str, options: dict[str, Any], players: int | None = None) -> Any:
    request = pb.CreateGameRequest(game=game, seed=SEED, options=wire.wrap_options(game, options))
    if players is not None:
        request.players = players
    return await stub.CreateGame(request)


@pytest.mark.parametrize("game", sorted(CONFIGS))
async def test_create_game_takes_each_option_at_its_extremes_and_names_the_range_past_them(
    stub: Any, game: str
) -> None:
    for key, bounds in option_bounds(game):
        accepted, refused = edges(bounds)
        for value in accepted:
            created = await create(stub, game, {key: value})
            log = await stub.GetLog(pb.GetLogRequest(game_id=created.game_id))
            assert wire.options_dict(log.header.config)[key] == value  # the log header reads it back
            await stub.GetView(pb.GetViewRequest(game_id=created.game_id))
        if key == "max_stock_refills":
            refused[0] = -2  # on the wire -1 spells null (an unset field means the default)
        for value in refused:
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await create(stub, game, {key: value})
            assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert error_info(caught.value).reason == "INVALID_OPTIONS"
            details = caught.value.details() or ""
            assert key in details and str(bounds) in details, details


async def test_max_stock_refills_null_goes_over_the_wire_and_back(stub: Any) -> None:
    created = await create(stub, "contract_rummy", {"max_stock_refills": None})
    log = await stub.GetLog(pb.GetLogRequest(game_id=created.game_id))
    assert log.header.config.contract_rummy.max_stock_refills == -1
    assert wire.options_dict(log.header.config) == {**wire.options_dict(log.header.config), "max_stock_refills": None}
    default = await create(stub, "contract_rummy", {})
    log = await stub.GetLog(pb.GetLogRequest(game_id=default.game_id))
    assert wire.options_dict(log.header.config)["max_stock_refills"] == 3


async def read_all(stub: Any, game_id: str, viewers: list[str | None]) -> list[int]:
    """GetView and GetLog as every viewer (each must answer); every number they hold."""
    found: list[int] = []
    for token in viewers:
        view = await stub.GetView(pb.GetViewRequest(game_id=game_id), metadata=auth(token))
        log = await stub.GetLog(pb.GetLogRequest(game_id=game_id), metadata=auth(token))
        found.extend(numbers(wire.unwrap(view.view)[1]))
        found.extend(value for entry in log.events for value in numbers(wire.unwrap(entry.event)[1]))
    return found


async def watch_to_the_end(stub: Any, game_id: str, token: str | None) -> int:
    """Follow a Watch stream as one viewer until the match is over; the last sequence it saw."""
    last = 0
    async for item in stub.Watch(pb.WatchRequest(game_id=game_id), metadata=auth(token)):
        last = item.sequence
        if item.view.over:
            break
    return last


@pytest.mark.parametrize(("game", "players", "options", "match"), MATCHES, ids=MATCH_IDS)
async def test_matches_at_the_extremes_are_served_to_every_viewer(
    stub: Any, server: Running, game: str, players: int, options: dict[str, Any], match: dict[str, Any]
) -> None:
    rules = get_game(game)
    created = await create(stub, game, options, players)
    live = server.games.cache[UUID(created.game_id)]
    if not rules.is_over(live.state) and match:
        # The match keys near the top (the service starts every match from zero: a match long enough to
        # get there would take thousands of deals). They are public numbers of the live game's state.
        fields = {key: tuple(value) if isinstance(value, list) else value for key, value in match.items()}
        live.state = msgspec.structs.replace(live.state, game=msgspec.structs.replace(live.state.game, **fields))
    tokens = list(created.seat_tokens)
    viewers: list[str | None] = [None, *tokens]
    watchers = [asyncio.create_task(watch_to_the_end(stub, created.game_id, token)) for token in viewers]
    rng = random.Random(7)
    sequence = created.sequence
    for step in range(400):
        view = (await stub.GetView(pb.GetViewRequest(game_id=created.game_id))).view
        if view.over:
            break
        seat = rng.choice(list(view.to_act))
        legal = await stub.ListLegalCommands(pb.ListLegalCommandsRequest(game_id=created.game_id),
                                             metadata=auth(tokens[seat]))
        command = legal.commands[rng.randrange(len(legal.commands))]
        sequence = (await stub.SubmitCommand(pb.SubmitCommandRequest(game_id=created.game_id, command=command),
                                             metadata=auth(tokens[seat]))).sequence
        if step % 50 == 0:
            await read_all(stub, created.game_id, viewers)
    found = await read_all(stub, created.game_id, viewers)
    assert max(map(abs, found)) <= INT32
    over = (await stub.GetView(pb.GetViewRequest(game_id=created.game_id))).view.over
    if over:
        assert await asyncio.gather(*watchers) == [sequence] * len(viewers)  # every stream saw the end
    else:
        for watcher in watchers:
            watcher.cancel()
        await asyncio.gather(*watchers, return_exceptions=True)


async def test_a_batch_the_wire_cannot_carry_is_refused_and_the_game_stays_readable(
    stub: Any, server: Running
) -> None:
    """A game created before the bounds (All Fours target 2^31-1, give one worth 2^30) at 2^31-2 all:
    the give one would push a score past int32. It is refused (OUT_OF_RANGE), nothing is written, and
    every view, the log and the streams still answer (they answered UNKNOWN for good before)."""
    created = await create(stub, "all_fours", {"players": 2})
    live = server.games.cache[UUID(created.game_id)]
    config = msgspec.structs.replace(live.state.config, target_score=INT32, give_one_points=2**30)
    game_state = msgspec.structs.replace(live.state.game, config=config, scores=(INT32 - 1, INT32 - 1))
    live.state = msgspec.structs.replace(live.state, game=game_state)
    tokens = list(created.seat_tokens)
    state = live.state
    eldest, dealer = (state.dealer + 1) % 2, state.dealer
    if state.phase != "beg":
        pytest.skip("the first turn-up of this seed did not leave the beg phase")
    await stub.SubmitCommand(pb.SubmitCommandRequest(game_id=created.game_id,
                                                     command=wire.wrap_command("all_fours", {"type": "beg"})),
                             metadata=auth(tokens[eldest]))
    before = (await stub.GetLog(pb.GetLogRequest(game_id=created.game_id))).sequence
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await stub.SubmitCommand(pb.SubmitCommandRequest(
            game_id=created.game_id, command=wire.wrap_command("all_fours", {"type": "give_one"})),
            metadata=auth(tokens[dealer]))
    assert caught.value.code() == grpc.StatusCode.OUT_OF_RANGE
    info = error_info(caught.value)
    assert info.reason == "OUT_OF_RANGE" and "AllFours" in info.metadata["field"]
    assert "nothing written" in (caught.value.details() or "")
    assert (await stub.GetLog(pb.GetLogRequest(game_id=created.game_id))).sequence == before
    assert live.sequence == before
    await read_all(stub, created.game_id, [None, *tokens])
    stream = stub.Watch(pb.WatchRequest(game_id=created.game_id, after_sequence=0))
    first = await anext(stream.__aiter__())
    assert first.sequence == before and len(first.events) == before
    stream.cancel()
