"""All Fours, Trinidad rules (rules/all-fours.md): the game package behind ``get_game("all_fours")``."""

from __future__ import annotations

from typing import Final

from cardgames.engine.all_fours.commands import Command
from cardgames.engine.all_fours.config import DEFAULT_PLAYERS, PLAYER_COUNTS, Config, make_config
from cardgames.engine.all_fours.describe import describe, score_sheet
from cardgames.engine.all_fours.determinize import determinize, remember, search_episode, search_reward
from cardgames.engine.all_fours.events import Event
from cardgames.engine.all_fours.evolve import evolve
from cardgames.engine.all_fours.heuristic import heuristic_policy
from cardgames.engine.all_fours.legal import legal_commands
from cardgames.engine.all_fours.rules import decide, start
from cardgames.engine.all_fours.snapshot import from_snapshot, snapshot
from cardgames.engine.all_fours.state import State, initial, is_over, outcome, to_act
from cardgames.engine.all_fours.view import View, audience, redact, view
from cardgames.engine.core.protocol import DEFAULT_ROLES, PROTOCOL_NAMES, Bots, Comparison, Layout, Traits

NAME: Final = "all_fours"
TITLE: Final = "All Fours (Trinidad)"
TRAITS: Final = Traits(
    #: 2: a seat whose hand is held back (B-28) may no longer expose a card it has not received
    #: (A17); a log of version 1 holding such an exposure would not re-run.
    rules_version="2",
    partnerships={4: ((0, 2), (1, 3))},
    layout=Layout(
        roles=(*DEFAULT_ROLES, ("eldest", "eldest")),
        always=frozenset({"trick"}),
        held_back="hand held back until trumps are fixed",
    ),
    comparison=Comparison(ordered=frozenset({"stock", "set_aside"})),
    bots=Bots(determinize, remember, heuristic_policy, search_episode, search_reward),
)

__all__ = [
    *PROTOCOL_NAMES,
    "State",
    "determinize",
    "heuristic_policy",
    "remember",
    "search_episode",
    "search_reward",
]
