"""Parsing a game's options: the one ``make_config`` every game uses, the checks of a choice, a
flag and an integer, and the bounds of a game's integer options.

Every integer option of every game has a lowest and a highest value, chosen so that
every score and counter the game computes from them fits its wire type (``int32`` in
``protos/cardgames/v1``) under every combination of accepted options; each game's
``config.py`` states the bounds and the reasoning beside them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple, TypeVar

from cardgames.engine.core.echo import ECHO_CHARS, echo
from cardgames.engine.core.protocol import OptionsError


class IntRange(NamedTuple):
    """The integers ``low..high`` (both included)."""

    low: int
    high: int

    def __str__(self) -> str:
        return f"{self.low:,}..{self.high:,}"

    def __contains__(self, value: object) -> bool:
        """An integer in the range (not a bool: ``True`` is an ``int`` to Python, not to an option)."""
        return isinstance(value, int) and not isinstance(value, bool) and self.low <= value <= self.high


def bounded(key: str, value: object, bounds: IntRange, *, null: bool = False) -> int | None:
    """``value`` when it is an integer in ``bounds`` (or None where ``null`` allows it); else OptionsError
    naming the option and its range."""
    if value is None and null:
        return None
    if not isinstance(value, int) or value not in bounds:
        alternative = " or null" if null else ""
        raise OptionsError(f"{key} must be an integer in {bounds}{alternative}, got {echo(value)}")
    return value


#: The most unknown keys an error lists.
UNKNOWN_LISTED = 8


def refuse_unknown(title: str, options: Mapping[Any, Any], known: frozenset[str]) -> None:
    """OptionsError listing (a few of) the keys of ``options`` that are not in ``known``."""
    unknown = [key for key in options if key not in known]
    if unknown:
        names = sorted(key if isinstance(key, str) and len(key) <= ECHO_CHARS else echo(key) for key in unknown)
        more = f" and {len(names) - UNKNOWN_LISTED:,} more" if len(names) > UNKNOWN_LISTED else ""
        raise OptionsError(f"unknown {title} option(s): {', '.join(names[:UNKNOWN_LISTED])}{more}")


C = TypeVar("C")


def is_int(value: object) -> bool:
    """An integer, not a bool (``True`` is an ``int`` to Python, not to an option)."""
    return isinstance(value, int) and not isinstance(value, bool)


def choice(key: str, value: object, choices: tuple[str, ...]) -> str:
    """``value`` when it is one of ``choices``; else OptionsError naming them."""
    if not isinstance(value, str) or value not in choices:
        raise OptionsError(f"{key} must be one of {', '.join(choices)}; got {echo(value)}")
    return value


def flag(key: str, value: object) -> bool:
    """``value`` when it is true or false; else OptionsError."""
    if not isinstance(value, bool):
        raise OptionsError(f"{key} must be true or false, got {echo(value)}")
    return value


def make_config(
    title: str,
    config: Callable[..., C],
    check: Callable[[str, Any], Any],
    options: Mapping[str, Any] | None,
    players: int | None,
    known: frozenset[str],
) -> C:
    """A game's config from options (snake_case keys of its rules' table) and a player count.

    Unknown keys and ``players`` given twice (as an option and as the count, with two values)
    are an OptionsError; ``check(key, value)`` validates each value (raising OptionsError)
    and gives what the config holds; ``config`` builds the config from them (its defaults for
    every key not given).
    """
    options = dict(options or {})
    refuse_unknown(title, options, known)
    if players is not None:
        if "players" in options and options["players"] != players:
            raise OptionsError(f"players given twice: {echo(players)} and {echo(options['players'])}")
        options["players"] = players
    return config(**{key: check(key, value) for key, value in options.items()})
