"""The game protocol every game package implements (DESIGN.md: decide, evolve, view).

A game is a module (``engine/<game>/__init__.py``) that exposes the names of
:class:`GameRules`. The service and every tool reach a game only through
:mod:`cardgames.engine.core.registry`, never by importing the package.

Commands, events, configs and views are frozen ``msgspec.Struct`` types. Commands
and events are *tagged* structs (``tag_field="type"``) so that
``msgspec.to_builtins`` gives exactly the FORMAT.md shapes (``{"type": "play",
"card": "AS"}``), and the wire layer maps them onto the protobuf messages by name.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final, Literal, Protocol, TypeAlias, final

import msgspec

from cardgames.engine.core.score_sheet import ScoreSheet


class RejectionCode(enum.StrEnum):
    """The four rejection codes of FORMAT.md, in the order they take precedence."""

    GAME_OVER = "game_over"
    NOT_YOUR_TURN = "not_your_turn"
    INVALID_COMMAND = "invalid_command"
    ILLEGAL_MOVE = "illegal_move"


@final
class Rejection(msgspec.Struct, frozen=True):
    """A command the rules refuse. ``rule`` names the section of the rules file.

    Final: ``type(x) is Rejection`` is the whole check (cardgames.engine.core.replay.apply)."""

    code: RejectionCode
    message: str
    rule: str = ""

    def __str__(self) -> str:
        where = f" ({self.rule})" if self.rule else ""
        return f"{self.code.value}: {self.message}{where}"


def reject(code: RejectionCode, message: str, rule: str = "") -> Rejection:
    return Rejection(code, message, rule)


class Malformed(msgspec.Struct, frozen=True):
    """A command that could not be parsed (unknown type, missing or mistyped field).

    It is handed to ``decide`` instead of a command, so that each game can apply the
    precedence of FORMAT.md (``game_over`` and ``not_your_turn`` before
    ``invalid_command``) and answer ``invalid_command`` with this reason.
    """

    reason: str
    type: str | None = None


class OptionsError(ValueError):
    """Unknown option keys or values, or a player count the game does not allow."""


class ScenarioError(ValueError):
    """A start position that breaks the game's invariants (not a rejection)."""


#: Who may see an event: everyone, one seat, or nobody until the match ends.
PUBLIC: Final = "public"
HIDDEN: Final = "hidden"
Audience: TypeAlias = int | Literal["public", "hidden"]

#: A viewer is a seat number, or ``None`` for a spectator (the public view).
Viewer: TypeAlias = int | None


class Setup(msgspec.Struct, frozen=True):
    """How a new match gets its chance and its starting facts.

    ``seed`` (32 bytes, hex) feeds every shuffle not given in ``decks``; ``decks``
    are stacked orders (top first) taken by the first shuffles, in order;
    ``dealer`` replaces the first-dealer draw; ``match`` holds match-level keys in
    force before the first deal (FORMAT.md ``start.match``).
    """

    seed: str | None = None
    decks: tuple[tuple[str, ...], ...] = ()
    dealer: int | None = None
    match: dict[str, Any] = {}


class GameRules(Protocol):
    """What a game module provides. ``State`` is the game's own frozen struct."""

    NAME: str
    TITLE: str
    DEFAULT_PLAYERS: int
    PLAYER_COUNTS: tuple[int, ...]
    Config: type[msgspec.Struct]
    Command: Any  #: the union of the game's tagged command structs
    Event: Any  #: the union of the game's tagged event structs
    View: type[msgspec.Struct]

    def make_config(self, options: Mapping[str, Any], players: int | None) -> Any:
        """Validate options (snake_case keys) and the player count; raise OptionsError."""
        ...

    def start(self, config: Any, setup: Setup) -> list[Any]:
        """The events of a new match up to its first decision (creation, draws, the deal)."""
        ...

    def initial(self, config: Any) -> Any:
        """The state before any event: the fold of ``start``'s events begins here."""
        ...

    def decide(self, state: Any, seat: int, command: Any) -> Sequence[Any] | Rejection:
        """The events a command causes (automatic consequences included), or a rejection.

        ``command`` is a parsed command struct or a :class:`Malformed`.
        """
        ...

    def evolve(self, state: Any, event: Any) -> Any:
        """Apply one event. Never fails on a log that ``decide`` produced."""
        ...

    def view(self, state: Any, viewer: Viewer) -> Any:
        """What ``viewer`` may see now."""
        ...

    def legal_commands(self, state: Any, seat: int) -> Sequence[Any]:
        """Every distinct command ``seat`` may send now (empty when it has none): a list, or
        where they run to thousands a lazy :class:`cardgames.engine.core.lazy_listing.Listing` that makes
        a command when it is indexed (the same commands in the same order)."""
        ...

    def to_act(self, state: Any) -> tuple[int, ...]:
        """The seats the game is waiting for (empty once the match is over)."""
        ...

    def is_over(self, state: Any) -> bool: ...

    def audience(self, event: Any) -> Audience:
        """Who sees ``event`` in full while the match runs."""
        ...

    def redact(self, event: Any, viewer: Viewer) -> Any:
        """The form of ``event`` shown to a viewer outside its audience (counts, not cards)."""
        ...

    def snapshot(self, state: Any) -> dict[str, Any]:
        """The FORMAT.md state snapshot."""
        ...

    def from_snapshot(self, config: Any, snapshot: Mapping[str, Any], setup: Setup) -> Any:
        """A state from a (partial) snapshot; raise ScenarioError when it breaks invariants."""
        ...

    def describe(self, event: Any) -> str | None:
        """One line of a readable account of the match, or None for events not worth a line."""
        ...

    def score_sheet(self, events: Iterable[Any]) -> ScoreSheet:
        """The match's scores as a table (a row per deal, the totals) from its events (every one
        public once the match is over): :mod:`cardgames.engine.core.score_sheet`."""
        ...

    def outcome(self, state: Any) -> list[int]:
        """Final standing per seat once over: 0 for the winners, higher is worse."""
        ...
