"""The match configuration of All Fours: every option of the rules file's table (rules: Configuration keys)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import msgspec

from engine.core.cards import RANKS
from engine.core.protocol import OptionsError

PLAYER_COUNTS: Final = (2, 4)
DEFAULT_PLAYERS: Final = 4

DEFAULT_KICK_VALUES: Final[Mapping[str, int]] = {"A": 1, "6": 2, "J": 3}

#: Closed sets of values of the enumerated options.
CHOICES: Final[dict[str, tuple[str, ...]]] = {
    "deal_style": ("threes", "ones"),
    "jack_scoring": ("hang_jack", "capture_only", "none"),
    "game_tie": ("none", "non_dealer_side", "dealer_side"),
    "out_of_turn_play": ("expose", "reject"),
    "callers": ("opponents", "any_other"),
    "beg_phase_hand_visibility": ("all", "dealer_and_eldest_only"),
}
#: Integer options and their smallest allowed value.
MINIMUM: Final[dict[str, int]] = {
    "target_score": 1,
    "give_one_points": 0,
    "hang_jack_points": 0,
    "game_point_value": 0,
}
FLAGS: Final = (
    "void_must_trump",
    "no_undertrump",
    "stand_requires_trump",
    "give_one_requires_trump",
    "no_give_one_for_match",
)


def _default_kicks() -> dict[str, int]:
    return dict(DEFAULT_KICK_VALUES)


class Config(msgspec.Struct, frozen=True, cache_hash=True):
    """One match's rules: ``players`` and the options, with the rules file's defaults.

    ``cache_hash``: the hash is computed once (functools caches keyed by the config ask for it
    at every call).
    """

    players: int = DEFAULT_PLAYERS
    target_score: int = 14
    deal_style: str = "threes"
    kick_values: dict[str, int] = msgspec.field(default_factory=_default_kicks)
    give_one_points: int = 1
    jack_scoring: str = "hang_jack"
    hang_jack_points: int = 3
    game_point_value: int = 1
    game_tie: str = "none"
    void_must_trump: bool = False
    no_undertrump: bool = False
    out_of_turn_play: str = "expose"
    callers: str = "opponents"
    beg_phase_hand_visibility: str = "all"
    stand_requires_trump: bool = False
    give_one_requires_trump: bool = False
    no_give_one_for_match: bool = False


OPTION_KEYS: Final = frozenset(Config.__struct_fields__)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check(key: str, value: Any) -> Any:
    if key == "players":
        if value not in PLAYER_COUNTS or not _is_int(value):
            raise OptionsError(f"players must be one of {PLAYER_COUNTS}, got {value!r}")
        return value
    if key in CHOICES:
        if value not in CHOICES[key]:
            raise OptionsError(f"{key} must be one of {', '.join(CHOICES[key])}; got {value!r}")
        return value
    if key in MINIMUM:
        if not _is_int(value) or value < MINIMUM[key]:
            raise OptionsError(f"{key} must be an integer >= {MINIMUM[key]}, got {value!r}")
        return value
    if key in FLAGS:
        if not isinstance(value, bool):
            raise OptionsError(f"{key} must be true or false, got {value!r}")
        return value
    # kick_values: a map from rank code to points
    if not isinstance(value, Mapping):
        raise OptionsError(f"kick_values must map rank codes to points, got {value!r}")
    for rank, points in value.items():
        if rank not in RANKS:
            raise OptionsError(f"kick_values: unknown rank {rank!r} (ranks: {' '.join(RANKS)})")
        if not _is_int(points) or points < 0:
            raise OptionsError(f"kick_values[{rank!r}] must be an integer >= 0, got {points!r}")
    return dict(value)


def make_config(options: Mapping[str, Any] | None = None, players: int | None = None) -> Config:
    """Validate the options (snake_case keys of the rules file's table) and the player count."""
    options = dict(options or {})
    unknown = sorted(set(options) - OPTION_KEYS)
    if unknown:
        raise OptionsError(f"unknown All Fours option(s): {', '.join(map(str, unknown))}")
    if players is not None:
        if "players" in options and options["players"] != players:
            raise OptionsError(f"players given twice: {players} and {options['players']!r}")
        options["players"] = players
    return Config(**{key: _check(key, value) for key, value in options.items()})
