"""The in-process arena: rotated seats, paired seeds, deterministic records; the significance test."""

from __future__ import annotations

import pytest

from cardgames.engine.bots import KINDS, get_policy
from cardgames.engine.bots.arena import compare, match_seed, run_arena, seatings
from cardgames.engine.bots.stats import binomial_p_value, binomial_test, wilson_interval
from tests.bots.test_policies import GAMES


def test_seatings_rotate_the_entrants() -> None:
    assert seatings(["a", "b"], 4) == [("a", "b", "a", "b"), ("b", "a", "b", "a")]
    assert seatings(["a", "b"], 2) == [("a", "b"), ("b", "a")]
    assert seatings(["a", "b", "c"], 3) == [("a", "b", "c"), ("b", "c", "a"), ("c", "a", "b")]


def test_match_seeds_are_32_byte_hex_and_differ() -> None:
    seeds = {match_seed("base", deal) for deal in range(10)}
    assert len(seeds) == 10
    assert all(len(seed) == 64 and int(seed, 16) >= 0 for seed in seeds)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("game_name", GAMES)
def test_a_short_arena_run_finishes(game_name: str, kind: str) -> None:
    budget = {"iterations": 8} if kind == "ismcts" else {}
    entrants = {kind: get_policy(game_name, kind, **budget), "random": get_policy(game_name, "random")}
    if kind == "random":
        entrants = {"random": get_policy(game_name, "random"), "other": get_policy(game_name, "random")}
    records = run_arena(game_name, entrants, deals=1, base_seed=f"short-{kind}")
    assert len(records) == 2
    first, second = records
    assert first.seed == second.seed and first.deal == second.deal == 0
    assert [first.seating, second.seating] == seatings(list(entrants), len(first.places))
    for record in records:
        assert record.decisions > 0
        assert min(record.places) == 0
    names = list(entrants)
    comparison = compare(records, names[0], names[1])
    assert comparison.wins + comparison.losses + comparison.ties == 2
    assert comparison.pairs == 1


def test_arena_is_deterministic() -> None:
    def run() -> list:
        entrants = {"heuristic": get_policy("all_fours", "heuristic"), "random": get_policy("all_fours", "random")}
        return run_arena("all_fours", entrants, deals=3, base_seed="same")

    assert run() == run()


def test_heuristic_beats_random_at_all_fours() -> None:
    entrants = {"heuristic": get_policy("all_fours", "heuristic"), "random": get_policy("all_fours", "random")}
    comparison = compare(run_arena("all_fours", entrants, deals=60, base_seed="test"), "heuristic", "random")
    assert comparison.win_rate > 0.6
    assert comparison.per_match.verdict == "better"


def test_binomial_p_values() -> None:
    assert binomial_p_value(0, 0) == 1.0
    assert binomial_p_value(5, 10) == 1.0
    assert binomial_p_value(9, 10) == pytest.approx(22 / 1024)
    assert binomial_p_value(1, 10) == pytest.approx(22 / 1024)
    assert binomial_p_value(10, 10) == pytest.approx(2 / 1024)
    assert binomial_p_value(60, 100) == pytest.approx(0.056887, abs=1e-5)


def test_wilson_interval_and_verdicts() -> None:
    low, high = wilson_interval(60, 100)
    assert low == pytest.approx(0.5020, abs=1e-3) and high == pytest.approx(0.6906, abs=1e-3)
    assert binomial_test(70, 30).verdict == "better"
    assert binomial_test(30, 70).verdict == "worse"
    assert binomial_test(55, 45).verdict == "no significant difference"
