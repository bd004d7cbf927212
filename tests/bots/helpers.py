"""Positions for the bot tests: decision points reached by random play, through the registry only."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterator
from typing import Any

import msgspec

from cardgames.engine.core.cards import is_card_or_joker
from cardgames.engine.core.protocol import Setup
from cardgames.engine.core.registry import get_game
from cardgames.engine.core.replay import new_match


def seed_of(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def positions(
    game_name: str, count: int, *, seed: str = "positions", options: Any = None, every: int = 3
) -> Iterator[tuple[Any, int]]:
    """``count`` decision points (state, seat to act) from random matches, one every ``every`` decisions."""
    game = get_game(game_name)
    config = game.make_config(options or {}, None)
    rng = random.Random(seed)
    found = 0
    match = 0
    while found < count:
        state, _ = new_match(game, config, Setup(seed=seed_of(f"{seed}/{match}")))
        match += 1
        step = 0
        while not game.is_over(state) and found < count:
            seat = game.to_act(state)[0]
            legal = game.legal_commands(state, seat)
            if step % every == 0 and len(legal) > 1:
                found += 1
                yield state, seat
            command = legal[rng.randrange(len(legal))]
            events = game.decide(state, seat, command)
            assert isinstance(events, list | tuple), events
            for event in events:
                state = game.evolve(state, event)
            step += 1


def cards_in(value: Any) -> set[str]:
    """Every card code (jokers with or without a declaration) anywhere in a struct or plain value."""
    found: set[str] = set()
    stack = [msgspec.to_builtins(value)]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            card = item.split("=", 1)[0]
            if is_card_or_joker(card):
                found.add(card)
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return found
