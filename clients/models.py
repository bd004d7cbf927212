"""What the client hands back: plain, immutable records holding FORMAT.md-shaped data.

The game's own parts (a view's contents, an event, a command) are the plain dicts that
``cardgames.wire`` reads from the messages, shaped as FORMAT.md writes them
(``{"type": "play", "card": "AS"}``); everything around them is a frozen dataclass.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cardgames import wire
from cardgames.v1 import game_service_pb2


@dataclass(frozen=True)
class View:
    """What one viewer may see of a match at one sequence.

    ``seat`` is the viewer's seat (``None`` for a spectator), ``to_act`` the seats the game
    waits for, ``data`` the game's own view (e.g. ``data["hand"]``, ``data["scores"]``).
    """

    game_id: str
    game: str
    sequence: int
    seat: int | None
    to_act: tuple[int, ...]
    over: bool
    data: dict[str, Any]

    @property
    def my_turn(self) -> bool:
        """True when the viewer is a seat the game is waiting for."""
        return self.seat is not None and self.seat in self.to_act

    @classmethod
    def from_message(cls, message: game_service_pb2.View) -> View:
        game, data = wire.unwrap(message)
        return cls(
            game_id=message.game_id,
            game=message.game_name or game,
            sequence=message.sequence,
            seat=message.seat if message.HasField("seat") else None,
            to_act=tuple(message.to_act),
            over=message.over,
            data=data,
        )


@dataclass(frozen=True)
class LogEvent:
    """One event of a match's log as the caller sees it.

    ``event`` is the FORMAT.md-shaped event (its ``"type"`` key names it); ``redacted`` is
    true when the caller sees its public form (secret fields emptied, counts kept).
    """

    sequence: int
    event: dict[str, Any]
    redacted: bool = False

    @property
    def type(self) -> str:
        return str(self.event["type"])

    @classmethod
    def from_message(cls, message: game_service_pb2.LogEntry) -> LogEvent:
        _, data = wire.unwrap(message.event)
        return cls(sequence=message.sequence, event=data, redacted=message.redacted)


def log_events(messages: Any) -> tuple[LogEvent, ...]:
    return tuple(LogEvent.from_message(message) for message in messages)


@dataclass(frozen=True)
class CreatedGame:
    """A new match: its id, one secret token per seat (seat 0 first), its sequence after the deal."""

    game_id: str
    game: str
    tokens: tuple[str, ...]
    sequence: int


@dataclass(frozen=True)
class LegalCommands:
    """Commands ``seat`` may send now, valid at ``sequence`` (send it as expected_sequence).

    ``commands`` is one page: the legal commands from index ``offset`` on. ``total`` says how
    many there are in all (a crowded Seep floor has millions); when it is more than the page,
    :meth:`cardgames.clients.client.SeatHandle.legal_commands` gives the others by index.
    """

    sequence: int
    seat: int
    commands: list[dict[str, Any]]
    total: int = -1  #: how many legal commands there are in all; -1: the page holds every one
    offset: int = 0

    def __post_init__(self) -> None:
        if self.total < 0:
            object.__setattr__(self, "total", self.offset + len(self.commands))


@dataclass(frozen=True)
class Accepted:
    """An accepted command: the sequence after its events, and its events as the caller sees them."""

    sequence: int
    events: tuple[LogEvent, ...]


@dataclass(frozen=True)
class Update:
    """One message of a watch: the events since the previous update and the view after them.

    The first update of a fresh watch has no events (it is the current view). ``resumed`` is
    true for the first update after a reconnection: its events are those missed meanwhile
    (possibly none).
    """

    sequence: int
    events: tuple[LogEvent, ...]
    view: View
    resumed: bool = False


@dataclass(frozen=True)
class Log:
    """A slice of a match's log and the match's latest sequence."""

    sequence: int
    events: tuple[LogEvent, ...] = field(default_factory=tuple)
