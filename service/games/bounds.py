"""The last guard before a write: a batch whose events or view the wire could not carry is refused."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import msgspec
from cardgames import wire

from cardgames.engine.core.protocol import GameRules
from cardgames.service.errors import Unservable

#: A run of 10 digits or more in a batch's JSON: a number that may not fit an int32 (every
#: number of 9 digits or fewer does: they are below 10^9 < 2^31).
_LONG_NUMBER = re.compile(rb"[0-9]{10}")


def servable(rules: GameRules, game: str, events: Sequence[Any], state: Any) -> None:
    """Raise Unservable unless the events and the public view after them fit their wire messages.

    Called before a batch is written, so that the log, the views and the streams can always
    send what the game holds (a number past int32 used to be written, and every later read of
    the game failed). The events' and view's ints are the only values that can miss their
    fields, and they can only do that with 10 digits or more: the batch and view are encoded
    to their messages when their JSON (a few microseconds) holds such a run of digits.
    """
    view = rules.view(state, None)
    if _LONG_NUMBER.search(msgspec.json.encode((events, view))) is None:
        return
    try:
        for event in events:
            wire.wrap(wire.Event, game, msgspec.to_builtins(event))
        wire.wrap(wire.View, game, msgspec.to_builtins(view))
    except (wire.WireError, ValueError, TypeError) as error:
        field = str(error).split(":", 1)[0] if isinstance(error, wire.WireError) else type(error).__name__
        raise Unservable(f"refused, nothing written: the command's consequences do not fit the wire ({field})",
                         field=field) from error
