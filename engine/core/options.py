"""Bounds of a game's integer options, and the error that names an option and its range.

Every integer option of every game has a lowest and a highest value, chosen so that
every score and counter the game computes from them fits its wire type (``int32`` in
``protos/cardgames/v1``) under every combination of accepted options; each game's
``config.py`` states the bounds and the reasoning beside them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

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
