"""The registry of games: the one way the service and the tools reach a game package."""

from __future__ import annotations

import importlib
from functools import cache
from typing import cast

from cardgames.engine.core.echo import echo
from cardgames.engine.core.protocol import GameRules

#: Game name -> the module that implements it. A new game is one more line here.
GAME_MODULES: dict[str, str] = {
    "all_fours": "cardgames.engine.all_fours",
    "seep": "cardgames.engine.seep",
    "contract_rummy": "cardgames.engine.contract_rummy",
}


class UnknownGame(KeyError):
    def __str__(self) -> str:
        return f"unknown game {echo(self.args[0])}; known games: {', '.join(sorted(GAME_MODULES))}"


@cache
def get_game(name: str) -> GameRules:
    """The rules module of game ``name``; raises :class:`UnknownGame`."""
    module_name = GAME_MODULES.get(name)
    if module_name is None:
        raise UnknownGame(name)
    return cast(GameRules, importlib.import_module(module_name))


def available_games() -> list[str]:
    """Names of the games whose package is present, in a stable order."""
    names = []
    for name in sorted(GAME_MODULES):
        try:
            get_game(name)
        except ModuleNotFoundError:
            continue
        names.append(name)
    return names
