"""The game protocol every game package implements (DESIGN.md: decide, evolve, view).

A game is a module (``engine/<game>/__init__.py``, or one registered from outside the
project) that exposes the names of :class:`GameRules` (:data:`PROTOCOL_NAMES`); what a game
may leave out is in its :class:`Traits`, each part with a default. The service and every tool
reach a game only through :mod:`cardgames.engine.core.registry`, never by importing the
package, and never ask a game whether it has an attribute. docs/adding-a-game.md walks
through a whole game.

Commands, events, configs and views are frozen ``msgspec.Struct`` types. Commands
and events are *tagged* structs (``tag_field="type"``) so that
``msgspec.to_builtins`` gives exactly the FORMAT.md shapes (``{"type": "play",
"card": "AS"}``), and the wire layer maps them onto the protobuf messages by name.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
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


#: The view fields every game may use to name a seat by its role, and the badge each gives.
DEFAULT_ROLES: Final[tuple[tuple[str, str], ...]] = (("dealer", "dealer"), ("to_act", "to act"))

#: Seats played together as one side, for one player count: ``((0, 2), (1, 3))``.
Sides: TypeAlias = tuple[tuple[int, ...], ...]


@dataclass(frozen=True)
class Layout:
    """What the replay's generic table (service/replay/layout.py) cannot tell from a view's shape.

    The table sorts a view's fields by their shape (a card, a list of cards, one value per
    seat...); these are the few facts of a game's own vocabulary it needs besides.
    """

    #: View fields that hold a seat by its role, and the badge put on that seat.
    roles: tuple[tuple[str, str], ...] = DEFAULT_ROLES
    #: Card areas drawn even when empty (an empty floor is worth seeing).
    always: frozenset[str] = frozenset()
    #: What an entry of a list of card lists that is not one per seat belongs to ("side", "team").
    side: str = "side"
    #: The note shown instead of the viewer's hand when the view sets ``hand_hidden``.
    held_back: str = "hand not shown"


@dataclass(frozen=True)
class Comparison:
    """How the conformance runner (service/conformance/compare.py) compares a snapshot's lists.

    By default a list of cards compares as a multiset and any other list in order, element by
    element, partially; a game names the lists of its snapshot that compare otherwise.
    """

    #: Card lists compared in order (a stock, a discard pile).
    ordered: frozenset[str] = frozenset()
    #: Lists of objects compared as a set, each object matched by its value of a key field:
    #: ``(("houses", "value"),)``.
    keyed: tuple[tuple[str, str], ...] = ()
    #: Lists of card lists compared as a multiset of card multisets (a house's components).
    groups: frozenset[str] = frozenset()
    #: Lists of plain values compared as sets (a house's owners).
    sets: frozenset[str] = frozenset()
    #: Card lists compared in order when their object has a field of a value:
    #: ``(("cards", "kind", "run"),)`` (a run's cards are in order, a set's are not).
    ordered_when: tuple[tuple[str, str, Any], ...] = ()


@dataclass(frozen=True)
class Bots:
    """The game-specific pieces the built-in bots need (typed in full by
    :class:`cardgames.engine.bots.policy.BotRules`, which documents each)."""

    determinize: Callable[..., Any]
    remember: Callable[..., Any]
    heuristic_policy: Callable[..., Any]
    search_episode: Callable[..., Any]
    search_reward: Callable[..., Any]
    #: Plies the search looks beyond the root before it reads the reward (None: to the episode's end).
    search_horizon: int | None = None
    #: With an anchor that ranks commands, how many of its best the search considers (None: all).
    search_candidates: int | None = None
    #: How the search plays on from a leaf: "random" or "heuristic".
    search_rollout: str = "random"


@dataclass(frozen=True)
class Traits:
    """The optional parts of a game: every one has a default, so a game declares only what it has.

    A game module exports one as ``TRAITS`` (``TRAITS = Traits()`` when it has none of them).
    The service and the tools read these instead of knowing a game by its name.
    """

    #: The version of the rules ``decide`` and ``evolve`` implement. A game bumps it whenever
    #: they would give another log for the same commands, so that a log of the old rules is
    #: refused instead of failing obscurely (the audit log's header, docs/log-format.md).
    rules_version: str = "1"
    #: Per player count, the seats played together as one side (a tournament's partnerships);
    #: a count not listed plays one seat a side.
    partnerships: Mapping[int, Sides] = field(default_factory=dict)
    #: The table as a few lines of text from a view (the replay, beside the generic table).
    table_text: Callable[[Any], str | None] | None = None
    #: The table on one line from the public view, shown after each play in ``cardgames play``'s
    #: account (None: nothing worth a line now).
    floor_text: Callable[[Any], str | None] | None = None
    #: Whether listing a seat's commands in a state may take more than a few milliseconds (the
    #: service then lists them in a worker process): a cheap test of (state, seat).
    costly: Callable[[Any, int], bool] | None = None
    layout: Layout = Layout()
    comparison: Comparison = Comparison()
    #: The pieces the built-in heuristic and search bots need; None: the game has only random bots.
    bots: Bots | None = None

    def sides(self, players: int) -> Sides:
        """The seats of each side for ``players`` seats: partnerships, else one seat each."""
        return self.partnerships.get(players, tuple((seat,) for seat in range(players)))


#: The names every game module exports (those of :class:`GameRules`): a game's ``__init__`` lists
#: ``__all__ = [*PROTOCOL_NAMES, <its own extra names>]`` and the registry checks them when it loads it.
PROTOCOL_NAMES: Final = (
    "NAME", "TITLE", "DEFAULT_PLAYERS", "PLAYER_COUNTS", "TRAITS", "Command", "Config", "Event", "View",
    "audience", "decide", "describe", "evolve", "from_snapshot", "initial", "is_over", "legal_commands",
    "make_config", "outcome", "redact", "score_sheet", "snapshot", "start", "to_act", "view",
)


class GameRules(Protocol):
    """What a game module provides. ``State`` is the game's own frozen struct."""

    NAME: str
    TITLE: str
    DEFAULT_PLAYERS: int
    PLAYER_COUNTS: tuple[int, ...]
    #: The match's options; every game's config has ``players``, the number of seats.
    Config: type[msgspec.Struct]
    Command: Any  #: the union of the game's tagged command structs
    Event: Any  #: the union of the game's tagged event structs
    View: type[msgspec.Struct]
    #: The game's optional parts (:class:`Traits`).
    TRAITS: Traits

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
