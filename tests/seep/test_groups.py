"""The loose cards' groups (cardgames.engine.seep.groups): sets by sum, their multisets of values, counts.

The listing's order rests on the order of ``sets_by_sum``, and every count of a crowded
floor on the multisets (``Counts``) and the count over them (``Tally``): each is checked
here against a plain reference on random floors, duplicates of a value included.
"""

from __future__ import annotations

import random

import pytest

from cardgames.engine.core.cards import STANDARD_PACK
from cardgames.engine.seep.cards import VALUE
from cardgames.engine.seep.groups import MAX_SUM, AnswerTable, Floor, Tally, sets_by_sum


def _random_floor(rng: random.Random, most: int = 14) -> tuple[str, ...]:
    highest = rng.choice([3, 4, 6, 9, 13])
    pack = [card for card in STANDARD_PACK if VALUE[card] <= highest]
    rng.shuffle(pack)
    return tuple(pack[: rng.randint(0, min(most, len(pack)))])


def _reference_sets(values: tuple[int, ...]) -> dict[int, list[int]]:
    """One list doubled card by card (each card joins every set before it), then split by sum."""
    listed = [(0, 0)]
    for index, value in enumerate(values):
        listed += [(mask | 1 << index, total + value) for mask, total in list(listed) if total + value <= MAX_SUM]
    by_sum: dict[int, list[int]] = {}
    for mask, total in listed:
        by_sum.setdefault(total, []).append(mask)
    return by_sum


@pytest.mark.parametrize("seed", range(40))
def test_sets_by_sum_lists_every_set_once_in_the_order_of_one_doubled_list(seed: int) -> None:
    rng = random.Random(seed)
    values = tuple(VALUE[card] for card in _random_floor(rng))
    reference = _reference_sets(values)
    found = sets_by_sum(values)
    for total in range(MAX_SUM + 1):
        assert list(found[total]) == reference.get(total, [])
        assert all(sum(values[i] for i in range(len(values)) if mask >> i & 1) == total for mask in found[total])


@pytest.mark.parametrize("seed", range(40))
def test_multisets_stand_for_their_card_sets(seed: int) -> None:
    """Each sum's multisets of values: distinct, and their counts of card sets add up to the sets."""
    floor = Floor(_random_floor(random.Random(seed)))
    counts = floor.counts()
    for total in range(1, MAX_SUM + 1):
        shapes = counts.groups(total)
        by_weight = {weight: many for weight, many in zip(shapes.weights, shapes.sets, strict=True)}
        assert len(by_weight) == len(shapes.weights)
        seen: dict[int, int] = {}
        for mask in floor.adding_to(total):
            weight = counts.weight(mask)
            seen[weight] = seen.get(weight, 0) + 1
            assert shapes.haves[shapes.weights.index(weight)] == counts.have(mask)
        assert seen == by_weight


def _selections(groups: tuple[int, ...], start: int, taken: int) -> list[int]:
    """The cards taken by every set of disjoint groups from ``groups[start:]`` beside ``taken``."""
    out = [taken]
    for at in range(start, len(groups)):
        if not groups[at] & taken:
            out += _selections(groups, at + 1, taken | groups[at])
    return out


def test_a_count_over_multisets_is_the_number_of_card_selections() -> None:
    """Backtracking over card sets on floors with repeated values: every set of disjoint
    groups, and with maximality those that leave no group among the cards left out."""
    rng = random.Random(7)
    for _ in range(80):
        loose = _random_floor(rng, most=11)
        floor = Floor(loose)
        for target in range(1, MAX_SUM + 1):
            groups = tuple(floor.adding_to(target))
            chosen = _selections(groups, 0, 0)
            maximal = [taken for taken in chosen if not any(group & taken == 0 for group in groups)]
            assert floor.tally(target, False, False).count(floor.full, 1) == len(chosen), (loose, target)
            assert floor.tally(target, True, False).count(floor.full, 1) == len(maximal), (loose, target)


@pytest.mark.parametrize("seed", range(12))
def test_the_answer_table_counts_as_the_flat_memo_does(seed: int) -> None:
    """Floors past _FLAT_MEMO multisets keep their answers in an AnswerTable: the same counts,
    from every root a listing asks for, as the flat memo and its chains (here a table of two
    slots to start with, so that it grows many times)."""
    rng = random.Random(seed)
    loose = _random_floor(rng, most=20)
    floor = Floor(loose)
    counts = floor.counts()
    for target in range(1, MAX_SUM + 1):
        for maximal, merged in ((False, False), (True, False), (True, True)):
            flat = Tally(counts, target, maximal, merged)
            table = Tally(counts, target, maximal, merged)
            table.flat_size = 0
            table.memo = AnswerTable(2)
            for card in range(-1, len(loose)):
                removed = 0 if card < 0 else 1 << card
                assert table.count_without(removed) == flat.count_without(removed), (loose, target, maximal)


def test_an_answer_table_keeps_counts_past_62_bits_beside_it() -> None:
    table = AnswerTable(2)
    answers = {key * 7919: key << (3 * (key % 25)) for key in range(1, 500)}
    for key, count in answers.items():
        table.put(key, count)
    assert max(answers.values()) >= 1 << 62
    assert all(table.get(key) == count for key, count in answers.items())
    assert table.get(3) == -1
