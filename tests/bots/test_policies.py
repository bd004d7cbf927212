"""Every bot answers with one of the legal commands it was given, in many random positions of every game."""

from __future__ import annotations

import random

import pytest

from cardgames.engine.bots import KINDS, get_policy
from cardgames.engine.bots.policy import BotsUnavailable, bot_rules
from cardgames.engine.core.registry import available_games, get_game
from tests.bots.helpers import positions


def _games_with_bots() -> list[str]:
    games = []
    for name in available_games():
        try:
            bot_rules(name)
        except BotsUnavailable:
            continue
        games.append(name)
    return games


GAMES = _games_with_bots()
COUNTS = {"random": 300, "heuristic": 300, "ismcts": 30}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("game_name", GAMES)
def test_policy_returns_a_legal_command(game_name: str, kind: str) -> None:
    game = get_game(game_name)
    budget = {"iterations": 16} if kind == "ismcts" else {}
    policy = get_policy(game_name, kind, **budget)
    rng = random.Random(kind)
    for state, seat in positions(game_name, COUNTS[kind], seed=f"legal-{kind}", every=2):
        legal = game.legal_commands(state, seat)
        choice = policy.choose(game.view(state, seat), legal, rng)
        assert choice in legal, f"{kind} chose {choice!r} outside {legal!r}"


@pytest.mark.parametrize("game_name", GAMES)
def test_ismcts_with_heuristic_rollouts_and_ucb_root_returns_legal_commands(game_name: str) -> None:
    game = get_game(game_name)
    policy = get_policy(game_name, "ismcts", iterations=12, rollout="heuristic", root="ucb")
    rng = random.Random(1)
    for state, seat in positions(game_name, 15, seed="legal-ucb", every=3):
        legal = game.legal_commands(state, seat)
        assert policy.choose(game.view(state, seat), legal, rng) in legal


def test_ismcts_time_budget_uses_the_given_clock() -> None:
    game = get_game("all_fours")
    ticks = iter(range(1_000_000))
    policy = get_policy("all_fours", "ismcts", iterations=None, time_limit=5.0, clock=lambda: float(next(ticks)))
    state, seat = next(iter(positions("all_fours", 1, seed="clock")))
    legal = game.legal_commands(state, seat)
    assert policy.choose(game.view(state, seat), legal, random.Random(0)) in legal
    assert 0 < policy.last_iterations <= 5 * len(legal)  # type: ignore[attr-defined]


def test_budget_errors() -> None:
    with pytest.raises(ValueError, match="budget"):
        get_policy("all_fours", "ismcts", iterations=None)
    with pytest.raises(ValueError, match="clock"):
        get_policy("all_fours", "ismcts", time_limit=1.0)
    with pytest.raises(ValueError, match="only the ismcts"):
        get_policy("all_fours", "heuristic", iterations=3)
    with pytest.raises(ValueError, match="unknown bot kind"):
        get_policy("all_fours", "clever")


def test_contract_rummy_meld_potential_counts_sets_runs_and_jokers() -> None:
    from cardgames.engine.contract_rummy.heuristic import meld_potential

    hand = ["7S", "7H", "7D", "7C", "KS", "KH", "2S", "JK"]
    assert meld_potential(hand, 2, 0, 3) == 1 + 3 + 2  # the joker, three 7s (of four), two kings
    # runs of 3: spades A-2-3 window holds 2S (and the ace is both low and high: QS KS AS)
    assert meld_potential(["QS", "KS", "AS", "3H"], 0, 1, 3) == 3
    assert meld_potential(["AS", "2S", "3S", "3H"], 0, 2, 3) == 3 + 1
    assert meld_potential(["AS", "2S", "3S", "3H"], 0, 2, 4) == 3 + 1
    assert meld_potential([], 1, 2, 3) == 0
