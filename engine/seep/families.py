"""A card's captures and its builds, as families of a lazy listing.

:func:`cardgames.engine.seep.legal.legal_commands` hands out these where the floor has more than
:data:`cardgames.engine.seep.groups.EAGER_GROUPS` groups of a value: the commands are made from the counted
:class:`cardgames.engine.seep.groups.Selections` when asked for (:mod:`cardgames.engine.core.lazy_listing`),
in the order the eager list has. (Compiled with the rest of the listing: ``commands``
makes a whole family as fast as the eager list did.)
"""

from __future__ import annotations

from bisect import bisect_right
from typing import Any, Final

from cardgames.engine.core.lazy_listing import index_in
from cardgames.engine.seep.commands import Build, Capture
from cardgames.engine.seep.groups import Floor, Grouping, Selections

# ``Final`` aliases: the compiled build keeps them in C statics (a module name is a dictionary
# lookup at every use).
_CAPTURE: Final = Capture
_BUILD: Final = Build

#: Groupings, made (a list) or counted (Selections, past EAGER_GROUPS groups).
Groupings = list[Grouping] | Selections
#: HOUSE moves without their card: value, the loose cards in the card's group, each choice of further groups.
BuildShape = tuple[int, tuple[str, ...], Groupings]


class Captures:
    """Every capture with ``card`` of the groupings in ``selections`` (A8.1)."""

    def __init__(self, card: str, selections: Selections) -> None:
        self.card = card
        self.selections = selections

    def __len__(self) -> int:
        return len(self.selections)

    def at(self, index: int) -> Any:
        return _CAPTURE(self.card, self.selections.at(index))

    def index_of(self, command: object) -> int:
        if type(command) is not Capture or command.card != self.card:
            return -1
        return self.selections.index(command.groups)

    def commands(self) -> list[Any]:
        card = self.card
        return [_CAPTURE(card, groups) for groups in self.selections.all()]

    def page(self, start: int, stop: int) -> list[Any]:
        card = self.card
        return [_CAPTURE(card, groups) for groups in self.selections.page(start, stop)]


class Run:
    """The HOUSE moves of a card of one value to one house value ``target`` with every set of
    loose cards that can join the card (``owns``: the sets adding up to ``joining``, the
    target less the card's value, as bitmasks), each with every choice of further groups from
    the rest of the floor. A crowded floor has hundreds of such sets, but the choices beside
    a set depend only on its multiset of values: they are counted once per multiset
    (:class:`cardgames.engine.seep.groups.Tally`), and the move at an index is made when asked for, by
    a walk over the sets (``sets``: the further groups are maximal; ``new``: a new house)."""

    def __init__(self, floor: Floor, target: int, joining: int, sets: bool, new: bool) -> None:
        self.floor = floor
        self.target = target
        self.owns = floor.adding_to(joining)
        self.sets = sets
        self.new = new
        tally = floor.tally(target, sets, new)
        counts = self.counts = floor.counts()
        #: the choices beside a set of loose cards, by the set's ``weight`` (its multiset of values)
        self.beside: dict[int, int] = {}
        total = 0
        shapes = counts.groups(joining)
        for at in range(len(shapes.haves)):
            weight = shapes.weights[at]
            choices = self.beside[weight] = tally.count_left(counts.full_have - shapes.haves[at],
                                                             counts.full_weight - weight)
            total += shapes.sets[at] * choices
        self.total = total

    def __len__(self) -> int:
        return self.total

    def _size(self, own: int) -> int:
        """How many moves the set of loose cards ``own`` has."""
        return self.beside[self.counts.weight(own)]

    def rests(self, own: int) -> Groupings:
        """The choices of further groups beside the set ``own``."""
        floor = self.floor
        return floor.selections(self.target, floor.full & ~own, self.sets, merged_singles=self.new)

    def at(self, index: int) -> tuple[tuple[str, ...], Grouping]:
        """The own set of loose cards and the further groups of the move at ``index``."""
        for own in self.owns:
            size = self._size(own)
            if index < size:
                rests = self.rests(own)
                return self.floor.cards_of(own), rests[index] if isinstance(rests, list) else rests.at(index)
            index -= size
        raise IndexError("build index out of range")

    def page_into(self, out: list[Any], card: str, start: int, stop: int) -> None:
        """Append to ``out`` the moves at ``start`` up to ``stop`` with ``card``, made as one walk over
        the sets (those before the page skipped by their counts), each set's choices as one page."""
        target = self.target
        floor = self.floor
        for own in self.owns:
            if stop <= 0:
                return
            size = self._size(own)
            if start < size:
                head = ((card,) + floor.cards_of(own),)  # noqa: RUF005
                end = min(stop, size)
                for rest in _page_of(self.rests(own), start, end, head):
                    out.append(_BUILD(card, target, rest))
                start = 0
            else:
                start -= size
            stop -= size

    def index(self, own: tuple[str, ...], rest: Grouping) -> int:
        """Where the move with the own set ``own`` and further groups ``rest`` stands, or -1."""
        mask = self.floor.mask_of(own)
        if mask < 0:
            return -1
        before = 0
        for listed in self.owns:
            if listed == mask:
                found = _index_in(self.rests(mask), rest)
                return before + found if found >= 0 else -1
            before += self._size(listed)
        return -1

    def shapes(self) -> list[BuildShape]:
        """The moves as :data:`BuildShape` tuples, made."""
        floor = self.floor
        out: list[BuildShape] = []
        for own in self.owns:
            if self._size(own):
                rests = self.rests(own)
                out.append((self.target, floor.cards_of(own), rests if isinstance(rests, list) else rests.all()))
        return out


class Shapes:
    """The HOUSE moves of a card value (A8.3): its build shapes and :class:`Run` s, in order,
    with where each part's moves start when they are numbered one after another. Worked out
    once per value and shared by the cards of that value."""

    def __init__(self, parts: list[BuildShape | Run]) -> None:
        self.parts = parts
        self.starts: list[int] = []
        total = 0
        for part in parts:
            self.starts.append(total)
            total += len(part) if isinstance(part, Run) else len(part[2])
        self.total = total


class Builds:
    """Every HOUSE move with ``card`` of a value's :class:`Shapes`: per shape, the card's own
    group (the card and the loose cards joining it), then each choice of further groups."""

    def __init__(self, card: str, shapes: Shapes) -> None:
        self.card = card
        self.shapes = shapes

    def __len__(self) -> int:
        return self.shapes.total

    def at(self, index: int) -> Any:
        shapes = self.shapes
        at = bisect_right(shapes.starts, index) - 1
        part = shapes.parts[at]
        offset = index - shapes.starts[at]
        if isinstance(part, Run):
            value = part.target
            own, rest = part.at(offset)
        else:
            value, own, rests = part
            rest = rests[offset] if isinstance(rests, list) else rests.at(offset)
        card = self.card
        return _BUILD(card, value, ((card,) + own,) + rest)  # noqa: RUF005

    def index_of(self, command: object) -> int:
        if type(command) is not Build or command.card != self.card:
            return -1
        groups = command.groups
        if not groups or groups[0][:1] != (self.card,):
            return -1
        own = groups[0][1:]
        shapes = self.shapes
        for at in range(len(shapes.parts)):
            part = shapes.parts[at]
            if isinstance(part, Run):
                if part.target == command.value:
                    found = part.index(own, groups[1:])
                    return shapes.starts[at] + found if found >= 0 else -1
                continue
            value, shape_own, rests = part
            if value == command.value and shape_own == own:
                found = _index_in(rests, groups[1:])
                return shapes.starts[at] + found if found >= 0 else -1
        return -1

    def page(self, start: int, stop: int) -> list[Any]:
        """The moves at ``start`` up to ``stop``, made in one walk per shape (not one per move)."""
        shapes = self.shapes
        card = self.card
        out: list[Any] = []
        parts, starts = shapes.parts, shapes.starts
        at = max(bisect_right(starts, start) - 1, 0)
        while at < len(parts) and start < stop:
            part = parts[at]
            base = starts[at]
            if isinstance(part, Run):
                part.page_into(out, card, start - base, stop - base)
                size = part.total
            else:
                value, own, rests = part
                size = len(rests)
                head = ((card,) + own,)  # noqa: RUF005
                for rest in _page_of(rests, start - base, min(stop - base, size), head):
                    out.append(_BUILD(card, value, rest))
            start = base + size
            at += 1
        return out

    def commands(self) -> list[Any]:
        card = self.card
        out: list[Any] = []
        for part in self.shapes.parts:
            for value, own, rests in part.shapes() if isinstance(part, Run) else [part]:
                head = ((card,) + own,)  # noqa: RUF005
                for rest in rests if isinstance(rests, list) else rests.all():
                    out.append(_BUILD(card, value, head + rest))
        return out


def _page_of(rests: Groupings, start: int, stop: int, head: Grouping) -> list[Grouping]:
    """``head`` followed by each of a shape's choices at ``start`` up to ``stop``."""
    if isinstance(rests, list):
        return [head + rest for rest in rests[start:stop]]
    return rests.page(start, stop, head)


def _index_in(rests: Groupings, rest: Grouping) -> int:
    """Where ``rest`` stands among a shape's choices, or -1."""
    if isinstance(rests, list):
        return index_in(rests, rest)
    return rests.index(rest)
