"""Turning FORMAT.md command dicts into a game's typed commands, and back."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from engine.core.protocol import GameRules, Malformed


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
    try:
        return msgspec.convert(raw, game.Command, strict=True)
    except msgspec.ValidationError as error:
        text = str(error)
        if "Invalid value" in text and "$.type" in text:
            return Malformed(f"unknown command type {kind!r}", type=kind)
        return Malformed(f"malformed {kind!r} command: {text}", type=kind)


def to_dict(value: Any) -> Any:
    """A command, event, view or config as plain JSON-ready data (FORMAT.md shapes)."""
    return msgspec.to_builtins(value)
