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
from engine.seep.moves import break_terms, build_terms, key_counts, throw_error
from engine.seep.state import BID, PLAY, State, actor, house_of

_BIDS = {value: Bid(value=value) for value in HOUSE_VALUES}

#: A HOUSE move without its card: value, the loose cards in the card's group, the further groups.
BuildShape = tuple[int, tuple[str, ...], Groups]


class _Moves:
    """The moves open to a card of one value: capture groupings, throw, build shapes, breaks."""

    __slots__ = ("breaks", "builds", "captures", "throw")

    def __init__(self) -> None:
        self.captures: list[Groups] = []
        self.throw = False
        self.builds: list[BuildShape] = []
        self.breaks: list[int] = []


def legal_commands(state: State, seat: int) -> list[Any]:
    if seat != actor(state):
        return []
    hand = state.hands[seat]
    if state.phase == BID:
        return [_BIDS[value] for value in sorted({VALUE[card] for card in hand if VALUE[card] >= 9})]
    if state.phase != PLAY:
        return []
    table = _Table(state, seat)
    by_value: dict[int, _Moves] = {}
    out: list[Any] = []
    for card in hand:
        value = VALUE[card]
        moves = by_value.get(value)
        if moves is None:
            moves = by_value[value] = table.moves_for(card)
        out.extend([Capture(card=card, groups=groups) for groups in moves.captures])
        if moves.throw:
            out.append(Throw(card=card))
        out.extend(
            [Build(card=card, value=target, groups=((card, *own), *rest)) for target, own, rest in moves.builds]
        )
        out.extend([Break(card=card, house=house) for house in moves.breaks])
    return out


class _Table:
    """What one call works out once: the floor's groups, the seat's keys, the HOUSE terms per value.

    ``build_terms`` reads the keys only at the house's value and at the values of the
    houses the seat owns, so its answer for the whole hand holds for every card of
    another value; only cards of those values are checked on their own.
    """

    __slots__ = ("base_terms", "counts", "floor", "open", "owned", "seat", "singles", "state")

    def __init__(self, state: State, seat: int) -> None:
        self.state = state
        self.seat = seat
        self.floor = FloorGroups(state.loose)
        self.counts = key_counts(state.hands[seat])
        self.owned = {house.value for house in state.houses if seat in house.owners}
        self.base_terms = {target: build_terms(state, seat, self.counts, target) for target in HOUSE_VALUES}
        #: the house values open to a card of any value other than themselves and the seat's houses
        self.open = [target for target, terms in self.base_terms.items() if not isinstance(terms, Rejection)]
        loose_values = {VALUE[card] for card in state.loose}
        self.singles = {target: target in loose_values for target in HOUSE_VALUES}

    def moves_for(self, card: str) -> _Moves:
        state, seat = self.state, self.seat
        value = VALUE[card]
        after = self.counts.copy()
        after[value] -= 1
        moves = _Moves()
        moves.captures = self.captures(value)
        moves.throw = throw_error(state, card, self.floor.sums) is None
        moves.builds = self.build_shapes(value, after)
        if value <= 4 and state.plays:
            moves.breaks = [
                house.value
                for house in state.houses
                if not isinstance(break_terms(state, seat, value, after, house.value), Rejection)
            ]
        return moves

    def captures(self, value: int) -> list[Groups]:
        """The groupings a card of ``value`` may capture with (A8.1); [] when it may not capture."""
        state, floor = self.state, self.floor
        if state.plays == 0 and value != state.bid:
            return []
        groupings = floor.groupings(value, floor.full, state.config.capture_extent == "maximal")
        if house_of(state, value) is not None:
            return groupings
        return [groups for groups in groupings if groups]

    def build_shapes(self, value: int, after: list[int]) -> list[BuildShape]:
        """Every HOUSE move with a card of ``value`` (A8.3): each house value, each set of loose
        cards joining the card, each choice of further groups."""
        state, floor = self.state, self.floor
        config = state.config
        if value in self.owned:  # the card may be the last key of one of the seat's houses
            targets = [target for target in HOUSE_VALUES if target >= value]
        else:
            targets = [target for target in self.open if target > value]
            if value in HOUSE_VALUES:
                targets.append(value)
        shapes: list[BuildShape] = []
        for target in targets:
            if target == value or value in self.owned:
                terms = build_terms(state, self.seat, after, target)
            else:
                terms = self.base_terms[target]
            if isinstance(terms, Rejection):
                continue
            new = terms.existing is None
            singles = new and self.singles[target]
            strict = new and not config.allow_direct_cemented_build
            partners = _ALONE if target == value else floor.by_sum.get(target - value, ())
            for with_card in partners:
                if strict and not with_card:
                    continue
                own = floor.cards_of(with_card)
                groupings = floor.groupings(
                    target, floor.full & ~with_card, config.auto_merge_loose_sets, merged_singles=new
                )
                if new and not (with_card or singles):
                    groupings = [groups for groups in groupings if groups]
                if strict and not config.auto_merge_loose_sets:
                    groupings = [groups for groups in groupings if all(len(group) == 1 for group in groups)]
                shapes.extend([(target, own, groups) for groups in groupings])
        return shapes


_ALONE = (0,)
