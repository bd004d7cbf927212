"""``legal_commands``: every distinct command the seat may send now, groupings included.

Per-move conditions come from :mod:`engine.seep.moves` (the same checks ``decide``
makes); the groupings come from :class:`engine.seep.groups.FloorGroups`, computed once
per call and shared by every card of the same value. Groups are listed in floor
order, the played card first in its group.
"""

from __future__ import annotations

from typing import Any

from engine.core.protocol import Rejection
from engine.seep.cards import HOUSE_VALUES, VALUE
from engine.seep.commands import Bid, Break, Build, Capture, Throw
from engine.seep.groups import FloorGroups, Selection
from engine.seep.moves import break_terms, build_terms, throw_error
from engine.seep.state import BID, PLAY, State, actor, house_of

_BIDS = {value: Bid(value=value) for value in HOUSE_VALUES}


def legal_commands(state: State, seat: int) -> list[Any]:
    if seat != actor(state):
        return []
    hand = state.hands[seat]
    if state.phase == BID:
        return [_BIDS[value] for value in sorted({VALUE[card] for card in hand if VALUE[card] >= 9})]
    if state.phase != PLAY:
        return []
    floor = FloorGroups(state.loose)
    out: list[Any] = []
    captures: dict[int, list[tuple[tuple[str, ...], ...]]] = {}
    for card in hand:
        value = VALUE[card]
        if value not in captures:
            captures[value] = _capture_groupings(state, floor, value)
        out.extend(Capture(card=card, groups=groups) for groups in captures[value])
        if throw_error(state, card) is None:
            out.append(Throw(card=card))
        _builds(state, seat, floor, card, out)
        if value <= 4 and state.plays:
            for house in state.houses:
                if not isinstance(break_terms(state, seat, card, house.value), Rejection):
                    out.append(Break(card=card, house=house.value))
    return out


def _capture_groupings(state: State, floor: FloorGroups, value: int) -> list[tuple[tuple[str, ...], ...]]:
    """The groupings a card of ``value`` may capture with (A8.1); [] when it may not capture."""
    if state.plays == 0 and value != state.bid:
        return []
    maximal = state.config.capture_extent == "maximal"
    selections = floor.selections(value, floor.full, maximal)
    keep_empty = house_of(state, value) is not None
    return [_cards(floor, selection) for selection in selections if selection or keep_empty]


def _cards(floor: FloorGroups, selection: Selection) -> tuple[tuple[str, ...], ...]:
    return tuple(floor.cards_of(group) for group in selection)


def _builds(state: State, seat: int, floor: FloorGroups, card: str, out: list[Any]) -> None:
    """Every HOUSE move with ``card`` (A8.3): each value, each partner set, each choice of further groups."""
    config = state.config
    value = VALUE[card]
    for target in HOUSE_VALUES:
        if target < value:
            continue
        terms = build_terms(state, seat, card, target)
        if isinstance(terms, Rejection):
            continue
        new = terms.existing is None
        singles = new and any(VALUE[loose] == target for loose in state.loose)
        strict = new and not config.allow_direct_cemented_build
        partners = [0] if target == value else floor.by_sum[target - value]
        for with_card in partners:
            if strict and not with_card:
                continue
            own = (card, *floor.cards_of(with_card))
            for selection in floor.selections(
                target, floor.full & ~with_card, config.auto_merge_loose_sets, merged_singles=new
            ):
                if new and not (with_card or selection or singles):
                    continue
                if strict and not config.auto_merge_loose_sets and any(
                    group & (group - 1) for group in selection
                ):
                    continue
                out.append(Build(card=card, value=target, groups=(own, *_cards(floor, selection))))
