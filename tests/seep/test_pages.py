"""Pages of a lazy listing: the commands from an offset made in one walk are the commands made
index by index (each a walk down the counts from the top), in the same order.

``Listing.page`` (what the service's ``page_of`` makes) walks down to the page's first command
and then on through the choices, making whole subtrees with the memoised enumeration;
``Listing[index]`` walks down the counts afresh for every command (``Floor.nth_selection``).
Both are held to each other on random floors, crowded floors and every target and mode of a
floor's own selections.
"""

from __future__ import annotations

import math
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardgames.engine import seep
from cardgames.engine.core.cards import STANDARD_PACK
from cardgames.engine.core.lazy_listing import Listing, page
from cardgames.engine.seep.cards import VALUE
from cardgames.engine.seep.groups import Floor, Selections
from cardgames.engine.seep.state import State
from cardgames.service.worker_process import page_of
from tests.profiles import examples
from tests.seep.helpers import table
from tests.seep.test_lazy_listing import SLOWEST_HAND, SLOWEST_LOOSE, _crowded
from tests.seep.test_legal import _position, options_strategy

#: The commands a page of a long listing is compared on (each by its own walk: a few us apiece compiled).
COMPARED = 400


def _by_index(state: State, seat: int, start: int, stop: int) -> list[Any]:
    """``start`` up to ``stop`` of a fresh listing, each command made by its own walk."""
    listing = seep.legal_commands(state, seat)
    return [listing[index] for index in range(start, min(stop, len(listing)))]


def _pages_agree(state: State, seat: int, rng: random.Random, pages: int = 6) -> None:
    listing = seep.legal_commands(state, seat)
    total = len(listing)
    bounds = [(0, 1000), (max(0, total - 7), total + 5)]
    for _ in range(pages):
        start = rng.randrange(total + 1)
        bounds.append((start, start + rng.choice([1, 2, 17, 250, COMPARED])))
    for start, stop in bounds:
        made = page(seep.legal_commands(state, seat), start, stop)  # a fresh listing: nothing made before
        assert len(made) == max(0, min(stop, total) - start), (start, stop)
        compared = min(stop, start + COMPARED)
        assert made[: compared - start] == _by_index(state, seat, start, compared), (start, stop)
        if total <= 3_000:
            assert made == list(seep.legal_commands(state, seat))[start:stop]  # and iterated


@settings(max_examples=examples(40), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(position=_crowded(), seed=st.integers(0, 2**32))
def test_a_page_is_the_commands_by_index_on_crowded_floors(position: tuple[State, int], seed: int) -> None:
    state, seat = position
    _pages_agree(state, seat, random.Random(seed))


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), options=options_strategy, steps=st.integers(0, 96))
def test_a_page_is_the_commands_by_index_on_random_floors(seed: int, options: dict[str, Any], steps: int) -> None:
    state = _position(seed, options, steps)
    for seat in range(4):
        if seep.legal_commands(state, seat):
            _pages_agree(state, seat, random.Random(seed), pages=3)


def test_pages_of_the_slowest_reachable_floor() -> None:
    """Every page of 1,000 of the 72,529 commands, laid end to end, is the listing iterated; the
    first pages and some more are the commands made by index."""
    state = table({1: SLOWEST_HAND}, SLOWEST_LOOSE)
    listing = seep.legal_commands(state, 1)
    assert isinstance(listing, Listing)
    total = len(listing)
    pages = [page(seep.legal_commands(state, 1), start, start + 1000) for start in range(0, total, 1000)]
    assert [command for made in pages for command in made] == list(listing)
    _pages_agree(state, 1, random.Random(3), pages=10)


def test_a_page_keeps_the_commands_already_made() -> None:
    """A command made at its index is the same object in a page (decide's shortcut knows it by identity)."""
    listing = seep.legal_commands(table({1: SLOWEST_HAND}, SLOWEST_LOOSE), 1)
    assert isinstance(listing, Listing)
    picked = listing[5]
    made = listing.page(0, 10)
    assert made[5] is picked and made == listing[0:10]


def test_the_service_page_stops_at_its_time_and_goes_on_from_there() -> None:
    state = table({1: SLOWEST_HAND}, SLOWEST_LOOSE)
    listing = seep.legal_commands(state, 1)
    assert page_of(listing, 500, 1500, 10.0) == _by_index(state, 1, 500, 1500)
    short = page_of(seep.legal_commands(state, 1), 500, 1500, 0.0)
    assert 1 <= len(short) <= 1000 and short == _by_index(state, 1, 500, 500 + len(short))
    total = len(listing)
    assert page_of(listing, total - 5, total + 100, math.inf) == _by_index(state, 1, total - 5, total)  # past the end


@st.composite
def _selections(draw: st.DrawFn) -> tuple[Floor, int, int, bool, bool]:
    """A floor of 9-16 loose cards, a target, the cards available and a mode."""
    pack = list(STANDARD_PACK)
    random.Random(draw(st.integers(0, 2**32))).shuffle(pack)
    small = [card for card in pack if VALUE[card] <= draw(st.integers(3, 13))]
    floor = Floor(tuple(small[: draw(st.integers(9, 16))]))
    avail = floor.full & ~draw(st.integers(0, floor.full))  # a part of the floor, as a build leaves it
    return floor, draw(st.integers(1, 13)), avail, draw(st.booleans()), draw(st.booleans())


@settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(chosen=_selections(), data=st.data())
def test_a_page_of_selections_is_the_selections_by_index(
    chosen: tuple[Floor, int, int, bool, bool], data: st.DataObject,
) -> None:
    floor, target, avail, maximal, merged = chosen
    total = floor.tally(target, maximal, merged).count(avail, 1)
    start = data.draw(st.integers(0, total))
    stop = data.draw(st.integers(start, min(total, start + COMPARED)))
    head = data.draw(st.sampled_from([(), (("KS",),)]))
    made = floor.selection_page(target, avail, maximal, merged, start, stop, head)
    assert made == [head + floor.nth_selection(target, avail, maximal, merged, index) for index in range(start, stop)]
    selections = Selections(floor, target, avail, maximal, merged, 0, total)
    assert selections.page(start, stop + 5, head)[: stop - start] == made
