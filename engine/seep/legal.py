"""``legal_commands``: every distinct command the seat may send now, groupings included.

Per-move conditions come from :mod:`engine.seep.moves` (the same checks ``decide``
makes); the groupings come from :class:`engine.seep.groups.FloorGroups`, computed once
per call. Everything depends on the played card only through its value, so the moves
are worked out once per value held and then stamped with each card of that value.
Groups are listed in floor order, the played card first in its group.
"""

from __future__ import annotations

from typing import Any

from engine.core.protocol import Rejection
from engine.seep.cards import HOUSE_VALUES, VALUE
from engine.seep.commands import Bid, Break, Build, Capture, Groups, Throw
from engine.seep.groups import FloorGroups
from engine.seep.moves import BuildTerms, break_terms, build_terms, key_counts, throw_error
from engine.seep.state import BID, PLAY, House, State, actor

_BIDS = {value: Bid(value) for value in HOUSE_VALUES}
_ALONE = (0,)

#: HOUSE moves without their card: value, the loose cards in the card's group, each choice of further groups.
BuildShape = tuple[int, tuple[str, ...], list[Groups]]
#: The moves open to a card of one value: capture groupings, throw, build shapes, houses to break.
Moves = tuple[list[Groups], bool, list[BuildShape], list[int]]


def legal_commands(state: State, seat: int) -> list[Any]:
    if seat != actor(state):
        return []
    hand = state.hands[seat]
    if state.phase == BID:
        return [_BIDS[value] for value in sorted({VALUE[card] for card in hand if VALUE[card] >= 9})]
    if state.phase != PLAY:
        return []
    table = _Table(state, seat)
    by_value: dict[int, Moves] = {}
    out: list[Any] = []
    for card in hand:
        value = VALUE[card]
        moves = by_value.get(value)
        if moves is None:
            moves = by_value[value] = table.moves_for(value, card)
        captures, throw, builds, breaks = moves
        if captures:
            out += [Capture(card, groups) for groups in captures]
        if throw:
            out.append(Throw(card))
        for target, own, rests in builds:
            head = (card, *own)
            out += [Build(card, target, (head, *rest)) for rest in rests]
        if breaks:
            out += [Break(card, house) for house in breaks]
    return out


class _Table:
    """What one call works out once: the floor's groups, the seat's keys, the HOUSE terms per value.

    ``build_terms`` reads the keys only at the house's value and at the values of the
    houses the seat owns, so its answer for the whole hand holds for every card of
    another value; only cards of those values are checked on their own.
    """

    __slots__ = ("base_terms", "breakable", "counts", "floor", "houses", "owned", "seat", "state")

    def __init__(self, state: State, seat: int) -> None:
        self.state = state
        self.seat = seat
        self.floor = FloorGroups(state.loose)
        self.counts = key_counts(state.hands[seat])
        self.houses: dict[int, House] = {house.value: house for house in state.houses}
        self.owned = {house.value for house in state.houses if seat in house.owners}
        self.breakable = [
            house.value for house in state.houses if not house.cemented and seat not in house.owners
        ]
        #: build_terms for the whole hand, by house value, worked out when first needed
        self.base_terms: dict[int, BuildTerms | Rejection] = {}

    def moves_for(self, value: int, card: str) -> Moves:
        state, floor = self.state, self.floor
        opening = state.plays == 0
        captures: list[Groups] = []
        if (not opening or value == state.bid) and (value in self.houses or floor.sums >> value & 1):
            captures = floor.groupings(value, floor.full, state.config.capture_extent == "maximal")
            if value not in self.houses:
                captures = [groups for groups in captures if groups]
        throw = value not in self.houses and throw_error(state, card, floor.sums) is None
        after = self.counts.copy()
        after[value] -= 1
        builds = self.build_shapes(value, after)
        breaks: list[int] = []
        if value <= 4 and self.breakable and not opening:
            breaks = [
                house
                for house in self.breakable
                if not isinstance(break_terms(state, self.seat, value, after, house), Rejection)
            ]
        return captures, throw, builds, breaks

    def build_shapes(self, value: int, after: list[int]) -> list[BuildShape]:
        """Every HOUSE move with a card of ``value`` (A8.3): each house value, each set of loose
        cards joining the card, each choice of further groups."""
        sums = self.floor.sums
        special = value in self.owned  # the card may be the last key of one of the seat's houses
        shapes: list[BuildShape] = []
        for target in HOUSE_VALUES:
            if target < value or (target > value and not sums >> (target - value) & 1):
                continue  # nothing on the floor completes the card to this value
            if target == value or special:
                terms = build_terms(self.state, self.seat, after, target)
            else:
                found = self.base_terms.get(target)
                if found is None:
                    found = self.base_terms[target] = build_terms(self.state, self.seat, self.counts, target)
                terms = found
            if not isinstance(terms, Rejection):
                self._shapes(value, terms, shapes)
        return shapes

    def _shapes(self, value: int, terms: BuildTerms, shapes: list[BuildShape]) -> None:
        floor, config = self.floor, self.state.config
        target = terms.value
        new = terms.existing is None
        singles = new and any(VALUE[loose] == target for loose in floor.cards)
        strict = new and not config.allow_direct_cemented_build
        sets = config.auto_merge_loose_sets
        for with_card in _ALONE if target == value else floor.adding_to(target - value):
            if strict and not with_card:
                continue
            own = floor.cards_of(with_card)
            groupings = floor.groupings(target, floor.full & ~with_card, sets, merged_singles=new)
            if new and not (with_card or singles):
                groupings = [groups for groups in groupings if groups]
            if strict and not sets:
                groupings = [groups for groups in groupings if all(len(group) == 1 for group in groups)]
            if groupings:
                shapes.append((target, own, groupings))
