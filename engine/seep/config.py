"""The match configuration of Seep: every option of the rules file's configuration table."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import msgspec

from engine.core.protocol import OptionsError

NAME: Final = "seep"
TITLE: Final = "Seep (Sip / Sweep)"
DEFAULT_PLAYERS: Final = 4
PLAYER_COUNTS: Final[tuple[int, ...]] = (4,)

#: Closed sets of values of the enumerated options.
CHOICES: Final[dict[str, tuple[str, ...]]] = {
    "capture_extent": ("maximal", "free"),
    "opening_sweep_at": ("play1", "play2"),
    "dealer_rule": ("losing_team_deals", "rotate"),
    "capture_inspect_window": ("until_next_play", "never", "always"),
}
FLAGS: Final = (
    "throw_when_capture_available",
    "auto_merge_loose_sets",
    "allow_direct_cemented_build",
    "partner_adds_without_key",
    "allow_break_partner_house",
    "break_into_partner_house_without_key",
    "sweeps_enabled",
    "minimum_includes_sweeps",
)
#: Integer options and their smallest allowed value (None: any integer).
INTEGERS: Final[dict[str, int | None]] = {
    "sweep_points": None,
    "opening_sweep_points": None,
    "last_play_sweep_points": None,
    "ten_of_diamonds_points": None,
    "majority_cards_bonus": None,
    "minimum_deal_points": None,
    "baazi_lead": 1,
    "baazis_to_play": 1,
}


class Config(msgspec.Struct, frozen=True, cache_hash=True):
    """One match's rules, with the rules file's defaults.

    ``first_dealer`` is a seat, or None for the option's value ``random``;
    ``max_houses_on_floor`` None means no limit.

    ``cache_hash``: the hash is computed once (functools caches keyed by the config ask for it
    at every call).
    """

    players: int = DEFAULT_PLAYERS
    capture_extent: str = "maximal"
    throw_when_capture_available: bool = False
    auto_merge_loose_sets: bool = False
    allow_direct_cemented_build: bool = True
    partner_adds_without_key: bool = True
    allow_break_partner_house: bool = True
    break_into_partner_house_without_key: bool = False
    max_houses_on_floor: int | None = None
    sweeps_enabled: bool = True
    sweep_points: int = 50
    opening_sweep_points: int = 25
    opening_sweep_at: str = "play1"
    last_play_sweep_points: int = 0
    ten_of_diamonds_points: int = 6
    majority_cards_bonus: int = 0
    minimum_deal_points: int = 9
    minimum_includes_sweeps: bool = True
    baazi_lead: int = 100
    baazis_to_play: int = 1
    dealer_rule: str = "losing_team_deals"
    capture_inspect_window: str = "until_next_play"
    first_dealer: int | None = None


OPTION_KEYS: Final = frozenset(Config.__struct_fields__)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check(key: str, value: Any) -> Any:
    if key == "players":
        if not _is_int(value) or value not in PLAYER_COUNTS:
            raise OptionsError(f"Seep is played by exactly 4 players (A1), got {value!r}")
        return value
    if key in CHOICES:
        if value not in CHOICES[key]:
            raise OptionsError(f"{key} must be one of {', '.join(CHOICES[key])}; got {value!r}")
        return value
    if key in FLAGS:
        if not isinstance(value, bool):
            raise OptionsError(f"{key} must be true or false, got {value!r}")
        return value
    if key in INTEGERS:
        least = INTEGERS[key]
        if not _is_int(value) or (least is not None and value < least):
            bound = f" >= {least}" if least is not None else ""
            raise OptionsError(f"{key} must be an integer{bound}, got {value!r}")
        return value
    if key == "max_houses_on_floor":
        if value is not None and (not _is_int(value) or value < 1):
            raise OptionsError(f"max_houses_on_floor must be null or an integer >= 1, got {value!r}")
        return value
    # first_dealer: "random" or a seat
    if value == "random" or value is None:
        return None
    if not _is_int(value) or not 0 <= value < DEFAULT_PLAYERS:
        raise OptionsError(f"first_dealer must be 'random' or a seat 0..3, got {value!r}")
    return value


def make_config(options: Mapping[str, Any] | None = None, players: int | None = None) -> Config:
    """Validate the options (snake_case keys of the rules file's table) and the player count."""
    options = dict(options or {})
    unknown = sorted(set(options) - OPTION_KEYS)
    if unknown:
        raise OptionsError(f"unknown Seep option(s): {', '.join(map(str, unknown))}")
    if players is not None:
        if "players" in options and options["players"] != players:
            raise OptionsError(f"players given twice: {players} and {options['players']!r}")
        options["players"] = players
    return Config(**{key: _check(key, value) for key, value in options.items()})
