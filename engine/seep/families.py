"""A card's captures and its builds, as families of a lazy listing.

:func:`engine.seep.legal.legal_commands` hands out these where the floor has more than
:data:`engine.seep.groups.EAGER_GROUPS` groups of a value: the commands are made from the counted
:class:`engine.seep.groups.Selections` when asked for (:mod:`engine.core.lazy_listing`),
in the order the eager list has. (Compiled with the rest of the listing: ``commands``
makes a whole family as fast as the eager list did.)
"""

from __future__ import annotations

from bisect import bisect_right
from typing import Any, Final

from engine.core.lazy_listing import index_in
from engine.seep.commands import Build, Capture
from engine.seep.groups import Grouping, Selections

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


class Shapes:
    """The HOUSE moves of a card value (A8.3): its build shapes, in order, with where each
    shape's choices start when they are numbered one after another. Worked out once per
    value and shared by the cards of that value."""

    def __init__(self, shapes: list[BuildShape]) -> None:
        self.shapes = shapes
        self.starts: list[int] = []
        total = 0
        for shape in shapes:
            self.starts.append(total)
            total += len(shape[2])
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
        value, own, rests = shapes.shapes[at]
        offset = index - shapes.starts[at]
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
        for at in range(len(shapes.shapes)):
            value, shape_own, rests = shapes.shapes[at]
            if value == command.value and shape_own == own:
                found = _index_in(rests, groups[1:])
                return shapes.starts[at] + found if found >= 0 else -1
        return -1

    def commands(self) -> list[Any]:
        card = self.card
        out: list[Any] = []
        for value, own, rests in self.shapes.shapes:
            head = ((card,) + own,)  # noqa: RUF005
            for rest in rests if isinstance(rests, list) else rests.all():
                out.append(_BUILD(card, value, head + rest))
        return out


def _index_in(rests: Groupings, rest: Grouping) -> int:
    """Where ``rest`` stands among a shape's choices, or -1."""
    if isinstance(rests, list):
        return index_in(rests, rest)
    return rests.index(rest)
