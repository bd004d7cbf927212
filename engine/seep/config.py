"""The match configuration of Seep: every option of the rules file's configuration table."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import msgspec

from cardgames.engine.core.echo import echo
from cardgames.engine.core.options import IntRange, bounded, choice, flag, is_int
from cardgames.engine.core.options import make_config as parse_options
from cardgames.engine.core.protocol import OptionsError

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
#: The integer options and their bounds (rules: "int", "int >= 1"; the bounds are this project's).
#:
#: Why these bounds: every score and counter below fits the wire's int32 (at most
#: 2,147,483,647 in magnitude) whatever accepted options are combined.
#:
#: * A deal's score for a team (A11.3) is its card points (the spades 1..13, 91 in all, the
#:   three other aces 1 each, and the 10D worth ``ten_of_diamonds_points``), plus its sweeps
#:   (at most one per play: 48 a deal, each worth one of the three sweep options), plus
#:   ``majority_cards_bonus``. Every card, sweep and bonus goes to one team, so
#:   |a| + |b| <= 94 + 10^6 + 48 x 10^6 + 10^6 = 50,000,094, and so is |a - b|; the
#:   sweep points of a deal (the view's ``sweeps``) are within that too.
#: * The running difference D (A12) starts each deal below ``baazi_lead`` in magnitude (a
#:   baazi won resets it to 0), so after a deal |D| < 10^9 + 50,000,094 < 2^31 - 1.
#: * Baazis won per team: at most ``baazis_to_play`` (the match ends there).
#: * ``minimum_deal_points`` is only compared with a deal score; ``max_houses_on_floor``
#:   only with the number of houses (at most 5, one per value 9..13).
#: * Counters that grow by one per deal, play or void deal (``deal``, ``attempt``) do not
#:   depend on the options: 2^31 deals would take more than 10^11 commands. The service
#:   refuses a command whose events it could not send (service/games.py), so even then the
#:   game stays readable.
POINTS: Final = IntRange(-1_000_000, 1_000_000)
BOUNDS: Final[dict[str, IntRange]] = {
    "sweep_points": POINTS,
    "opening_sweep_points": POINTS,
    "last_play_sweep_points": POINTS,
    "ten_of_diamonds_points": POINTS,
    "majority_cards_bonus": POINTS,
    "minimum_deal_points": IntRange(-1_000_000_000, 1_000_000_000),
    "baazi_lead": IntRange(1, 1_000_000_000),
    "baazis_to_play": IntRange(1, 1_000_000),
    "max_houses_on_floor": IntRange(1, 1_000_000),  # or null: no limit
}
NULLABLE: Final = frozenset({"max_houses_on_floor"})


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


def _check(key: str, value: Any) -> Any:
    if key == "players":
        if not is_int(value) or value not in PLAYER_COUNTS:
            raise OptionsError(f"Seep is played by exactly 4 players (A1), got {echo(value)}")
        return value
    if key in CHOICES:
        return choice(key, value, CHOICES[key])
    if key in FLAGS:
        return flag(key, value)
    if key in BOUNDS:
        return bounded(key, value, BOUNDS[key], null=key in NULLABLE)
    # first_dealer: "random" or a seat
    if value == "random" or value is None:
        return None
    if not is_int(value) or not 0 <= value < DEFAULT_PLAYERS:
        raise OptionsError(f"first_dealer must be 'random' or a seat 0..3, got {echo(value)}")
    return value


def make_config(options: Mapping[str, Any] | None = None, players: int | None = None) -> Config:
    """Validate the options (snake_case keys of the rules file's table) and the player count."""
    return parse_options("Seep", Config, _check, options, players, OPTION_KEYS)
