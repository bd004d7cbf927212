"""The commands of A.13, in FORMAT.md's shapes (tags are the FORMAT.md command types).

``gc=False``: a command holds only strings, ints, None and tuples of them (a dig's ``then``:
commands built before it), so it can never be part of a reference cycle, and the garbage
collector need not track it.
"""

from __future__ import annotations

from typing import Literal, TypeAlias

import msgspec

End: TypeAlias = Literal["low", "high"]


class DrawStock(msgspec.Struct, frozen=True, gc=False, tag="draw_stock", tag_field="type"):
    """D1: take the top stock card (refilling an empty stock first, A.12)."""


class DrawDiscard(msgspec.Struct, frozen=True, gc=False, tag="draw_discard", tag_field="type"):
    """D2: take the top card of the discard pile."""


class Meld(msgspec.Struct, frozen=True, gc=False, tag="meld", tag_field="type"):
    """The whole contract in one action (A.6), or new melds where the option allows (A.8)."""

    melds: tuple[tuple[str, ...], ...]


class LayOff(msgspec.Struct, frozen=True, gc=False, tag="lay_off", tag_field="type"):
    """Add one card to meld ``meld`` (A.9); ``end`` only where both ends of a run fit."""

    card: str
    meld: int
    end: End | None = None


class JokerTo(msgspec.Struct, frozen=True, gc=False):
    """Where a swapped joker goes (A.10): onto meld ``meld`` declared ``as``, or into ``new_meld``."""

    meld: int | None = None
    as_: str | None = msgspec.field(default=None, name="as")
    end: End | None = None
    new_meld: tuple[str, ...] | None = None


class SwapJoker(msgspec.Struct, frozen=True, gc=False, tag="swap_joker", tag_field="type"):
    """Put natural ``card`` in place of the joker of run ``meld`` and place the joker again (A.10)."""

    card: str
    meld: int
    joker_to: JokerTo


class Dig(msgspec.Struct, frozen=True, gc=False, tag="dig", tag_field="type"):
    """D3: take the pile down to ``depth`` and place the card found there with ``then`` (A.8)."""

    depth: int
    then: tuple[Meld | LayOff, ...]


class Discard(msgspec.Struct, frozen=True, gc=False, tag="discard", tag_field="type"):
    """Step 3: discard one card and end the turn (a joker is ``JK``)."""

    card: str


Command: TypeAlias = DrawStock | DrawDiscard | Dig | Meld | LayOff | SwapJoker | Discard
Play: TypeAlias = Meld | LayOff | SwapJoker
