"""Turning FORMAT.md command dicts into a game's typed commands, and back."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any, get_args

import msgspec

from cardgames.engine.core.echo import clip, echo
from cardgames.engine.core.protocol import GameRules, Malformed


def parse_command(game: GameRules, raw: Mapping[str, Any]) -> Any:
    """A typed command of ``game``, or :class:`Malformed` with the reason.

    Extra fields are ignored (FORMAT.md); an unknown ``type``, a missing field or a
    field of the wrong type makes the command malformed.
    """
    if not isinstance(raw, Mapping):
        return Malformed("a command is an object with a 'type' field")
    kind = raw.get("type")
    if not isinstance(kind, str):
        return Malformed("the command has no 'type' field")
    command_type = game.Command
    by_tag = _by_tag(command_type)
    target = command_type if by_tag is None else by_tag.get(kind)
    if target is None:
        return Malformed(f"unknown command type {echo(kind)}", type=kind)
    try:
        return msgspec.convert(raw, target, strict=True)
    except msgspec.ValidationError as error:
        text = str(error)
        if "Invalid value" in text and "$.type" in text:
            return Malformed(f"unknown command type {echo(kind)}", type=kind)
        return Malformed(f"malformed {echo(kind)} command: {clip(text, 240)}", type=kind)


@cache
def _by_tag(command_type: Any) -> dict[str, Any] | None:
    """The struct of each ``type`` tag of a Command union (None if it is not such a union).

    Converting to the one struct a tag names is the same as converting to the union, without
    msgspec analysing the union's members on every call (about 25x faster).
    """
    members = get_args(command_type) or (command_type,)
    by_tag: dict[str, Any] = {}
    for member in members:
        config = getattr(member, "__struct_config__", None)
        if config is None or config.tag_field != "type" or not isinstance(config.tag, str):
            return None
        by_tag[config.tag] = member
    return by_tag


def to_dict(value: Any) -> Any:
    """A command, event, view or config as plain JSON-ready data (FORMAT.md shapes)."""
    return msgspec.to_builtins(value)
