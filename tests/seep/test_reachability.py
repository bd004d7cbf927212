"""Which crowded floors play can produce (docs/seep_legal_commands.md).

Under the default rules a card of value V may be thrown only when no V-group is among
the loose cards (A8.2.2); loose cards come only from the first four floor cards (A5.2)
and from throws, and a card that leaves the floor never comes back. So the cards of any
floor can be put in their order of arrival with each card after the first four no sum
of cards before it. The property test holds random play to that; the floors the
benchmark constructs fail it, the slowest floor found that passes it is listed in full.
"""

from __future__ import annotations

import random
from collections import Counter
from functools import cache

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardgames.engine import seep
from cardgames.engine.core.cards import STANDARD_PACK
from cardgames.engine.seep.cards import VALUE
from cardgames.engine.seep.groups import reachable_sums
from tests.profiles import examples
from tests.seep.helpers import playout_states, table


def arrival_order_exists(values: list[int]) -> bool:
    """Some order of ``values`` has every value after the first four no subset sum of the
    values before it (a search over which values have arrived: their sums depend on
    nothing else)."""
    kinds = sorted(Counter(values).items())
    wanted = tuple(count for _value, count in kinds)

    @cache
    def completes(arrived: tuple[int, ...]) -> bool:
        if arrived == wanted:
            return True
        sums = reachable_sums(value for (value, _), count in zip(kinds, arrived, strict=True) for _ in range(count))
        free = sum(arrived) < 4  # the first four floor cards arrive whatever their values
        return any(
            arrived[index] < count
            and (free or not sums >> value & 1)
            and completes((*arrived[:index], arrived[index] + 1, *arrived[index + 1 :]))
            for index, (value, count) in enumerate(kinds)
        )

    return completes(tuple(0 for _ in kinds))


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32))
def test_every_floor_of_default_play_has_an_arrival_order(seed: int) -> None:
    for state, _events in playout_states(random.Random(seed), deals=2):
        if state.phase == "play":
            assert arrival_order_exists([VALUE[card] for card in state.loose]), state.loose


def test_the_constructed_benchmark_floors_cannot_arise_under_the_default_rules() -> None:
    """bench/worst.py's constructed floors: twins of small values beyond the first four cards."""
    a_to_8 = ["AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S"]
    small = ["AS", "AD", "AC", "2S", "2H", "2D", "2C", "3S", "3H", "3D", "3C", "4S", "4H", "4D"]
    every_card_to_6 = [card for card in STANDARD_PACK if VALUE[card] <= 6]  # (and the extreme floors)
    for loose in ([*a_to_8, "2H", "3H", "4H", "AD"], small[:12], small, every_card_to_6):
        assert not arrival_order_exists([VALUE[card] for card in loose])


def test_the_slowest_floor_found_that_play_can_produce() -> None:
    """Four 5s first, then every value that is no sum of the cards before it, from the king
    down (A-K but 10 = 5 + 5), and a nine-card hand: 72,529 commands, all but 429 builds."""
    loose = ["5S", "5H", "5D", "5C", "KS", "QS", "JS", "9S", "8S", "7S", "6S", "4S", "3S", "2S", "AS"]
    for index in range(4, len(loose)):
        assert not reachable_sums(VALUE[card] for card in loose[:index]) >> VALUE[loose[index]] & 1
    state = table({1: ["2H", "KC", "JC", "AH", "2D", "AC", "AD", "2C", "QD"]}, loose)
    commands = seep.legal_commands(state, 1)
    kinds = Counter(type(command).__name__ for command in commands)
    assert (len(commands), kinds["Build"], kinds["Capture"]) == (72_529, 72_100, 429)
