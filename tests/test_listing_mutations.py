"""Mutation tests: an illegal command injected into a game's listing must fail the soundness
check (tests/soundness.py), for every game, although ``decide`` trusts what was just listed
for the very same state object."""

from __future__ import annotations

import random

import pytest

from cardgames.engine.core.protocol import Rejection
from cardgames.engine.core.registry import get_game
from cardgames.engine.core.replay import fold
from tests.soundness import InjectedListing, illegal_command, new_state, random_walk, unseen

GAMES = {"seep": 4, "contract_rummy": 4, "all_fours": 4}


@pytest.mark.parametrize("name", sorted(GAMES))
def test_the_sound_listing_passes(name: str) -> None:
    assert random_walk(get_game(name), {}, GAMES[name], seed=7, steps=40) > 0


@pytest.mark.parametrize("name", sorted(GAMES))
def test_an_injected_illegal_command_fails_the_check(name: str) -> None:
    rules = InjectedListing(get_game(name), illegal_command(name))
    with pytest.raises(AssertionError, match="is rejected"):
        random_walk(rules, {}, GAMES[name], seed=7, steps=40)


@pytest.mark.parametrize("name", ["contract_rummy", "seep"])
def test_deciding_on_the_listed_state_would_hide_the_injected_command(name: str) -> None:
    """Why the check decides on a copy: on the very state object it listed for, ``decide``
    trusts the faulty listing and accepts the illegal command (within a few moves of play)."""
    rules = get_game(name)
    injected = InjectedListing(rules, illegal_command(name))
    state = new_state(rules, {}, GAMES[name], seed=7)
    rng = random.Random(1)
    for _ in range(30):
        seat = rules.to_act(state)[0]
        *legal, illegal = injected.legal_commands(state, seat)
        if not isinstance(rules.decide(state, seat, illegal), Rejection):
            assert isinstance(rules.decide(unseen(state), seat, illegal), Rejection)
            return
        outcome = rules.decide(state, seat, rng.choice(legal))
        assert not isinstance(outcome, Rejection), outcome
        state = fold(rules, state, outcome)
    pytest.fail("the shortcut never took the injected command")
