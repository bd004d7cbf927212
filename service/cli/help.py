"""How ``cardgames ... --help`` reads: flags as flags, arguments by name, games by their names.

Typer's help shows a type beside every option, flags included (``--quiet <bool>``, ``--help
<bool>``, as though they took a value), and writes a required argument ``{game}`` in the usage
line, the notation of a set of choices. The command classes here print a flag bare and an
argument in capitals (``GAME``, ``[FILE]``, ``PATHS...``), the way man pages do; every
command of the CLI is registered with them (``cardgames.service.cli``). :data:`GameName` is the type of
a game argument or option: its help lists the registry's games and an unknown name is refused
with that list.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, Any

from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

from cardgames.engine.core.registry import known_games

if TYPE_CHECKING:
    GameName = str
else:
    #: A game's name, one of the registry's (a str: ``get_game(name)`` takes it as it is).
    GameName = enum.StrEnum("GameName", {name: name for name in known_games()})


def _usage_name(argument: TyperArgument) -> str:
    name = (argument.name or "").upper()
    name = name if argument.required else f"[{name}]"
    return name + ("..." if argument.nargs != 1 else "")


def _readable(params: list[Any]) -> list[Any]:
    """Flags shown with no value type; arguments named in capitals in the Arguments panel."""
    for param in params:
        if isinstance(param, TyperOption) and param.is_flag and param.metavar is None:
            param.metavar = ""  # the help prints the metavar (nothing) in place of "<bool>"
        elif isinstance(param, TyperArgument) and param.metavar is None:
            param.metavar = (param.name or "").upper() + ("..." if param.nargs != 1 else "")
    return params


def _usage_pieces(command: TyperCommand | TyperGroup, ctx: Any) -> list[str]:
    pieces = [command.options_metavar] if command.options_metavar else []
    for param in command.get_params(ctx):
        pieces.extend([_usage_name(param)] if isinstance(param, TyperArgument) else param.get_usage_pieces(ctx))
    return pieces


class Command(TyperCommand):
    """A subcommand whose help shows flags bare and arguments as ``NAME``."""

    def get_params(self, ctx: Any) -> list[Any]:
        return _readable(super().get_params(ctx))

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        return _usage_pieces(self, ctx)


class Group(TyperGroup):
    """The ``cardgames`` group, with the same help."""

    def get_params(self, ctx: Any) -> list[Any]:
        return _readable(super().get_params(ctx))
