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


def _all_fours_reshuffle(state: Any, seat: int, rng: random.Random) -> Any:
    hidden = [
        [card for card in hand if card not in state.exposed[other]] if other != seat else []
        for other, hand in enumerate(state.hands)
    ] + [list(state.stock)]
    pool = [card for place in hidden for card in place]
    rng.shuffle(pool)
    refilled, at = [], 0
    for place in hidden:
        refilled.append(tuple(pool[at : at + len(place)]))
        at += len(place)
    hands = tuple(
        hand if other == seat else state.exposed[other] + refilled[other] for other, hand in enumerate(state.hands)
    )
    return replace(state, hands=hands, stock=refilled[-1])


def _all_fours_view_cards(view: Any) -> set[str]:
    """The cards of the current deal in a view (``last_hand`` names cards of an earlier deal)."""
    return cards_in(replace(view, last_hand=None))


#: game -> (hidden cards of a seat, re-deal of those cards, the current deal's cards in a view)
HIDDEN: dict[
    str,
    tuple[Callable[[Any, int], set[str]], Callable[[Any, int, random.Random], Any], Callable[[Any], set[str]]],
] = {
    "all_fours": (_all_fours_hidden, _all_fours_reshuffle, _all_fours_view_cards),
}
