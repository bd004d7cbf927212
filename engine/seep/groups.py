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

A long list of selections need not be made at all: :meth:`Floor.selections` counts them
with the same recursion (a number per memo entry instead of a list) and hands back a
:class:`Selections` that makes the selection at an index, or finds a selection's index,
by walking down the counts. A playout that lists a crowded floor and picks one command
pays for the counts and one walk, not for thousands of tuples.
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
#: Up to this many groups of the target on the floor, :meth:`Floor.selections` makes the list of
#: selections (the bound of the one-group shortcut); more, and it counts them (a
#: :class:`Selections`). Past it counting is the cheaper: ten loose cards A-10 beside three
#: houses (831 commands) list and pick in 1.9 million instructions counted, 4.2 million made.
EAGER_GROUPS: Final = 8
#: The most multisets of loose values a count keeps in a flat list (a floor of sixteen loose
#: cards has at most 27,648; a floor grown by the option to throw anything can have millions).
_FLAT_MEMO: Final = 1 << 16


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

    __slots__ = (
        "_by_low", "_by_sum", "_cards", "_memo", "_positions", "_renumbering", "_tallies", "cards", "full", "sums",
        "values",
    )

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
        self._tallies: dict[int, Tally] | None = None  # made on first use
        self._renumbering: Renumbering | None = None  # made on first use
        self._positions: dict[str, int] | None = None  # made on first use
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
        few = self._few(target, avail, maximal, merged_singles)
        return few if few is not None else self._made(target, avail, maximal, merged_singles)

    def selections(
        self, target: int, avail: int, maximal: bool, merged_singles: bool = False
    ) -> list[Grouping] | Selections:
        """:meth:`groupings`, but on a floor with more than :data:`EAGER_GROUPS` groups of the
        target the selections are counted, not made: the answer is then a :class:`Selections`
        (same selections, same order)."""
        few = self._few(target, avail, maximal, merged_singles)
        if few is not None:
            return few
        by_sum = self._by_sum if self._by_sum is not None else self._index()
        if len(by_sum[target]) > EAGER_GROUPS:
            count = self.tally(target, maximal, merged_singles).count_without(self.full & ~avail)
            return Selections(self, target, avail, maximal, merged_singles, 0, count)
        return self._made(target, avail, maximal, merged_singles)

    def _few(self, target: int, avail: int, maximal: bool, merged_singles: bool) -> list[Grouping] | None:
        """The answer when ``avail`` holds one ``target``-group or none, else None (play mostly
        meets floors of a few cards, where a value has at most one group)."""
        if not self.sums >> target & 1:
            return _NO_GROUPS
        by_sum = self._by_sum if self._by_sum is not None else self._index()
        inside = by_sum[target]  # reachable: not empty
        if len(inside) > _FEW:
            return None
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
        return None

    def _made(self, target: int, avail: int, maximal: bool, merged: bool) -> list[Grouping]:
        """The selections made by the memoised enumeration (one memo per target and mode)."""
        memos = self._memo
        if memos is None:
            memos = self._memo = {}
        memo = memos.get((target, maximal, merged))
        if memo is None:
            memo = memos[(target, maximal, merged)] = {}
        by_low = self._by_low if self._by_low is not None else self._index_low()
        return self._select(target, avail, 1, maximal, merged, memo, by_low)

    def tally(self, target: int, maximal: bool, merged: bool) -> Tally:
        """The counter of selections of ``target``-groups (one per target and mode, made on first use)."""
        tallies = self._tallies
        if tallies is None:
            tallies = self._tallies = {}
        merged = merged and maximal  # (only maximality looks at the cards left out)
        key = target << 2 | maximal << 1 | merged
        found = tallies.get(key)
        if found is None:
            by_sum = self._by_sum if self._by_sum is not None else self._index()
            renumbering = self._renumbering
            if renumbering is None:
                renumbering = self._renumbering = Renumbering(self.values)
            found = tallies[key] = Tally(renumbering, by_sum.get(target, _EMPTY), target, maximal, merged)
        return found

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
        # the lowest undecided card is left out ...
        skipped = _left_out(self.values[low], target, sums, maximal, merged)
        out = _NONE if skipped < 0 else self._select(target, rem & ~(1 << low), skipped, maximal, merged, memo, by_low)
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

    def nth_selection(self, target: int, avail: int, maximal: bool, merged: bool, index: int) -> Grouping:
        """The selection at ``index`` of :meth:`groupings` (0 <= index < its length), found by
        walking down the counts: at each card, the selections that leave it out come first,
        then those that take each of its groups in turn."""
        tally = self.tally(target, maximal, merged)
        by_low = self._by_low if self._by_low is not None else self._index_low()
        rem, sums = avail, 1
        taken: list[tuple[str, ...]] = []
        while rem:
            low = (rem & -rem).bit_length() - 1
            skipped = _left_out(self.values[low], target, sums, maximal, merged)
            rest = rem & ~(1 << low)
            if skipped >= 0:
                count = tally.count(rest, skipped)
                if index < count:
                    rem, sums = rest, skipped
                    continue
                index -= count
            for group in by_low.get((target, low), _EMPTY):
                if group & rem == group:
                    count = tally.count(rem & ~group, sums)
                    if index < count:
                        taken.append(self.cards_of(group))
                        rem &= ~group
                        break
                    index -= count
            else:
                raise IndexError("selection index out of range")
        if index:
            raise IndexError("selection index out of range")
        return tuple(taken)

    def leaves_all(self, target: int, avail: int, maximal: bool, merged: bool) -> bool:
        """Whether taking no group at all is a selection (the first, when it is one): always,
        unless maximality forbids leaving some group of ``avail``."""
        sums = 1
        while avail and sums >= 0:
            low = (avail & -avail).bit_length() - 1
            sums = _left_out(self.values[low], target, sums, maximal, merged)
            avail &= avail - 1
        return sums >= 0

    def selection_index(self, target: int, avail: int, maximal: bool, merged: bool, groups: Grouping) -> int:
        """Where ``groups`` stands in :meth:`groupings`, or -1 when it is not there (a group not
        of ``target``, cards off the floor or out of floor order, groups out of order, a
        group left that maximality forbids): the walk of :meth:`nth_selection`, backwards."""
        positions = self._positions
        if positions is None:
            positions = self._positions = {card: index for index, card in enumerate(self.cards)}
        masks: list[int] = []
        for cards in groups:
            mask = 0
            for card in cards:
                position = positions.get(card, -1)
                if position < 0:
                    return -1
                mask |= 1 << position
            if self.cards_of(mask) != cards:
                return -1  # a card twice, or not in floor order
            masks.append(mask)
        tally = self.tally(target, maximal, merged)
        by_low = self._by_low if self._by_low is not None else self._index_low()
        rem, sums, index, next_group = avail, 1, 0, 0
        while rem:
            low = (rem & -rem).bit_length() - 1
            skipped = _left_out(self.values[low], target, sums, maximal, merged)
            if next_group < len(masks) and masks[next_group] & -masks[next_group] == 1 << low:
                chosen = masks[next_group]
                if skipped >= 0:
                    index += tally.count(rem & ~(1 << low), skipped)
                for group in by_low.get((target, low), _EMPTY):
                    if group & rem == group:
                        if group == chosen:
                            break
                        index += tally.count(rem & ~group, sums)
                else:
                    return -1  # not a group of the target within what is left
                rem &= ~chosen
                next_group += 1
            else:
                if skipped < 0:
                    return -1
                rem, sums = rem & ~(1 << low), skipped
        return index if next_group == len(masks) else -1

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


def _left_out(value: int, target: int, sums: int, maximal: bool, merged: bool) -> int:
    """The sums the cards left out reach once a card of ``value`` is left out too, or -1 when
    maximality forbids leaving it out (they would reach ``target``; a single card of the
    target value joining a new house by itself, ``merged``, does not count)."""
    if maximal and not (merged and value == target):
        skipped = (sums | (sums << value)) & SUMS_MASK
        return -1 if skipped >> target & 1 else skipped
    return sums


class Renumbering:
    """A floor's loose cards renumbered by value, lowest first, for :class:`Tally` (the same
    for every target): ``inner[i]`` is the new number of card ``i``; the ``weight`` of a set
    of renumbered cards is the multiset of their values, a number in mixed radix (digit v:
    how many cards of value v; a digit's base is one more than the floor's cards of that
    value), below ``size``."""

    def __init__(self, values: list[int]) -> None:
        order = sorted(range(len(values)), key=values.__getitem__)
        self.inner = [0] * len(values)
        for at in range(len(order)):
            self.inner[order[at]] = at
        self.values = [values[card] for card in order]
        self.weights = [0] * len(order)
        radix = 1
        at = 0
        while at < len(order):  # the cards of one value are next to each other
            end = at
            while end < len(order) and self.values[end] == self.values[at]:
                self.weights[end] = radix
                end += 1
            radix *= end - at + 1
            at = end
        self.size = radix
        self.full = (1 << len(values)) - 1
        self.full_weight = radix - 1

    def renumber(self, cards: int) -> int:
        """A set of floor cards as a set of renumbered cards."""
        inner = self.inner
        out = 0
        while cards:
            low = (cards & -cards).bit_length() - 1
            out |= 1 << inner[low]
            cards &= cards - 1
        return out

    def weight(self, cards: int) -> int:
        """The multiset of values of a set of renumbered cards, as a number (see the class)."""
        weights = self.weights
        total = 0
        while cards:
            low = (cards & -cards).bit_length() - 1
            total += weights[low]
            cards &= cards - 1
        return total


class Tally:
    """How many selections :meth:`Floor._select` lists, for one target and mode: the same
    recursion, a number per memo entry instead of a list.

    A count depends on the cards left only through their values (cards of one value can
    stand in for each other) and not on the order the cards are decided in. So the count
    runs over the cards renumbered by value (:class:`Renumbering`; a small card decided
    first leaves fewer groups to try further down), and its memo is keyed by the multiset
    of values left, the renumbering's ``weight``. Selections that need not be maximal do
    not depend on the cards left out (``sums``), so their memo is a list indexed by the
    weight (no dictionary, no boxed key) unless the floor has more multisets than
    :data:`_FLAT_MEMO`. A card none of whose groups fits what is left is left out without
    a memo entry."""

    def __init__(self, renumbering: Renumbering, groups: list[int], target: int, maximal: bool, merged: bool) -> None:
        self.renumbering = renumbering
        self.target = target
        self.maximal = maximal
        self.merged = merged
        self.values = renumbering.values
        self.weights = renumbering.weights
        #: the flat memo of a count that needs no sums (-1: not counted yet), made on first use
        self.flat: list[int] | None = None
        self.flat_size = renumbering.size if not maximal and renumbering.size <= _FLAT_MEMO else 0
        count = len(self.values)
        self.firsts: list[list[int]] = [[] for _ in range(count)]  # the groups by their lowest card, renumbered
        self.first_weights: list[list[int]] = [[] for _ in range(count)]
        for group in groups:
            renumbered = renumbering.renumber(group)
            first = (renumbered & -renumbered).bit_length() - 1
            self.firsts[first].append(renumbered)
            self.first_weights[first].append(renumbering.weight(renumbered))
        self.memo: dict[int, int] = {}

    def count(self, rem: int, sums: int) -> int:
        """The selections within the floor cards ``rem`` when the cards left out so far reach ``sums``."""
        inner = self.renumbering.renumber(rem)
        return self._count(inner, self.renumbering.weight(inner), sums)

    def count_without(self, removed: int) -> int:
        """The selections within the floor but the cards ``removed`` (fewer bits to renumber)."""
        renumbering = self.renumbering
        gone = renumbering.renumber(removed)
        return self._count(renumbering.full & ~gone, renumbering.full_weight - renumbering.weight(gone), 1)

    def _count(self, rem: int, weight: int, sums: int) -> int:
        values = self.values
        firsts = self.firsts
        target = self.target
        maximal = self.maximal
        merged = self.merged
        while True:  # leave out the cards that no group within rem holds as its lowest
            if not rem:
                return 1
            low = (rem & -rem).bit_length() - 1
            fits = -1
            groups = firsts[low]
            for at in range(len(groups)):
                group = groups[at]
                if group & rem == group:
                    fits = at
                    break
            if fits >= 0:
                break
            sums = _left_out(values[low], target, sums, maximal, merged)
            if sums < 0:
                return 0
            rem &= rem - 1
            weight -= self.weights[low]
        flat = self.flat
        if self.flat_size:
            if flat is None:
                flat = self.flat = [-1] * self.flat_size
            found = flat[weight]
            if found >= 0:
                return found
        else:
            found_or_none = self.memo.get(weight << 14 | sums)
            if found_or_none is not None:
                return found_or_none
        skipped = _left_out(values[low], target, sums, maximal, merged)
        out = 0 if skipped < 0 else self._count(rem & (rem - 1), weight - self.weights[low], skipped)
        group_weights = self.first_weights[low]
        for at in range(fits, len(groups)):
            group = groups[at]
            if group & rem == group:
                out += self._count(rem & ~group, weight - group_weights[at], sums)
        if flat is not None:
            flat[weight] = out
        else:
            self.memo[weight << 14 | sums] = out
        return out


class Selections:
    """:meth:`Floor.groupings` of one floor, target and ``avail``, counted and not made: the
    selection at an index and the index of a selection, each by one walk down the counts.

    ``first``: how many selections at the front are left out (1 when the empty selection is
    not wanted, see :meth:`without_empty`).
    """

    def __init__(
        self, floor: Floor, target: int, avail: int, maximal: bool, merged: bool, first: int, count: int
    ) -> None:
        self.floor = floor
        self.target = target
        self.avail = avail
        self.maximal = maximal
        self.merged = merged
        self.first = first
        self.count = count

    def __len__(self) -> int:
        return self.count

    def __bool__(self) -> bool:
        return self.count > 0

    def at(self, index: int) -> Grouping:
        if not 0 <= index < self.count:
            raise IndexError("selection index out of range")
        return self.floor.nth_selection(self.target, self.avail, self.maximal, self.merged, self.first + index)

    def index(self, groups: Grouping) -> int:
        """Where ``groups`` stands among these selections, or -1."""
        found = self.floor.selection_index(self.target, self.avail, self.maximal, self.merged, groups)
        return found - self.first if found >= self.first else -1

    def all(self) -> list[Grouping]:
        """Every selection, made (the cost :meth:`Floor.selections` put off)."""
        made = self.floor.groupings(self.target, self.avail, self.maximal, self.merged)
        return made[self.first:] if self.first else made

    def without_empty(self) -> Selections:
        """The same selections but the empty one (the first, when there is one)."""
        if self.first or not self.floor.leaves_all(self.target, self.avail, self.maximal, self.merged):
            return self
        return Selections(self.floor, self.target, self.avail, self.maximal, self.merged, 1, self.count - 1)
