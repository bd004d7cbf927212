"""Where a match's shuffles come from: stacked orders first, then the seed.

``decide`` asks :func:`next_order` for the order of the next shuffle and emits it in
a ``Shuffled`` event; ``evolve`` only reads the order from the event, so a replay
never re-rolls chance (DESIGN.md).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import msgspec

from cardgames.engine.core.cards import STANDARD_PACK
from cardgames.engine.core.shuffle import shuffled


class _PackIndex(dict[str, int]):
    """Card -> its place in the standard pack; any other code (a joker) sorts after the pack.
    (``sorted(key=index.__getitem__)`` stays in C: no Python call per card.)"""

    def __missing__(self, card: str) -> int:
        return len(STANDARD_PACK)


_PACK_INDEX = _PackIndex({card: index for index, card in enumerate(STANDARD_PACK)})


def canonical_order(cards: Sequence[str]) -> tuple[str, ...]:
    """Cards in canonical pack order (S, H, D, C; A..K; jokers last): the shuffle's input."""
    return tuple(sorted(cards, key=_PACK_INDEX.__getitem__))


class Chance(msgspec.Struct, frozen=True):
    """The shuffle source carried in a game's state. ``used`` counts shuffles taken."""

    seed: str | None = None
    decks: tuple[tuple[str, ...], ...] = ()
    used: int = 0


class ShuffleUnavailable(ValueError):
    """No stacked order is left and the match has no seed."""


def next_order(chance: Chance, cards: Sequence[str]) -> tuple[str, ...]:
    """The order (top first) of the next shuffle of ``cards``."""
    if chance.used < len(chance.decks):
        order = chance.decks[chance.used]
        if Counter(order) != Counter(cards):
            raise ShuffleUnavailable(
                f"stacked deck {chance.used} does not hold exactly the {len(cards)} cards being shuffled"
            )
        return order
    if chance.seed is None:
        raise ShuffleUnavailable("no stacked deck is left and the match has no seed")
    return shuffled(canonical_order(cards), bytes.fromhex(chance.seed), chance.used)


def advance(chance: Chance) -> Chance:
    """The source after one shuffle was taken."""
    return msgspec.structs.replace(chance, used=chance.used + 1)
