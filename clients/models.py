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

#: The names of the wire's OnTimeout and BotStrength values (and back).
ON_TIMEOUT = {"bot_plays": 1, "forfeit": 2, "abort": 3}
BOT_STRENGTHS = {"random": 1, "heuristic": 2, "search": 3}


@dataclass(frozen=True)
class TimeControl:
    """A match's clock (docs/integrators.md, "A table with people"); all times in milliseconds.

    ``initial_ms`` a bank per seat with ``increment_ms`` added after each of its decisions
    (Fischer), and/or ``move_ms`` a limit per decision; ``on_timeout`` is ``"bot_plays"``,
    ``"forfeit"`` or ``"abort"``; ``bot`` the strength of the bot that plays a timed-out seat.
    """

    initial_ms: int = 0
    increment_ms: int = 0
    move_ms: int = 0
    on_timeout: str = "bot_plays"
    bot: str = "heuristic"

    def to_message(self) -> game_service_pb2.TimeControl:
        return game_service_pb2.TimeControl(
            initial_ms=self.initial_ms, increment_ms=self.increment_ms, move_ms=self.move_ms,
            on_timeout=ON_TIMEOUT.get(self.on_timeout, 0), bot=BOT_STRENGTHS.get(self.bot, 0),  # type: ignore[arg-type]
        )

    @classmethod
    def from_message(cls, message: game_service_pb2.TimeControl) -> TimeControl:
        on_timeout = {number: name for name, number in ON_TIMEOUT.items()}
        bots = {number: name for name, number in BOT_STRENGTHS.items()}
        return cls(message.initial_ms, message.increment_ms, message.move_ms,
                   on_timeout.get(message.on_timeout, "bot_plays"), bots.get(message.bot, "heuristic"))


@dataclass(frozen=True)
class SeatStatus:
    """One seat's clock and presence in a view, as of the view's ``server_time_ms``.

    ``remaining_ms``: its time left (to its deadline while ``running``, else its bank);
    ``deadline_ms``: when its time runs out (Unix ms, 0 when its clock does not run); ``bot``:
    the bot playing it ("" for its own player); ``connected``: a Watch stream holds its token.
    """

    seat: int
    remaining_ms: int = 0
    running: bool = False
    deadline_ms: int = 0
    bot: str = ""
    connected: bool = False

    def remaining_at(self, server_time_ms: int, now_ms: int) -> int:
        """The time left at ``now_ms`` of a view made at ``server_time_ms``: a ticking clock, no polling."""
        if not self.running:
            return self.remaining_ms
        return max(0, self.remaining_ms - max(0, now_ms - server_time_ms))


@dataclass(frozen=True)
class View:
    """What one viewer may see of a match at one sequence.

    ``seat`` is the viewer's seat (``None`` for a spectator), ``to_act`` the seats the game
    waits for, ``data`` the game's own view (e.g. ``data["hand"]``, ``data["scores"]``);
    ``seats`` every seat's clock and presence as of ``server_time_ms``, ``time_control`` the
    match's clock (None for none).
    """

    game_id: str
    game: str
    sequence: int
    seat: int | None
    to_act: tuple[int, ...]
    over: bool
    data: dict[str, Any]
    seats: tuple[SeatStatus, ...] = ()
    server_time_ms: int = 0
    time_control: TimeControl | None = None

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
            seats=tuple(
                SeatStatus(status.seat, status.remaining_ms, status.running, status.deadline_ms, status.bot,
                           status.connected)
                for status in message.seats
            ),
            server_time_ms=message.server_time_ms,
            time_control=TimeControl.from_message(message.time_control) if message.HasField("time_control") else None,
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
    #: The owner's token: Abort, HandOver of any seat, ReissueToken (:meth:`GameClient.owner`).
    owner_token: str = ""


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
    #: Seats that came or went (seat, connected), with ``watch(presence=True)``; such an update has no events.
    presence: tuple[tuple[int, bool], ...] = ()


@dataclass(frozen=True)
class Written:
    """A seat-lifecycle call's outcome: the sequence after it (``token``: a reissued seat's new token)."""

    sequence: int
    token: str = ""


@dataclass(frozen=True)
class Log:
    """A slice of a match's log and the match's latest sequence."""

    sequence: int
    events: tuple[LogEvent, ...] = field(default_factory=tuple)
