"""Smoke test of bench/memory.py: a few matches on real ``cardgames serve`` children, every figure out.

No figure is asserted but what must hold whatever the machine: the evicting server held no game
once its matches were idle, and the JSON has a row per game with every figure.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.memory import heap_per_match, main


def test_memory_bench_measures_idle_active_and_evicted_matches(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "memory.json"
    assert main(["--games", "all_fours", "--matches", "5", "--moves", "2", "--idle", "0.3", "--json", str(out)]) == 0
    [row] = json.loads(out.read_text())
    assert row["game"] == "all_fours" and row["matches"] == 5 and row["live_after_eviction"] == 0
    assert row["rss_start_mib"] > 0 and row["rss_active_mib"] > 0 and row["rss_reused_mib"] > 0
    assert "| all_fours | 5 |" in capsys.readouterr().out


def test_the_python_objects_of_idle_matches_are_measured() -> None:
    heaps = heap_per_match(["seep"], 20)
    assert list(heaps) == ["seep"] and heaps["seep"] > 0
