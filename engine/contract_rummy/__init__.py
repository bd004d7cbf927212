"""Contract Rummy (rules/contract-rummy.md): the game package behind ``get_game("contract_rummy")``."""

from __future__ import annotations

from typing import Final

from cardgames.engine.contract_rummy.commands import Command
from cardgames.engine.contract_rummy.config import DEFAULT_PLAYERS, PLAYER_COUNTS, Config, make_config
from cardgames.engine.contract_rummy.deal import start
from cardgames.engine.contract_rummy.describe import describe, score_sheet
from cardgames.engine.contract_rummy.determinize import (
    SEARCH_CANDIDATES,
    SEARCH_HORIZON,
    SEARCH_ROLLOUT,
    determinize,
    remember,
    search_episode,
    search_reward,
)
from cardgames.engine.contract_rummy.events import Event
from cardgames.engine.contract_rummy.evolve import evolve
from cardgames.engine.contract_rummy.heuristic import heuristic_policy
from cardgames.engine.contract_rummy.legal import legal_commands
from cardgames.engine.contract_rummy.rules import decide
from cardgames.engine.contract_rummy.snapshot import from_snapshot, snapshot
from cardgames.engine.contract_rummy.state import State, initial, is_over, outcome, to_act
from cardgames.engine.contract_rummy.view import View, audience, redact, view

NAME: Final = "contract_rummy"
TITLE: Final = "Contract Rummy"

__all__ = [
    "DEFAULT_PLAYERS",
    "NAME",
    "PLAYER_COUNTS",
    "SEARCH_CANDIDATES",
    "SEARCH_HORIZON",
    "SEARCH_ROLLOUT",
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
    "snapshot",
    "start",
    "to_act",
    "view",
]
