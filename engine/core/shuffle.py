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
import struct
from collections.abc import Callable, Iterator, Sequence
from functools import lru_cache
from itertools import chain
from typing import Any, TypeVar

T = TypeVar("T")

SEED_BYTES = 32
_TWO_32 = 1 << 32
_BLOCK_WORDS = struct.Struct(">8I").unpack


def seed_from_text(text: str | int) -> bytes:
    """The 32-byte seed for a seed a person typed: SHA-256 of its UTF-8 text."""
    return hashlib.sha256(str(text).encode("utf-8")).digest()


def _words(prefix: bytes, first: int) -> Iterator[int]:
    """The word stream from block ``first`` on."""
    counter = first
    while True:
        yield from _BLOCK_WORDS(hashlib.sha256(prefix + counter.to_bytes(8, "big")).digest())
        counter += 1


@lru_cache(maxsize=64)
def _unpack(blocks: int) -> Callable[[bytes], tuple[Any, ...]]:
    return struct.Struct(f">{8 * blocks}I").unpack


@lru_cache(maxsize=64)
def _limits(size: int) -> tuple[int, ...]:
    """``limits[i]``: the first rejected word when drawing below ``i + 1``."""
    return tuple(_TWO_32 - _TWO_32 % (i + 1) for i in range(size))


def shuffled(items: Sequence[T], seed: bytes, shuffle_no: int) -> tuple[T, ...]:
    """``items`` in the order shuffle number ``shuffle_no`` of ``seed`` puts them."""
    if len(seed) != SEED_BYTES:
        raise ValueError(f"a shuffle seed is {SEED_BYTES} bytes, got {len(seed)}")
    order = list(items)
    size = len(order)
    prefix = seed + shuffle_no.to_bytes(8, "big")
    # Speed (same stream): a shuffle of n cards almost always takes exactly n - 1 words, so those
    # blocks are hashed and unpacked in one go; a rejected word reads on into the lazy stream.
    blocks = (size + 6) // 8
    head = b"".join([hashlib.sha256(prefix + k.to_bytes(8, "big")).digest() for k in range(blocks)])
    words: Iterator[int] = chain(_unpack(blocks)(head), _words(prefix, blocks))
    draw = words.__next__  # typed locals: the compiled build does the loop's arithmetic on C integers
    limits: tuple[int, ...] = _limits(size)
    for i in range(size - 1, 0, -1):
        word: int = draw()
        while word >= limits[i]:
            word = draw()
        j = word % (i + 1)
        order[i], order[j] = order[j], order[i]
    return tuple(order)
