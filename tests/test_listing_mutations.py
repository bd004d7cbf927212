"""Mutation tests: an illegal command injected into a game's listing must fail the soundness
check (tests/soundness.py), for every game, although ``decide`` trusts what was just listed
for the very same state object."""

from __future__ import annotations

import random
from typing import Any

import pytest

from cardgames.engine.all_fours.commands import Play
from cardgames.engine.contract_rummy.commands import Discard
from cardgames.engine.core.cards import STANDARD_PACK
from cardgames.engine.core.protocol import Rejection
from cardgames.engine.core.registry import get_game
from cardgames.engine.core.replay import fold
from cardgames.engine.seep.commands import Throw
from tests.soundness import InjectedListing, new_state, random_walk, unseen

GAMES = {"seep": 4, "contract_rummy": 4, "all_fours": 4}


def _not_held(state: Any, seat: int) -> str:
    return next(card for card in STANDARD_PACK if card not in state.hands[seat])


def _illegal(name: str) -> Any:
    def make(state: Any, seat: int) -> Any:
        card = _not_held(state, seat)
        if name == "seep":
            return Throw(card=card)
        if name == "contract_rummy":
            return Discard(card=card)
        return Play(card=card)

    return make


@pytest.mark.parametrize("name", sorted(GAMES))
def test_the_sound_listing_passes(name: str) -> None:
    assert random_walk(get_game(name), {}, GAMES[name], seed=7, steps=40) > 0


@pytest.mark.parametrize("name", sorted(GAMES))
def test_an_injected_illegal_command_fails_the_check(name: str) -> None:
    rules = InjectedListing(get_game(name), _illegal(name))
    with pytest.raises(AssertionError, match="is rejected"):
        random_walk(rules, {}, GAMES[name], seed=7, steps=40)


@pytest.mark.parametrize("name", ["contract_rummy", "seep"])
def test_deciding_on_the_listed_state_would_hide_the_injected_command(name: str) -> None:
    """Why the check decides on a copy: on the very state object it listed for, ``decide``
    trusts the faulty listing and accepts the illegal command (within a few moves of play)."""
    rules = get_game(name)
    injected = InjectedListing(rules, _illegal(name))
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
