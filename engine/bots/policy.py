"""What a bot is: a pure policy from a seat's view and its legal commands to one command.

A policy never receives the state: only ``game.view(state, seat)`` (what the seat may
see) and ``game.legal_commands(state, seat)``. Its only source of chance is the
``random.Random`` handed to it. Policies are plain objects, so the in-process arena,
the tournament runner and a remote bot (which gets the same view over the wire) can
all drive them.

A game that ships bots declares them in its traits (``TRAITS.bots``, a
:class:`cardgames.engine.core.protocol.Bots`): ``determinize``, ``remember``,
``heuristic_policy``, ``search_episode`` and ``search_reward`` (:class:`BotRules`), and the
search's settings (``search_horizon``, ``search_candidates``, ``search_rollout``).
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Sequence
from typing import Any, Protocol, cast, runtime_checkable

from cardgames.engine.core.registry import get_game


class Policy(Protocol):
    """A bot: picks one of ``legal`` (never empty) from what its seat sees."""

    def choose(self, view: Any, legal: Sequence[Any], rng: random.Random) -> Any: ...


@runtime_checkable
class Observer(Protocol):
    """A policy with a memory: it is shown its seat's view after every command, as a player at the
    table (or a remote bot watching its seat's stream) sees each move. A policy is one when it
    implements ``observe`` (``isinstance(policy, Observer)``)."""

    def observe(self, view: Any) -> None: ...


@runtime_checkable
class Remembering(Observer, Protocol):
    """An observer that can forget: ``reset`` starts a new match (the arena plays many with one policy)."""

    def reset(self) -> None: ...


@runtime_checkable
class Ranker(Protocol):
    """A policy that orders the legal commands, best first (a search anchored on it searches only
    its best few). A policy is one when it implements ``rank`` (``isinstance(policy, Ranker)``)."""

    def rank(self, view: Any, legal: Sequence[Any]) -> list[Any]: ...


class BotRules(Protocol):
    """The game-specific pieces the generic bots need (besides the game protocol)."""

    search_horizon: int | None
    search_candidates: int | None
    search_rollout: str

    def determinize(self, config: Any, view: Any, rng: random.Random, memory: Any = None) -> Any:
        """A full state consistent with everything ``view.viewer`` has seen; hidden cards dealt at random.

        Its inputs hold no hidden card: only the public config, the seat's view and the
        seat's memory of its earlier views (``remember``).
        """
        ...

    def remember(self, memory: Any, view: Any) -> Any:
        """The seat's memory after seeing ``view`` (None: nothing worth keeping). Built from views only."""
        ...

    def heuristic_policy(self, config: Any) -> Policy:
        """The game's rules-of-thumb player."""
        ...

    def search_episode(self, state: Any) -> Hashable:
        """A key that changes when the part of the match a search looks at ends (e.g. the hand number)."""
        ...

    def search_reward(self, root: Any, leaf: Any) -> Sequence[float]:
        """Per seat, how good ``leaf`` is compared with ``root`` (about -1 .. 1; the match's end at the extremes)."""
        ...


class BotsUnavailable(LookupError):
    """The game has no bot support (yet)."""


def bot_rules(game: str) -> BotRules:
    """The bot pieces of ``game``, reached through the registry; raises :class:`BotsUnavailable`."""
    bots = get_game(game).TRAITS.bots
    if bots is None:
        raise BotsUnavailable(f"{game} has no bot support (its traits declare no bots)")
    return cast(BotRules, bots)
