"""Significance of a head-to-head result: the exact two-sided binomial (sign) test, and a Wilson interval."""

from __future__ import annotations

import math

import msgspec


class Significance(msgspec.Struct, frozen=True):
    """``successes`` out of ``trials`` decisive games, tested against even chances."""

    successes: int
    trials: int
    p_value: float  #: two-sided, exact
    low: float  #: 95% Wilson interval of the success rate
    high: float

    @property
    def verdict(self) -> str:
        """``better`` / ``worse`` at the 5% level, else ``no significant difference``."""
        if self.trials and self.p_value < 0.05:
            return "better" if 2 * self.successes > self.trials else "worse"
        return "no significant difference"


def binomial_p_value(successes: int, trials: int) -> float:
    """Two-sided exact binomial test of ``successes`` in ``trials`` against p = 1/2."""
    if trials == 0:
        return 1.0
    k = min(successes, trials - successes)
    tail = sum(math.comb(trials, i) for i in range(k + 1))
    # p = 1/2 is symmetric: the two-sided p-value is twice the smaller tail (capped at 1)
    return min(1.0, 2 * tail / 2**trials)


def wilson_interval(successes: int, trials: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion (95% by default)."""
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def binomial_test(successes: int, failures: int) -> Significance:
    trials = successes + failures
    low, high = wilson_interval(successes, trials)
    return Significance(successes, trials, binomial_p_value(successes, trials), low, high)
