"""The search bot never looks at cards its seat cannot see.

* The view a bot gets (the only input of ``determinize`` besides the public config)
  holds no card hidden from its seat.
* ``determinize`` gives a state the seat cannot tell from the real one (same view).
* Re-dealing the hidden cards of the true state changes nothing the seat sees, and
  the ISMCTS bot, with the same rng seed, makes the same choice.
* Determinizations really re-deal: the other hands are not the true ones every time.
"""

from __future__ import annotations

import random

import pytest

from cardgames.engine.bots import get_policy
from cardgames.engine.bots.policy import bot_rules
from cardgames.engine.core.registry import get_game
from tests.bots.games import HIDDEN
from tests.bots.helpers import positions

GAMES = sorted(HIDDEN)


@pytest.mark.parametrize("game_name", GAMES)
def test_view_holds_no_hidden_card(game_name: str) -> None:
    game = get_game(game_name)
    hidden_of, _, view_cards = HIDDEN[game_name]
    for state, seat in positions(game_name, 150, seed="no-hidden", every=2):
        leaked = view_cards(game.view(state, seat)) & hidden_of(state, seat)
        assert not leaked, f"seat {seat}'s view shows hidden cards {sorted(leaked)}"


@pytest.mark.parametrize("game_name", GAMES)
def test_determinization_is_consistent_with_the_view(game_name: str) -> None:
    game = get_game(game_name)
    rules = bot_rules(game_name)
    config = game.make_config({}, None)
    rng = random.Random(5)
    for state, seat in positions(game_name, 120, seed="consistent", every=2):
        view = game.view(state, seat)
        sample = rules.determinize(config, view, rng)
        assert game.view(sample, seat) == view
        assert game.to_act(sample) == game.to_act(state)
        assert game.legal_commands(sample, seat) == game.legal_commands(state, seat)


@pytest.mark.parametrize("game_name", GAMES)
def test_determinizations_redeal_the_hidden_cards(game_name: str) -> None:
    game = get_game(game_name)
    rules = bot_rules(game_name)
    config = game.make_config({}, None)
    hidden_of = HIDDEN[game_name][0]
    rng = random.Random(9)
    differing = 0
    checked = 0
    for state, seat in positions(game_name, 40, seed="redeal", every=4):
        truth = hidden_of(state, seat)
        if len(truth) < 4:
            continue
        checked += 1
        samples = [rules.determinize(config, game.view(state, seat), rng) for _ in range(5)]
        # the hidden places get the same cards overall, but not in the true places every time
        assert all(hidden_of(sample, seat) == truth for sample in samples)
        differing += any(sample != state for sample in samples)
    assert checked and differing == checked


@pytest.mark.parametrize("game_name", GAMES)
def test_ismcts_choice_ignores_the_hidden_cards(game_name: str) -> None:
    game = get_game(game_name)
    reshuffle = HIDDEN[game_name][1]
    policy = get_policy(game_name, "ismcts", iterations=24, rollout="random")
    shuffler = random.Random(3)
    for index, (state, seat) in enumerate(positions(game_name, 12, seed="ismcts-hidden", every=5)):
        other = reshuffle(state, seat, shuffler)
        assert other != state or not HIDDEN[game_name][0](state, seat)
        view = game.view(state, seat)
        assert game.view(other, seat) == view
        legal = game.legal_commands(state, seat)
        assert game.legal_commands(other, seat) == legal
        first = policy.choose(view, legal, random.Random(index))
        second = policy.choose(game.view(other, seat), game.legal_commands(other, seat), random.Random(index))
        assert first == second
        assert first in legal
