"""Events every game shares: the match's chance source and each shuffle.

Both are hidden while the match runs (DESIGN.md: chance is recorded, never
re-rolled). Their public forms keep the commitment and the shuffle's number and
size, never the seed or the order.
"""

from __future__ import annotations

import hashlib

import msgspec

from engine.core.chance import Chance


class MatchSeeded(msgspec.Struct, frozen=True, tag="match_seeded", tag_field="type"):
    """The chance source of a match: a seed (hex, 32 bytes) and/or stacked orders.

    ``commitment`` is ``sha256(seed bytes)`` in hex ("" without a seed) and
    ``stacked`` the number of stacked orders: both public. ``seed`` and ``decks``
    are hidden until the match ends.
    """

    commitment: str
    stacked: int
    seed: str | None = None
    decks: tuple[tuple[str, ...], ...] = ()

    def chance(self) -> Chance:
        return Chance(seed=self.seed, decks=self.decks, used=0)


class Shuffled(msgspec.Struct, frozen=True, tag="shuffled", tag_field="type"):
    """Shuffle number ``shuffle_no`` of the match produced ``order`` (top first)."""

    shuffle_no: int
    size: int
    order: tuple[str, ...] = ()


def match_seeded(seed: str | None, decks: tuple[tuple[str, ...], ...]) -> MatchSeeded:
    commitment = hashlib.sha256(bytes.fromhex(seed)).hexdigest() if seed else ""
    return MatchSeeded(commitment=commitment, stacked=len(decks), seed=seed, decks=decks)


def redact_core(event: MatchSeeded | Shuffled) -> MatchSeeded | Shuffled:
    """The public form of a core event: commitment and sizes, no seed, no order."""
    if isinstance(event, MatchSeeded):
        return msgspec.structs.replace(event, seed=None, decks=())
    return msgspec.structs.replace(event, order=())
