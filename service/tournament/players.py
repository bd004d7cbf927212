"""Built-in entrants: a bot of engine/bots playing one seat through the application layer.

A built-in seat is played exactly as a remote bot plays it, only in process: it watches
the match with its seat token, and whenever its seat is to act its policy chooses among
the legal commands from its seat's view only, and the choice is submitted with the sequence
it saw (a stale one is simply decided again on the next view). Search bots, and any decision
on a costly position or among many commands, decide in the service's worker processes
(``Games.choose``, service/workers.py), so the event loop (and every other match and client)
keeps running meanwhile; a decision past the workers' deadline (or with no worker free in time) is
made again at random.

Each decision's randomness comes from the match's seed, the seat and the sequence, so a
match replays identically, and a match resumed after a restart plays on as it would have.
"""

from __future__ import annotations

import hashlib
import logging
import random
from contextlib import aclosing
from typing import Any

import msgspec

from cardgames.engine.bots.policy import Observer
from cardgames.service.games import Games, ServiceError, StaleSequenceError

log = logging.getLogger(__name__)


def policy_for(game: str, kind: str, config: Any) -> Any:
    """The engine/bots policy of strength ``kind`` (random when engine/bots has none for the game).

    ``ismcts:N`` is the search bot with a budget of N iterations per decision.
    """
    try:
        from cardgames.engine.bots import get_policy
    except ImportError:  # the bots package is not there: every kind plays at random
        return _RandomPolicy()
    kind, _, iterations = kind.partition(":")
    budget = {"iterations": int(iterations)} if iterations else {}
    try:
        return get_policy(game, kind, config=config, **budget)
    except Exception as error:  # a game without heuristics yet: say so, play at random
        if kind == "random":
            raise
        log.warning("no %s bot for %s (%s): playing at random", kind, game, error)
        return get_policy(game, "random", config=config)


def _searches(policy: Any) -> bool:
    """Whether the policy is the search bot (whose every decision is many playouts)."""
    try:
        from cardgames.engine.bots import ISMCTSPolicy
    except ImportError:
        return False
    return isinstance(policy, ISMCTSPolicy)


class _RandomPolicy:
    def choose(self, view: Any, legal: Any, rng: random.Random) -> Any:
        return legal[rng.randrange(len(legal))]


def decision_rng(seed: str, seat: int, sequence: int) -> random.Random:
    digest = hashlib.sha256(f"{seed}:{seat}:{sequence}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


async def play_seat(games: Games, game_id: str, token: str, seat: int, policy: Any, seed: str,
                    *, in_thread: bool = True) -> None:
    """Play ``seat`` with ``policy`` until the match is over.

    A policy with memory (``observe``, as the search bot's) is shown every view its seat gets.
    """
    observe = policy.observe if isinstance(policy, Observer) else None
    items = await games.watch(game_id, token)
    async with aclosing(items):
        async for item in items:
            if observe is not None:
                observe(item.view.view)
            if item.view.over:
                return
            if seat not in item.view.to_act:
                continue
            rng = decision_rng(seed, seat, item.sequence)
            try:
                command = await games.choose(game_id, token, item.sequence, policy, item.view.view, rng,
                                             searches=_searches(policy), in_thread=in_thread, fallback=_RandomPolicy())
            except ServiceError as error:
                log.warning("game %s seat %d: no decision (%s)", game_id, seat, error)
                continue
            if command is None:
                continue  # the match moved on meanwhile: the next item decides
            try:
                await games.submit(game_id, token, msgspec.to_builtins(command), item.sequence)
            except StaleSequenceError:
                continue
            except ServiceError as error:  # a timeout got there first, or the match ended
                log.info("game %s seat %d: command refused (%s: %s)", game_id, seat, error.reason, error)
