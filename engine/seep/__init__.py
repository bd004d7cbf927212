"""Seep (Sip / Sweep): the 4-player, 100-point North Indian fishing game with houses.

Rules: ``../shared/rules/seep.md``. The package exposes the names of
:class:`cardgames.engine.core.protocol.GameRules`; reach it through
``cardgames.engine.core.registry.get_game("seep")``.
"""

from __future__ import annotations

from typing import Final

from cardgames.engine.core.protocol import DEFAULT_ROLES, PROTOCOL_NAMES, Bots, Comparison, Layout, Traits
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
from cardgames.engine.seep.legal import clear_caches, legal_commands
from cardgames.engine.seep.rules import decide, start
from cardgames.engine.seep.snapshot import from_snapshot, snapshot
from cardgames.engine.seep.state import State, initial, is_over, outcome, to_act
from cardgames.engine.seep.view import View, audience, redact, view

TRAITS: Final = Traits(
    partnerships={4: ((0, 2), (1, 3))},
    table_text=table_text,
    floor_text=floor_text,
    costly=costly,
    layout=Layout(roles=(*DEFAULT_ROLES, ("bidder", "bidder")), always=frozenset({"loose", "houses"}), side="team"),
    comparison=Comparison(
        ordered=frozenset({"stock"}),
        keyed=(("houses", "value"),),
        groups=frozenset({"components"}),
        sets=frozenset({"owners"}),
    ),
    bots=Bots(
        determinize, remember, heuristic_policy, search_episode, search_reward,
        search_horizon=SEARCH_HORIZON, search_candidates=SEARCH_CANDIDATES,
    ),
)

__all__ = [
    *PROTOCOL_NAMES,
    "State",
    "clear_caches",
    "Bid",
    "Break",
    "Build",
    "Capture",
    "Throw",
    "costly",
    "determinize",
    "floor_text",
    "heuristic_policy",
    "remember",
    "search_episode",
    "search_reward",
    "table_text",
]
