"""Subset sums over loose cards: the V-groups a card can take or build with (A8.1, A8.3).

Loose cards are numbered by their position on the floor; a set of loose cards is a
bitmask. :class:`Floor` lists every set of loose cards whose values add up to 1..13
(depth-first with the sum as the bound, so a floor of many small cards stays cheap) and
enumerates the ways to pick disjoint V-groups, optionally only the maximal ones.

Play mostly meets floors of a few cards, where a value has at most one group: those
selections are answered directly. Otherwise the enumeration decides the lowest
undecided card (left out, or the lowest card of one of the groups taken), memoised on
(cards still undecided, sums already reachable by the cards left out), which keeps a
floor of many small cards (thousands of selections) proportional to its answer.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from engine.seep.cards import VALUE

# Module constants are ``Final``: the compiled build keeps them in C statics (a plain module
# name is a dictionary lookup at every use).
MAX_SUM: Final = 13
#: Sums 0..13 as bits.
SUMS_MASK: Final = (1 << (MAX_SUM + 1)) - 1

Grouping = tuple[tuple[str, ...], ...]
_EMPTY: Final[list[int]] = []  # no group (read-only)
_NO_GROUPS: Final[list[Grouping]] = [()]  # the only grouping when no group exists (read-only)
_NONE: Final[list[Grouping]] = []  # no grouping at all (read-only)
#: Up to this many groups of a value, the one-group and no-group cases are looked for first.
_FEW: Final = 8


def reachable_sums(values: Iterable[int]) -> int:
    """Bit s is set when some subset of ``values`` (the empty one included) adds up to s <= 13."""
    sums = 1
    for value in values:
        sums |= (sums << value) & SUMS_MASK
    return sums


def has_group(values: Iterable[int], target: int) -> bool:
    """True when a non-empty subset of ``values`` adds up to ``target`` (1..13)."""
    return bool(reachable_sums(values) >> target & 1)


def _sets_by_sum(values: tuple[int, ...]) -> dict[int, list[int]]:
    """Every set of cards (bitmask) of ``values`` adding up to 1..13, by its sum (sets of a sum
    in order of their highest card). Doubling: each card joins every set listed so far that
    it does not push over 13. (Masks and sums in two lists of ints: no tuple per set.)"""
    masks = [0]
    totals = [0]
    for index in range(len(values)):
        value = values[index]
        bit = 1 << index
        for at in range(len(masks)):  # the sets listed before this card
            total = totals[at] + value
            if total <= MAX_SUM:
                masks.append(masks[at] | bit)
                totals.append(total)
    by_sum: dict[int, list[int]] = {}
    for at in range(len(masks)):
        total = totals[at]
        if total in by_sum:
            by_sum[total].append(masks[at])
        else:
            by_sum[total] = [masks[at]]
    return by_sum


#: :func:`_sets_by_sum` of the floors of up to four loose cards, by their values: play meets
#: the same few thousand small floors again and again (at most 13**4 of them: bounded).
_SMALL_FLOORS: Final[dict[tuple[int, ...], dict[int, list[int]]]] = {}


def sets_by_sum(values: tuple[int, ...]) -> dict[int, list[int]]:
    """:func:`_sets_by_sum`, remembered for small floors (callers never mutate the lists)."""
    found = _SMALL_FLOORS.get(values)
    if found is None:
        found = _sets_by_sum(values)
        if len(values) <= 4:
            _SMALL_FLOORS[values] = found
    return found


class Floor:
    """One floor's loose cards: their groups by sum, the selections of disjoint groups, card tuples.

    Built per call and cheap to build: the groups are listed on first use, the
    memoised enumeration only runs for a value with two or more groups.
    """

    __slots__ = ("_by_low", "_by_sum", "_cards", "_memo", "cards", "full", "sums", "values")

    def __init__(self, loose: tuple[str, ...], values: list[int] | None = None, sums: int | None = None) -> None:
        self.cards = loose
        if values is None:
            values = [VALUE[card] for card in loose]
        self.values = values
        self.full = (1 << len(values)) - 1
        self.sums = reachable_sums(values) if sums is None else sums
        self._by_sum: dict[int, list[int]] | None = None
        self._by_low: dict[tuple[int, int], list[int]] | None = None
        self._memo: dict[tuple[int, bool, bool], dict[int, list[Grouping]]] | None = None  # made on first use
        self._cards: dict[int, tuple[str, ...]] = {}

    def _index(self) -> dict[int, list[int]]:
        by_sum = self._by_sum = sets_by_sum(tuple(self.values))
        return by_sum

    def adding_to(self, total: int) -> list[int]:
        """Every set of loose cards (a bitmask) whose values add up to ``total`` (1..13)."""
        by_sum = self._by_sum if self._by_sum is not None else self._index()
        return by_sum.get(total, _EMPTY)

    def cards_of(self, mask: int) -> tuple[str, ...]:
        """The loose cards of a set, in floor order (memoised)."""
        found = self._cards.get(mask)
        if found is None:
            cards = self.cards
            if mask & (mask - 1):
                found = tuple([cards[index] for index in range(mask.bit_length()) if mask >> index & 1])
            else:
                found = (cards[mask.bit_length() - 1],)
            self._cards[mask] = found
        return found

    def groupings(self, target: int, avail: int, maximal: bool, merged_singles: bool = False) -> list[Grouping]:
        """Every set of disjoint ``target``-groups within ``avail``, each once, as tuples of
        card tuples (callers never mutate the lists).

        ``maximal``: only selections after which no ``target``-group is left in
        ``avail``; with ``merged_singles`` the single cards of value ``target`` left
        out do not count (they join the new house by themselves, A8.3).
        """
        if not self.sums >> target & 1:
            return _NO_GROUPS
        by_sum = self._by_sum if self._by_sum is not None else self._index()
        inside = by_sum[target]  # reachable: not empty
        if len(inside) <= _FEW:
            if avail != self.full:
                inside = [group for group in inside if group & avail == group]
            if len(inside) == 1:
                # one group: taking it is always a selection; leaving it is one unless
                # maximality forbids it (a single card of the value joins a new house anyway)
                group = inside[0]
                taken = (self.cards_of(group),)
                if maximal and not (merged_singles and not group & (group - 1)):
                    return [taken]
                return [(), taken]
            if not inside:
                return _NO_GROUPS
        memos = self._memo
        if memos is None:
            memos = self._memo = {}
        memo = memos.get((target, maximal, merged_singles))
        if memo is None:
            memo = memos[(target, maximal, merged_singles)] = {}
        by_low = self._by_low if self._by_low is not None else self._index_low()
        return self._select(target, avail, 1, maximal, merged_singles, memo, by_low)

    def _select(
        self, target: int, rem: int, sums: int, maximal: bool, merged: bool,
        memo: dict[int, list[Grouping]], by_low: dict[tuple[int, int], list[int]],
    ) -> list[Grouping]:
        """The selections within ``rem`` (``sums``: what the cards left out so far reach),
        deciding the lowest undecided card: left out, or the lowest card of a group taken.

        Memoised per (cards undecided, sums reached): a floor of many small cards has
        thousands of selections but far fewer distinct tails, each built once, as card
        tuples, and shared by every selection that ends with it."""
        if not rem:
            return _NO_GROUPS
        key = rem << 14 | sums
        found = memo.get(key)
        if found is not None:
            return found
        low = (rem & -rem).bit_length() - 1
        rest = rem & ~(1 << low)
        # the lowest undecided card is left out ...
        value = self.values[low]
        if maximal and not (merged and value == target):
            skipped = (sums | (sums << value)) & SUMS_MASK
            out = _NONE if skipped >> target & 1 else self._select(target, rest, skipped, maximal, merged, memo, by_low)
        else:
            out = self._select(target, rest, sums, maximal, merged, memo, by_low)
        # ... or it is the lowest card of one of the groups taken
        extended = False
        for group in by_low.get((target, low), _EMPTY):
            if group & rem == group:
                if not extended:
                    out, extended = list(out), True
                cards = self.cards_of(group)
                tails = self._select(target, rem & ~group, sums, maximal, merged, memo, by_low)
                # (cards,) + tail: one tuple; the compiled (cards, *tail) builds a list and converts it
                out += [(cards,) + tail for tail in tails]  # noqa: RUF005
        memo[key] = out
        return out

    def _index_low(self) -> dict[tuple[int, int], list[int]]:
        """The groups by (sum, lowest card)."""
        by_low: dict[tuple[int, int], list[int]] = {}
        for total in range(1, MAX_SUM + 1):
            for group in self.adding_to(total):
                key = (total, (group & -group).bit_length() - 1)
                if key in by_low:
                    by_low[key].append(group)
                else:
                    by_low[key] = [group]
        self._by_low = by_low
        return by_low
