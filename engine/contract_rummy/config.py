"""The configuration of a Contract Rummy match: every option of the rules file's table (Configuration, A.1, A.2)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import msgspec

from cardgames.engine.core.cards import pack
from cardgames.engine.core.echo import echo
from cardgames.engine.core.options import IntRange, bounded, choice, flag, is_int
from cardgames.engine.core.options import make_config as parse_options
from cardgames.engine.core.protocol import OptionsError

DEFAULT_PLAYERS: Final = 4
PLAYER_COUNTS: Final = (3, 4, 5, 6, 7, 8)
DEALS: Final = 7

#: (sets, runs) of each deal's contract (A.6); every contract with two or more runs needs different suits.
CONTRACTS: Final[tuple[tuple[int, int], ...]] = ((2, 0), (1, 1), (0, 2), (3, 0), (2, 1), (1, 2), (0, 3))

CHOICES: Final[dict[str, tuple[str, ...]]] = {
    "deck_policy": ("baseline", "classic", "pagat"),
    "same_suit_runs_in_contract": ("forbidden", "need_gap", "allowed"),
    "same_rank_sets_in_contract": ("allowed", "forbidden"),
    "contract_meld_count": ("exact", "at_least"),
    "joker_layoff_targets": ("runs_only", "runs_and_sets"),
    "min_naturals_per_meld": ("one", "at_least_jokers"),
    "top_discard_return_rule": ("face", "physical_card"),
    "final_deal_mode": ("all_at_once_no_discard", "all_at_once_with_discard", "normal"),
    "stock_exhaustion": ("reshuffle_except_top", "turn_over_no_shuffle"),
    "blocked_deal": ("score_hands", "void"),
}
FLAGS: Final = (
    "allow_six_to_eight",
    "allow_new_melds_after_contract",
    "layoff_same_turn_as_contract",
    "joker_swap",
    "joker_swap_from_own_melds",
    "discard_dig",
    "discard_jokers",
    "must_discard_to_go_out",
)
FIRST_DEALER_RULES: Final = ("draw_lowest", "random")
#: The integer options and their bounds (rules: "any integer", "integer >= 0, or null"; the
#: bounds are this project's). ``hand_sizes`` are 1 and up, and must fit the deck (A.2).
#:
#: Why these bounds: every score and counter fits the wire's int32 (at most 2,147,483,647
#: in magnitude) whatever accepted options are combined.
#:
#: * A deal's penalty for a seat (A.11, A.12) is the sum of the cards left in its hand: at
#:   most the whole deck (158 cards, the largest: three packs and two jokers), each worth
#:   2..10, ``ace_value`` or ``joker_value``, at most 10^6 in magnitude. So a deal's penalty
#:   is at most 1.58 x 10^8 in magnitude, and a total over the 7 deals at most
#:   1,106,000,000 < 2^31 - 1.
#: * Stock refills in a deal (the view's ``stock_refills``): at most ``max_stock_refills``.
#:   Turns in a deal: each turn takes a card from the stock or the discard pile, so a deal
#:   holds at most (refills + 1) x 158 turns from the stock, a few hundred million at most.
#: * With ``max_stock_refills`` null (no limit) a deal whose players never go out may go on
#:   forever, and its refill and turn counters with it: 2^31 turns would take more than
#:   2 x 10^9 commands. The service refuses a command whose events it could not send
#:   (service/games.py), so even then the game stays readable.
VALUES: Final = IntRange(-1_000_000, 1_000_000)
BOUNDS: Final[dict[str, IntRange]] = {
    "ace_value": VALUES,
    "joker_value": VALUES,
    "max_stock_refills": IntRange(0, 1_000_000),  # or null: no limit
    "min_run_length": IntRange(3, 4),
}


class Config(msgspec.Struct, frozen=True, cache_hash=True):
    """One match's rules: ``players`` and every option, with the rules file's defaults.

    ``first_dealer`` is ``"draw_lowest"``, ``"random"`` or a seat number written in
    decimal (the option may be given as an integer); ``max_stock_refills`` is ``None``
    for no limit.

    ``cache_hash``: the hash is computed once (functools caches keyed by the config ask for it
    at every call).
    """

    players: int = DEFAULT_PLAYERS
    allow_six_to_eight: bool = False
    deck_policy: str = "baseline"
    first_dealer: str = "draw_lowest"
    hand_sizes: tuple[int, ...] = (10, 10, 10, 10, 12, 12, 12)
    min_run_length: int = 3
    same_suit_runs_in_contract: str = "forbidden"
    same_rank_sets_in_contract: str = "allowed"
    contract_meld_count: str = "exact"
    allow_new_melds_after_contract: bool = False
    layoff_same_turn_as_contract: bool = True
    joker_layoff_targets: str = "runs_only"
    joker_swap: bool = True
    joker_swap_from_own_melds: bool = True
    min_naturals_per_meld: str = "one"
    discard_dig: bool = True
    top_discard_return_rule: str = "face"
    discard_jokers: bool = True
    must_discard_to_go_out: bool = False
    final_deal_mode: str = "all_at_once_no_discard"
    stock_exhaustion: str = "reshuffle_except_top"
    blocked_deal: str = "score_hands"
    max_stock_refills: int | None = 3
    ace_value: int = 15
    joker_value: int = 15


OPTION_KEYS: Final = frozenset(Config.__struct_fields__)


def deck_for(deck_policy: str, players: int) -> tuple[str, ...]:
    """The whole deck in canonical order (A.2): packs then jokers."""
    if deck_policy == "baseline":
        return pack(1, 1) if players <= 4 else pack(2, 2)
    if deck_policy == "classic":
        return pack(2, 1) if players <= 4 else pack(3, 2)
    return pack(2, players - 1)


#: The largest hand any deck and table allow: (deck - 2) / players, at most 34 (3 players, two packs).
MAX_HAND: Final = max(
    (len(deck_for(policy, players)) - 2) // players for policy in CHOICES["deck_policy"] for players in PLAYER_COUNTS
)


def _check(key: str, value: Any) -> Any:
    if key in CHOICES:
        return choice(key, value, CHOICES[key])
    if key in FLAGS:
        return flag(key, value)
    if key in BOUNDS:
        return bounded(key, value, BOUNDS[key], null=key == "max_stock_refills")
    if key == "first_dealer":
        if value in FIRST_DEALER_RULES:
            return value
        # A seat: an integer, or one written in ASCII decimal digits (checked against the table below).
        digits = isinstance(value, str) and 0 < len(value) <= 2 and value.isascii() and value.isdigit()
        if (is_int(value) or digits) and 0 <= int(value) < max(PLAYER_COUNTS):
            return str(int(value))
        raise OptionsError(f"first_dealer must be draw_lowest, random or a seat 0..{max(PLAYER_COUNTS) - 1}, "
                           f"got {echo(value)}")
    if key == "hand_sizes":
        if (
            not isinstance(value, list | tuple)
            or len(value) != DEALS
            or not all(is_int(size) and 1 <= size <= MAX_HAND for size in value)
        ):
            raise OptionsError(f"hand_sizes must be {DEALS} integers in 1..{MAX_HAND}, got {echo(value)}")
        return tuple(value)
    # players
    if not is_int(value):
        raise OptionsError(f"players must be an integer, got {echo(value)}")
    return value


def make_config(options: Mapping[str, Any] | None = None, players: int | None = None) -> Config:
    """Validate the options and the player count (A.1, A.2); raise OptionsError."""
    config = parse_options("Contract Rummy", Config, _check, options, players, OPTION_KEYS)
    allowed = range(3, 9) if config.allow_six_to_eight else range(3, 6)
    if config.players not in allowed:
        raise OptionsError(
            f"Contract Rummy is for {allowed.start} to {allowed.stop - 1} players, got {echo(config.players)} (A.1)"
        )
    if config.first_dealer not in FIRST_DEALER_RULES and int(config.first_dealer) >= config.players:
        raise OptionsError(f"first_dealer must be draw_lowest, random or a seat 0..{config.players - 1}: seat "
                           f"{config.first_dealer} is not at the table (A.4)")
    deck = len(deck_for(config.deck_policy, config.players))
    largest = (deck - 2) // config.players
    if max(config.hand_sizes) > largest:
        raise OptionsError(
            f"hand_sizes must be {DEALS} integers in 1..{largest} for {config.players} players and a {deck}-card deck: "
            f"{config.players} x {max(config.hand_sizes)} cards + 2 do not fit (A.2)"
        )
    return config
