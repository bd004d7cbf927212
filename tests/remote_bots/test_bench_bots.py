"""Smoke test of bench/bots.py: every probe runs and gives its figures."""

from __future__ import annotations

from bench.bots import PROBES
from bench.harness import Settings, measure


def test_the_bot_benchmarks_run() -> None:
    results = measure([probe() for probe in PROBES], Settings(budget=0.05, repeats=1, heavy=False))
    assert all(result.ok for result in results.values()), {r.name: r.error for r in results.values()}
    assert results["bots.remote"].medians["matches_per_min"] > 0
    assert results["bots.tournament"].medians["matches_per_min"] > 0
    decision = results["bots.decision"].medians
    assert decision["protocol_us"] > decision["engine_us"] > 0
