"""The wire converter (cardgames.wire) and the MIRROR check: every game's structs match its proto.

MIRROR: for every registered game whose package is present, every command, event, view
and nested struct (walked through msgspec's type info) must have a proto message with
the same field names and compatible kinds, so a game that drifts from its proto fails here.
"""

from __future__ import annotations

import json
import random
from typing import Any

import msgspec
import pytest
from google.protobuf.descriptor import FieldDescriptor

from cardgames import wire
from cardgames.engine.core.commands import parse_command
from cardgames.engine.core.events import MatchSeeded, Shuffled, match_seeded, redact_core
from cardgames.engine.core.protocol import GameRules, Setup
from cardgames.engine.core.registry import GAME_MODULES, get_game
from cardgames.engine.core.replay import new_match
from cardgames.v1 import common_pb2, game_service_pb2

mi = msgspec.inspect

# ---------------------------------------------------------------------------
# Which games are ready (their package is present and exports the protocol).


def ready_games() -> list[str]:
    names = []
    for name in sorted(GAME_MODULES):
        try:
            game = get_game(name)
        except ModuleNotFoundError:
            continue
        if all(hasattr(game, attr) for attr in ("NAME", "Command", "Event", "View", "Config", "start")):
            names.append(name)
    return names


READY = ready_games()
needs_games = pytest.mark.skipif(not READY, reason="no game package is ready yet")

# ---------------------------------------------------------------------------
# The MIRROR check.

_INT_TYPES = {
    FieldDescriptor.TYPE_INT32, FieldDescriptor.TYPE_INT64, FieldDescriptor.TYPE_SINT32,
    FieldDescriptor.TYPE_SINT64, FieldDescriptor.TYPE_UINT32, FieldDescriptor.TYPE_UINT64,
}


def _strip_none(info: mi.Type) -> tuple[mi.Type, bool]:
    if isinstance(info, mi.UnionType):
        rest = tuple(t for t in info.types if not isinstance(t, mi.NoneType))
        if len(rest) < len(info.types):
            return (rest[0] if len(rest) == 1 else mi.UnionType(rest)), True
    return info, False


def _is_list(info: mi.Type) -> bool:
    return isinstance(info, mi.ListType | mi.VarTupleType | mi.TupleType | mi.SetType | mi.FrozenSetType)


def _item(info: Any) -> mi.Type:
    if isinstance(info, mi.TupleType):
        kinds = {repr(t) for t in info.item_types}
        assert len(kinds) == 1, f"a fixed tuple of mixed types has no proto form: {info}"
        return info.item_types[0]
    return info.item_type


def mirror_problems(info: mi.Type, descriptor: Any, where: str) -> list[str]:
    """Differences between a msgspec type (a struct or a tagged union) and a message."""
    info, _ = _strip_none(info)
    if isinstance(info, mi.UnionType):
        oneof = wire.union_oneof(descriptor)
        if oneof is None:
            return [f"{where}: {descriptor.full_name} should be a message with one oneof (a tagged union)"]
        problems = []
        members = {field.name: field for field in descriptor.oneofs_by_name[oneof].fields}
        for struct in info.types:
            if not isinstance(struct, mi.StructType) or struct.tag is None:
                problems.append(f"{where}: union member {struct} is not a tagged struct")
                continue
            field = members.pop(str(struct.tag), None)
            if field is None or field.type != FieldDescriptor.TYPE_MESSAGE:
                problems.append(f"{where}: {descriptor.full_name} has no oneof member {struct.tag!r}")
                continue
            problems += mirror_problems(struct, field.message_type, f"{where}.{struct.tag}")
        problems += [f"{where}: {descriptor.full_name}.{name} has no struct" for name in members]
        return problems
    if not isinstance(info, mi.StructType):
        return [f"{where}: expected a struct or a union, got {info}"]
    fields = {f.encode_name: f for f in info.fields}
    proto: dict[str, Any] = dict(descriptor.fields_by_name)
    problems = [f"{where}: {descriptor.full_name} lacks field {name!r}" for name in fields if name not in proto]
    problems += [f"{where}: {descriptor.full_name}.{name} is not a struct field"
                 for name in proto if name not in fields]
    for name, field in fields.items():
        if name in proto:
            problems += _field_problems(field.type, proto[name], f"{where}.{name}")
    return problems


def _field_problems(info: mi.Type, field: Any, where: str) -> list[str]:
    info, nullable = _strip_none(info)
    repeated = field.is_repeated and not (field.type == FieldDescriptor.TYPE_MESSAGE
                                          and field.message_type.GetOptions().map_entry)
    if nullable and not field.has_presence and not repeated:
        return [f"{where}: may be null, so the proto field needs presence (optional or a message)"]
    if isinstance(info, mi.DictType):
        wrapper = wire._map_field(field.message_type) if field.type == FieldDescriptor.TYPE_MESSAGE else None
        if wrapper is not None and not field.is_repeated:  # a map wrapper (AllFoursKickValuesMap): dict or null
            field = wrapper
        if not (field.type == FieldDescriptor.TYPE_MESSAGE and field.message_type.GetOptions().map_entry):
            return [f"{where}: a dict needs a map field (or a single *Map wrapper)"]
        return _field_problems(info.value_type, field.message_type.fields_by_name["value"], f"{where}[]")
    if _is_list(info):
        if nullable:  # a nullable list: a single list-wrapper message (IntList, CardList)
            if field.is_repeated or field.type != FieldDescriptor.TYPE_MESSAGE:
                return [f"{where}: a nullable list needs a single CardList/IntList field"]
            inner = wire._list_field(field.message_type)
            if inner is None:
                return [f"{where}: {field.message_type.full_name} is not a list wrapper"]
            return _field_problems(info, inner, where)
        if not field.is_repeated:
            return [f"{where}: a list needs a repeated field"]
        item = _item(info)
        if _is_list(item):  # a list of lists: repeated CardList / IntList
            inner = wire._list_field(field.message_type) if field.type == FieldDescriptor.TYPE_MESSAGE else None
            if inner is None:
                return [f"{where}: a list of lists needs repeated CardList or IntList"]
            return _field_problems(item, inner, f"{where}[]")
        return _scalar_or_message(item, field, f"{where}[]")
    if field.is_repeated:
        return [f"{where}: the proto field is repeated, the struct field is not a list"]
    return _scalar_or_message(info, field, where)


def _scalar_or_message(info: mi.Type, field: Any, where: str) -> list[str]:
    info, _ = _strip_none(info)
    if isinstance(info, mi.StructType | mi.UnionType):
        if field.type != FieldDescriptor.TYPE_MESSAGE:
            return [f"{where}: a struct needs a message field"]
        return mirror_problems(info, field.message_type, where)
    if isinstance(info, mi.StrType):
        ok = field.type in (FieldDescriptor.TYPE_STRING, FieldDescriptor.TYPE_ENUM)
    elif isinstance(info, mi.LiteralType | mi.EnumType):
        ok = field.type in (FieldDescriptor.TYPE_STRING, FieldDescriptor.TYPE_ENUM, *_INT_TYPES)
    elif isinstance(info, mi.BoolType):
        ok = field.type == FieldDescriptor.TYPE_BOOL
    elif isinstance(info, mi.IntType):
        ok = field.type in _INT_TYPES
    elif isinstance(info, mi.FloatType):
        ok = field.type in (FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT)
    elif isinstance(info, mi.AnyType):
        ok = True
    else:
        return [f"{where}: no proto form for {info}"]
    return [] if ok else [f"{where}: {info} does not fit proto type {field.type}"]


@needs_games
@pytest.mark.parametrize("name", READY)
def test_mirror_every_command_event_and_view_has_its_message(name: str) -> None:
    game = get_game(name)
    problems = mirror_problems(
        mi.type_info(game.Command), wire.game_message_type(game_service_pb2.Command, name).DESCRIPTOR, "Command"
    )
    problems += mirror_problems(
        mi.type_info(game.Event), wire.game_message_type(game_service_pb2.Event, name).DESCRIPTOR, "Event"
    )
    problems += mirror_problems(
        mi.type_info(game.View), wire.game_message_type(game_service_pb2.View, name).DESCRIPTOR, "View"
    )
    assert not problems, "\n".join(problems)


@needs_games
@pytest.mark.parametrize("name", READY)
def test_mirror_options_are_config_keys(name: str) -> None:
    game = get_game(name)
    config_info: Any = mi.type_info(game.Config)
    config = {f.encode_name: f for f in config_info.fields}
    options = wire.game_message_type(game_service_pb2.Options, name).DESCRIPTOR
    problems = [f"{name}Options.{f.name} is not a Config field" for f in options.fields if f.name not in config]
    problems += [f"{name}Options.{f.name} must be optional" for f in options.fields if not f.has_presence]
    assert not problems, "\n".join(problems)


def test_mirror_core_events() -> None:
    assert not mirror_problems(mi.type_info(MatchSeeded), common_pb2.MatchSeeded.DESCRIPTOR, "MatchSeeded")
    assert not mirror_problems(mi.type_info(Shuffled), common_pb2.Shuffled.DESCRIPTOR, "Shuffled")


def test_mirror_finds_drift() -> None:
    class Drifted(msgspec.Struct, frozen=True, tag="shuffled", tag_field="type"):
        shuffle_no: int
        size: str
        cards: tuple[str, ...] = ()

    problems = mirror_problems(mi.type_info(Drifted), common_pb2.Shuffled.DESCRIPTOR, "Drifted")
    assert any("lacks field 'cards'" in p for p in problems)
    assert any(".order is not a struct field" in p for p in problems)
    assert any("Drifted.size" in p for p in problems)


# ---------------------------------------------------------------------------
# Round trips on the shared messages.


def plain(value: Any) -> Any:
    """FORMAT.md plain data with lists for tuples (what JSON and the wire give back)."""
    return msgspec.json.decode(msgspec.json.encode(value))


def test_core_events_round_trip_in_full_and_redacted() -> None:
    seeded = match_seeded("ab" * 32, (("AS", "2S"), ("3S",)))
    shuffled = Shuffled(shuffle_no=0, size=2, order=("2S", "AS"))
    for event in (seeded, shuffled, redact_core(seeded), redact_core(shuffled)):
        data = plain(event)
        message_type = common_pb2.MatchSeeded if isinstance(event, MatchSeeded) else common_pb2.Shuffled
        message = wire.to_message(message_type, {k: v for k, v in data.items() if k != "type"})
        back = {"type": data["type"], **wire.from_message(message)}
        assert back == data
        assert msgspec.convert(back, MatchSeeded | Shuffled) == event
    assert not wire.to_message(common_pb2.MatchSeeded, {"commitment": "", "stacked": 0, "seed": None}).HasField("seed")


def test_enum_by_prefix_convention() -> None:
    message = wire.to_message(common_pb2.Rejection, {"code": "not_your_turn", "reason": "not_your_turn",
                                                     "message": "wait", "rule": "A10"})
    assert message.code == common_pb2.REJECTION_CODE_NOT_YOUR_TURN
    assert wire.from_message(message)["code"] == "not_your_turn"
    assert wire.from_message(common_pb2.Rejection())["code"] is None
    with pytest.raises(wire.WireError):
        wire.to_message(common_pb2.Rejection, {"code": "no_such_code"})


def test_list_wrappers_nullable_and_nested() -> None:
    assert wire.from_message(wire.to_message(common_pb2.CardList, ["AS", "10D"])) == ["AS", "10D"]
    assert wire.from_message(wire.to_message(common_pb2.IntList, [3, -1])) == [3, -1]


def test_unknown_keys_are_errors_unless_ignored() -> None:
    with pytest.raises(wire.WireError, match="no field 'colour'"):
        wire.to_message(common_pb2.Shuffled, {"shuffle_no": 1, "colour": "red"})
    message = wire.to_message(common_pb2.Shuffled, {"shuffle_no": 1, "colour": "red"}, ignore_unknown=True)
    assert message.shuffle_no == 1


def test_wrong_types_and_nulls_are_wire_errors() -> None:
    with pytest.raises(wire.WireError):
        wire.to_message(common_pb2.Shuffled, {"shuffle_no": "one"})
    with pytest.raises(wire.WireError, match="cannot be null"):
        wire.to_message(common_pb2.Shuffled, {"size": None})
    with pytest.raises(wire.WireError):
        wire.to_message(common_pb2.Shuffled, {"order": "AS"})


def test_top_level_wrappers() -> None:
    event = {"type": "shuffled", "shuffle_no": 2, "size": 3, "order": []}
    for name in GAME_MODULES:
        message = wire.wrap_event(name, event)
        assert wire.unwrap(message) == (name, event)
        assert message.WhichOneof("game") == name
    # a game the contract has no messages of goes in the generic member, its data as it is
    chess = wire.wrap_event("chess", event)
    assert chess.WhichOneof("game") == wire.OTHER and wire.game_of(chess) == "chess"
    assert wire.unwrap(chess) == ("chess", event)
    with pytest.raises(wire.WireError):
        wire.wrap_event(wire.OTHER, event)  # the generic member's name is no game's
    with pytest.raises(wire.WireError, match="too large"):
        wire.wrap_event("chess", {**event, "size": 2**60})
    with pytest.raises(wire.WireError):
        wire.unwrap(game_service_pb2.Command())
    with pytest.raises(wire.WireError, match="unknown type"):
        wire.wrap_command("all_fours", {"type": "resign"})
    view = wire.wrap_view("seep", {}, game_id="g1", sequence=7, seat=None, to_act=[2], over=False)
    assert not view.HasField("seat") and view.sequence == 7 and list(view.to_act) == [2]
    assert wire.wrap_view("seep", {}, game_id="g1", sequence=7, seat=0, to_act=(), over=True).seat == 0


# ---------------------------------------------------------------------------
# Round trips of real games: every command, event (full and redacted) and view of random playouts.


def _playout(game: GameRules, seed: int, max_steps: int = 400) -> tuple[list[Any], list[Any], list[Any]]:
    rng = random.Random(seed)
    config = game.make_config({}, None)
    state, events = new_match(game, config, Setup(seed=f"{seed:064x}"))
    commands: list[Any] = []
    views: list[Any] = []
    events = list(events)
    players = getattr(config, "players", None) or game.DEFAULT_PLAYERS
    for _ in range(max_steps):
        seats = game.to_act(state)
        if not seats:
            break
        seat = rng.choice(seats)
        legal = game.legal_commands(state, seat)
        if not legal:
            break
        command = rng.choice(legal)
        outcome = game.decide(state, seat, command)
        assert isinstance(outcome, list | tuple), outcome
        commands.append(command)
        for event in outcome:
            state = game.evolve(state, event)
        events.extend(outcome)
        views.extend(game.view(state, viewer) for viewer in (None, *range(players)))
    return commands, events, views


@needs_games
@pytest.mark.parametrize("name", READY)
def test_round_trip_of_a_random_playout(name: str) -> None:
    game = get_game(name)
    for seed in (1, 2):
        commands, events, views = _playout(game, seed)
        assert commands and events and views
        for command in commands:
            data = plain(command)
            back_game, back = wire.unwrap(wire.wrap_command(name, data))
            assert (back_game, back) == (name, data)
            assert parse_command(game, back) == command
        for event in events:
            for form in {repr(e): e for e in (event, game.redact(event, None), game.redact(event, 0))}.values():
                data = plain(form)
                back = wire.unwrap(wire.wrap_event(name, data))[1]
                assert back == data, data
                assert msgspec.convert(back, game.Event) == form
        for view in views:
            data = plain(view)
            back = wire.unwrap(wire.wrap_view(name, data, game_id="g", sequence=1, seat=None, to_act=(),
                                              over=False))[1]
            assert back == data
            assert msgspec.convert(back, game.View) == view


@needs_games
@pytest.mark.parametrize("name", READY)
def test_default_options_round_trip(name: str) -> None:
    game = get_game(name)
    options = wire.wrap_options(name, {})
    assert wire.options_dict(options) == {}
    game.make_config(wire.options_dict(options), None)


# ---------------------------------------------------------------------------
# Seat 0 in canonical JSON: seat, team and meld-index fields have presence, so a JSON printer
# (grpcurl, buf curl, MessageToDict, MessageToJson) prints 0 instead of leaving it out.

#: Field names whose value is a seat, a team or side, or a meld index.
SEAT_KEYS = frozenset({
    "seat", "owner", "caller", "dealer", "bidder", "eldest", "viewer", "to_act", "team", "side", "winner",
    "high_holder", "low_holder", "jack_holder", "jack_taker", "leftover_to", "baazi_winner",
    "last_capture_team", "out", "meld", "to_meld",
})


def _dropped(data: Any, printed: Any, path: str = "") -> list[str]:
    """The paths of ``data``'s seat-valued ints that the JSON form ``printed`` leaves out."""
    if isinstance(data, dict):
        if wire.TAG in data and isinstance(printed, dict) and data[wire.TAG] in printed:
            printed = printed[data[wire.TAG]]  # a union: the member named by the tag
        if not isinstance(printed, dict):
            return [path] if any(key in SEAT_KEYS and isinstance(v, int) for key, v in data.items()) else []
        missing = []
        for key, value in data.items():
            here = f"{path}.{key}"
            if key in SEAT_KEYS and isinstance(value, int) and not isinstance(value, bool) and key not in printed:
                missing.append(here)
            elif key in printed:
                missing += _dropped(value, printed[key], here)
        return missing
    if isinstance(data, list | tuple) and isinstance(printed, list) and len(data) == len(printed):
        return [miss for index, (a, b) in enumerate(zip(data, printed, strict=True))
                for miss in _dropped(a, b, f"{path}[{index}]")]
    return []


def test_seat_zero_is_printed_in_json() -> None:
    from google.protobuf import json_format

    begged = wire.wrap_event("all_fours", {"type": "begged", "seat": 0})
    assert json.loads(json_format.MessageToJson(begged)) == {"allFours": {"begged": {"seat": 0}}}
    exposed = wire.wrap_event("all_fours", {"type": "card_exposed", "seat": 0, "card": "AH"})
    assert json_format.MessageToDict(exposed) == {"allFours": {"cardExposed": {"seat": 0, "card": "AH"}}}
    call = wire.wrap_command("all_fours", {"type": "call", "owner": 0, "card": "AH"})
    assert json_format.MessageToDict(call)["allFours"]["call"] == {"owner": 0, "card": "AH"}
    laid = wire.wrap_event("contract_rummy", {"type": "card_laid_off", "seat": 0, "card": "5H", "meld": 0,
                                              "end": None})
    assert json_format.MessageToDict(laid)["contractRummy"]["cardLaidOff"] == {"seat": 0, "card": "5H", "meld": 0}
    # int64 and uint64 are strings in canonical JSON, int32 numbers (as the protos say).
    listing = game_service_pb2.ListLegalCommandsResponse(sequence=42, seat=0, total=3, offset=5)
    assert json_format.MessageToDict(listing) == {"sequence": "42", "seat": 0, "total": "3", "offset": "5"}


@needs_games
@pytest.mark.parametrize("name", READY)
def test_no_seat_is_dropped_from_json_in_a_random_playout(name: str) -> None:
    from google.protobuf import json_format

    def printed(message: Any) -> Any:
        return json_format.MessageToDict(message, preserving_proto_field_name=True)[name]

    game = get_game(name)
    zeros = 0
    for seed in (1, 2):
        commands, events, views = _playout(game, seed)
        for command in commands:
            data = plain(command)
            assert not _dropped(data, printed(wire.wrap_command(name, data))), data
        for event in events:
            for form in (event, game.redact(event, None)):
                data = plain(form)
                zeros += sum(data.get(key) == 0 for key in SEAT_KEYS)
                assert not _dropped(data, printed(wire.wrap_event(name, data))), data
        for view in views[::7]:
            data = plain(view)
            message = wire.wrap_view(name, data, game_id="g", sequence=1, seat=data["viewer"], to_act=(), over=False)
            assert not _dropped(data, printed(message)), data
            assert ("seat" in json_format.MessageToDict(message)) == (data["viewer"] is not None)
    assert zeros, "the playouts never had a seat 0: the test checks nothing"


def test_fields_that_gained_presence_read_zero_when_unset() -> None:
    # A peer built from the wire-v1 protos sends no seat 0 (no presence then): it reads as 0.
    assert wire.from_message(common_pb2.SeatTimedOut()) == {"seat": 0, "consequence": "", "reason": "",
                                                              "waited_ms": 0}
    assert wire.unwrap(wire.wrap_event("all_fours", {"type": "begged", "seat": 0}))[1]["seat"] == 0
    from cardgames.v1 import all_fours_pb2, seep_pb2

    assert wire.from_message(all_fours_pb2.AllFoursBegged()) == {"seat": 0}
    # Fields whose absence means something still read as None.
    view = wire.from_message(seep_pb2.SeepView())
    assert view["to_act"] is None and view["viewer"] is None and view["dealer"] == 0
