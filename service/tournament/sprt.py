"""The sequential probability ratio test for two entrants, as chess-engine testing uses it.

Given the wins, draws and losses of entrant A against entrant B, the test weighs
H0: "A is ``elo0`` Elo stronger" against H1: "A is ``elo1`` Elo stronger" and stops as
soon as the log-likelihood ratio (LLR) leaves ``(lower, upper)`` with
``lower = ln(beta / (1 - alpha))`` and ``upper = ln((1 - beta) / alpha)`` (Wald 1945):
above ``upper`` H1 is accepted, below ``lower`` H0 is.

Two Elo models:

* ``logistic`` (the default; fishtest's and fastchess's trinomial GSPRT): Elo is the
  logistic Elo of the expected score, ``score = 1 / (1 + 10 ** (-elo / 400))``. The
  likelihood of each hypothesis is that of the maximum-likelihood distribution of
  {loss, draw, win} whose expected score is the hypothesis's score (a generalized SPRT,
  Van den Bergh's ``LLR_logistic``): no draw model is assumed.
* ``bayeselo`` (OpenBench's and cutechess's SPRT): Elo in the BayesElo model, whose draw
  rate comes from a "draw Elo" estimated from the results themselves; the LLR is
  ``W ln(w1/w0) + L ln(l1/l0) + D ln(d1/d0)``.

Pure functions, no dependencies; the test vectors in tests/tournament/test_sprt.py are
published numbers from fastchess and from the jw1912/SPRT calculator.
"""

from __future__ import annotations

import math
from typing import Final, Literal

import msgspec

MODELS: Final = ("logistic", "bayeselo")
Model = Literal["logistic", "bayeselo"]
#: A count of zero is replaced by this before the logistic LLR (as fishtest's ``regularize``).
EPSILON: Final = 1e-3


class SprtResult(msgspec.Struct, frozen=True):
    """Where the test stands: the LLR, its bounds, and the decision (``H0``, ``H1`` or ``continue``)."""

    wins: int
    draws: int
    losses: int
    elo0: float
    elo1: float
    alpha: float
    beta: float
    model: str
    llr: float
    lower: float
    upper: float
    decision: str


def bounds(alpha: float = 0.05, beta: float = 0.05) -> tuple[float, float]:
    """Wald's stopping bounds ``(ln(beta / (1 - alpha)), ln((1 - beta) / alpha))``."""
    if not (0 < alpha < 1 and 0 < beta < 1):
        raise ValueError("alpha and beta are probabilities in (0, 1)")
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def elo_to_score(elo: float) -> float:
    """The expected score of a player ``elo`` Elo stronger (the logistic curve)."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def _mle_for_score(probabilities: list[float], values: list[float], score: float) -> list[float]:
    """The distribution over ``values`` nearest ``probabilities`` (in likelihood) with mean ``score``.

    It is ``p_i / (1 + lam * (v_i - score))`` with ``lam`` the root of
    ``sum p_i (v_i - score) / (1 + lam (v_i - score)) = 0`` (found by bisection: the sum
    falls as ``lam`` grows, on the interval where every denominator is positive).
    """
    low = -1.0 / (max(values) - score)
    high = 1.0 / (score - min(values))

    def slope(lam: float) -> float:
        return sum(p * (v - score) / (1.0 + lam * (v - score)) for p, v in zip(probabilities, values, strict=True))

    width = high - low
    low, high = low + width * 1e-12, high - width * 1e-12
    for _ in range(200):
        middle = (low + high) / 2
        if slope(middle) > 0:
            low = middle
        else:
            high = middle
    lam = (low + high) / 2
    return [p / (1.0 + lam * (v - score)) for p, v in zip(probabilities, values, strict=True)]


def llr_logistic(wins: int, draws: int, losses: int, elo0: float, elo1: float) -> float:
    """The GSPRT LLR of logistic ``elo1`` against ``elo0`` (trinomial, regularized counts)."""
    counts = [float(c) if c > 0 else EPSILON for c in (losses, draws, wins)]
    total = sum(counts)
    games = wins + draws + losses
    probabilities = [c / total for c in counts]
    values = [0.0, 0.5, 1.0]
    q0 = _mle_for_score(probabilities, values, elo_to_score(elo0))
    q1 = _mle_for_score(probabilities, values, elo_to_score(elo1))
    per_game = sum(p * math.log(b / a) for p, a, b in zip(probabilities, q0, q1, strict=True))
    return games * per_game


def llr_bayeselo(wins: int, draws: int, losses: int, elo0: float, elo1: float) -> float:
    """The SPRT LLR in the BayesElo model (0 until there is at least one win, draw and loss)."""
    if wins == 0 or draws == 0 or losses == 0:
        return 0.0
    games = wins + draws + losses
    win_rate, loss_rate = wins / games, losses / games
    draw_elo = 200.0 * math.log10((1.0 / win_rate - 1.0) * (1.0 / loss_rate - 1.0))

    def probabilities(elo: float) -> tuple[float, float, float]:
        win = 1.0 / (1.0 + 10.0 ** ((draw_elo - elo) / 400.0))
        loss = 1.0 / (1.0 + 10.0 ** ((draw_elo + elo) / 400.0))
        return win, 1.0 - win - loss, loss

    w0, d0, l0 = probabilities(elo0)
    w1, d1, l1 = probabilities(elo1)
    return wins * math.log(w1 / w0) + draws * math.log(d1 / d0) + losses * math.log(l1 / l0)


def llr(wins: int, draws: int, losses: int, elo0: float, elo1: float, model: Model = "logistic") -> float:
    if model == "logistic":
        return llr_logistic(wins, draws, losses, elo0, elo1)
    if model == "bayeselo":
        return llr_bayeselo(wins, draws, losses, elo0, elo1)
    raise ValueError(f"unknown Elo model {model!r}; models: {', '.join(MODELS)}")


def sprt(
    wins: int,
    draws: int,
    losses: int,
    *,
    elo0: float = 0.0,
    elo1: float = 10.0,
    alpha: float = 0.05,
    beta: float = 0.05,
    model: Model = "logistic",
) -> SprtResult:
    """The test's state after these results: H1 above the upper bound, H0 below the lower one."""
    if elo1 <= elo0:
        raise ValueError("elo1 must be above elo0")
    lower, upper = bounds(alpha, beta)
    value = llr(wins, draws, losses, elo0, elo1, model) if wins + draws + losses else 0.0
    decision = "H1" if value >= upper else "H0" if value <= lower else "continue"
    return SprtResult(wins, draws, losses, elo0, elo1, alpha, beta, model, value, lower, upper, decision)
