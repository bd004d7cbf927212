"""Folding logs and applying commands: the same path for the service, tools and tests."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from msgspec import StructMeta

from cardgames.engine.core.commands import parse_command
from cardgames.engine.core.protocol import GameRules, Rejection, Setup


def fold(game: GameRules, state: Any, events: Iterable[Any]) -> Any:
    """``state`` after every event in ``events`` (DESIGN.md: replay is a fold)."""
    evolve = game.evolve
    for event in events:
        state = evolve(state, event)
    return state


def new_match(game: GameRules, config: Any, setup: Setup) -> tuple[Any, list[Any]]:
    """The state of a new match and the events that made it."""
    events = game.start(config, setup)
    return fold(game, game.initial(config), events), events


# ``Final``: the compiled build keeps it in a C static (a plain module name is a dictionary
# lookup at every use).
_STRUCT_META: Final = StructMeta


def apply(
    game: GameRules, state: Any, seat: int, command: Any
) -> tuple[Any, Sequence[Any]] | Rejection:
    """Decide and evolve one command; ``command`` may be a typed command or a FORMAT.md dict."""
    # A typed command is a Struct, never a Mapping (checked first: the ABC check is slow). Both
    # checks look at classes CPython answers for at once: ``isinstance(x, Struct)`` would go
    # through StructMeta's instance hook, and Rejection is final.
    if not isinstance(type(command), _STRUCT_META) and isinstance(command, Mapping):
        command = parse_command(game, command)
    outcome = game.decide(state, seat, command)
    if type(outcome) is Rejection:  # (mypy narrows on the class itself, not on an alias)
        return outcome
    return fold(game, state, outcome), outcome
