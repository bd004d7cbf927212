"""The wire forms of a game's time control and of a seat's clock and presence (game_service.proto)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cardgames.service.clock_marks import SeatClock
from cardgames.service.errors import InvalidRequest
from cardgames.v1 import game_service_pb2


def seat_status(clock: SeatClock) -> game_service_pb2.SeatStatus:
    return game_service_pb2.SeatStatus(
        seat=clock.seat,
        remaining_ms=clock.remaining_ms,
        running=clock.running,
        deadline_ms=clock.deadline_ms,
        bot=clock.bot,
        connected=clock.connected,
    )


_ON_TIMEOUT = {
    "bot_plays": game_service_pb2.ON_TIMEOUT_BOT_PLAYS,
    "forfeit": game_service_pb2.ON_TIMEOUT_FORFEIT,
    "abort": game_service_pb2.ON_TIMEOUT_ABORT,
}
_BOTS = {
    "random": game_service_pb2.BOT_STRENGTH_RANDOM,
    "heuristic": game_service_pb2.BOT_STRENGTH_HEURISTIC,
    "search": game_service_pb2.BOT_STRENGTH_SEARCH,
}


#: The enums' names by number (what a message carries, back to the plain form).
_ON_TIMEOUT_NAMES: dict[int, str] = {number: name for name, number in _ON_TIMEOUT.items()}
_BOT_NAMES: dict[int, str] = {number: name for name, number in _BOTS.items()}


def time_control_message(control: Mapping[str, Any]) -> game_service_pb2.TimeControl:
    """A time control's plain form (engine/core/time_control.py) as its message."""
    return game_service_pb2.TimeControl(
        initial_ms=control["initial_ms"],
        increment_ms=control["increment_ms"],
        move_ms=control["move_ms"],
        on_timeout=_ON_TIMEOUT[control["on_timeout"]],
        bot=_BOTS[control["bot"]],
    )


def time_control_data(message: game_service_pb2.TimeControl) -> dict[str, Any]:
    """A TimeControl message's plain form (unset enums: the defaults; unknown numbers: refused later)."""
    data: dict[str, Any] = {
        "initial_ms": message.initial_ms,
        "increment_ms": message.increment_ms,
        "move_ms": message.move_ms,
    }
    if message.on_timeout:
        data["on_timeout"] = _ON_TIMEOUT_NAMES.get(message.on_timeout, f"#{message.on_timeout}")
    if message.bot:
        data["bot"] = _BOT_NAMES.get(message.bot, f"#{message.bot}")
    return data


def request_time_control(request: Any) -> dict[str, Any] | None:
    """The time control of a request with a ``time_control`` field (CreateGame's, CreateTable's), or None."""
    return time_control_data(request.time_control) if request.HasField("time_control") else None


def bot_name(strength: int) -> str:
    """A BotStrength's name ("" for unspecified: the seat's own player)."""
    if not strength:
        return ""
    if strength not in _BOT_NAMES:
        raise InvalidRequest(f"unknown bot strength {strength}", reason="INVALID_BOT")
    return _BOT_NAMES[strength]
