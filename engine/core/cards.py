"""Card codes shared by every game: rank then suit (``AS``, ``10D``), ``JK`` for a joker.

A joker placed in a meld carries its declared face after ``=`` (``JK=7H``).
"""

from __future__ import annotations

from typing import Final

RANKS: Final = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS: Final = ("S", "H", "D", "C")
JOKER: Final = "JK"

#: Rank number with the ace low (A=1 .. K=13); games that rank the ace high map it themselves.
RANK_NUMBER: Final[dict[str, int]] = {rank: number for number, rank in enumerate(RANKS, start=1)}

#: The 52 cards of one pack in the canonical order the shuffle starts from:
#: suits S, H, D, C, each from A up to K.
STANDARD_PACK: Final[tuple[str, ...]] = tuple(rank + suit for suit in SUITS for rank in RANKS)
STANDARD_CARDS: Final[frozenset[str]] = frozenset(STANDARD_PACK)


def rank_of(card: str) -> str:
    """The rank code of a natural card (``"10"`` for ``"10D"``)."""
    return card[:-1]


def suit_of(card: str) -> str:
    """The suit letter of a natural card."""
    return card[-1]


def rank_number(card: str) -> int:
    """A=1 .. K=13 for a natural card."""
    return RANK_NUMBER[card[:-1]]


def is_card(code: object) -> bool:
    """True for a natural card code of a standard pack (jokers excluded)."""
    return isinstance(code, str) and code in STANDARD_CARDS


def is_card_or_joker(code: object) -> bool:
    return isinstance(code, str) and (code == JOKER or code in STANDARD_CARDS)


def pack(decks: int = 1, jokers: int = 0) -> tuple[str, ...]:
    """``decks`` standard packs followed by ``jokers`` jokers, in canonical order."""
    return STANDARD_PACK * decks + (JOKER,) * jokers
