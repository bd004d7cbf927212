"""What a hand may do, read off the hand and the config alone: remove cards, keep the known cards,
discard (A.8). Compiled (setup.py): the listing, decide and the reducer ask at every step. (Not in
state.py, which holds the State struct: a compiled module's struct fields would lose their types,
which msgspec reads to decode a state.)"""

from __future__ import annotations

from collections.abc import Iterable

from cardgames.engine.contract_rummy.config import Config
from cardgames.engine.core.cards import JOKER


def remove_cards(hand: tuple[str, ...], codes: Iterable[str]) -> tuple[str, ...]:
    """The hand without one copy of each code (codes in a hand: naturals and ``JK``)."""
    cards = list(hand)
    for code in codes:
        cards.remove(code)
    return tuple(cards)


def trim_known(known: tuple[str, ...], hand: tuple[str, ...], left: Iterable[str] = ()) -> tuple[str, ...]:
    """Publicly known cards still in the hand: at most as many of a code as the hand holds.
    ``left`` (optional) names the codes that just left the hand: when no known card has one of
    them, nothing changes."""
    if not known or (left and known_untouched(known, left)):
        return known
    have: dict[str, int] = {}  # (a plain count: Counter's constructor is Python code, run per discard)
    for card in hand:
        have[card] = have.get(card, 0) + 1
    kept = []
    for card in known:
        if have.get(card, 0) > 0:
            have[card] -= 1
            kept.append(card)
    return tuple(kept)


def known_untouched(known: tuple[str, ...], left: Iterable[str]) -> bool:
    return not any(code in known for code in left)


def discardable(config: Config, barred: str | None, hand: tuple[str, ...], card: str) -> bool:
    """May ``card`` of ``hand`` be discarded (A.8: discard_jokers, and R1 for the ``barred`` code)?"""
    if card == JOKER and not config.discard_jokers:
        return False
    if barred != card:
        return True
    if config.top_discard_return_rule == "face":
        return False
    # physical_card: only the copy just taken is barred; another copy of the code may go.
    return hand.count(card) > 1


def jokers_only_discard(config: Config, hand: tuple[str, ...]) -> bool:
    """May a joker be discarded although ``discard_jokers`` is false? Only from a hand of jokers alone.

    A.8 says a turn can always end, and forbids every play and every ``draw_discard`` that
    would leave no discardable card; but a stock draw (D1) cannot be refused, and a seat
    holding only a joker it cannot lay off may draw another. With nothing else to end the
    turn, such a hand discards a joker (the narrowest reading that keeps "a turn can always
    end" true; the no-dead-end checks of plays and draws are unchanged).
    """
    return not config.discard_jokers and bool(hand) and all(card == JOKER for card in hand)


def can_discard_any(config: Config, barred: str | None, hand: tuple[str, ...]) -> bool:
    """Could the turn end with a discard from ``hand`` (A.8, no dead ends)?"""
    if barred is None and config.discard_jokers:
        return bool(hand)
    return any(discardable(config, barred, hand, card) for card in set(hand))
