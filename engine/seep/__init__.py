"""Seep (Sip / Sweep): the 4-player, 100-point North Indian fishing game with houses.

Rules: ``../shared/rules/seep.md``. The package exposes the names of
:class:`cardgames.engine.core.protocol.GameRules`; reach it through
``cardgames.engine.core.registry.get_game("seep")``.
"""

from __future__ import annotations

from cardgames.engine.seep.cards import team as side_of
from cardgames.engine.seep.commands import Bid, Break, Build, Capture, Command, Throw
from cardgames.engine.seep.config import DEFAULT_PLAYERS, NAME, PLAYER_COUNTS, TITLE, Config, make_config
from cardgames.engine.seep.cost import costly
from cardgames.engine.seep.describe import describe, floor_text, score_sheet, table_text
from cardgames.engine.seep.determinize import (
    SEARCH_CANDIDATES,
    SEARCH_HORIZON,
    determinize,
    remember,
    search_episode,
    search_reward,
)
from cardgames.engine.seep.events import Event
from cardgames.engine.seep.evolve import evolve
from cardgames.engine.seep.heuristic import heuristic_policy
from cardgames.engine.seep.legal import legal_commands
from cardgames.engine.seep.rules import decide, start
from cardgames.engine.seep.snapshot import from_snapshot, snapshot
from cardgames.engine.seep.state import State, initial, is_over, outcome, to_act
from cardgames.engine.seep.view import View, audience, redact, view

__all__ = [
    "DEFAULT_PLAYERS",
    "NAME",
    "PLAYER_COUNTS",
    "SEARCH_CANDIDATES",
    "SEARCH_HORIZON",
    "TITLE",
    "Bid",
    "Break",
    "Build",
    "Capture",
    "Command",
    "Config",
    "Event",
    "State",
    "Throw",
    "View",
    "audience",
    "costly",
    "decide",
    "describe",
    "determinize",
    "evolve",
    "floor_text",
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
    "table_text",
    "to_act",
    "view",
]
