"""The registry of games: the one way the service and the tools reach a game package.

The built-in games are listed in :data:`GAME_MODULES`. A game that lives elsewhere (another
package, or a test's own game) is *registered* without a line of this project changing, in
either of two ways (docs/adding-a-game.md):

* a Python entry point in the group :data:`ENTRY_POINT_GROUP` (``cardgames.games``) of the
  package that ships it, named after the game, whose value is the game's module
  (``high_card = "mypackage.high_card"``) or an object in it (``"mypackage.games:high_card"``);
* the environment variable :data:`GAMES_VARIABLE` (``CARDGAMES_GAMES``): such targets
  separated by commas, each ``module`` or ``module:attribute``, optionally preceded by the
  game's name and ``=`` (without it, the target is imported to read its ``NAME``). The
  variable is read by every process that loads games, so a server's engine workers and a
  command run from a shell see the same games as the process that set it.

A game must export every name of :data:`cardgames.engine.core.protocol.PROTOCOL_NAMES`
(:class:`~cardgames.engine.core.protocol.GameRules`); a target that does not is refused with
the names it lacks. A registered game may not take a built-in game's name.
"""

from __future__ import annotations

import importlib
import os
from functools import cache
from importlib.metadata import entry_points
from typing import Any, Final, cast

from cardgames.engine.core.echo import echo
from cardgames.engine.core.protocol import PROTOCOL_NAMES, GameRules

#: The built-in games: game name -> the module that implements it.
GAME_MODULES: dict[str, str] = {
    "all_fours": "cardgames.engine.all_fours",
    "seep": "cardgames.engine.seep",
    "contract_rummy": "cardgames.engine.contract_rummy",
}
#: The entry point group through which an installed package registers its games.
ENTRY_POINT_GROUP: Final = "cardgames.games"
#: The environment variable that registers games by their import path.
GAMES_VARIABLE: Final = "CARDGAMES_GAMES"


class UnknownGame(KeyError):
    def __str__(self) -> str:
        return f"unknown game {echo(self.args[0])}; known games: {', '.join(known_games())}"


class RegistrationError(ValueError):
    """A registered game that cannot be loaded, or that lacks a name of the protocol."""


def _load(target: str) -> Any:
    """The object a target names: a module (``a.b``) or an attribute of one (``a.b:c``)."""
    module_name, _, attribute = target.partition(":")
    try:
        found: Any = importlib.import_module(module_name.strip())
        for part in filter(None, attribute.strip().split(".")):
            found = getattr(found, part)
    except (ImportError, AttributeError) as error:
        raise RegistrationError(f"cannot load the game {target!r}: {error}") from error
    return found


def _named(target: str) -> tuple[str, str]:
    """A variable's entry as (game name, target)."""
    name, equals, rest = target.partition("=")
    if equals:
        return name.strip(), rest.strip()
    try:
        return str(_load(target).NAME), target
    except AttributeError as error:
        raise RegistrationError(f"the game {target!r} has no NAME (engine/core/protocol.py)") from error


@cache
def game_modules() -> dict[str, str]:
    """Every game this process knows: name -> target (the built-in games, then the registered ones)."""
    games = dict(GAME_MODULES)
    registered = [(point.name, point.value) for point in entry_points(group=ENTRY_POINT_GROUP)]
    registered += [_named(item.strip()) for item in os.environ.get(GAMES_VARIABLE, "").split(",") if item.strip()]
    for name, target in registered:
        if name in GAME_MODULES:
            raise RegistrationError(f"a registered game may not take the built-in name {name!r} ({target})")
        games[name] = target
    return games


def known_games() -> list[str]:
    """The names of every game this process knows (built-in and registered), sorted."""
    return sorted(game_modules())


@cache
def get_game(name: str) -> GameRules:
    """The rules module of game ``name``; raises :class:`UnknownGame`."""
    target = game_modules().get(name)
    if target is None:
        raise UnknownGame(name)
    if name in GAME_MODULES:
        return cast(GameRules, importlib.import_module(target))
    game = _load(target)
    missing = [attribute for attribute in PROTOCOL_NAMES if attribute not in dir(game)]
    if missing:
        raise RegistrationError(f"the game {name!r} ({target}) lacks {', '.join(missing)} (engine/core/protocol.py)")
    if name != game.NAME:
        raise RegistrationError(f"the game registered as {name!r} ({target}) is named {game.NAME!r}")
    return cast(GameRules, game)


def refresh() -> None:
    """Read the registrations again (after :data:`GAMES_VARIABLE` changed in this process)."""
    game_modules.cache_clear()
    get_game.cache_clear()


def available_games() -> list[str]:
    """Names of the games whose package is present, in a stable order."""
    names = []
    for name in known_games():
        try:
            get_game(name)
        except ModuleNotFoundError:
            continue
        names.append(name)
    return names
