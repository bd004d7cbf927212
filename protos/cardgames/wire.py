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
  oneof member), and an unset such field reads back as ``None``;
* a string given to an enum field is the value named ``<PREFIX><STRING IN UPPER CASE>``,
  where ``<PREFIX>`` is the name of the enum's zero value without ``UNSPECIFIED``
  (``PHASE_UNSPECIFIED`` -> ``PHASE_PLAY`` for ``"play"``); the zero value reads as ``None``;
* a message whose name ends in ``Map`` and that holds exactly one map field
  (``AllFoursKickValuesMap``) is a *map wrapper*: a single such field is a dict (or
  ``None`` when unset), so that a map can be an optional option;
* maps are dicts; lists and tuples are repeated fields; other scalars are themselves.

Unknown keys are a :class:`WireError` unless ``ignore_unknown`` is given (commands sent
by people may carry extra fields, which FORMAT.md says to ignore).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any, Final, TypeVar

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
TAG = "type"

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


def _enum_number(field: FieldT, value: Any) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if not isinstance(value, str):
        raise WireError(f"{field.full_name}: expected a string for an enum, got {value!r}")
    enum = field.enum_type
    entry = enum.values_by_name.get(_enum_prefix(enum) + value.upper())
    if entry is None or entry.number == 0:
        raise WireError(f"{field.full_name}: unknown value {value!r}")
    return int(entry.number)


def _enum_text(field: FieldT, number: int) -> str | None:
    if number == 0:
        return None
    enum = field.enum_type
    entry = enum.values_by_number.get(number)
    if entry is None:
        raise WireError(f"{field.full_name}: unknown enum number {number}")
    return str(entry.name[len(_enum_prefix(enum)) :].lower())


# ---------------------------------------------------------------------------
# Plain data -> message.


def to_message(message_type: type[M], data: Any, *, ignore_unknown: bool = False) -> M:
    """A new ``message_type`` holding ``data`` (FORMAT.md-shaped plain data)."""
    message = message_type()
    fill(message, data, ignore_unknown=ignore_unknown)
    return message


def fill(message: Message, data: Any, *, ignore_unknown: bool = False) -> None:
    """Set ``message``'s fields from ``data`` (a dict, or a list for a list wrapper)."""
    descriptor = message.DESCRIPTOR
    list_field = _list_field(descriptor)
    if list_field is not None and isinstance(data, list | tuple):
        _set_repeated(message, list_field, data, ignore_unknown)
        return
    map_field = _map_field(descriptor)
    if map_field is not None:
        _set_map(message, map_field, data, ignore_unknown)
        return
    if not isinstance(data, Mapping):
        raise WireError(f"{descriptor.full_name}: expected an object, got {data!r}")
    oneof = union_oneof(descriptor)
    if oneof is not None and TAG in data:
        tag = data[TAG]
        field = descriptor.fields_by_name.get(tag) if isinstance(tag, str) else None
        if field is None or field.type != _MESSAGE:
            raise WireError(f"{descriptor.full_name}: unknown type {tag!r}")
        member = getattr(message, tag)
        member.SetInParent()
        fill(member, {key: value for key, value in data.items() if key != TAG}, ignore_unknown=ignore_unknown)
        return
    fields = descriptor.fields_by_name
    for key, value in data.items():
        field = fields.get(key)
        if field is None:
            if ignore_unknown:
                continue
            raise WireError(f"{descriptor.full_name} has no field {key!r}")
        _set(message, field, value, ignore_unknown)


def _set(message: Message, field: FieldT, value: Any, ignore_unknown: bool) -> None:
    name = field.name
    if value is None:
        if field.has_presence:
            message.ClearField(name)
            return
        raise WireError(f"{field.full_name} cannot be null (make it optional or a message)")
    if _is_map(field):
        _set_map(message, field, value, ignore_unknown)
    elif field.is_repeated:
        _set_repeated(message, field, value, ignore_unknown)
    elif field.type == _MESSAGE:
        member = getattr(message, name)
        member.SetInParent()
        fill(member, value, ignore_unknown=ignore_unknown)
    elif field.type == _ENUM:
        setattr(message, name, _enum_number(field, value))
    else:
        try:
            setattr(message, name, value)
        except (TypeError, ValueError) as error:
            raise WireError(f"{field.full_name}: {error}") from error


def _set_repeated(message: Message, field: FieldT, values: Any, ignore_unknown: bool) -> None:
    if not isinstance(values, list | tuple):
        raise WireError(f"{field.full_name}: expected a list, got {values!r}")
    container = getattr(message, field.name)
    if field.type == _MESSAGE:
        for item in values:
            fill(container.add(), item, ignore_unknown=ignore_unknown)
    elif field.type == _ENUM:
        container.extend(_enum_number(field, item) for item in values)
    else:
        try:
            container.extend(values)
        except (TypeError, ValueError) as error:
            raise WireError(f"{field.full_name}: {error}") from error


def _set_map(message: Message, field: FieldT, values: Any, ignore_unknown: bool) -> None:
    if not isinstance(values, Mapping):
        raise WireError(f"{field.full_name}: expected an object, got {values!r}")
    container = getattr(message, field.name)
    value_field = field.message_type.fields_by_name["value"]
    try:
        for key, value in values.items():
            if value_field.type == _MESSAGE:
                fill(container[key], value, ignore_unknown=ignore_unknown)
            elif value_field.type == _ENUM:
                container[key] = _enum_number(value_field, value)
            else:
                container[key] = value
    except (TypeError, ValueError) as error:
        if isinstance(error, WireError):
            raise
        raise WireError(f"{field.full_name}: {error}") from error


# ---------------------------------------------------------------------------
# Message -> plain data.


def from_message(message: Message) -> Any:
    """The plain data a message holds (the inverse of :func:`to_message`)."""
    descriptor = message.DESCRIPTOR
    list_field = _list_field(descriptor)
    if list_field is not None:
        return _get_repeated(list_field, getattr(message, list_field.name))
    map_field = _map_field(descriptor)
    if map_field is not None:
        return _get(message, map_field)
    oneof = union_oneof(descriptor)
    if oneof is not None:
        tag = message.WhichOneof(oneof)
        if tag is None:
            return None
        data = from_message(getattr(message, tag))
        return {TAG: tag, **data}
    data = {}
    for field in descriptor.fields:
        data[field.name] = _get(message, field)
    return data


def _get(message: Message, field: FieldT) -> Any:
    name = field.name
    value = getattr(message, name)
    if _is_map(field):
        value_field = field.message_type.fields_by_name["value"]
        if value_field.type == _MESSAGE:
            return {key: from_message(item) for key, item in value.items()}
        if value_field.type == _ENUM:
            return {key: _enum_text(value_field, item) for key, item in value.items()}
        return dict(value)
    if field.is_repeated:
        return _get_repeated(field, value)
    if field.has_presence and not message.HasField(name):
        return None
    if field.type == _MESSAGE:
        return from_message(value)
    if field.type == _ENUM:
        return _enum_text(field, value)
    return value


def _get_repeated(field: FieldT, values: Any) -> list[Any]:
    if field.type == _MESSAGE:
        return [from_message(item) for item in values]
    if field.type == _ENUM:
        return [_enum_text(field, item) for item in values]
    return list(values)


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
    game_message_type(wrapper, game)
    message = wrapper()
    fill(message, common)
    member = getattr(message, game)
    member.SetInParent()
    fill(member, data, ignore_unknown=ignore_unknown)
    return message


def unwrap(message: Message) -> tuple[str, Any]:
    """The game's name and its data from a top-level message; WireError when no game is set."""
    game = message.WhichOneof(GAME_ONEOF)
    if game is None:
        raise WireError(f"the {message.DESCRIPTOR.name} names no game")
    return game, from_message(getattr(message, game))


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
    """The options that were set (unset optional fields dropped): make_config's input."""
    _, data = unwrap(options)
    return {key: value for key, value in data.items() if value is not None}
