"""Seep's facts about cards and seats (A1, A2): capture values, point values, teams."""

from __future__ import annotations

from typing import Final

from cardgames.engine.core.cards import STANDARD_PACK, rank_number, suit_of

#: val(c): A=1 .. 10, J=11, Q=12, K=13 (A2).
VALUE: Final[dict[str, int]] = {card: rank_number(card) for card in STANDARD_PACK}

#: Point value of every card except 10D, whose value is an option (A2).
BASE_POINTS: Final[dict[str, int]] = {
    card: (VALUE[card] if suit_of(card) == "S" else 1 if card in ("AH", "AD", "AC") else 0)
    for card in STANDARD_PACK
}
TEN_OF_DIAMONDS: Final = "10D"

MIN_HOUSE: Final = 9
MAX_HOUSE: Final = 13
HOUSE_VALUES: Final = (9, 10, 11, 12, 13)
SEATS: Final = 4
PLAYS_PER_DEAL: Final = 48


def team(seat: int) -> int:
    """Team of a seat: seats 0, 2 are team 0, seats 1, 3 team 1 (A1)."""
    return seat % 2


def partner(seat: int) -> int:
    return (seat + 2) % 4


def card_points(cards: tuple[str, ...], ten_of_diamonds: int) -> int:
    """The point value of ``cards`` (A2), with 10D worth ``ten_of_diamonds``."""
    # BASE_POINTS["10D"] is 0; sum and count run in C
    return sum(map(BASE_POINTS.__getitem__, cards)) + ten_of_diamonds * cards.count(TEN_OF_DIAMONDS)
