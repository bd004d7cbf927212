"""Crowded floors: legal_commands counts the groupings and makes a command only when asked.

On a floor with more than ``EAGER_GROUPS`` groups of a card's value, the answer is an
``cardgames.engine.core.lazy_listing.Listing``. Two independent walks must agree: iterating it makes
every grouping with the eager enumeration (``Floor.groupings``), indexing it walks down the
counts (``Floor.nth_selection``) and ``index``/``in`` walk back (``Floor.selection_index``).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardgames.engine import seep
from cardgames.engine.bots.ismcts import MOVES_AT_MOST, ISMCTSPolicy
from cardgames.engine.core.cards import STANDARD_PACK
from cardgames.engine.core.lazy_listing import Listing, spread
from cardgames.engine.core.protocol import Rejection
from cardgames.engine.seep.cards import VALUE
from cardgames.engine.seep.groups import EAGER_GROUPS, Floor
from cardgames.engine.seep.heuristic import SCORED_AT_MOST, heuristic_policy
from cardgames.engine.seep.legal import LAST_LISTING
from cardgames.engine.seep.state import State
from tests.profiles import examples
from tests.seep.helpers import table
from tests.seep.test_legal import OPTION_VALUES, options_strategy
from tests.soundness import unseen

#: Four 5s first, then every value no sum of the cards before it, from the king down: the
#: slowest floor play can produce that docs/seep_legal_commands.md knows of.
SLOWEST_LOOSE = ["5S", "5H", "5D", "5C", "KS", "QS", "JS", "9S", "8S", "7S", "6S", "4S", "3S", "2S", "AS"]
SLOWEST_HAND = ["2H", "KC", "JC", "AH", "2D", "AC", "AD", "2C", "QD"]


def _check_listing(listing: Any, state: State, seat: int, sample: int = 300) -> None:
    """Indexing, iterating, ``index`` and ``in`` agree, every command is distinct, and picked
    commands take effect as when checked in full."""
    made = list(listing)
    assert len(made) == len(listing)
    assert len(set(made)) == len(made), "a command listed twice"
    rng = random.Random(len(made))
    indices = range(len(made)) if len(made) <= 3 * sample else sorted(rng.sample(range(len(made)), sample))
    copy = msgspec.structs.replace(state)
    for index in indices:
        command = listing[index]
        assert command == made[index], index
        assert listing[index] is command  # the same object again: LAST_LISTING knows it by identity
        assert listing.index(made[index]) == index
        assert made[index] in listing
    for index in list(indices)[:40]:
        command = listing[index]
        assert LAST_LISTING.holds(state, seat, command)
        assert LAST_LISTING.holds(state, seat, msgspec.structs.replace(command))
        checked = seep.decide(copy, seat, command)  # a state the listing never saw: every check runs
        assert not isinstance(checked, Rejection), (command, checked)
        assert seep.decide(state, seat, command) == checked  # the trusted path, same events
    assert listing[-1] == made[-1]
    assert listing[2:5] == made[2:5]


def _not_listed(listing: Sequence[Any], state: State, seat: int) -> None:
    """Near misses (a group dropped, groups swapped, cards reordered) are not in the listing,
    exactly when decide refuses them."""
    rng = random.Random(7)
    for _ in range(100):
        command = listing[rng.randrange(len(listing))]
        groups = getattr(command, "groups", None)
        if not groups:
            continue
        variants = [groups[:-1], groups[::-1], tuple(group[::-1] for group in groups), groups + groups[-1:]]
        for changed in variants:
            if changed == groups:
                continue
            other = msgspec.structs.replace(command, groups=changed)
            accepted = not isinstance(seep.decide(unseen(state), seat, other), Rejection)
            listed = other in listing
            assert accepted == listed or (accepted and _same_in_order(other, listing)), other
            if not listed:
                with pytest.raises(ValueError):
                    listing.index(other)


def _same_in_order(command: Any, listing: Sequence[Any]) -> bool:
    """decide accepts groups in any order; the listing has each grouping once, in floor order."""
    def key(groups: Any) -> Any:
        return sorted(tuple(sorted(group)) for group in groups)

    return any(type(c) is type(command) and c.card == command.card and key(c.groups) == key(command.groups)
               for c in listing)


def test_the_slowest_reachable_floor_is_listed_lazily() -> None:
    state = table({1: SLOWEST_HAND}, SLOWEST_LOOSE)
    listing = seep.legal_commands(state, 1)
    assert isinstance(listing, Listing)
    kinds = Counter(type(command).__name__ for command in listing)
    assert (len(listing), kinds["Build"], kinds["Capture"]) == (72_529, 72_100, 429)
    _check_listing(listing, state, 1)
    _not_listed(listing, state, 1)


def test_a_spread_keeps_every_part_in_order() -> None:
    """What a player that scores its commands sees of a crowded floor: about ``at_most`` of them,
    evenly spaced in each part (every card's captures and builds), in the listing's order."""
    state = table({1: SLOWEST_HAND}, SLOWEST_LOOSE)
    listing = seep.legal_commands(state, 1)
    assert isinstance(listing, Listing)
    chosen = spread(listing, 500)
    indices = [listing.index(command) for command in chosen]
    assert indices == sorted(set(indices)) and indices[0] == 0
    assert 400 <= len(chosen) <= 500 + len(SLOWEST_HAND) * 2
    whole = {(type(command).__name__, command.card) for command in listing}
    assert {(type(command).__name__, command.card) for command in chosen} == whole  # no part left out
    small = seep.legal_commands(table({1: ["KH", "2C"]}, ["AS", "3D"]), 1)
    assert spread(small, 500) is small
    assert spread(list(range(10)), 4) == [0, 2, 5, 7]


def test_the_heuristic_scores_a_bounded_spread_of_a_crowded_floor() -> None:
    state = table({1: SLOWEST_HAND}, SLOWEST_LOOSE)
    listing = seep.legal_commands(state, 1)
    player = heuristic_policy(state.config)
    view = seep.view(state, 1)
    ranked = player.rank(view, listing)
    assert len(ranked) <= SCORED_AT_MOST + 2 * len(SLOWEST_HAND) < len(listing)
    assert set(ranked) == set(spread(listing, SCORED_AT_MOST))
    best = player.choose(view, listing, random.Random(1))
    assert best == ranked[0] and best in listing


@pytest.mark.parametrize("root", ["paired", "ucb"])
def test_the_search_bot_considers_a_bounded_spread_of_a_crowded_floor(root: str) -> None:
    """Below the root the tree meets the same floor in every determinization: it walks a spread."""
    state = table({1: SLOWEST_HAND}, SLOWEST_LOOSE)
    listing = seep.legal_commands(state, 1)
    bot = ISMCTSPolicy("seep", state.config, iterations=3, root=root, horizon=2)
    chosen = bot.choose(seep.view(state, 1), listing, random.Random(2))
    assert chosen in spread(listing, MOVES_AT_MOST) and bot.last_iterations >= 3


@pytest.mark.parametrize("options", [
    {}, {"capture_extent": "free"}, {"auto_merge_loose_sets": True}, {"allow_direct_cemented_build": False},
    {"throw_when_capture_available": True},
])
def test_crowded_floors_with_houses_under_each_option(options: dict[str, Any]) -> None:
    """Thirteen loose cards A-10 and A-3 beside a J (seat 0), a Q (seat 2) and a cemented K (seat 0)."""
    houses = [
        {"value": 11, "components": [["5D", "6D"]], "owners": [0]},
        {"value": 12, "components": [["5C", "7C"]], "owners": [2]},
        {"value": 13, "components": [["6C", "7H"], ["KS"]], "owners": [0]},
    ]
    loose = ["AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "10S", "AD", "2D", "3D"]
    state = table({1: ["KH", "QH", "JH", "10H", "9H", "AH"], 0: ["JS", "KD"], 2: ["QS"]}, loose, houses, **options)
    listing = seep.legal_commands(state, 1)
    if not options or "capture_extent" in options:
        assert isinstance(listing, Listing), "expected groupings past EAGER_GROUPS groups"
    _check_listing(listing, state, 1)
    _not_listed(listing, state, 1)


def test_a_small_listing_stays_a_list() -> None:
    state = table({1: ["JH", "9C"]}, ["2S", "3H", "5D", "6C"])
    assert type(seep.legal_commands(state, 1)) is list


def test_counts_and_walks_agree_with_the_eager_groupings() -> None:
    """Every target and mode on a floor of fourteen small cards: the count is the length of
    the eager list, the walk down the counts finds each selection at its place, and back."""
    loose = ("AS", "AH", "AD", "AC", "2S", "2H", "2D", "2C", "3S", "3H", "3D", "3C", "4S", "4H")
    floor = Floor(loose)
    for target in range(1, 14):
        for maximal in (False, True):
            for merged in (False, True):
                avail = floor.full & ~0b101  # not every card: a part of the floor, as a build leaves it
                made = floor.groupings(target, avail, maximal, merged)
                assert floor.tally(target, maximal, merged).count(avail, 1) == len(made)
                rng = random.Random(target)
                for index in rng.sample(range(len(made)), min(len(made), 50)):
                    assert floor.nth_selection(target, avail, maximal, merged, index) == made[index]
                    assert floor.selection_index(target, avail, maximal, merged, made[index]) == index
                assert floor.selection_index(target, avail, maximal, merged, (("4S", "AS"),)) == -1  # out of order
    assert max(len(floor.adding_to(target)) for target in range(1, 14)) > EAGER_GROUPS


@st.composite
def _crowded(draw: st.DrawFn) -> tuple[State, int]:
    """Nine to sixteen loose cards, any values (play could not always make them), any options."""
    pack = list(STANDARD_PACK)
    rng = random.Random(draw(st.integers(0, 2**32)))
    rng.shuffle(pack)
    small = [card for card in pack if VALUE[card] <= draw(st.integers(4, 13))]
    loose = small[: draw(st.integers(9, 16))]
    rest = [card for card in pack if card not in loose]
    hand = [card for card in rest if VALUE[card] >= 9][: draw(st.integers(1, 3))]
    hand += [card for card in rest if card not in hand][: draw(st.integers(0, 5))]
    options = draw(options_strategy)
    options.pop("max_houses_on_floor", None)
    return table({1: hand}, loose, **options), 1


@settings(max_examples=examples(60), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(position=_crowded())
def test_lazy_listings_on_random_crowded_floors(position: tuple[State, int]) -> None:
    state, seat = position
    listing = seep.legal_commands(state, seat)
    if len(listing) > 200_000:
        return  # (a floor of many aces and twos: too long to walk in full here)
    _check_listing(listing, state, seat, sample=60)


def test_every_option_is_covered() -> None:
    assert {"capture_extent", "auto_merge_loose_sets", "allow_direct_cemented_build"} <= set(OPTION_VALUES)
