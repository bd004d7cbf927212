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
from cardgames.engine.contract_rummy.legal import clear_caches, legal_commands
from cardgames.engine.contract_rummy.rules import decide
from cardgames.engine.contract_rummy.snapshot import from_snapshot, snapshot
from cardgames.engine.contract_rummy.state import State, initial, is_over, outcome, to_act
from cardgames.engine.contract_rummy.view import View, audience, redact, view
from cardgames.engine.core.protocol import DEFAULT_ROLES, PROTOCOL_NAMES, Bots, Comparison, Layout, Traits

NAME: Final = "contract_rummy"
TITLE: Final = "Contract Rummy"

TRAITS: Final = Traits(
    layout=Layout(roles=DEFAULT_ROLES, always=frozenset({"discard", "melds"})),
    comparison=Comparison(ordered=frozenset({"stock", "discard"}), ordered_when=(("cards", "kind", "run"),)),
    bots=Bots(
        determinize, remember, heuristic_policy, search_episode, search_reward,
        search_horizon=SEARCH_HORIZON, search_candidates=SEARCH_CANDIDATES, search_rollout=SEARCH_ROLLOUT,
    ),
)

__all__ = [
    *PROTOCOL_NAMES,
    "State",
    "clear_caches",
    "determinize",
    "heuristic_policy",
    "remember",
    "search_episode",
    "search_reward",
]
