"""Subset sums over loose cards: the V-groups a card can take or build with (A8.1, A8.3).

Loose cards are numbered by their position on the floor; a set of loose cards is a
bitmask. :class:`Floor` lists every set of loose cards whose values add up to 1..13
(doubling by sum, so a floor of many small cards visits only the sets it makes) and
enumerates the ways to pick disjoint V-groups, optionally only the maximal ones.

Play mostly meets floors of a few cards, where a value has at most one group: those
selections are answered directly. Otherwise the enumeration decides the lowest
undecided card (left out, or the lowest card of one of the groups taken), memoised on
(cards still undecided, sums already reachable by the cards left out), which keeps a
floor of many small cards (thousands of selections) proportional to its answer.

A long list of selections need not be made at all: :meth:`Floor.selections` counts them
over multisets of values (:class:`Counts`, :class:`Tally`: cards of one value stand in for
each other) and hands back a :class:`Selections` that makes the selection at an index, or
finds a selection's index, by walking down the counts. A playout that lists a crowded
floor and picks one command pays for the counts and one walk, not for thousands of tuples.
"""

from __future__ import annotations

from collections.abc import Iterable
from math import comb
from typing import Final

from librt.vecs import append, vec
from mypy_extensions import i64

from cardgames.engine.seep.cards import VALUE

# Module constants are ``Final``: the compiled build keeps them in C statics (a plain module
# name is a dictionary lookup at every use).
MAX_SUM: Final = 13
#: Sums 0..13 as bits.
SUMS_MASK: Final = (1 << (MAX_SUM + 1)) - 1

Grouping = tuple[tuple[str, ...], ...]
_NO_GROUPS: Final[list[Grouping]] = [()]  # the only grouping when no group exists (read-only)
_NONE: Final[list[Grouping]] = []  # no grouping at all (read-only)
#: Up to this many groups of a value, the one-group and no-group cases are looked for first.
_FEW: Final = 8
#: Up to this many groups of the target on the floor, :meth:`Floor.selections` makes the list of
#: selections (the bound of the one-group shortcut); more, and it counts them (a
#: :class:`Selections`). Past it counting is the cheaper: ten loose cards A-10 beside three
#: houses (831 commands) list and pick in 1.9 million instructions counted, 4.2 million made.
EAGER_GROUPS: Final = 8
#: The most multisets of loose values a count keeps in a flat native array (a floor of sixteen
#: loose cards has at most 27,648; a floor grown by the option to throw anything can have
#: millions). The counts of such floors fit in 64 bits with room to spare (the largest seen:
#: 2.2 x 10^12 selections, on every card A-6 and three 7s); larger floors' counts may not, and
#: their memo is an :class:`AnswerTable`.
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


def _sets_by_sum(values: tuple[int, ...]) -> tuple[vec[i64], ...]:
    """Every set of cards (bitmask) of ``values`` adding up to 0..13, by its sum (sets of a sum
    in order of their highest card). Doubling: each card joins every set listed so far that
    it does not push over 13, the sums taken from the top so that a set the card has just
    joined is not joined again. (The sets a card makes with one sum all come from the sets
    of one other sum, in their order: the order is the one a single list would give.)"""
    by_sum: list[vec[i64]] = [vec[i64]() for _ in range(MAX_SUM + 1)]
    by_sum[0] = append(by_sum[0], 0)
    bit: i64 = 1  # (shifted along: a constant 1 shifted compiles to a C int shift, wrong past 31 bits)
    for index in range(len(values)):
        value: i64 = values[index]
        for total in range(MAX_SUM - value, -1, -1):
            joined = by_sum[total]
            count = len(joined)
            if count:
                into = by_sum[total + value]
                for at in range(count):
                    into = append(into, joined[at] | bit)
                by_sum[total + value] = into
        bit <<= 1
    return tuple(by_sum)


#: :func:`_sets_by_sum` of the floors of up to four loose cards, by their values: play meets
#: the same few thousand small floors again and again (at most 13**4 of them: bounded).
#: (Native arrays in tuples: the garbage collector does not track them, where tens of thousands
#: of cached lists made every full collection of a long playout take tens of milliseconds.)
_SMALL_FLOORS: Final[dict[tuple[int, ...], tuple[vec[i64], ...]]] = {}


def sets_by_sum(values: tuple[int, ...]) -> tuple[vec[i64], ...]:
    """:func:`_sets_by_sum`, remembered for small floors."""
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
        "_by_low", "_by_sum", "_cards", "_counts", "_memo", "_positions", "_tallies", "cards", "full",
        "sums", "values",
    )

    def __init__(self, loose: tuple[str, ...], values: list[int] | None = None, sums: int | None = None) -> None:
        self.cards = loose
        if values is None:
            values = [VALUE[card] for card in loose]
        self.values = values
        self.full = (1 << len(values)) - 1
        self.sums = reachable_sums(values) if sums is None else sums
        self._by_sum: tuple[vec[i64], ...] | None = None
        self._by_low: dict[int, list[list[int]]] = {}  # per target, made on first use
        self._memo: dict[tuple[int, bool, bool], dict[int, list[Grouping]]] | None = None  # made on first use
        self._tallies: dict[int, Tally] | None = None  # made on first use
        self._counts: Counts | None = None  # made on first use
        self._positions: dict[str, int] | None = None  # made on first use
        self._cards: dict[int, tuple[str, ...]] = {}

    def _index(self) -> tuple[vec[i64], ...]:
        by_sum = self._by_sum = sets_by_sum(tuple(self.values))
        return by_sum

    def adding_to(self, total: int) -> vec[i64]:
        """Every set of loose cards (a bitmask) whose values add up to ``total`` (1..13)."""
        by_sum = self._by_sum if self._by_sum is not None else self._index()
        return by_sum[total]

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
        if len(self.adding_to(target)) > EAGER_GROUPS:
            count = self.tally(target, maximal, merged_singles).count_without(self.full & ~avail)
            return Selections(self, target, avail, maximal, merged_singles, 0, count)
        return self._made(target, avail, maximal, merged_singles)

    def _few(self, target: int, avail: int, maximal: bool, merged_singles: bool) -> list[Grouping] | None:
        """The answer when ``avail`` holds one ``target``-group or none, else None (play mostly
        meets floors of a few cards, where a value has at most one group)."""
        if not self.sums >> target & 1:
            return _NO_GROUPS
        every = self.adding_to(target)  # reachable: not empty
        if len(every) > _FEW:
            return None
        group = -1
        for inside in every:
            if inside & avail == inside:
                if group >= 0:
                    return None  # two groups or more
                group = inside
        if group < 0:
            return _NO_GROUPS
        # one group: taking it is always a selection; leaving it is one unless
        # maximality forbids it (a single card of the value joins a new house anyway)
        taken = (self.cards_of(group),)
        if maximal and not (merged_singles and not group & (group - 1)):
            return [taken]
        return [(), taken]

    def _made(self, target: int, avail: int, maximal: bool, merged: bool) -> list[Grouping]:
        """The selections made by the memoised enumeration (one memo per target and mode)."""
        return self._select(target, avail, 1, maximal, merged, self._memo_of(target, maximal, merged),
                            self._lows(target))

    def _memo_of(self, target: int, maximal: bool, merged: bool) -> dict[int, list[Grouping]]:
        """The memo of :meth:`_select` for one target and mode (made on first use)."""
        memos = self._memo
        if memos is None:
            memos = self._memo = {}
        memo = memos.get((target, maximal, merged))
        if memo is None:
            memo = memos[(target, maximal, merged)] = {}
        return memo

    def tally(self, target: int, maximal: bool, merged: bool) -> Tally:
        """The counter of selections of ``target``-groups (one per target and mode, made on first use)."""
        tallies = self._tallies
        if tallies is None:
            tallies = self._tallies = {}
        merged = merged and maximal  # (only maximality looks at the cards left out)
        key = target << 2 | maximal << 1 | merged
        found = tallies.get(key)
        if found is None:
            found = tallies[key] = Tally(self.counts(), target, maximal, merged)
        return found

    def counts(self) -> Counts:
        """The loose cards as a multiset of values (made on first use)."""
        counts = self._counts
        if counts is None:
            counts = self._counts = Counts(self.values)
        return counts

    def _select(
        self, target: int, rem: int, sums: int, maximal: bool, merged: bool,
        memo: dict[int, list[Grouping]], lows: list[list[int]],
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
        out = _NONE if skipped < 0 else self._select(target, rem & ~(1 << low), skipped, maximal, merged, memo, lows)
        # ... or it is the lowest card of one of the groups taken
        extended = False
        for group in lows[low]:
            if group & rem == group:
                if not extended:
                    out, extended = list(out), True
                cards = self.cards_of(group)
                tails = self._select(target, rem & ~group, sums, maximal, merged, memo, lows)
                # (cards,) + tail: one tuple; the compiled (cards, *tail) builds a list and converts it
                out += [(cards,) + tail for tail in tails]  # noqa: RUF005
        memo[key] = out
        return out

    def nth_selection(self, target: int, avail: int, maximal: bool, merged: bool, index: int) -> Grouping:
        """The selection at ``index`` of :meth:`groupings` (0 <= index < its length), found by
        walking down the counts: at each card, the selections that leave it out come first,
        then those that take each of its groups in turn."""
        tally = self.tally(target, maximal, merged)
        lows = self._lows(target)
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
            for group in lows[low]:
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

    def selection_page(
        self, target: int, avail: int, maximal: bool, merged: bool, start: int, stop: int, head: Grouping,
    ) -> list[Grouping]:
        """``head`` followed by each selection at ``start`` up to ``stop`` of :meth:`groupings`
        (0 <= start <= stop <= its length), made in one walk: down the counts to ``start``, as
        :meth:`nth_selection` does, then on through the choices in order. A choice whose
        selections all fall inside the page is made by the memoised enumeration
        (:meth:`_select`: its tails are shared), so a page costs two walks (its two ends) and
        the tuples of its selections, where making each by index cost a walk apiece."""
        out: list[Grouping] = []
        if start >= stop:
            return out
        tally = self.tally(target, maximal, merged)
        counts = tally.counts
        have, weight = counts.have(avail), counts.weight(avail)
        walk = _Walk(tally, self._memo_of(target, maximal, merged), self._lows(target), counts.units, counts.steps)
        self._page(out, walk, target, maximal, merged, avail, have, weight, 1, tally._count(have, weight, 1, 1),
                   start, stop - start, head)
        return out

    def _page(
        self, out: list[Grouping], walk: _Walk, target: int, maximal: bool, merged: bool, rem: int, have: int,
        weight: int, sums: int, count: int, skip: int, want: int, head: Grouping,
    ) -> None:
        """Append to ``out`` the selections ``skip`` up to ``skip + want`` (at most ``count``, how many
        there are) within the cards ``rem`` (``have``, ``weight``: their multiset, see :class:`Counts`)
        when the cards left out reach ``sums``, each after ``head``: the choices of the lowest card in
        :meth:`nth_selection`'s order, those before the page skipped by their counts."""
        if not skip and count <= want:
            tails = self._select(target, rem, sums, maximal, merged, walk.memo, walk.lows)
            if head:
                out += [head + tail for tail in tails]
            else:
                out += tails
            return
        tally, units, steps = walk.tally, walk.units, walk.steps
        low = (rem & -rem).bit_length() - 1
        skipped = _left_out(self.values[low], target, sums, maximal, merged)
        groups = walk.lows[low]
        for at in range(-1, len(groups)):  # the lowest card left out, or each of its groups taken
            if at < 0:
                if skipped < 0:
                    continue
                taken, after = 1 << low, skipped
            else:
                taken, after = groups[at], sums
                if taken & rem != taken:
                    continue
            rest_have, rest_weight, cards = have, weight, taken
            while cards:
                card = (cards & -cards).bit_length() - 1
                rest_have -= units[card]
                rest_weight -= steps[card]
                cards &= cards - 1
            size = tally._count(rest_have, rest_weight, after, 1)
            if skip >= size:
                skip -= size
                continue
            self._page(out, walk, target, maximal, merged, rem & ~taken, rest_have, rest_weight, after, size, skip,
                       want, head if at < 0 else head + (self.cards_of(taken),))  # noqa: RUF005
            want -= size - skip
            skip = 0
            if want <= 0:
                return

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
        masks: list[int] = []
        for cards in groups:
            mask = self.mask_of(cards)
            if mask < 0:
                return -1
            masks.append(mask)
        tally = self.tally(target, maximal, merged)
        lows = self._lows(target)
        rem, sums, index, next_group = avail, 1, 0, 0
        while rem:
            low = (rem & -rem).bit_length() - 1
            skipped = _left_out(self.values[low], target, sums, maximal, merged)
            if next_group < len(masks) and masks[next_group] & -masks[next_group] == 1 << low:
                chosen = masks[next_group]
                if skipped >= 0:
                    index += tally.count(rem & ~(1 << low), skipped)
                for group in lows[low]:
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

    def mask_of(self, cards: tuple[str, ...]) -> int:
        """The set of loose cards ``cards`` as a bitmask, or -1 when a card is not loose, is
        there twice or out of floor order (the inverse of :meth:`cards_of`)."""
        if not cards:
            return -1
        positions = self._positions
        if positions is None:
            positions = self._positions = {card: index for index, card in enumerate(self.cards)}
        mask = 0
        for card in cards:
            position = positions.get(card, -1)
            if position < 0:
                return -1
            mask |= 1 << position
        return mask if self.cards_of(mask) == cards else -1

    def _lows(self, target: int) -> list[list[int]]:
        """The groups of ``target`` by their lowest card (made on first use)."""
        found = self._by_low.get(target)
        if found is None:
            found = self._by_low[target] = [[] for _ in range(len(self.values))]
            for group in self.adding_to(target):
                found[int(group & -group).bit_length() - 1].append(group)
        return found


class _Walk:
    """What a walk of :meth:`Floor.selection_page` reads at every step, passed down as one argument."""

    def __init__(
        self, tally: Tally, memo: dict[int, list[Grouping]], lows: list[list[int]], units: list[int], steps: list[int],
    ) -> None:
        self.tally = tally
        self.memo = memo
        self.lows = lows
        self.units = units
        self.steps = steps


def _left_out(value: int, target: int, sums: int, maximal: bool, merged: bool) -> int:
    """The sums the cards left out reach once a card of ``value`` is left out too, or -1 when
    maximality forbids leaving it out (they would reach ``target``; a single card of the
    target value joining a new house by itself, ``merged``, does not count)."""
    if maximal and not (merged and value == target):
        skipped = (sums | (sums << value)) & SUMS_MASK
        return -1 if skipped >> target & 1 else skipped
    return sums


#: Four bits per card value 1..13 (bits 4(v-1) up): how many loose cards of each value a set
#: holds (at most four, one pack). The top bit of each four is a guard: ``(have | _GUARD) - need``
#: keeps every guard bit exactly when ``have`` holds each value at least as often as ``need``.
_GUARD: Final[i64] = sum(8 << 4 * (value - 1) for value in range(1, MAX_SUM + 1))
#: The ``have`` of one card of each value (a table: the compiled ``1 << shift`` with a constant 1
#: is a C int's shift, wrong past 31 bits).
_UNITS: Final = vec[i64]([0] + [1 << 4 * (value - 1) for value in range(1, MAX_SUM + 1)])
#: Binomial coefficients C(n, k) for n, k < 8, at ``n << 3 | k``: how many sets of k cards of one
#: value there are among n.
_BINOMIAL: Final = vec[i64]([comb(index >> 3, index & 7) for index in range(64)])


class Counts:
    """A floor's loose cards as a multiset of values, for :class:`Tally` (the same for every
    target). A set of loose cards has two numbers: ``have``, its count of each value four bits
    apiece (see :data:`_GUARD`), and ``weight``, the same counts in mixed radix (digit v: how
    many cards of value v; its base one more than the floor's cards of that value), below
    ``size``: an index for a memo of every multiset."""

    def __init__(self, values: list[int]) -> None:
        counts = [0] * (MAX_SUM + 1)
        for value in values:
            counts[value] += 1
        if max(counts) > 7:
            raise ValueError("more than seven loose cards of one value")  # (one pack has four)
        self.counts = counts
        self.radix = vec[i64]([0] * (MAX_SUM + 1))  # (native: every count of the floor reads it)
        radix = 1
        for value in range(1, MAX_SUM + 1):
            self.radix[value] = radix
            radix *= counts[value] + 1
        self.size = radix
        self.units = [1 << 4 * (value - 1) for value in values]  # per floor card: its ``have``
        self.steps = [self.radix[value] for value in values]  # per floor card: its ``weight``
        self.full_have = sum(self.units)
        self.full_weight = radix - 1
        self._shapes: list[Multisets] | None = None  # made on first use
        self._by_lowest: dict[int, ByLowest] = {}  # per target, made on first use

    def have(self, cards: int) -> int:
        """The ``have`` of a set of floor cards (a bitmask)."""
        return _card_total(self.units, cards)

    def weight(self, cards: int) -> int:
        """The ``weight`` of a set of floor cards (a bitmask)."""
        return _card_total(self.steps, cards)

    def by_lowest(self, target: int) -> ByLowest:
        """The shapes of ``target``'s groups by their lowest value (made on first use)."""
        found = self._by_lowest.get(target)
        if found is None:
            found = self._by_lowest[target] = ByLowest(self, target)
        return found

    def groups(self, total: int) -> Multisets:
        """The multisets of the floor's values adding up to ``total`` (1..13): the shapes of its
        groups (made for every sum at once, on first use)."""
        shapes = self._shapes
        if shapes is None:
            shapes = self._shapes = self._every_shape()
        return shapes[total]

    def _every_shape(self) -> list[Multisets]:
        """The shapes by sum: doubling over the values, lowest first, each joining (with one or
        more of its cards) every shape listed so far that it does not push over 13, the sums
        taken from the top so that a shape the value has just joined is not joined again."""
        by_sum = [Multisets() for _ in range(MAX_SUM + 1)]
        by_sum[0].add(0, 0, 1)
        counts = self.counts
        for value in range(1, MAX_SUM + 1):
            held = counts[value]
            if not held:
                continue
            unit = 1 << 4 * (value - 1)
            step = self.radix[value]
            for total in range(MAX_SUM - value, -1, -1):
                joined = by_sum[total]
                for at in range(len(joined.haves)):
                    have, weight, sets = joined.haves[at], joined.weights[at], joined.sets[at]
                    for taken in range(1, held + 1):
                        if total + taken * value > MAX_SUM:
                            break
                        by_sum[total + taken * value].add(
                            have + taken * unit, weight + taken * step, sets * _BINOMIAL[held << 3 | taken])
        return by_sum


def _card_total(per_card: list[int], cards: int) -> int:
    """The sum of ``per_card`` over the floor cards in the bitmask ``cards``."""
    total = 0
    while cards:
        total += per_card[(cards & -cards).bit_length() - 1]
        cards &= cards - 1
    return total


class Multisets:
    """Multisets of loose values of one sum, as parallel lists: each one's ``have``, ``weight``
    (:class:`Counts`) and how many sets of loose cards it stands for (a product of binomials)."""

    def __init__(self) -> None:
        self.haves: list[int] = []
        self.weights: list[int] = []
        self.sets: list[int] = []

    def add(self, have: int, weight: int, sets: int) -> None:
        self.haves.append(have)
        self.weights.append(weight)
        self.sets.append(sets)


class ByLowest:
    """The shapes of one target's groups by their lowest value, as :class:`Tally` reads them,
    in native arrays (``librt.vecs``: the compiled build reads them without unboxing): the
    shapes whose lowest value is v are ``starts[v]`` up to ``starts[v + 1]``; for each, what it
    takes (``needs``, a ``have``), its ``weight`` (``drops``) and the terms of how many card
    sets it stands for (``terms``, a byte per value repeated on the floor, lowest byte first,
    0 when every value in it is single on the floor): four bits for the value, then 8 for the
    lowest value, then the count (a shape of at most 13 holds at most four distinct values).
    Shared by a target's counts in either mode."""

    def __init__(self, counts: Counts, target: int) -> None:
        floor_counts = counts.counts
        repeated: i64 = 0  # the four bits of each value the floor holds more than once
        for value in range(1, MAX_SUM + 1):
            if floor_counts[value] > 1:
                repeated |= _UNITS[value] * 15
        shapes = counts.groups(target)
        haves = shapes.haves
        size: i64 = len(haves)
        lows = vec[i64]()
        starts = vec[i64]([0] * (MAX_SUM + 2))  # how many shapes have each lowest value, then where they start
        for at in range(size):
            need: i64 = haves[at]
            low: i64 = 1
            while not (need >> ((low - 1) << 2)) & 15:
                low += 1
            lows = append(lows, low)
            starts[low + 1] += 1
        for low in range(1, MAX_SUM + 2):
            starts[low] += starts[low - 1]
        needs = vec[i64]([0] * size)
        drops = vec[i64]([0] * size)
        packed = vec[i64]([0] * size)
        filled = vec[i64](starts)
        for at in range(size):
            need = haves[at]
            low = lows[at]
            terms: i64 = 0
            shift: i64 = 0
            of: i64 = 1  # the value of the four bits at the bottom of rest
            rest: i64 = need & repeated
            while rest:
                taken: i64 = rest & 15
                if taken:
                    terms |= ((of - 1) << 4 | (8 if of == low else 0) | taken) << shift
                    shift += 8
                rest >>= 4
                of += 1
            into = filled[low]
            filled[low] = into + 1
            needs[into] = need
            drops[into] = shapes.weights[at]
            packed[into] = terms
        self.starts = starts
        self.needs = needs
        self.drops = drops
        self.terms = packed


class AnswerTable:
    """A memo of counts by 64-bit key (at least 0), in native arrays (``librt.vecs``): open
    addressing, linear probing, doubled when half full. A count past 62 bits is kept in a
    dictionary beside it (its slot says so). On the floors that need it (past
    :data:`_FLAT_MEMO` multisets: hundreds of thousands of answers) a dictionary of Python
    ints spent half of a count's instructions boxing, hashing and comparing keys."""

    def __init__(self, size: int = 1 << 12) -> None:
        """``size``: a power of two."""
        self.keys = vec[i64]([-1] * size)
        self.values = vec[i64]([0] * size)
        self.mask: i64 = size - 1
        self.used: i64 = 0
        self.large: dict[int, int] = {}

    def _slot(self, key: i64) -> i64:
        """Where ``key`` is, or the empty slot where it would go."""
        # (31-bit factors: no product overflows 63 bits, compiled or not)
        mixed: i64 = (key & 0x7FFFFFFF) * 0x5BD1E995 ^ (key >> 31) * 0x27D4EB2D
        slot: i64 = (mixed ^ (mixed >> 17)) & self.mask
        keys = self.keys
        while True:
            found: i64 = keys[slot]
            if found == key or found < 0:
                return slot
            slot = (slot + 1) & self.mask

    def get(self, key: i64) -> int:
        """The count kept under ``key``, or -1."""
        slot = self._slot(key)
        if self.keys[slot] < 0:
            return -1
        value: i64 = self.values[slot]
        if value >= 0:  # (not one expression: the compiled build would box the value to join the two)
            return value
        return self.large[key]

    def put(self, key: i64, count: int) -> None:
        if 2 * (self.used + 1) > self.mask:
            self._grow()
        slot = self._slot(key)
        if self.keys[slot] < 0:
            self.used += 1
        self.keys[slot] = key
        if count <= _LARGEST:
            self.values[slot] = count
        else:
            self.values[slot] = -1
            self.large[key] = count

    def _grow(self) -> None:
        keys, values = self.keys, self.values
        size: i64 = 2 * (self.mask + 1)
        self.keys = vec[i64]([-1] * size)
        self.values = vec[i64]([0] * size)
        self.mask = size - 1
        for at in range(len(keys)):
            key: i64 = keys[at]
            if key >= 0:
                slot = self._slot(key)
                self.keys[slot] = key
                self.values[slot] = values[at]


def _table_size(multisets: int) -> int:
    """The first size of the memo of a floor of this many multisets (a power of two)."""
    size = 1 << 12
    while size < multisets >> 4 and size < 1 << 19:
        size <<= 1
    return size


#: Counts from 2^62 up are kept beside an :class:`AnswerTable`'s arrays (this bound itself is
#: still a small int of the compiled build: comparing with it is one machine comparison).
_LARGEST: Final = (1 << 62) - 1


class Tally:
    """How many selections :meth:`Floor._select` lists, for one target and mode: the same
    choices, counted over multisets of values instead of made over cards.

    A count depends on the cards left only through their values (cards of one value can
    stand in for each other) and not on the order the cards are decided in. So the count
    decides a card of the lowest value left: left out, or taken as the lowest card of a
    group of some *shape* (a multiset of values adding up to the target; a floor of
    fourteen aces to fours has 879 groups of 13 but 23 shapes), which stands for the
    product of binomials of the card sets of that shape. Whether a shape fits what is
    left is one subtraction (:data:`_GUARD`). The memo is keyed by the multiset left, its
    ``weight`` (:class:`Counts`), with the sums the cards left out reach where maximal
    selections need them. Unless the floor has more multisets than :data:`_FLAT_MEMO` (then
    an :class:`AnswerTable`), it is a native array indexed by the weight (``librt.vecs``: no
    boxed key, no hashing): the answer itself, or in maximal counts the first of a chain of
    (sums, answer) entries. A value none of whose shapes fits what is left is left out without a
    memo entry, and a count without sums keeps its answer under the weight it was asked
    for as well (a later call with it returns before leaving those values out again)."""

    def __init__(self, counts: Counts, target: int, maximal: bool, merged: bool) -> None:
        self.counts = counts
        self.target = target
        self.maximal = maximal
        self.merged = merged
        #: the flat memo, indexed by weight (-1: nothing yet): a count that needs no sums keeps
        #: its answer there; a maximal count the first of its answers for that multiset (one per
        #: sums reached), chained through ``chain_next``
        self.flat_size: i64 = counts.size if counts.size <= _FLAT_MEMO else 0
        self.flat = vec[i64]([-1] * self.flat_size)
        self.chain_sums = vec[i64]()
        self.chain_counts = vec[i64]()
        self.chain_next = vec[i64]()
        #: the memo past _FLAT_MEMO multisets, keyed by weight and sums (unused below: one slot),
        #: made for a sixteenth of the floor's multisets at first (up to 2^19 slots; the largest
        #: counts keep about 200,000 answers), so that it seldom grows
        self.memo = AnswerTable(1 if self.flat_size else _table_size(counts.size))
        self.radix = counts.radix
        table = counts.by_lowest(target)
        self.starts = table.starts
        self.needs = table.needs
        self.drops = table.drops
        self.terms = table.terms

    def count(self, rem: int, sums: int) -> int:
        """The selections within the floor cards ``rem`` when the cards left out so far reach ``sums``."""
        counts = self.counts
        return self._count(counts.have(rem), counts.weight(rem), sums, 1)

    def count_without(self, removed: int) -> int:
        """The selections within the floor but the cards ``removed``."""
        counts = self.counts
        return self._count(counts.full_have - counts.have(removed), counts.full_weight - counts.weight(removed), 1, 1)

    def count_left(self, have: int, weight: int) -> int:
        """The selections within the multiset of loose cards ``have`` (its ``weight``), nothing left out yet."""
        return self._count(have, weight, 1, 1)

    def _count(self, have: i64, weight: i64, sums: i64, value: i64) -> int:
        """(``value``: no card below it is left. Native 64-bit integers and arrays throughout:
        the compiled build then does plain machine arithmetic, which is most of what a count does.)"""
        target: i64 = self.target
        maximal = self.maximal
        keeps_singles = self.merged  # a single card of the target value left out does not count
        guard: i64 = _GUARD
        radix = self.radix
        starts = self.starts
        needs = self.needs
        flat_size = self.flat_size
        entry: i64 = -1  # the weight asked for, when the flat memo keeps its answer under it too
        if flat_size and not maximal:
            found: i64 = self.flat[weight]
            if found >= 0:
                return found
            entry = weight
        while True:  # leave out the cards of values none of whose shapes fits what is left
            if have == 0:
                if entry >= 0:
                    self.flat[entry] = 1
                return 1
            shift: i64 = (value - 1) << 2
            while (have >> shift) & 15 == 0:
                value += 1
                shift += 4
            fits: i64 = -1
            guarded: i64 = have | guard
            end: i64 = starts[value + 1]
            for at in range(starts[value], end):
                if (guarded - needs[at]) & guard == guard:
                    fits = at
                    break
            if fits >= 0:
                break
            if maximal and not (keeps_singles and value == target):  # _left_out, inline (a call: +8%)
                sums = (sums | (sums << value)) & SUMS_MASK
                if (sums >> target) & 1:
                    return 0
            have -= _UNITS[value]
            weight -= radix[value]
        if flat_size:
            if maximal:
                link: i64 = self.flat[weight]
                while link >= 0:
                    if self.chain_sums[link] == sums:
                        return self.chain_counts[link]
                    link = self.chain_next[link]
            elif weight != entry:
                found = self.flat[weight]
                if found >= 0:
                    self.flat[entry] = found
                    return found
        else:
            known = self.memo.get(weight << 14 | sums)
            if known >= 0:
                return known
        # one card of the lowest value left is left out ...
        out = 0
        skipped: i64 = sums
        if maximal and not (keeps_singles and value == target):  # _left_out, inline
            skipped = (sums | (sums << value)) & SUMS_MASK
        if not (skipped >> target) & 1:  # (without maximality, sums stay 1)
            out = self._count(have - _UNITS[value], weight - radix[value], skipped, value)
        # ... or it is the lowest card of a group of one of the shapes that fit
        drops = self.drops
        terms = self.terms
        for at in range(fits, end):
            need: i64 = needs[at]
            if (guarded - need) & guard == guard:
                ways: i64 = 1
                term: i64 = terms[at]
                while term:
                    held: i64 = (have >> ((term >> 4 & 15) << 2)) & 15
                    taken: i64 = term & 7
                    if term & 8:  # the lowest value: this card and taken - 1 more of the others
                        ways *= _BINOMIAL[((held - 1) << 3) | (taken - 1)]
                    else:
                        ways *= _BINOMIAL[(held << 3) | taken]
                    term >>= 8
                if ways == 1:
                    out += self._count(have - need, weight - drops[at], sums, value)
                else:
                    out += ways * self._count(have - need, weight - drops[at], sums, value)
        if flat_size:
            if maximal:
                self.chain_sums = append(self.chain_sums, sums)
                self.chain_counts = append(self.chain_counts, out)
                self.chain_next = append(self.chain_next, self.flat[weight])
                self.flat[weight] = len(self.chain_next) - 1
            else:
                self.flat[weight] = out
                self.flat[entry] = out
        else:
            self.memo.put(weight << 14 | sums, out)
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

    def page(self, start: int, stop: int, head: Grouping = ()) -> list[Grouping]:
        """``head`` followed by each selection at ``start`` up to ``stop`` (clipped to the
        selections there are), made in one walk (:meth:`Floor.selection_page`)."""
        start, stop = max(start, 0), min(stop, self.count)
        first = self.first
        return self.floor.selection_page(self.target, self.avail, self.maximal, self.merged, first + start,
                                         first + stop, head)

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
