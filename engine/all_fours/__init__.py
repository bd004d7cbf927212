"""All Fours, Trinidad rules (rules/all-fours.md): the game package behind ``get_game("all_fours")``."""

from __future__ import annotations

from typing import Final

from cardgames.engine.all_fours.cards import side_of
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

NAME: Final = "all_fours"
TITLE: Final = "All Fours (Trinidad)"
#: 2: a seat whose hand is held back (B-28) may no longer expose a card it has not received
#: (A17); a log of version 1 holding such an exposure would not re-run.
RULES_VERSION: Final = "2"

__all__ = [
    "DEFAULT_PLAYERS",
    "NAME",
    "PLAYER_COUNTS",
    "RULES_VERSION",
    "TITLE",
    "Command",
    "Config",
    "Event",
    "State",
    "View",
    "audience",
    "decide",
    "describe",
    "determinize",
    "evolve",
    "from_snapshot",
    "heuristic_policy",
    "initial",
    "is_over",
    "legal_commands",
    "make_config",
    "outcome",
    "redact",
    "remember",
    "score_sheet",
    "search_episode",
    "search_reward",
    "side_of",
    "snapshot",
    "start",
    "to_act",
    "view",
]
