"""Dealing the unseen cards of a determinization to the hidden places, with what play has ruled out.

A place (a hand, the stock...) may be barred from some *kinds* of card: a suit a player
showed void in (All Fours), a value a player showed not to hold (Seep). ``deal`` gives
every place exactly its size and, when it can, no card of a barred kind; when the
constraints cannot all hold (a wrong inference about an unusual player), they are
dropped rather than failing.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Hashable, Sequence

#: Attempts at a deal that keeps every constraint before they are dropped.
ATTEMPTS = 20


def _attempt(
    pool: Sequence[str],
    needs: Sequence[int],
    barred: Sequence[Collection[Hashable]],
    kind: Callable[[str], Hashable],
    rng: random.Random,
) -> list[list[str]] | None:
    room = list(needs)
    out: list[list[str]] = [[] for _ in needs]
    every = set().union(*barred) if barred else set()
    free = list(pool)
    if every:
        constrained = [card for card in free if kind(card) in every]
        free = [card for card in free if kind(card) not in every]
        rng.shuffle(constrained)
        # the few constrained cards go first, each to a free slot of a place that may hold it
        for card in constrained:
            what = kind(card)
            total = sum(room[i] for i in range(len(room)) if what not in barred[i])
            if total == 0:
                return None
            pick = rng.randrange(total)
            for i, slots in enumerate(room):
                if slots == 0 or what in barred[i]:
                    continue
                if pick < slots:
                    out[i].append(card)
                    room[i] -= 1
                    break
                pick -= slots
    rng.shuffle(free)
    at = 0
    for i, slots in enumerate(room):
        out[i].extend(free[at : at + slots])
        at += slots
    return out


def deal(
    pool: Sequence[str],
    needs: Sequence[int],
    barred: Sequence[Collection[Hashable]],
    kind: Callable[[str], Hashable],
    rng: random.Random,
) -> list[list[str]]:
    """``pool`` dealt to places of ``needs`` cards (sum(needs) == len(pool)), keeping ``barred`` if possible."""
    if sum(needs) != len(pool):
        raise ValueError(f"{len(pool)} cards for places of {list(needs)}")
    if any(barred):
        for _ in range(ATTEMPTS):
            dealt = _attempt(pool, needs, barred, kind, rng)
            if dealt is not None:
                return dealt
    dealt = _attempt(pool, needs, [() for _ in needs], kind, rng)
    assert dealt is not None
    return dealt
