"""Per game, for the hidden-information tests: which cards a seat may not see, and a state with them re-dealt.

``reshuffle`` deals the cards hidden from ``seat`` again at random, each place keeping
its size, so the seat's view is unchanged while the hidden truth is different.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from msgspec.structs import replace

from tests.bots.helpers import cards_in


def _all_fours_hidden(state: Any, seat: int) -> set[str]:
    cards = set(state.stock)
    for other, hand in enumerate(state.hands):
        if other != seat:
            cards |= set(hand) - set(state.exposed[other])
    return cards


def _refill(places: list[list[str]], rng: random.Random) -> list[tuple[str, ...]]:
    """The cards of ``places`` shuffled and dealt back, each place keeping its size."""
    pool = [card for place in places for card in place]
    rng.shuffle(pool)
    refilled, at = [], 0
    for place in places:
        refilled.append(tuple(pool[at : at + len(place)]))
        at += len(place)
    return refilled


def _all_fours_reshuffle(state: Any, seat: int, rng: random.Random) -> Any:
    hidden = [
        [card for card in hand if card not in state.exposed[other]] if other != seat else []
        for other, hand in enumerate(state.hands)
    ] + [list(state.stock)]
    refilled = _refill(hidden, rng)
    hands = tuple(
        hand if other == seat else state.exposed[other] + refilled[other] for other, hand in enumerate(state.hands)
    )
    return replace(state, hands=hands, stock=refilled[-1])


def _all_fours_view_cards(view: Any) -> set[str]:
    """The cards of the current deal in a view (``last_hand`` names cards of an earlier deal)."""
    return cards_in(replace(view, last_hand=None))


def _seep_piles_hidden(state: Any) -> bool:
    return state.config.capture_inspect_window != "always" and state.phase != "over"


def _seep_hidden(state: Any, seat: int) -> set[str]:
    """Other hands, the stock, the face-down floor, and the pile cards the view does not show."""
    cards = set(state.stock)
    for other, hand in enumerate(state.hands):
        if other != seat:
            cards |= set(hand)
    if state.phase == "bid":
        cards |= set(state.loose)
    if _seep_piles_hidden(state):
        shown = set(state.window) if state.config.capture_inspect_window != "never" else set()
        cards |= (set(state.piles[0]) | set(state.piles[1])) - shown
    return cards


def _seep_reshuffle(state: Any, seat: int, rng: random.Random) -> Any:
    hidden = _seep_hidden(state, seat)
    places: list[list[str]] = [[card for card in hand if card in hidden] for hand in state.hands]
    places.append([card for card in state.stock if card in hidden])
    places.append([card for card in state.loose if card in hidden])
    places += [[card for card in pile if card in hidden] for pile in state.piles]
    pool = [card for place in places for card in place]
    rng.shuffle(pool)
    refill = iter(pool)

    def redo(cards: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(next(refill) if card in hidden else card for card in cards)

    return replace(
        state,
        hands=tuple(redo(hand) for hand in state.hands),
        stock=redo(state.stock),
        loose=redo(state.loose),
        piles=(redo(state.piles[0]), redo(state.piles[1])),
    )


def _seep_view_cards(view: Any) -> set[str]:
    """The cards of the current deal in a view (``last_deal`` names cards of an earlier deal)."""
    return cards_in(replace(view, last_deal=None))


def _rummy_unknown(state: Any, seat: int, other: int) -> list[str]:
    """The cards of ``other``'s hand that ``seat`` does not know (the publicly taken ones are known)."""
    if other == seat:
        return []
    hand = list(state.hands[other])
    for card in state.known[other]:
        hand.remove(card)
    return hand


def _rummy_hidden(state: Any, seat: int) -> set[str]:
    cards = set(state.stock)
    for other in range(state.players):
        cards |= set(_rummy_unknown(state, seat, other))
    return cards


def _rummy_reshuffle(state: Any, seat: int, rng: random.Random) -> Any:
    places = [_rummy_unknown(state, seat, other) for other in range(state.players)] + [list(state.stock)]
    refilled = _refill(places, rng)
    hands = tuple(
        hand if other == seat else state.known[other] + refilled[other] for other, hand in enumerate(state.hands)
    )
    return replace(state, hands=hands, stock=refilled[-1])


#: game -> (hidden cards of a seat, re-deal of those cards, the current deal's cards in a view)
HIDDEN: dict[
    str,
    tuple[Callable[[Any, int], set[str]], Callable[[Any, int, random.Random], Any], Callable[[Any], set[str]]],
] = {
    "all_fours": (_all_fours_hidden, _all_fours_reshuffle, _all_fours_view_cards),
    "seep": (_seep_hidden, _seep_reshuffle, _seep_view_cards),
    "contract_rummy": (_rummy_hidden, _rummy_reshuffle, cards_in),
}
