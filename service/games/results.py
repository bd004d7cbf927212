"""What the service's calls return: plain frozen dataclasses, and a log's entries as a viewer sees them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from cardgames.engine.core.protocol import PUBLIC, GameRules, Viewer
from cardgames.service.store import Note


@dataclass(frozen=True)
class Created:
    """A new game: its id, one token per seat, its sequence, seed commitment and chain head."""

    game_id: str
    game: str
    seat_tokens: list[str]
    sequence: int
    seed_commitment: str = ""
    head: str = ""  #: the chain's head ("" while a seat-entropy game waits for its seats)


@dataclass(frozen=True)
class Entry:
    """One event of the log as a viewer sees it, with the chain's hash after it.

    ``seat`` and ``command`` are set on the entry that starts a command's batch, for the
    seat that sent it and, once the match is over, for everyone.
    """

    sequence: int
    event: Any
    redacted: bool
    hash: str = ""
    seat: int | None = None
    command: Any = None


@dataclass(frozen=True)
class ViewResult:
    """A viewer's view of a game at a sequence, who is to act, and whether the match is over."""

    game_id: str
    game: str
    sequence: int
    seat: int | None
    view: Any
    to_act: tuple[int, ...]
    over: bool
    head: str = ""


@dataclass(frozen=True)
class Accepted:
    """A command accepted: the entries of its batch as its seat sees them, and the new head."""

    game: str
    seat: int
    sequence: int
    entries: list[Entry]
    head: str = ""


@dataclass(frozen=True)
class LegalListing:
    """Every legal command of ``seat`` at ``sequence``, as the game lists them: a sequence that
    may be lazy (a crowded Seep floor counts its groupings and makes a command when asked for
    it), for players in this process; never make it a list."""

    game: str
    sequence: int
    seat: int
    commands: Sequence[Any]


@dataclass(frozen=True)
class LegalCommands:
    """One page of a seat's legal commands: ``commands`` from index ``offset`` of ``total``.

    Asked for ``wire`` (the number of a ``repeated cardgames.v1.Command`` field), a page made in a
    worker comes as ``encoded`` instead: ``encoded_count`` entries of that field, already serialized
    (the worker does that too, not the event loop), to follow the response's other fields.
    """

    game: str
    sequence: int
    seat: int
    commands: list[Any]
    total: int
    offset: int = 0
    encoded: bytes = b""
    encoded_count: int = 0

    @property
    def size(self) -> int:
        """The commands in the page."""
        return len(self.commands) + self.encoded_count


@dataclass(frozen=True)
class LogResult:
    """Entries of a game's log, with its header; ``reveal`` (the seeds) once the match is over.

    ``header`` is the log header of docs/log-format.md with its ``genesis`` (while a
    seat-entropy game waits, its missing commitments are "" and there is no genesis yet).
    """

    game: str
    sequence: int
    entries: list[Entry]
    header: dict[str, Any] = field(default_factory=dict)
    reveal: dict[str, Any] | None = None
    head: str = ""


@dataclass(frozen=True)
class EntropyStatus:
    """Where a seat-entropy game stands: commitments and reveals so far, and whether it started."""

    seats: int
    committed: int
    revealed: int
    started: bool
    sequence: int
    head: str


@dataclass(frozen=True)
class WatchItem:
    """A batch of events since the previous item (none in a fresh watch's first) and the view after."""

    sequence: int
    entries: list[Entry]
    view: ViewResult


def shown(rules: GameRules, event: Any, viewer: Viewer, over: bool) -> tuple[Any, bool]:
    """The event as ``viewer`` sees it and whether it was redacted (everything shows once over)."""
    if over:
        return event, False
    audience = rules.audience(event)
    if audience == PUBLIC or (viewer is not None and not isinstance(audience, str) and audience == viewer):
        return event, False
    return rules.redact(event, viewer), True


def entries_for(
    rules: GameRules, first: int, events: Sequence[Any], viewer: Viewer, over: bool, notes: Sequence[Note] = ()
) -> list[Entry]:
    """The entries as ``viewer`` sees them; a command shows to its own seat, and to all once over."""
    if not notes:
        return [Entry(first + index, *shown(rules, event, viewer, over)) for index, event in enumerate(events)]
    entries = []
    for index, (event, note) in enumerate(zip(events, notes, strict=True)):
        visible = note.command is not None and (over or note.seat == viewer)
        entries.append(Entry(first + index, *shown(rules, event, viewer, over), note.hash,
                             note.seat if visible else None, note.command if visible else None))
    return entries


def split_notes(pairs: Sequence[tuple[Any, Note]]) -> tuple[list[Any], list[Note]]:
    """The events and the notes of a log's (event, note) pairs."""
    return [event for event, _ in pairs], [note for _, note in pairs]
