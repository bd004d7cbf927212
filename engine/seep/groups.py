"""Subset sums over loose cards: the V-groups a card can take or build with (A8.1, A8.3).

Loose cards are numbered by their position on the floor; a set of loose cards is a
bitmask. :class:`FloorGroups` lists, once per position, every set of loose cards
whose values add up to 1..13 (depth-first with the sum as the bound, so a floor of
many small cards stays cheap), and enumerates the ways to pick disjoint V-groups,
optionally only the maximal ones, memoised on (cards still undecided, sums already
reachable by the cards left out).
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.seep.cards import VALUE

MAX_SUM = 13
_SUMS_MASK = (1 << (MAX_SUM + 1)) - 1

Selection = tuple[int, ...]  # disjoint group masks
_NOTHING: list[Selection] = [()]  # the only selection when no group exists (read-only)


def reachable_sums(values: Iterable[int]) -> int:
    """Bit s is set when some subset of ``values`` (the empty one included) adds up to s <= 13."""
    sums = 1
    for value in values:
        sums |= (sums << value) & _SUMS_MASK
    return sums


def has_group(values: Iterable[int], target: int) -> bool:
    """True when a non-empty subset of ``values`` adds up to ``target`` (1..13)."""
    return bool(reachable_sums(values) >> target & 1)


class FloorGroups:
    """The groups of one floor's loose cards, and the ways to select disjoint ones."""

    __slots__ = ("_by_low", "_by_sum", "_cards", "_groupings", "_memo", "cards", "full", "sums", "values")

    def __init__(self, loose: tuple[str, ...]) -> None:
        self.cards = loose
        self.values = [VALUE[card] for card in loose]
        self.full = (1 << len(loose)) - 1
        self.sums = reachable_sums(self.values)
        self._cards: dict[int, tuple[str, ...]] = {}
        self._groupings: dict[tuple[int, int, bool, bool], list[tuple[tuple[str, ...], ...]]] = {}
        self._memo: dict[tuple[int, int, int, bool, bool], list[Selection]] = {}
        self._by_sum: dict[int, list[int]] | None = None
        self._by_low: dict[tuple[int, int], list[int]] = {}

    def _index(self) -> dict[int, list[int]]:
        """Every set of loose cards by its sum (and, in ``_by_low``, by sum and lowest card)."""
        by_sum: dict[int, list[int]] = {}
        by_low = self._by_low
        values = self.values
        count = len(values)
        for low in range(count):
            pending = [(1 << low, values[low], low + 1)]
            while pending:
                mask, total, nxt = pending.pop()
                if total in by_sum:
                    by_sum[total].append(mask)
                else:
                    by_sum[total] = [mask]
                key = (total, low)
                if key in by_low:
                    by_low[key].append(mask)
                else:
                    by_low[key] = [mask]
                for j in range(nxt, count):
                    grown = total + values[j]
                    if grown <= MAX_SUM:
                        pending.append((mask | 1 << j, grown, j + 1))
        self._by_sum = by_sum
        return by_sum

    def adding_to(self, total: int) -> list[int]:
        """Every set of loose cards (a bitmask) whose values add up to ``total``."""
        if not self.sums >> total & 1 or total <= 0:
            return []
        by_sum = self._by_sum if self._by_sum is not None else self._index()
        return by_sum[total]

    def cards_of(self, mask: int) -> tuple[str, ...]:
        """The loose cards of a set, in floor order (memoised)."""
        found = self._cards.get(mask)
        if found is None:
            cards = self.cards
            found = self._cards[mask] = tuple([cards[index] for index in range(mask.bit_length()) if mask >> index & 1])
        return found

    def groupings(
        self, target: int, avail: int, maximal: bool, merged_singles: bool = False
    ) -> list[tuple[tuple[str, ...], ...]]:
        """:meth:`selections` as tuples of card tuples (memoised)."""
        key = (target, avail, maximal, merged_singles)
        found = self._groupings.get(key)
        if found is None:
            cards_of = self.cards_of
            found = self._groupings[key] = [
                tuple([cards_of(group) for group in selection])
                for selection in self.selections(target, avail, maximal, merged_singles)
            ]
        return found

    def selections(self, target: int, avail: int, maximal: bool, merged_singles: bool = False) -> list[Selection]:
        """Every set of disjoint ``target``-groups within ``avail``, each once.

        ``maximal``: only selections after which no ``target``-group is left in
        ``avail``; with ``merged_singles`` the single cards of value ``target`` left
        out do not count (they join the new house by themselves, A8.3).
        """
        if not self.sums >> target & 1:
            return _NOTHING
        if self._by_sum is None:
            self._index()
        return self._select(target, avail, 1, maximal, merged_singles)

    def _select(self, target: int, rem: int, sums: int, maximal: bool, merged: bool) -> list[Selection]:
        if not rem:
            return [()]
        key = (target, rem, sums, maximal, merged)
        found = self._memo.get(key)
        if found is not None:
            return found
        low = (rem & -rem).bit_length() - 1
        rest = rem & ~(1 << low)
        out: list[Selection] = []
        # the lowest undecided card is left out ...
        value = self.values[low]
        if maximal and not (merged and value == target):
            skipped = (sums | (sums << value)) & _SUMS_MASK
            if not skipped >> target & 1:
                out.extend(self._select(target, rest, skipped, maximal, merged))
        else:
            out.extend(self._select(target, rest, sums, maximal, merged))
        # ... or it is the lowest card of one of the groups taken
        for group in self._by_low.get((target, low), ()):
            if group & rem == group:
                for tail in self._select(target, rem & ~group, sums, maximal, merged):
                    out.append((group, *tail))
        self._memo[key] = out
        return out

