"""A card's captures and its builds of one shape, as families of a lazy listing.

:func:`engine.seep.legal.legal_commands` hands out one of these where a card's groupings
run past :data:`engine.seep.groups.EAGER_SELECTIONS`: the commands are made from the
counted :class:`engine.seep.groups.Selections` when asked for
(:mod:`engine.core.lazy_listing`), in the order the eager list has. (Compiled with the
rest of the listing: ``commands`` makes a whole family as fast as the eager list did.)
"""

from __future__ import annotations

from typing import Any, Final

from engine.seep.commands import Build, Capture, Groups
from engine.seep.groups import Selections

# ``Final`` aliases: the compiled build keeps them in C statics (a module name is a dictionary
# lookup at every use).
_CAPTURE: Final = Capture
_BUILD: Final = Build


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


class Builds:
    """Every HOUSE move with ``card`` to ``value`` whose first group is ``head`` (the card and
    the loose cards joining it), one per choice of further groups in ``selections`` (A8.3)."""

    def __init__(self, card: str, value: int, head: Groups, selections: Selections) -> None:
        self.card = card
        self.value = value
        self.head = head
        self.selections = selections

    def __len__(self) -> int:
        return len(self.selections)

    def at(self, index: int) -> Any:
        return _BUILD(self.card, self.value, self.head + self.selections.at(index))

    def index_of(self, command: object) -> int:
        if type(command) is not Build or command.card != self.card or command.value != self.value:
            return -1
        groups = command.groups
        if groups[:1] != self.head:
            return -1
        return self.selections.index(groups[1:])

    def commands(self) -> list[Any]:
        card, value, head = self.card, self.value, self.head
        return [_BUILD(card, value, head + rest) for rest in self.selections.all()]
