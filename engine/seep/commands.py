"""The commands of Seep (A15), tagged as FORMAT.md names them.

``gc=False``: a command holds only strings, ints and tuples of them, so it can never be
part of a reference cycle, and the garbage collector need not track it.
``legal_commands`` can list hundreds of thousands of them on a crowded floor, and
tracking them more than doubled the time of such a listing.
"""

from __future__ import annotations

from typing import TypeAlias

import msgspec

Groups: TypeAlias = tuple[tuple[str, ...], ...]


class Bid(msgspec.Struct, frozen=True, gc=False, tag="bid", tag_field="type"):
    """The bidder announces a value 9..13 that he holds (A5.4)."""

    value: int


class Capture(msgspec.Struct, frozen=True, gc=False, tag="capture", tag_field="type"):
    """Take loose V-groups with ``card``; the house of V, if any, is taken too (A8.1)."""

    card: str
    groups: Groups


class Throw(msgspec.Struct, frozen=True, gc=False, tag="throw", tag_field="type"):
    """Leave ``card`` loose on the floor (A8.2)."""

    card: str


class Build(msgspec.Struct, frozen=True, gc=False, tag="build", tag_field="type"):
    """Build a new house of ``value``, cement an ordinary one or add to a cemented one (A8.3)."""

    card: str
    value: int
    groups: Groups


class Break(msgspec.Struct, frozen=True, gc=False, tag="break", tag_field="type"):
    """Raise the ordinary house of value ``house`` by the card's value (A8.4)."""

    card: str
    house: int


Command: TypeAlias = Bid | Capture | Throw | Build | Break
