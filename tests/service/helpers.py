"""Helpers shared by the service tests: the game to use, card collection for leak checks."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from cardgames.engine.core.cards import is_card_or_joker
from cardgames.engine.core.registry import GAME_MODULES, get_game
from cardgames.engine.core.seat_events import Seated


def ready_game() -> str | None:
    """The first game whose package is ready (All Fours is expected first)."""
    for name in ("all_fours", *sorted(GAME_MODULES)):
        try:
            game = get_game(name)
        except ModuleNotFoundError:
            continue
        if all(hasattr(game, attr) for attr in ("NAME", "start", "decide", "view", "legal_commands")):
            return name
    return None


GAME: str = ready_game() or ""
needs_game = pytest.mark.skipif(not GAME, reason="no game package is ready yet")


def cards_in(data: Any) -> set[str]:
    """Every card code anywhere in plain data or a struct (``JK=7H`` counts as JK and 7H)."""
    if isinstance(data, msgspec.Struct):
        data = msgspec.to_builtins(data)
    found: set[str] = set()
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            for part in item.split("="):
                if is_card_or_joker(part):
                    found.add(part)
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return found


def hands(game_name: str, state: Any) -> list[set[str]]:
    """Each seat's hand now (FORMAT.md snapshot ``hands``) in a game's state or a seated one (the service's)."""
    game_state = state.game if isinstance(state, Seated) else state
    return [set(hand) for hand in get_game(game_name).snapshot(game_state)["hands"]]
