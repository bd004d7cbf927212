"""The match configuration of All Fours: every option of the rules file's table (rules: Configuration keys)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import msgspec

from cardgames.engine.core.cards import RANKS
from cardgames.engine.core.echo import echo
from cardgames.engine.core.options import IntRange, bounded, choice, flag, is_int
from cardgames.engine.core.options import make_config as parse_options
from cardgames.engine.core.protocol import OptionsError

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
#: The integer options and their bounds (rules: "positive int", "int >= 0"; the upper bounds
#: are this project's). ``kick_values`` maps ranks to points in ``POINTS`` too.
#:
#: Why these bounds: every score and counter fits the wire's int32 (at most 2,147,483,647)
#: whatever accepted options are combined.
#:
#: * Scores only grow, one award at a time (A12: a kick, give one, High, Low, Jack or Hang
#:   Jack, Game), and the match ends at the first award that brings a side to
#:   ``target_score``. So a score is below the target before each award, and at most
#:   ``target_score - 1`` + the largest award <= (10^9 - 1) + 10^6 < 2^31 - 1 after it. An
#:   award (1 for High, Low and Jack, else an option's value) is at most 10^6.
#: * Game totals are counting points of one 52-card pack: at most 80 a side.
#: * Counters that grow by one per hand, redeal or trick (``hand_no``, ``redeal_no``,
#:   ``trick_no``) do not depend on the options' sizes: 2^31 hands would take more than
#:   10^10 commands. The service refuses a command whose events it could not send
#:   (service/games.py), so even then the game stays readable.
POINTS: Final = IntRange(0, 1_000_000)
BOUNDS: Final[dict[str, IntRange]] = {
    "target_score": IntRange(1, 1_000_000_000),
    "give_one_points": POINTS,
    "hang_jack_points": POINTS,
    "game_point_value": POINTS,
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


def _check(key: str, value: Any) -> Any:
    if key == "players":
        if not is_int(value) or value not in PLAYER_COUNTS:
            raise OptionsError(f"players must be one of {PLAYER_COUNTS}, got {echo(value)}")
        return value
    if key in CHOICES:
        return choice(key, value, CHOICES[key])
    if key in BOUNDS:
        return bounded(key, value, BOUNDS[key])
    if key in FLAGS:
        return flag(key, value)
    # kick_values: a map from rank code to points
    if not isinstance(value, Mapping):
        raise OptionsError(f"kick_values must map rank codes to points in {POINTS}, got {echo(value)}")
    for rank, points in value.items():
        if rank not in RANKS:
            raise OptionsError(f"kick_values: unknown rank {echo(rank)} (ranks: {' '.join(RANKS)})")
        bounded(f"kick_values[{rank!r}]", points, POINTS)
    return dict(value)


def make_config(options: Mapping[str, Any] | None = None, players: int | None = None) -> Config:
    """Validate the options (snake_case keys of the rules file's table) and the player count."""
    return parse_options("All Fours", Config, _check, options, players, OPTION_KEYS)
