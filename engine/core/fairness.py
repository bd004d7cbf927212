"""Commit and reveal for fair deals (docs/log-format.md, "Fair deals"): pure functions.

* The server's seed is 32 random bytes; at creation the log records its
  **commitment** ``SHA-256(seed)`` (hex) and the seed is revealed when the match ends.
* With seat entropy, each seat commits to 32 bytes of its own (``SHA-256(entropy)``),
  and reveals them once every seat has committed. The match's **shuffle seed** is then
  ``SHA-256("cardgames/seed" || server seed || entropy_0 || ... || entropy_{n-1})``
  (seats in order), so no single party chose the deals. Without seat entropy the
  shuffle seed is the server's seed itself.
* Every shuffle of the match is recomputed from the shuffle seed with the portable
  shuffle (docs/shuffle.md); stacked orders are taken first and carry no fairness claim.

The engine only ever sees the final shuffle seed (``Setup.seed``).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

from cardgames.engine.core.chance import Chance, ShuffleUnavailable, next_order

SEED_DOMAIN = b"cardgames/seed"
HEX32 = re.compile(r"[0-9a-f]{64}")


def is_hex32(value: object) -> bool:
    """True for 32 bytes in lower-case hex (a seed, an entropy, a commitment, a hash)."""
    return isinstance(value, str) and HEX32.fullmatch(value) is not None


def commitment(value_hex: str) -> str:
    """``SHA-256(bytes)`` in hex, for a seed or an entropy given in hex."""
    return hashlib.sha256(bytes.fromhex(value_hex)).hexdigest()


def shuffle_seed(server_seed: str, entropies: Sequence[str] | None) -> str:
    """The match's shuffle seed (hex) from the server's seed and, when used, each seat's entropy."""
    if entropies is None:
        return server_seed
    data = SEED_DOMAIN + bytes.fromhex(server_seed) + b"".join(bytes.fromhex(entropy) for entropy in entropies)
    return hashlib.sha256(data).hexdigest()


def expected_order(
    order: Sequence[str], shuffle_no: int, seed: str | None, decks: tuple[tuple[str, ...], ...]
) -> tuple[str, ...] | None:
    """What shuffle ``shuffle_no`` of these cards must be: the stacked order, else the seeded one.

    ``None`` when it cannot be known (no deck left and no seed, or a stacked deck that does
    not hold these cards).
    """
    try:
        return next_order(Chance(seed=seed, decks=decks, used=shuffle_no), order)
    except ShuffleUnavailable:
        return None
