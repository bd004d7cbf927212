"""All Fours card facts (A1, A2): rank order with the ace high, counting values, seats and sides."""

from __future__ import annotations

from typing import Final

from cardgames.engine.core.cards import STANDARD_PACK

#: Ranks from low to high within a suit (A2): 2 .. 10, J, Q, K, A.
RANK_ORDER: Final = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")

#: Card code -> its power within its suit (2 = 0 .. A = 12).
POWER: Final[dict[str, int]] = {card: RANK_ORDER.index(card[:-1]) for card in STANDARD_PACK}

#: Counting values for the Game point (A2): 10 = 10, A = 4, K = 3, Q = 2, J = 1.
COUNT_BY_RANK: Final[dict[str, int]] = {"10": 10, "A": 4, "K": 3, "Q": 2, "J": 1}
COUNT: Final[dict[str, int]] = {card: COUNT_BY_RANK.get(card[:-1], 0) for card in STANDARD_PACK}


def side_of(seat: int) -> int:
    """The side of a seat (A1): seat mod 2 (with two players a seat is its own side)."""
    return seat % 2


def count_points(cards: tuple[str, ...]) -> int:
    """The counting value of some cards (A2)."""
    return sum(COUNT[card] for card in cards)
