"""Built-in bots for every game, in three strengths, and an in-process arena to compare them.

``get_policy(game, "random" | "heuristic" | "ismcts", config=..., **budget)`` gives a
:class:`Policy`; ``cardgames.engine.bots.arena`` plays matches between policies. Bots see only
their seat's view (``cardgames.engine.bots.policy``).
"""

from __future__ import annotations

from typing import Any, Final

from cardgames.engine.bots.ismcts import ISMCTSPolicy
from cardgames.engine.bots.policy import BotRules, BotsUnavailable, Policy, bot_rules
from cardgames.engine.bots.random_policy import RandomPolicy
from cardgames.engine.core.registry import get_game

#: The strengths, weakest first.
KINDS: Final = ("random", "heuristic", "ismcts")


def get_policy(game: str, kind: str, *, config: Any = None, **budget: Any) -> Policy:
    """A bot of strength ``kind`` for ``game``; ``budget`` goes to :class:`ISMCTSPolicy` (iterations, time_limit...).

    ``config`` is the match's (public) config; the game's defaults when omitted.
    """
    if kind not in KINDS:
        raise ValueError(f"unknown bot kind {kind!r}; kinds: {', '.join(KINDS)}")
    if budget and kind != "ismcts":
        raise ValueError(f"only the ismcts bot takes a budget, got {sorted(budget)} for {kind}")
    if kind == "random":
        return RandomPolicy()
    if config is None:
        config = get_game(game).make_config({}, None)
    if kind == "heuristic":
        return bot_rules(game).heuristic_policy(config)
    return ISMCTSPolicy(game, config, **budget)


__all__ = ["KINDS", "BotRules", "BotsUnavailable", "ISMCTSPolicy", "Policy", "RandomPolicy", "bot_rules", "get_policy"]
