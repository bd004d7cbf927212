"""legal_commands enumerates exactly the commands decide accepts (A8, A15), groupings included.

Two properties on random positions reached by random legal play under random options:

* exhaustive: for floors of up to 6 loose cards, every candidate command a naive
  generator can form (every card, every grouping whose groups add up, every value,
  every house) is accepted by decide exactly when legal_commands lists it;
* sampled: random well-formed commands (groups of any cards, any sums, any values)
  are accepted exactly when listed, on floors of any size.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardgames.engine import seep
from cardgames.engine.core.cards import STANDARD_PACK
from cardgames.engine.core.protocol import Rejection
from cardgames.engine.seep.cards import VALUE
from cardgames.engine.seep.legal import LAST_LISTING
from cardgames.engine.seep.state import State
from tests.profiles import examples
from tests.seep.helpers import canonical, playout_states, table
from tests.soundness import assert_listed_accepted, unseen

OPTION_VALUES: dict[str, list[Any]] = {
    "capture_extent": ["maximal", "free"],
    "throw_when_capture_available": [False, True],
    "auto_merge_loose_sets": [False, True],
    "allow_direct_cemented_build": [True, False],
    "partner_adds_without_key": [True, False],
    "allow_break_partner_house": [True, False],
    "break_into_partner_house_without_key": [False, True],
    "max_houses_on_floor": [None, 1, 2],
}

options_strategy = st.fixed_dictionaries({}, optional={key: st.sampled_from(v) for key, v in OPTION_VALUES.items()})


def _position(seed: int, options: dict[str, Any], steps: int) -> State:
    rng = random.Random(seed)
    reached = None
    for index, (state, _events) in enumerate(playout_states(rng, options, deals=2)):
        reached = state
        if index >= steps:
            break
    assert reached is not None
    return reached


def _blocks(items: list[str], target: int, must: str | None) -> Iterator[list[list[str]]]:
    """Naively: every way to put some of ``items`` into blocks that each add up to ``target``
    (``must``, when given, is in one of them)."""
    def place(index: int, blocks: list[list[str]], sums: list[int]) -> Iterator[list[list[str]]]:
        if index == len(items):
            if all(total == target for total in sums) and (must is None or any(must in b for b in blocks)):
                yield [list(block) for block in blocks]
            return
        card = items[index]
        if card != must:
            yield from place(index + 1, blocks, sums)  # left out
        for number, block in enumerate(blocks):
            if sums[number] + VALUE[card] <= target:
                block.append(card)
                sums[number] += VALUE[card]
                yield from place(index + 1, blocks, sums)
                sums[number] -= VALUE[card]
                block.pop()
        if VALUE[card] <= target:
            blocks.append([card])
            sums.append(VALUE[card])
            yield from place(index + 1, blocks, sums)
            sums.pop()
            blocks.pop()

    yield from place(0, [], [])


def _candidates(state: State, seat: int) -> Iterator[Any]:
    hand = state.hands[seat]
    for value in range(8, 15):
        yield seep.Bid(value=value)
    for card in hand:
        yield seep.Throw(card=card)
        for groups in _blocks(list(state.loose), VALUE[card], None):
            yield seep.Capture(card=card, groups=tuple(tuple(group) for group in groups))
        for target in range(8, 15):
            for groups in _blocks([card, *state.loose], target, card):
                yield seep.Build(card=card, value=target, groups=tuple(tuple(group) for group in groups))
            yield seep.Break(card=card, house=target)


def _enumerated(state: State, seat: int) -> set[Any]:
    listed = seep.legal_commands(state, seat)
    keys = [canonical(command) for command in listed]
    assert len(keys) == len(set(keys)), "legal_commands lists a command twice"
    assert_listed_accepted(seep, state, seat, listed)
    return set(keys)


def _assert_exact(state: State) -> int:
    """The candidates decide accepts are exactly the listed commands; returns the seat to act."""
    seat = seep.to_act(state)[0]
    listed = _enumerated(state, seat)
    fresh = unseen(state)  # decide on the state just listed for would trust the listing
    accepted = {
        canonical(command)
        for command in _candidates(state, seat)
        if not isinstance(seep.decide(fresh, seat, command), Rejection)
    }
    assert accepted == listed
    return seat


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), options=options_strategy, steps=st.integers(0, 100))
def test_legal_commands_are_exactly_the_accepted_ones(seed: int, options: dict[str, Any], steps: int) -> None:
    state = _position(seed, options, steps)
    if seep.is_over(state) or len(state.loose) > 6:
        return
    seat = _assert_exact(state)
    for other in range(4):
        if other != seat:
            assert seep.legal_commands(state, other) == []


@st.composite
def _commands(draw: st.DrawFn, state: State, seat: int) -> Any:
    hand = state.hands[seat]
    pool = [*state.loose, *hand, *(card for house in state.houses for card in house.cards())]
    card = draw(st.sampled_from(hand) if draw(st.integers(0, 9)) else st.sampled_from(STANDARD_PACK))
    kind = draw(st.sampled_from(["capture", "build", "build", "throw", "break", "bid"]))
    if kind == "throw":
        return seep.Throw(card=card)
    if kind == "bid":
        return seep.Bid(value=draw(st.integers(7, 15)))
    if kind == "break":
        return seep.Break(card=card, house=draw(st.integers(8, 14)))
    chosen = draw(st.lists(st.sampled_from(pool), max_size=8)) if pool else []
    if kind == "build" and draw(st.booleans()):
        chosen.append(card)
    count = draw(st.integers(0, 4))
    groups: list[list[str]] = [[] for _ in range(count)]
    for item in chosen:
        if groups:
            groups[draw(st.integers(0, count - 1))].append(item)
    if draw(st.integers(0, 4)):
        groups = [group for group in groups if group]
    if kind == "capture":
        return seep.Capture(card=card, groups=tuple(tuple(group) for group in groups))
    return seep.Build(card=card, value=draw(st.integers(8, 14)), groups=tuple(tuple(group) for group in groups))


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), options=options_strategy, steps=st.integers(0, 96), data=st.data())
def test_random_commands_are_accepted_only_when_listed(
    seed: int, options: dict[str, Any], steps: int, data: st.DataObject
) -> None:
    state = _position(seed, options, steps)
    if seep.is_over(state):
        return
    seat = seep.to_act(state)[0]
    listed = _enumerated(state, seat)
    fresh = unseen(state)
    for _ in range(20):
        command = data.draw(_commands(state, seat))
        accepted = not isinstance(seep.decide(fresh, seat, command), Rejection)
        assert accepted == (canonical(command) in listed), command


@settings(max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), options=options_strategy, steps=st.integers(0, 96))
def test_listed_commands_take_effect_as_when_checked(seed: int, options: dict[str, Any], steps: int) -> None:
    """decide applies a command legal_commands just listed for the state object without
    checking it again (cardgames.engine.seep.legal.LAST_LISTING); on an equal copy of the state the same
    command goes through every check. Both must give the same events."""
    state = _position(seed, options, steps)
    if seep.is_over(state):
        return
    seat = seep.to_act(state)[0]
    copy = msgspec.structs.replace(state)
    for command in seep.legal_commands(state, seat):
        assert LAST_LISTING.holds(state, seat, command) == (state.phase == "play")
        equal = msgspec.structs.replace(command)  # an equal command is enough
        assert LAST_LISTING.holds(state, seat, equal) == (state.phase == "play")
        assert not LAST_LISTING.holds(copy, seat, command)
        assert seep.decide(state, seat, command) == seep.decide(copy, seat, command)


def test_a_listed_command_is_checked_for_another_state() -> None:
    """The fast path is tied to the state object: the same command object is checked (and
    refused) on a state where it is not legal."""
    state = table({1: ["JH", "9C"]}, ["2S", "3H", "5D", "6C"])
    command = next(c for c in seep.legal_commands(state, 1) if isinstance(c, seep.Capture))
    other = table({1: ["JH", "9C"]}, ["2S", "3H", "4D"])
    assert not LAST_LISTING.holds(other, 1, command)
    assert isinstance(seep.decide(other, 1, command), Rejection)


def test_every_grouping_of_a_capture_is_listed() -> None:
    """J over loose 2 3 5 6: {2 3 6} and {5 6} are both maximal (A8.1.3)."""
    state = table({1: ["JH"]}, ["2S", "3H", "5D", "6C"])
    captures = {canonical(c) for c in seep.legal_commands(state, 1) if isinstance(c, seep.Capture)}
    assert captures == {
        canonical(seep.Capture(card="JH", groups=(("2S", "3H", "6C"),))),
        canonical(seep.Capture(card="JH", groups=(("5D", "6C"),))),
    }


@st.composite
def _built_positions(draw: st.DrawFn) -> State:
    """Positions random play rarely reaches: several houses, shared ownership, twin loose cards."""
    pool = list(STANDARD_PACK)
    draw(st.randoms(use_true_random=False)).shuffle(pool)
    seat = draw(st.integers(0, 3))
    houses: list[dict[str, Any]] = []
    hands: dict[int, list[str]] = {s: [] for s in range(4)}
    for value in draw(st.lists(st.sampled_from([9, 10, 11, 12, 13]), unique=True, max_size=4)):
        components = []
        for _ in range(draw(st.integers(1, 3))):
            part: list[str] = []
            total = 0
            for card in list(pool):
                if total + VALUE[card] <= value and (total + VALUE[card] == value or VALUE[card] <= value - total - 1):
                    part.append(card)
                    pool.remove(card)
                    total += VALUE[card]
                if total == value:
                    break
            if total == value:
                components.append(part)
        if sum(len(part) for part in components) < 2:
            continue
        if len(components) == 1:
            owners = [draw(st.integers(0, 3))]
        else:
            owners = draw(st.lists(st.integers(0, 3), min_size=1, max_size=3, unique=True))
        houses.append({"value": value, "components": components, "owners": owners})
        for owner in owners:
            key = next((card for card in pool if VALUE[card] == value), None)
            if key is None:
                return draw(_built_positions())
            pool.remove(key)
            hands[owner].append(key)
    values = {house["value"] for house in houses}
    loose = [card for card in pool if VALUE[card] not in values][: draw(st.integers(0, 6))]
    for card in loose:
        pool.remove(card)
    size = draw(st.integers(max(1, len(hands[seat])), 6))
    hands[seat] += [pool.pop() for _ in range(size - len(hands[seat]))]
    for other in range(4):
        if other != seat and len(hands[other]) > size:
            return draw(_built_positions())
    options = draw(options_strategy)
    try:
        return table(hands, loose, houses, seat=seat, dealer=draw(st.integers(0, 3)), **options)
    except Exception as error:  # padding can run short of low cards: draw again
        if "ScenarioError" in type(error).__name__:
            return draw(_built_positions())
        raise


@settings(max_examples=examples(200), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(state=_built_positions())
def test_legal_commands_on_built_positions(state: State) -> None:
    _assert_exact(state)
