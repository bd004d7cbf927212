"""The SPRT (service/tournament/sprt.py) against published test vectors.

Sources of the expected numbers (each an LLR rounded to two decimals as published):

* fastchess, ``app/tests/sprt_test.cpp`` (github.com/Disservin/fastchess): its "logistic
  trinomial" cases (fishtest's trinomial GSPRT in logistic Elo) and its "bayesian
  trinomial" cases (BayesElo), each given there as ``Stats(wins, losses, draws)`` with
  alpha = beta = 0.05 and an expected LLR checked to within 1%;
* the SPRT calculator of github.com/jw1912/SPRT (README, "Sample usage"):
  ``--wins 4307 --losses 4063 --draws 8620 --elo0 0 --elo1 3`` prints
  ``LLR: 2.47 (-2.94, 2.94)`` and "Continue Playing" (OpenBench's BayesElo SPRT).
"""

from __future__ import annotations

import pytest

from cardgames.service.tournament.sprt import bounds, elo_to_score, llr_bayeselo, llr_logistic, sprt

# (wins, losses, draws, elo0, elo1, published LLR)
FASTCHESS_LOGISTIC = [
    (21404, 21184, 40708, 0.5, 2.5, -1.57),
    (57433, 57030, 106593, 0.0, 2.0, -2.59),
]
FASTCHESS_BAYESIAN = [
    (68965, 68526, 128429, 0.0, 2.0, -1.26),
    (21629, 21484, 41111, 0.5, 2.5, -1.13),
]


@pytest.mark.parametrize(("wins", "losses", "draws", "elo0", "elo1", "expected"), FASTCHESS_LOGISTIC)
def test_logistic_gsprt_matches_fastchess(wins: int, losses: int, draws: int, elo0: float, elo1: float,
                                          expected: float) -> None:
    assert llr_logistic(wins, draws, losses, elo0, elo1) == pytest.approx(expected, rel=0.01)


@pytest.mark.parametrize(("wins", "losses", "draws", "elo0", "elo1", "expected"), FASTCHESS_BAYESIAN)
def test_bayeselo_sprt_matches_fastchess(wins: int, losses: int, draws: int, elo0: float, elo1: float,
                                         expected: float) -> None:
    assert llr_bayeselo(wins, draws, losses, elo0, elo1) == pytest.approx(expected, rel=0.01)


def test_bayeselo_sprt_matches_the_jw1912_calculator() -> None:
    result = sprt(4307, 8620, 4063, elo0=0, elo1=3, model="bayeselo")
    assert round(result.llr, 2) == 2.47
    assert (round(result.lower, 2), round(result.upper, 2)) == (-2.94, 2.94)
    assert result.decision == "continue"


def test_bounds_and_decisions() -> None:
    assert bounds(0.05, 0.05) == pytest.approx((-2.944, 2.944), abs=1e-3)
    assert bounds(0.05, 0.10) == pytest.approx((-2.251, 2.890), abs=1e-3)
    assert sprt(900, 0, 100, elo0=0, elo1=10).decision == "H1"
    assert sprt(100, 0, 900, elo0=0, elo1=10).decision == "H0"
    assert sprt(0, 0, 0).decision == "continue" and sprt(0, 0, 0).llr == 0.0
    with pytest.raises(ValueError):
        sprt(1, 1, 1, elo0=5, elo1=5)


def test_llr_is_antisymmetric_in_swapping_sides_and_hypotheses() -> None:
    assert llr_logistic(30, 40, 20, 0, 10) == pytest.approx(-llr_logistic(20, 40, 30, -10, 0), rel=1e-6)
    assert elo_to_score(0) == 0.5 and elo_to_score(400) == pytest.approx(10 / 11)
