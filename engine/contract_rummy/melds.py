"""Cards on the table: joker declarations, run positions, sets and runs, lay-offs (A.3, A.7, A.9).

A card in a meld is a natural code (``8H``) or a declared joker (``JK=8H``); its *face* is
the code it shows (``8H`` for both). In a run every card has a *position* (A.3): A-low 1,
2-10 face value, J 11, Q 12, K 13, A-high 14.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, Protocol

import msgspec

from cardgames.engine.core.cards import JOKER, RANKS, STANDARD_CARDS

SET: Final = "set"
RUN: Final = "run"
LOW: Final = "low"
HIGH: Final = "high"
JOKER_PREFIX: Final = "JK="

#: Run position of each rank with the ace low; an ace may also stand at 14.
POSITION: Final[dict[str, int]] = {rank: number for number, rank in enumerate(RANKS, start=1)}


class Meld(msgspec.Struct, frozen=True, gc=False):
    """A meld on the table. ``placed_by[i]`` is the seat that put ``cards[i]`` there (D).

    Runs keep ``cards`` from low to high with ``suit``, ``low`` and ``high`` (positions);
    sets keep ``rank`` and their cards in the order they were placed. ``gc=False``: frozen and
    made of strings and ints only, it cannot be part of a reference cycle.
    """

    owner: int
    kind: str
    cards: tuple[str, ...]
    placed_by: tuple[int, ...]
    suit: str = ""
    rank: str = ""
    low: int = 0
    high: int = 0


def face(card: str) -> str:
    """The code a table card shows: the declaration of a joker, else the card itself."""
    return card[3:] if card.startswith(JOKER_PREFIX) else card


def is_joker(card: str) -> bool:
    return card.startswith(JOKER)


def hand_code(card: str) -> str:
    """The code of the card in a hand: ``JK`` for a declared joker."""
    return JOKER if card.startswith(JOKER) else card


def is_declared_joker(card: object) -> bool:
    return isinstance(card, str) and card.startswith(JOKER_PREFIX) and card[3:] in STANDARD_CARDS


def is_table_card(card: object) -> bool:
    """A card as it may be put on the table: a natural code or a declared joker."""
    return isinstance(card, str) and (card in STANDARD_CARDS or is_declared_joker(card))


def rank_code(card: str) -> str:
    return card[:-1]


def face_at(suit: str, position: int) -> str:
    """The face at a run position of a suit (1 and 14 are both the ace)."""
    return ("A" if position in (1, 14) else RANKS[position - 1]) + suit


def enough_naturals(naturals: int, jokers: int, rule: str) -> bool:
    """A.7: at least one natural card, and (``at_least_jokers``) never more jokers than naturals."""
    return naturals >= 1 and (rule == "one" or jokers <= naturals)


def naturals_ok(cards: Sequence[str], rule: str) -> bool:
    jokers = sum(1 for card in cards if card.startswith(JOKER))
    return enough_naturals(len(cards) - jokers, jokers, rule)


def run_positions(faces: Sequence[str]) -> list[int] | str:
    """Each face's position in a run of one suit, or why the faces are no run (A.7).

    A natural or declared ace takes the position that makes the run consecutive; when
    both do (2..K plus one ace) it is low when listed first and high otherwise.
    """
    suit = faces[0][-1]
    if any(item[-1] != suit for item in faces):
        return "a run's cards must all be of one suit"
    fixed = [POSITION[item[:-1]] for item in faces if item[:-1] != "A"]
    aces = len(faces) - len(fixed)
    size = len(faces)
    if len(set(fixed)) != len(fixed):
        return "two cards of a run claim the same position"
    if aces == 0:
        if max(fixed) - min(fixed) + 1 != size:
            return "a run's cards must occupy consecutive positions (no gaps, no wrap-around)"
        return fixed
    if aces == 2:
        if size == 14 and set(fixed) == set(range(2, 14)):
            first = True
            out = []
            for item in faces:
                if item[:-1] == "A":
                    out.append(1 if first else 14)
                    first = False
                else:
                    out.append(POSITION[item[:-1]])
            return out
        return "a run holds both aces only when it covers all 14 positions"
    if aces > 2:
        return "a run cannot hold more than two aces"
    options = []
    for ace in (1, 14):
        allpos = [*fixed, ace]
        if ace not in fixed and max(allpos) - min(allpos) + 1 == size:
            options.append(ace)
    if not options:
        return "a run's cards must occupy consecutive positions (no gaps, no wrap-around)"
    index = next(i for i, item in enumerate(faces) if item[:-1] == "A")
    ace = options[0] if len(options) == 1 else (1 if index == 0 else 14)
    return [ace if item[:-1] == "A" else POSITION[item[:-1]] for item in faces]


def make_meld(cards: Sequence[str], owner: int, min_run: int, rule: str) -> Meld | str:
    """The meld ``cards`` form (runs sorted low to high), or why they form none (A.7)."""
    if not cards:
        return "a meld needs cards"
    faces = [face(card) for card in cards]
    jokers = sum(1 for card in cards if card.startswith(JOKER))
    placed = (owner,) * len(cards)
    rank = faces[0][:-1]
    if all(item[:-1] == rank for item in faces):
        if not 3 <= len(cards) <= 4:
            return "a set has 3 or 4 cards"
        if len({item[-1] for item in faces}) != len(faces):
            return "the cards of a set must all be of different suits (a joker counts by its declared suit)"
        if not enough_naturals(len(cards) - jokers, jokers, rule):
            return _naturals_message(rule)
        return Meld(owner=owner, kind=SET, cards=tuple(cards), placed_by=placed, rank=rank)
    if len(cards) < min_run:
        return f"a run has at least {min_run} cards" if len(cards) >= 3 else "a meld has at least 3 cards"
    positions = run_positions(faces)
    if isinstance(positions, str):
        return positions
    if not enough_naturals(len(cards) - jokers, jokers, rule):
        return _naturals_message(rule)
    order = sorted(range(len(cards)), key=positions.__getitem__)
    low = positions[order[0]]
    return Meld(
        owner=owner,
        kind=RUN,
        cards=tuple(cards[i] for i in order),
        placed_by=placed,
        suit=faces[0][-1],
        low=low,
        high=low + len(cards) - 1,
    )


def _naturals_message(rule: str) -> str:
    if rule == "one":
        return "every meld needs at least one natural card"
    return "a meld may not hold more jokers than natural cards (min_naturals_per_meld)"


class Span(Protocol):
    """Anything with a run's suit and positions (a meld on the table, a finder candidate)."""

    @property
    def suit(self) -> str: ...
    @property
    def low(self) -> int: ...
    @property
    def high(self) -> int: ...


def runs_apart(first: Span, second: Span, suit_rule: str) -> bool:
    """May these two runs go down in one contract (A.6 rule 4: forbidden, need_gap, allowed)?"""
    if first.suit != second.suit or suit_rule == "allowed":
        return True
    return suit_rule == "need_gap" and (first.low > second.high + 1 or second.low > first.high + 1)


def set_suits(meld: Meld) -> set[str]:
    return {face(card)[-1] for card in meld.cards}


def run_ends(meld: Meld, card_face: str) -> tuple[str, ...]:
    """The ends of a run where a card of this face fits (A.9): none, one or both."""
    if card_face[-1] != meld.suit:
        return ()
    rank = card_face[:-1]
    wanted = (1, 14) if rank == "A" else (POSITION[rank],)
    ends = []
    if meld.low > 1 and meld.low - 1 in wanted:
        ends.append(LOW)
    if meld.high < 14 and meld.high + 1 in wanted:
        ends.append(HIGH)
    return tuple(ends)


def fits_set(meld: Meld, card_face: str) -> bool:
    return len(meld.cards) < 4 and card_face[:-1] == meld.rank and card_face[-1] not in set_suits(meld)


def extend(meld: Meld, card: str, end: str | None, seat: int) -> Meld:
    """The meld with one more card: at a run's ``end``, or at the end of a set."""
    if meld.kind == RUN and end == LOW:
        return msgspec.structs.replace(
            meld, cards=(card, *meld.cards), placed_by=(seat, *meld.placed_by), low=meld.low - 1
        )
    high = meld.high + 1 if meld.kind == RUN else 0
    return msgspec.structs.replace(meld, cards=(*meld.cards, card), placed_by=(*meld.placed_by, seat), high=high)


def replace_joker(meld: Meld, natural: str, seat: int) -> Meld:
    """The run with the joker declared as ``natural`` replaced by that natural card (A.10)."""
    index = meld.cards.index(JOKER_PREFIX + natural)
    cards = list(meld.cards)
    cards[index] = natural
    placed = list(meld.placed_by)
    placed[index] = seat
    return msgspec.structs.replace(meld, cards=tuple(cards), placed_by=tuple(placed))


def penalty(card: str, ace_value: int, joker_value: int) -> int:
    """A.3: 2-10 face value, J Q K 10, an ace ``ace_value``, a joker ``joker_value``."""
    if card.startswith(JOKER):
        return joker_value
    rank = card[:-1]
    if rank == "A":
        return ace_value
    return POSITION[rank] if POSITION[rank] <= 10 else 10
