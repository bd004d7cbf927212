"""The portable seeded shuffle: SHA-256 in counter mode feeding Fisher-Yates.

Specified precisely in ``docs/shuffle.md`` so that it can be reimplemented in any
language; ``tests/test_shuffle.py`` holds the published test vectors.

* A *seed* is 32 bytes. A seed given by a person (``--seed 7``) becomes
  ``SHA-256(UTF-8 of its decimal or text form)``: see :func:`seed_from_text`.
* Shuffle number ``s`` (0 for the match's first shuffle, 1 for the next, ...) draws
  from the byte stream ``SHA-256(seed || u64be(s) || u64be(k))`` for k = 0, 1, 2, ...
  read as consecutive big-endian unsigned 32-bit words.
* ``draw_below(n)``: take words until one is below ``2**32 - (2**32 mod n)`` and
  return it ``mod n`` (rejection sampling, no bias).
* Durstenfeld's Fisher-Yates on a copy of the input list: for ``i`` from ``len-1``
  down to 1, ``j = draw_below(i + 1)``, swap positions ``i`` and ``j``.
  Position 0 of the result is the top of the pack.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from typing import TypeVar

T = TypeVar("T")

SEED_BYTES = 32


def seed_from_text(text: str | int) -> bytes:
    """The 32-byte seed for a seed a person typed: SHA-256 of its UTF-8 text."""
    return hashlib.sha256(str(text).encode("utf-8")).digest()


def _words(seed: bytes, shuffle_no: int) -> Iterator[int]:
    prefix = seed + shuffle_no.to_bytes(8, "big")
    counter = 0
    while True:
        block = hashlib.sha256(prefix + counter.to_bytes(8, "big")).digest()
        for offset in range(0, 32, 4):
            yield int.from_bytes(block[offset : offset + 4], "big")
        counter += 1


def shuffled(items: Sequence[T], seed: bytes, shuffle_no: int) -> tuple[T, ...]:
    """``items`` in the order shuffle number ``shuffle_no`` of ``seed`` puts them."""
    if len(seed) != SEED_BYTES:
        raise ValueError(f"a shuffle seed is {SEED_BYTES} bytes, got {len(seed)}")
    order = list(items)
    words = _words(seed, shuffle_no)
    for i in range(len(order) - 1, 0, -1):
        n = i + 1
        limit = (1 << 32) - ((1 << 32) % n)
        word = next(words)
        while word >= limit:
            word = next(words)
        j = word % n
        order[i], order[j] = order[j], order[i]
    return tuple(order)
