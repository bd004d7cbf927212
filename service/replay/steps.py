"""A log folded step by step, seen by one viewer (a seat, or the public).

The file is the whole log of an ended match, so it holds every hidden card: what a
viewer saw is not in the file but in the rules. At each sequence number the replay
shows ``view(state, viewer)`` (the seat's own hand only, the others' sizes) and the
event as that viewer was shown it: in full when the viewer is in its audience, else
its redacted form (``redact``). Step 0 is the table before the first event.

A file that is not a readable log (not JSON, cut short, unknown game, format or rules
version) raises :class:`~cardgames.service.audit.logfile.LogFormatError`, with the audit
reader's own checks; a log whose events the rules cannot fold raises
:class:`ReplayError`. Replaying does not verify the log: ``cardgames verify`` does.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import msgspec

from cardgames.engine.core.canonical import canonical
from cardgames.engine.core.protocol import PUBLIC, GameRules, Viewer
from cardgames.engine.core.seat_events import with_seat_events
from cardgames.service.audit.header import Failure, check_header
from cardgames.service.audit.logfile import AuditLog, LogFormatError, read_log
from cardgames.service.audit.verify import SEAT_EVENT_TYPES


class ReplayError(Exception):
    """The log reads, but its events cannot be replayed (``where``: ``seq N`` or ``header``)."""

    def __init__(self, where: str, message: str) -> None:
        super().__init__(message)
        self.where = where
        self.message = message

    def __str__(self) -> str:
        return f"{self.where}: {self.message}"


@dataclass(frozen=True)
class Step:
    """What the viewer saw at sequence number ``seq`` (0: before the first event)."""

    seq: int
    #: The event's type (``"header"`` at step 0) and one readable line of it, as the viewer saw it.
    kind: str
    line: str
    #: The seat whose command caused this event (the first of its batch), else None.
    actor: int | None
    #: That command, only when the viewer is the seat that sent it.
    command: dict[str, Any] | None
    #: ``view(state, viewer)`` after the event, as plain data (FORMAT.md shapes).
    view: dict[str, Any]
    #: The game's own text of the table (``table_text(view)``), when the game exports one.
    text: str | None


def viewer_name(viewer: Viewer) -> str:
    return "the public (a spectator)" if viewer is None else f"seat {viewer}"


class Replay:
    """A log's events decoded and folded: ``states[seq]`` is the state after event ``seq``."""

    def __init__(self, log: AuditLog) -> None:
        try:
            checked = check_header(log.header)  # the verifier's checks: format, version, game, rules version, config
        except Failure as failure:
            raise ReplayError("header", failure.message) from None
        if log.reveal is None:
            raise LogFormatError(
                f"the log has no reveal line after seq {len(log.entries)}: the file is cut short, or the match had "
                "not ended when it was exported (replay needs the whole log of an ended match)"
            )
        self.log = log
        self.base: GameRules = checked.base
        self.config: Any = checked.config
        self.players: int = checked.players
        types = {item.get("event", {}).get("type") for item in log.entries if isinstance(item.get("event"), dict)}
        self.rules: GameRules = with_seat_events(self.base) if types & SEAT_EVENT_TYPES else self.base
        self.events = self._decode()
        self.states = self._fold()

    @classmethod
    def from_bytes(cls, data: bytes) -> Replay:
        return cls(read_log(data))

    @property
    def last(self) -> int:
        """The last sequence number."""
        return len(self.events)

    @property
    def title(self) -> str:
        return str(getattr(self.base, "TITLE", self.base.NAME))

    @property
    def game_id(self) -> str:
        return str(self.log.header.get("game_id"))

    def _where(self, seq: int) -> str:
        lines = self.log.lines
        return f"seq {seq} (line {lines[seq - 1]})" if seq - 1 < len(lines) else f"seq {seq}"

    def _decode(self) -> list[Any]:
        decoder = msgspec.json.Decoder(self.rules.Event)
        events = []
        for index, item in enumerate(self.log.entries):
            seq = index + 1
            if item.get("seq") != seq:
                raise ReplayError(self._where(seq), f"expected seq {seq}, the log has seq {item.get('seq')!r}")
            if item.get("redacted"):
                raise ReplayError(self._where(seq), "the entry is redacted: replay needs the whole log of an "
                                  "ended match")
            if "event" not in item:
                raise ReplayError(self._where(seq), "the entry has no event")
            try:
                events.append(decoder.decode(canonical(item["event"])))
            except (msgspec.ValidationError, TypeError) as error:
                raise ReplayError(self._where(seq), f"not a {self.base.NAME} event: {error}") from None
        return events

    def _fold(self) -> list[Any]:
        evolve = self.rules.evolve
        state = self.rules.initial(self.config)
        states = [state]
        for seq, event in enumerate(self.events, start=1):
            try:
                state = evolve(state, event)
            except Exception as error:  # a hand-made log can reach states the rules never produce
                raise ReplayError(self._where(seq), f"the rules cannot apply this event ({type(error).__name__}: "
                                  f"{error}); `cardgames verify` tells what is wrong with the log") from None
            states.append(state)
        return states

    @cached_property
    def actors(self) -> dict[int, tuple[int, dict[str, Any]]]:
        """seq -> (seat, command) for the entries that carry a command."""
        return {
            index + 1: (int(item["seat"]), item["command"])
            for index, item in enumerate(self.log.entries)
            if "command" in item and isinstance(item.get("seat"), int) and isinstance(item["command"], dict)
        }

    def check_viewer(self, viewer: Viewer) -> None:
        if viewer is not None and not 0 <= viewer < self.players:
            raise ValueError(f"seat {viewer} is not a seat of this match (seats 0 to {self.players - 1})")

    def seen(self, event: Any, viewer: Viewer) -> Any:
        """``event`` as ``viewer`` was shown it: in full inside its audience, else redacted."""
        audience = self.rules.audience(event)
        if audience == PUBLIC or (viewer is not None and not isinstance(audience, str) and audience == viewer):
            return event
        return self.rules.redact(event, viewer)

    def step(self, seq: int, viewer: Viewer) -> Step:
        """What ``viewer`` saw at ``seq`` (0 to :attr:`last`)."""
        if not 0 <= seq <= self.last:
            raise IndexError(f"seq {seq} is not in this log (0 to {self.last})")
        view = self.rules.view(self.states[seq], viewer)
        table_text = getattr(self.base, "table_text", None)
        text = table_text(view) if callable(table_text) else None
        if seq == 0:
            header = self.log.header
            line = f"{self.title}: game {self.game_id}, {header.get('players')} players, before the first event"
            return Step(0, "header", line, None, None, _plain(view), text)
        event = self.seen(self.events[seq - 1], viewer)
        actor, command = self.actors.get(seq, (None, None))
        return Step(
            seq=seq,
            kind=_tag(event),
            line=self.rules.describe(event) or fallback_line(event),
            actor=actor,
            command=command if actor is not None and actor == viewer else None,
            view=_plain(view),
            text=text,
        )

    def steps(self, viewer: Viewer) -> Iterator[Step]:
        for seq in range(self.last + 1):
            yield self.step(seq, viewer)


def _plain(value: Any) -> Any:
    """JSON data (lists, not tuples): what the page embeds and the layout reads."""
    return msgspec.json.decode(msgspec.json.encode(value))


def _tag(event: Any) -> str:
    config = getattr(type(event), "__struct_config__", None)
    return str(getattr(config, "tag", None) or type(event).__name__)


def fallback_line(event: Any) -> str:
    """A line for an event the game does not describe (the hidden chance events): its type and plain fields."""
    data = _plain(event)
    words = _tag(event).replace("_", " ")
    if not isinstance(data, dict):
        return words
    parts = []
    for key, value in data.items():
        if key == "type" or value in (None, "", [], {}):
            continue
        if isinstance(value, str) and len(value) > 16:
            value = value[:12] + "…"
        elif isinstance(value, list | dict):
            value = f"{len(value)} items"
        parts.append(f"{key.replace('_', ' ')} {value}")
    return f"{words}: {', '.join(parts)}" if parts else words
