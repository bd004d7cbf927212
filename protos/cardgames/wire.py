"""Between FORMAT.md-shaped plain data and the wire contract's messages, by reflection.

The engine's commands, events, views and configs are msgspec structs; ``msgspec.to_builtins``
turns them into the plain data FORMAT.md describes (``{"type": "play", "card": "AS"}``).
This module maps that data onto the protobuf messages of ``cardgames.v1`` and back, using
only the messages' descriptors, so that it works for every game whose proto mirrors its
structs by name (COMMON.md, "Wire contract"). Both the service and the clients use it.

The mapping, in both directions:

* a dict with a ``"type"`` key given to a *union* message (a message whose fields all
  belong to one oneof, like ``AllFoursCommand``) sets the oneof field named by the tag,
  filled from the other keys; back, the set field's name becomes ``"type"``;
* any other dict fills a message field by field (a field of a oneof is set by its name);
* a message whose name ends in ``List`` and that holds exactly one repeated field
  (``CardList``, ``IntList``) is a *list wrapper*: ``repeated CardList`` is a list of
  card lists, and a single ``CardList`` field is a list (or ``None`` when unset);
* ``None`` is an unset field with presence (proto3 ``optional``, a message field, a
  oneof member), and an unset such field reads back as ``None``, except the fields of
  :data:`ZERO_WHEN_UNSET`, which read back as ``0``, and the fields of :data:`NULL_AS`,
  options whose unset means "the default" and whose null (the rules' "no limit") is written
  as a number that the option cannot otherwise take;
* a string given to an enum field is the value named ``<PREFIX><STRING IN UPPER CASE>``,
  where ``<PREFIX>`` is the name of the enum's zero value without ``UNSPECIFIED``
  (``PHASE_UNSPECIFIED`` -> ``PHASE_PLAY`` for ``"play"``); the zero value reads as ``None``;
* a message whose name ends in ``Map`` and that holds exactly one map field
  (``AllFoursKickValuesMap``) is a *map wrapper*: a single such field is a dict (or
  ``None`` when unset), so that a map can be an optional option;
* maps are dicts; lists and tuples are repeated fields; other scalars are themselves.

Unknown keys are a :class:`WireError` unless ``ignore_unknown`` is given (commands sent
by people may carry extra fields, which FORMAT.md says to ignore).

A game the contract has no messages of (one registered with the engine after the contract
was written, docs/adding-a-game.md) travels in the top-level messages' generic member
:data:`OTHER` (an ``OtherGame``: the game's name and its plain data as a
``google.protobuf.Struct``). Its plain data goes as it is; a Struct's numbers are doubles,
so a whole number reads back as an ``int`` (the games' data holds no other numbers).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any, Final, TypeVar

from google.protobuf import json_format, struct_pb2
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from cardgames.v1 import game_service_pb2

M = TypeVar("M", bound=Message)

#: Descriptors are typed loosely: this module is reflection over them.
DescriptorT = Any
FieldT = Any

#: The top-level messages whose ``game`` oneof holds one game's message.
Command = game_service_pb2.Command
Event = game_service_pb2.Event
Options = game_service_pb2.Options
View = game_service_pb2.View

GAME_ONEOF: Final = "game"
#: The top-level messages' member for a game the contract has no message of.
OTHER: Final = "other"
#: The largest whole number a Struct's double holds exactly.
LARGEST_EXACT: Final = 2**53
#: Fields whose null is written as this value (an unset field there means the default, not null).
NULL_AS: Final[Mapping[str, int]] = {"cardgames.v1.ContractRummyOptions.max_stock_refills": -1}
TAG = "type"

#: Seat, team and meld-index fields that were plain ``int32`` in wire-v1 (the tag ``wire-v1``;
#: its image is protos/breaking/wire-v1.binpb) and are ``optional int32`` since, so that seat 0
#: is printed in JSON. The service always sets them; a peer built from the wire-v1 protos
#: leaves 0 unset (proto3 sends no zero without presence), so an unset one reads as 0, as it
#: did before, never as None. tests/test_protos.py checks this list against the image.
ZERO_WHEN_UNSET: Final = frozenset(
    f"cardgames.v1.{name}"
    for name in (
        "SeatTimedOut.seat", "ClockCharged.seat", "ListLegalCommandsResponse.seat", "AssignmentsResponse.seat",
        "AllFoursCall.owner", "AllFoursCut.seat", "AllFoursPlayed.seat", "AllFoursAward.side",
        "AllFoursDealerChosen.dealer", "AllFoursHandStarted.dealer", "AllFoursHandStarted.eldest",
        "AllFoursCardsDealt.seat", "AllFoursCardsDelivered.seat", "AllFoursStood.seat",
        "AllFoursBegged.seat", "AllFoursGaveOne.dealer", "AllFoursPackRun.dealer",
        "AllFoursPackExhausted.dealer", "AllFoursCardExposed.seat", "AllFoursExposedCardCalled.caller",
        "AllFoursExposedCardCalled.owner", "AllFoursCardPlayed.seat", "AllFoursTrickWon.seat",
        "AllFoursPointsScored.side", "AllFoursMatchWon.side",
        "ContractRummyLayOff.meld", "ContractRummySwapJoker.meld", "ContractRummyTableMeld.owner",
        "ContractRummyDealerCardDrawn.seat", "ContractRummyDealerChosen.dealer",
        "ContractRummyDealStarted.dealer", "ContractRummyCardsDealt.seat", "ContractRummyStockDrawn.seat",
        "ContractRummyDiscardDrawn.seat", "ContractRummyDiscardDug.seat", "ContractRummyContractMelded.seat",
        "ContractRummyMeldsAdded.seat", "ContractRummyCardLaidOff.seat", "ContractRummyCardLaidOff.meld",
        "ContractRummyJokerSwapped.seat", "ContractRummyJokerSwapped.meld", "ContractRummyDiscarded.seat",
        "ContractRummyPlayerWentOut.seat",
        "SeepDealerChosen.dealer", "SeepDealStarted.dealer", "SeepCardsDealt.seat", "SeepRedealt.seat",
        "SeepBidMade.seat", "SeepCaptured.seat", "SeepCaptured.team", "SeepThrown.seat", "SeepBuilt.seat",
        "SeepBroken.seat", "SeepSweepScored.seat", "SeepSweepScored.team", "SeepBaaziWon.team",
        "SeepView.dealer", "SeepView.bidder",
    )
)

_MESSAGE = FieldDescriptor.TYPE_MESSAGE
_ENUM = FieldDescriptor.TYPE_ENUM


class WireError(ValueError):
    """Data that does not fit the message (unknown key, wrong type, unknown enum value)."""


# ---------------------------------------------------------------------------
# Descriptor facts, computed once per message or enum type.


def _is_synthetic(oneof: Any) -> bool:
    """A proto3 ``optional`` field's hidden oneof (``_seed`` for ``optional seed``)."""
    fields = oneof.fields
    return len(fields) == 1 and oneof.name == "_" + fields[0].name


@cache
def union_oneof(descriptor: DescriptorT) -> str | None:
    """The oneof's name when every field of the message belongs to that one oneof."""
    real = [oneof for oneof in descriptor.oneofs if not _is_synthetic(oneof)]
    if len(real) == 1 and descriptor.fields and len(real[0].fields) == len(descriptor.fields):
        return str(real[0].name)
    return None


@cache
def _list_field(descriptor: DescriptorT) -> FieldT | None:
    """The one repeated field of a list wrapper (``CardList.cards``), else None."""
    fields = descriptor.fields
    if descriptor.name.endswith("List") and len(fields) == 1 and fields[0].is_repeated:
        field = fields[0]
        if not _is_map(field):
            return field
    return None


@cache
def _map_field(descriptor: DescriptorT) -> FieldT | None:
    """The one map field of a map wrapper (``AllFoursKickValuesMap.values``), else None."""
    fields = descriptor.fields
    if descriptor.name.endswith("Map") and len(fields) == 1 and _is_map(fields[0]):
        return fields[0]
    return None


def _is_map(field: FieldT) -> bool:
    return field.type == _MESSAGE and field.message_type.GetOptions().map_entry


@cache
def _enum_prefix(enum: Any) -> str:
    zero = enum.values_by_number.get(0)
    if zero is None or not zero.name.endswith("UNSPECIFIED"):
        raise WireError(f"enum {enum.full_name} has no *_UNSPECIFIED zero value")
    return str(zero.name[: -len("UNSPECIFIED")])


# ---------------------------------------------------------------------------
# Plans: what the descriptors say, read once per message type into plain Python (reading a
# descriptor's attributes costs far more than the conversion itself).


class _Enum:
    """An enum's values by name (zero left out: it reads as None) and the strings they stand for."""

    __slots__ = ("numbers", "prefix", "texts")

    def __init__(self, enum: Any) -> None:
        self.prefix = prefix = _enum_prefix(enum)
        self.numbers = {value.name: value.number for value in enum.values if value.number != 0}
        self.texts: dict[int, str | None] = {
            number: value.name[len(prefix):].lower() for number, value in enum.values_by_number.items()
        }
        self.texts[0] = None


class _Field:
    """One field of a message, with what converting it needs."""

    __slots__ = ("_enum", "_plan", "_value", "descriptor", "full_name", "is_map", "kind", "name", "null_as",
                 "presence", "repeated", "unset")

    def __init__(self, field: FieldT) -> None:
        self.descriptor = field
        self.name: str = field.name
        self.full_name: str = field.full_name
        self.kind: int = field.type
        self.is_map = _is_map(field)
        self.repeated: bool = field.is_repeated
        self.presence: bool = field.has_presence
        #: What an unset field with presence reads as.
        self.unset: int | None = 0 if self.full_name in ZERO_WHEN_UNSET else None
        self.null_as = NULL_AS.get(self.full_name)
        self._plan: _Plan | None = None
        self._value: _Field | None = None
        self._enum: _Enum | None = None

    @property
    def plan(self) -> _Plan:
        """The plan of the field's message type (built on first use: messages may nest themselves)."""
        if self._plan is None:
            self._plan = _plan(self.descriptor.message_type)
        return self._plan

    @property
    def value(self) -> _Field:
        """A map field's value field."""
        if self._value is None:
            self._value = _Field(self.descriptor.message_type.fields_by_name["value"])
        return self._value

    def enum_number(self, value: Any) -> int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if not isinstance(value, str):
            raise WireError(f"{self.full_name}: expected a string for an enum, got {value!r}")
        if self._enum is None:
            self._enum = _Enum(self.descriptor.enum_type)
        number = self._enum.numbers.get(self._enum.prefix + value.upper())
        if number is None:
            raise WireError(f"{self.full_name}: unknown value {value!r}")
        return number

    def enum_text(self, number: int) -> str | None:
        if self._enum is None:
            if number == 0:
                return None
            self._enum = _Enum(self.descriptor.enum_type)
        try:
            return self._enum.texts[number]
        except KeyError:
            raise WireError(f"{self.full_name}: unknown enum number {number}") from None

    # -- plain data -> message --

    def set(self, message: Message, value: Any, ignore_unknown: bool) -> None:
        if value is None:
            if self.null_as is not None:
                setattr(message, self.name, self.null_as)
                return
            if self.presence:
                message.ClearField(self.name)
                return
            raise WireError(f"{self.full_name} cannot be null (make it optional or a message)")
        if self.is_map:
            self.set_map(message, value, ignore_unknown)
        elif self.repeated:
            self.set_repeated(message, value, ignore_unknown)
        elif self.kind == _MESSAGE:
            member = getattr(message, self.name)
            member.SetInParent()
            self.plan.fill(member, value, ignore_unknown)
        elif self.kind == _ENUM:
            setattr(message, self.name, self.enum_number(value))
        else:
            try:
                setattr(message, self.name, value)
            except (TypeError, ValueError) as error:
                raise WireError(f"{self.full_name}: {error}") from error

    def set_repeated(self, message: Message, values: Any, ignore_unknown: bool) -> None:
        if not isinstance(values, list | tuple):
            raise WireError(f"{self.full_name}: expected a list, got {values!r}")
        container = getattr(message, self.name)
        if self.kind == _MESSAGE:
            fill_item = self.plan.fill
            for item in values:
                fill_item(container.add(), item, ignore_unknown)
        elif self.kind == _ENUM:
            container.extend([self.enum_number(item) for item in values])
        else:
            try:
                container.extend(values)
            except (TypeError, ValueError) as error:
                raise WireError(f"{self.full_name}: {error}") from error

    def set_map(self, message: Message, values: Any, ignore_unknown: bool) -> None:
        if not isinstance(values, Mapping):
            raise WireError(f"{self.full_name}: expected an object, got {values!r}")
        container = getattr(message, self.name)
        value_field = self.value
        try:
            for key, value in values.items():
                if value_field.kind == _MESSAGE:
                    value_field.plan.fill(container[key], value, ignore_unknown)
                elif value_field.kind == _ENUM:
                    container[key] = value_field.enum_number(value)
                else:
                    container[key] = value
        except (TypeError, ValueError) as error:
            if isinstance(error, WireError):
                raise
            raise WireError(f"{self.full_name}: {error}") from error

    # -- message -> plain data --

    def get(self, message: Message) -> Any:
        value = getattr(message, self.name)
        if self.is_map:
            value_field = self.value
            if value_field.kind == _MESSAGE:
                read = value_field.plan.read
                return {key: read(item) for key, item in value.items()}
            if value_field.kind == _ENUM:
                return {key: value_field.enum_text(item) for key, item in value.items()}
            return dict(value)
        if self.repeated:
            return self.get_repeated(value)
        if self.presence and not message.HasField(self.name):
            return self.unset
        if self.kind == _MESSAGE:
            return self.plan.read(value)
        if self.kind == _ENUM:
            return self.enum_text(value)
        if self.null_as is not None and value == self.null_as:
            return None
        return value

    def get_repeated(self, values: Any) -> list[Any]:
        if self.kind == _MESSAGE:
            read = self.plan.read
            return [read(item) for item in values]
        if self.kind == _ENUM:
            return [self.enum_text(item) for item in values]
        return list(values)


class _Plan:
    """How to convert one message type: its wrapper kind and its fields."""

    __slots__ = ("fields", "full_name", "games", "list_field", "map_field", "name", "ordered", "plain", "union")

    def __init__(self, descriptor: DescriptorT) -> None:
        self.name: str = descriptor.name
        self.full_name: str = descriptor.full_name
        self.ordered = tuple(_Field(field) for field in descriptor.fields)
        self.fields = {field.name: field for field in self.ordered}
        list_field, map_field = _list_field(descriptor), _map_field(descriptor)
        self.list_field = self.fields[list_field.name] if list_field is not None else None
        self.map_field = self.fields[map_field.name] if map_field is not None else None
        self.union = union_oneof(descriptor)
        #: A message that is neither a wrapper nor a union: a dict fills it field by field.
        self.plain = self.list_field is None and self.map_field is None and self.union is None
        #: The members of a top-level message's ``game`` oneof.
        oneof = descriptor.oneofs_by_name.get(GAME_ONEOF)
        self.games = frozenset(field.name for field in oneof.fields) if oneof is not None else frozenset()

    def fill(self, message: Message, data: Any, ignore_unknown: bool, skip: str | None = None) -> None:
        """Set ``message``'s fields from ``data``; ``skip``: a key of ``data`` to leave out."""
        if not self.plain:
            if self.list_field is not None and isinstance(data, list | tuple):
                self.list_field.set_repeated(message, data, ignore_unknown)
                return
            if self.map_field is not None:
                if skip is not None and isinstance(data, Mapping):
                    data = {key: value for key, value in data.items() if key != skip}
                self.map_field.set_map(message, data, ignore_unknown)
                return
        if not isinstance(data, Mapping):
            raise WireError(f"{self.full_name}: expected an object, got {data!r}")
        if self.union is not None and skip is None and TAG in data:
            tag = data[TAG]
            field = self.fields.get(tag) if isinstance(tag, str) else None
            if field is None or field.kind != _MESSAGE:
                raise WireError(f"{self.full_name}: unknown type {tag!r}")
            member = getattr(message, tag)
            member.SetInParent()
            field.plan.fill(member, data, ignore_unknown, TAG)
            return
        fields = self.fields
        for key, value in data.items():
            if key == skip:
                continue
            field = fields.get(key)
            if field is None:
                if ignore_unknown:
                    continue
                raise WireError(f"{self.full_name} has no field {key!r}")
            field.set(message, value, ignore_unknown)

    def read(self, message: Message) -> Any:
        """The plain data ``message`` holds."""
        if self.plain:
            return {field.name: field.get(message) for field in self.ordered}
        if self.list_field is not None:
            return self.list_field.get_repeated(getattr(message, self.list_field.name))
        if self.map_field is not None:
            return self.map_field.get(message)
        assert self.union is not None
        tag = message.WhichOneof(self.union)
        if tag is None:
            return None
        data = self.fields[tag].plan.read(getattr(message, tag))
        return {TAG: tag, **data}


_plans: dict[Any, _Plan] = {}
_class_plans: dict[type[Message], _Plan] = {}


def _plan(descriptor: DescriptorT) -> _Plan:
    plan = _plans.get(descriptor)
    if plan is None:
        plan = _plans[descriptor] = _Plan(descriptor)
    return plan


def _plan_of(message: Message) -> _Plan:
    plan = _class_plans.get(type(message))
    if plan is None:
        plan = _class_plans[type(message)] = _plan(message.DESCRIPTOR)
    return plan


# ---------------------------------------------------------------------------
# Plain data -> message.


def to_message(message_type: type[M], data: Any, *, ignore_unknown: bool = False) -> M:
    """A new ``message_type`` holding ``data`` (FORMAT.md-shaped plain data)."""
    message = message_type()
    _plan_of(message).fill(message, data, ignore_unknown)
    return message


def fill(message: Message, data: Any, *, ignore_unknown: bool = False) -> None:
    """Set ``message``'s fields from ``data`` (a dict, or a list for a list wrapper)."""
    _plan_of(message).fill(message, data, ignore_unknown)


# ---------------------------------------------------------------------------
# Message -> plain data.


def from_message(message: Message) -> Any:
    """The plain data a message holds (the inverse of :func:`to_message`)."""
    return _plan_of(message).read(message)


# ---------------------------------------------------------------------------
# The top-level messages: one game's message inside the ``game`` oneof.


def game_message_type(wrapper: type[Message], game: str) -> type[Message]:
    """The message class of ``game`` inside a top-level message (Command -> AllFoursCommand)."""
    field = wrapper.DESCRIPTOR.fields_by_name.get(game)
    if field is None or field.containing_oneof is None or field.containing_oneof.name != GAME_ONEOF:
        raise WireError(f"{wrapper.DESCRIPTOR.name} has no game {game!r}")
    return type(getattr(wrapper(), game))


def wrap(wrapper: type[M], game: str, data: Any, *, ignore_unknown: bool = False, **common: Any) -> M:
    """A top-level message (Command, Event, Options, View) holding ``game``'s data.

    ``common`` sets the wrapper's own fields (a View's game_id, sequence, seat, ...).
    """
    message = wrapper()
    if common:
        _plan_of(message).fill(message, common, False)
    fill_game(message, game, data, ignore_unknown=ignore_unknown)
    return message


def fill_game(message: Message, game: str, data: Any, *, ignore_unknown: bool = False) -> None:
    """Set ``game``'s member of a top-level message (an empty one: a field of a response) from ``data``:
    the game's own message, or :data:`OTHER` for a game the contract has no message of."""
    plan = _plan_of(message)
    if game == OTHER or (OTHER not in plan.games and game not in plan.games):
        raise WireError(f"{plan.name} has no game {game!r}")
    if game not in plan.games:
        other = getattr(message, OTHER)
        other.game = game
        _fill_struct(other.data, data, f"{plan.name}.{OTHER}")
        return
    member = getattr(message, game)
    member.SetInParent()
    plan.fields[game].plan.fill(member, data, ignore_unknown)


def game_of(message: Message) -> str | None:
    """The game a top-level message names (the generic member's own ``game``); None when none is set."""
    member = message.WhichOneof(GAME_ONEOF)
    if member == OTHER:
        return str(getattr(message, OTHER).game) or None
    return member


def unwrap(message: Message) -> tuple[str, Any]:
    """The game's name and its data from a top-level message; WireError when no game is set."""
    member = message.WhichOneof(GAME_ONEOF)
    game = game_of(message)
    if member is None or game is None:
        raise WireError(f"the {message.DESCRIPTOR.name} names no game")
    if member == OTHER:
        return game, _whole(json_format.MessageToDict(getattr(message, OTHER).data))
    return game, _plan_of(message).fields[game].plan.read(getattr(message, game))


def _fill_struct(struct: struct_pb2.Struct, data: Any, where: str) -> None:
    """Set a Struct from plain data (an object of strings, whole numbers, bools, nulls, lists, objects)."""
    if not isinstance(data, Mapping):
        raise WireError(f"{where}: expected an object, got {data!r}")
    _check_plain(data, where)
    struct.update(data)


def _check_plain(value: Any, where: str) -> None:
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return
    if isinstance(value, int):
        if abs(value) > LARGEST_EXACT:
            raise WireError(f"{where}: {value} is too large for the generic member (at most 2^53)")
        return
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                raise WireError(f"{where}: a key must be a string, got {key!r}")
            _check_plain(item, f"{where}.{key}")
        return
    if isinstance(value, list | tuple):
        for index, item in enumerate(value):
            _check_plain(item, f"{where}[{index}]")
        return
    raise WireError(f"{where}: {value!r} is not plain data (strings, whole numbers, bools, lists, objects)")


def _whole(value: Any) -> Any:
    """Plain data read from a Struct, its whole numbers as ``int``."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {key: _whole(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_whole(item) for item in value]
    return value


def wrap_command(game: str, command: Any) -> Command:
    return wrap(Command, game, command)


def wrap_event(game: str, event: Any) -> Event:
    return wrap(Event, game, event)


def wrap_options(game: str, options: Mapping[str, Any]) -> Options:
    return wrap(Options, game, options)


def wrap_view(
    game: str,
    view: Any,
    *,
    game_id: str,
    sequence: int,
    seat: int | None,
    to_act: tuple[int, ...] | list[int],
    over: bool,
) -> View:
    return wrap(
        View,
        game,
        view,
        game_id=game_id,
        game_name=game,
        sequence=sequence,
        seat=seat,
        to_act=list(to_act),
        over=over,
    )


def options_dict(options: Options) -> dict[str, Any]:
    """The options that were set (unset optional fields dropped): make_config's input.

    A field of :data:`NULL_AS` set to its null value is kept, as None.
    """
    game, data = unwrap(options)
    if options.WhichOneof(GAME_ONEOF) == OTHER:
        return dict(data)  # the generic member holds only the options given
    member = getattr(options, game)
    return {key: value for key, value in data.items() if value is not None or member.HasField(key)}
