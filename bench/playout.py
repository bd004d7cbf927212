"""Random legal playouts of any game, through the registry only (no game imports).

At every step: the seat to act (``to_act``; a random one when several may act),
``legal_commands`` enumerated in full, one chosen by the benchmark's own seeded
``random.Random``, then decide + evolve through ``cardgames.engine.core.replay.apply``.
"""

from __future__ import annotations

import random
import time
import typing
from dataclasses import dataclass, field
from typing import Any

from bench.harness import Unavailable
from cardgames.engine.core.protocol import GameRules, Rejection, Setup
from cardgames.engine.core.registry import get_game
from cardgames.engine.core.replay import apply, new_match

#: A playout longer than this many actions is a bug of the game (or of the bench).
MAX_ACTIONS = 500_000


@dataclass(frozen=True)
class GameSpec:
    """What a playout of one game is and which anchor it is compared with."""

    name: str
    anchor: str  #: the RLCard probe whose steps/s is the target
    unit: str  #: what a "whole unit" of play is called in the table (matches, deals, games)
    #: tags of the events that end one unit; empty: one unit per match
    unit_events: tuple[str, ...] = ()
    #: tags of the events that end one deal (hand), for per-deal times
    deal_events: tuple[str, ...] = ()
    options: dict[str, Any] = field(default_factory=dict)
    players: int | None = None


SPECS: dict[str, GameSpec] = {
    # a full match to the target score (rules: 14 points by default)
    "all_fours": GameSpec("all_fours", anchor="rlcard.bridge", unit="matches"),
    # whole matches (one baazi by default), reported per deal as the rules count them
    "seep": GameSpec(
        "seep", anchor="rlcard.bridge", unit="deals", unit_events=("deal_scored",), deal_events=("deal_scored",)
    ),
    # full games of seven deals
    "contract_rummy": GameSpec(
        "contract_rummy", anchor="rlcard.gin-rummy", unit="games", deal_events=("deal_scored", "deal_blocked")
    ),
}

#: Units that are whole matches (no separate matches/s row).
MATCH_UNITS = ("matches", "games")


#: The names a game module must export (cardgames.engine.core.protocol.GameRules) before it is measured.
PROTOCOL_NAMES = (
    "NAME", "Config", "Command", "Event", "make_config", "start", "initial", "decide", "evolve",
    "legal_commands", "to_act", "is_over", "snapshot", "from_snapshot",
)


def load_game(name: str) -> GameRules:
    """The game from the registry, or :class:`Unavailable` while its package is missing or incomplete."""
    try:
        game = get_game(name)
    except ModuleNotFoundError as error:
        raise Unavailable(f"cardgames.engine.{name} does not exist yet ({error})") from error
    except ImportError as error:
        raise Unavailable(f"cardgames.engine.{name} does not import yet ({error})") from error
    missing = [attribute for attribute in PROTOCOL_NAMES if not hasattr(game, attribute)]
    if missing:
        raise Unavailable(f"cardgames.engine.{name} is incomplete (no {', '.join(missing)})")
    return game


def union_members(union: Any) -> tuple[type, ...]:
    return tuple(member for member in typing.get_args(union) if isinstance(member, type))


def event_tag_of_type(struct_type: type) -> str:
    """The tag of a tagged struct type (FORMAT.md's ``type``), else its class name."""
    config = getattr(struct_type, "__struct_config__", None)
    tag = getattr(config, "tag", None)
    return str(tag) if tag is not None else struct_type.__name__


class GameFault(Exception):
    """The game misbehaved in a playout (an exception, no legal command, a listed command
    rejected, a match that never ends): a bug of the game, reported in its row."""


@dataclass
class Match:
    """One random match: its events (start included), its actions and its final state."""

    events: list[Any]
    actions: int
    state: Any
    start_events: int = 0  #: how many of ``events`` the match's start made
    seed: str = ""  #: the match's seed (hex)


class Player:
    """Plays random legal matches of one game with its own seeded random.Random."""

    def __init__(self, spec: GameSpec, seed: int, options: dict[str, Any] | None = None) -> None:
        self.spec = spec
        self.game = load_game(spec.name)
        self.config = self.game.make_config({**spec.options, **(options or {})}, spec.players)
        self.rng = random.Random(seed)
        members = union_members(self.game.Event)
        self.unit_types = tuple(member for member in members if event_tag_of_type(member) in spec.unit_events)
        self.deal_types = tuple(member for member in members if event_tag_of_type(member) in spec.deal_events)
        if spec.unit_events and not self.unit_types:
            raise Unavailable(f"{spec.name} has no event tagged {', '.join(spec.unit_events)} to count units by")

    def new_state(self) -> tuple[Any, list[Any], str]:
        seed = self.rng.randbytes(32).hex()
        state, events = new_match(self.game, self.config, Setup(seed=seed))
        return state, list(events), seed

    def play(self, legal_times: list[float] | None = None, commands: list[tuple[int, Any, int]] | None = None
             ) -> Match:
        """One whole match.

        ``legal_times`` (when given) receives the CPU time of each ``legal_commands``
        call, ``commands`` each command as (seat, command, number of events it caused).
        Whatever goes wrong inside the game is raised as :class:`GameFault`.
        """
        try:
            return self._play(legal_times, commands)
        except GameFault:
            raise
        except Exception as error:
            raise GameFault(f"{self.spec.name}: {type(error).__name__}: {error}") from error

    def _play(self, legal_times: list[float] | None, commands: list[tuple[int, Any, int]] | None) -> Match:
        game, choice, clock = self.game, self.rng.choice, time.thread_time
        is_over, to_act, legal_commands = game.is_over, game.to_act, game.legal_commands
        state, log, seed = self.new_state()
        start_events = len(log)
        actions = 0
        while not is_over(state):
            seats = to_act(state)
            seat = seats[0] if len(seats) == 1 else choice(seats)
            if legal_times is None:
                legal = legal_commands(state, seat)
            else:
                before = clock()
                legal = legal_commands(state, seat)
                legal_times.append(clock() - before)
            if not legal:
                raise GameFault(f"{self.spec.name}: seat {seat} is to act but has no legal command")
            command = choice(legal)
            outcome = apply(game, state, seat, command)
            if isinstance(outcome, Rejection):
                raise GameFault(f"{self.spec.name}: a listed legal command was rejected: {outcome}")
            state, events = outcome
            log.extend(events)
            if commands is not None:
                commands.append((seat, command, len(events)))
            actions += 1
            if actions > MAX_ACTIONS:
                raise GameFault(f"{self.spec.name}: a random match ran over {MAX_ACTIONS} actions")
        return Match(log, actions, state, start_events, seed)

    def units(self, match: Match) -> int:
        """The units (deals, ...) a match held; 1 when the unit is the match."""
        return count_events(match, self.unit_types) if self.unit_types else 1

    def deals(self, match: Match) -> int:
        """The deals a match held (by the spec's deal events); 1 when the game names none."""
        return max(1, count_events(match, self.deal_types)) if self.deal_types else 1


def count_events(match: Match, types: tuple[type, ...]) -> int:
    return sum(1 for event in match.events if isinstance(event, types))

