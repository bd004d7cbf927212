"""Tiny runs of bench/load.py and bench/loadtime.py: they work and stop by themselves (the real runs are in
docs/operations.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import load, loadtime
from tests.service.helpers import needs_game

pytestmark = needs_game


def test_load_runs_a_few_matches_without_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "load.json"
    code = load.main(["--matches", "4", "--duration", "2", "--warmup", "0.5", "--store", "memory",
                      "--clients", "1", "--sample", "0.5", "--json", str(out)])
    assert code == 0
    [result] = json.loads(out.read_text())
    assert result["moves"] > 0 and result["errors"] == {} and result["rss_end_mib"] > 0
    assert "| memory | 4 |" in capsys.readouterr().out


def test_loadtime_measures_a_short_log(capsys: pytest.CaptureFixture[str]) -> None:
    assert loadtime.main(["--lengths", "130", "--store", "memory", "--repeat", "1", "--every", "50"]) == 0
    table = capsys.readouterr().out
    assert "| memory |" in table
    row = next(line for line in table.splitlines() if line.startswith("| memory"))
    assert int(row.split("|")[4]) < 50 + 30  # folded at most about K events from the snapshot
