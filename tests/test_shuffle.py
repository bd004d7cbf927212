"""The portable shuffle against its published vectors (docs/shuffle.md)."""

import hashlib
from collections import Counter
from collections.abc import Callable, Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cardgames.engine.core import shuffle as shuffle_module
from cardgames.engine.core.cards import STANDARD_PACK
from cardgames.engine.core.chance import Chance, ShuffleUnavailable, advance, canonical_order, next_order
from cardgames.engine.core.shuffle import seed_from_text, shuffled

VECTORS = [
    (
        "0",
        0,
        "JH 6S 5S 7C JS 6D QS 10C JD QH 8S 9D 10H 3C 5D AS KS 10S 6H 2D 7D AH 7H 4S 5C 10D 4C 6C 8D 8C "
        "2S KH 3H QC 4H KC QD 9S 5H 3S 4D KD 9H 9C AC 2H 2C 8H 3D 7S JC AD",
    ),
    (
        "0",
        1,
        "3D 8S 7H AD AS 7C 2C 6H 9D 3H 2H 10C AC 4D 4S 5S 3S KC 9C KS QS 8H KD 7D AH 10D 9H 5H 10H QD "
        "10S QC 8C 2D 5C 5D 8D JS 2S QH 7S 4C 6S JD 3C 6D 6C 4H JH 9S JC KH",
    ),
    (
        "cardgames",
        0,
        "KC 10H 4H QS KD 8H QD AS 9H AH JS 8S 7D 7S AD 10S 6D KH 9D 6C JD 3C 4C 3S JH 5H 8D 6S 5S JC 7H "
        "2C 9S AC 7C 4S 5C 2S 5D 4D QH 10C 3D 8C 2D 10D KS 3H QC 6H 9C 2H",
    ),
]


@pytest.mark.parametrize(("seed_text", "shuffle_no", "expected"), VECTORS)
def test_published_vectors(seed_text: str, shuffle_no: int, expected: str) -> None:
    assert " ".join(shuffled(STANDARD_PACK, seed_from_text(seed_text), shuffle_no)) == expected


def test_small_vector_and_seed_encoding() -> None:
    assert shuffled(range(10), bytes(32), 0) == (6, 2, 7, 9, 5, 0, 1, 4, 8, 3)
    assert seed_from_text(7) == seed_from_text("7")
    assert seed_from_text("0").hex() == "5feceb66ffc86f38d952786c6d696c79c2dbc239dd4e91b46729d73a27fb57e9"


def test_seed_must_be_32_bytes() -> None:
    with pytest.raises(ValueError, match="32 bytes"):
        shuffled(STANDARD_PACK, b"short", 0)


@given(st.binary(min_size=32, max_size=32), st.integers(0, 2**40), st.integers(0, 104))
def test_shuffle_is_a_permutation(seed: bytes, shuffle_no: int, size: int) -> None:
    items = list(range(size))
    result = shuffled(items, seed, shuffle_no)
    assert sorted(result) == items
    assert shuffled(items, seed, shuffle_no) == result


def test_chance_takes_stacked_decks_first_then_the_seed() -> None:
    stacked = tuple(reversed(STANDARD_PACK))
    chance = Chance(seed=seed_from_text("0").hex(), decks=(stacked,))
    assert next_order(chance, STANDARD_PACK) == stacked
    chance = advance(chance)
    expected = shuffled(STANDARD_PACK, seed_from_text("0"), 1)
    assert next_order(chance, list(reversed(STANDARD_PACK))) == expected


def test_chance_refuses_a_stacked_deck_of_other_cards_and_a_missing_seed() -> None:
    with pytest.raises(ShuffleUnavailable):
        next_order(Chance(decks=(STANDARD_PACK[:51],)), STANDARD_PACK)
    with pytest.raises(ShuffleUnavailable):
        next_order(Chance(), STANDARD_PACK)


def test_canonical_order_puts_jokers_last_and_keeps_duplicates() -> None:
    cards = ["JK", "KC", "AS", "AS", "2H"]
    assert canonical_order(cards) == ("AS", "AS", "2H", "KC", "JK")
    assert Counter(canonical_order(cards)) == Counter(cards)


def _reference_shuffle(
    items: list[int], seed: bytes, shuffle_no: int, limit_of: Callable[[int], int]
) -> tuple[int, ...]:
    """docs/shuffle.md word by word (one hash per block, one word at a time): the fast path must match it."""

    def words() -> Iterator[int]:
        counter = 0
        while True:
            block = hashlib.sha256(seed + shuffle_no.to_bytes(8, "big") + counter.to_bytes(8, "big")).digest()
            for offset in range(0, 32, 4):
                yield int.from_bytes(block[offset : offset + 4], "big")
            counter += 1

    stream = words()
    order = list(items)
    for i in range(len(order) - 1, 0, -1):
        word = next(stream)
        while word >= limit_of(i + 1):
            word = next(stream)
        j = word % (i + 1)
        order[i], order[j] = order[j], order[i]
    return tuple(order)


@given(st.binary(min_size=32, max_size=32), st.integers(0, 2**40), st.integers(0, 120))
def test_bulk_hashing_reads_the_specified_stream(seed: bytes, shuffle_no: int, size: int) -> None:
    items = list(range(size))
    assert shuffled(items, seed, shuffle_no) == _reference_shuffle(items, seed, shuffle_no, lambda n: 2**32 - 2**32 % n)


def test_rejected_words_read_on_into_later_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rejections are rare (n / 2**32): with every limit halved, about half the words are rejected,
    so the draws run past the blocks hashed up front into the lazy stream, in stream order."""
    halved = lambda size: tuple((2**32 - 2**32 % (i + 1)) // 2 for i in range(size))  # noqa: E731
    monkeypatch.setattr(shuffle_module, "_limits", halved)
    for size in (2, 9, 52, 108):
        expected = _reference_shuffle(list(range(size)), bytes(32), 5, lambda n: (2**32 - 2**32 % n) // 2)
        assert shuffled(list(range(size)), bytes(32), 5) == expected
