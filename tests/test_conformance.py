"""Every public conformance vector in ../shared/conformance passes, and the runner reports as FORMAT.md says."""

from __future__ import annotations

import functools
import json
import subprocess
import sys
from pathlib import Path

import pytest

from cardgames.engine.core.protocol import Comparison
from cardgames.service.conformance import ScenarioFailure, compare, run_paths, run_scenario
from tests.conftest import CONFORMANCE

VECTORS = sorted(CONFORMANCE.rglob("*.json")) if CONFORMANCE.is_dir() else []


@pytest.mark.parametrize("path", VECTORS, ids=[path.stem for path in VECTORS])
def test_public_vector(path: Path) -> None:
    run_scenario(json.loads(path.read_text(encoding="utf-8")))


def test_there_are_public_vectors_for_every_game(conformance_dir: Path) -> None:
    for folder in ("all-fours", "seep", "contract-rummy"):
        assert list((conformance_dir / folder).glob("*.json")), folder


def test_runner_lines_summary_and_exit_code(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": 1, "id": "bad", "game": "no_such_game", "start": {}, "steps": []}))
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    lines: list[str] = []
    assert run_paths([tmp_path], lines.append) == 2
    assert lines[-1] == "0 passed, 2 failed"
    assert any(line.startswith("FAIL bad: scenario error: unknown game") for line in lines)
    result = subprocess.run(
        [sys.executable, "-m", "cardgames.service.conformance", str(tmp_path)], capture_output=True, text=True
    )
    assert result.returncode == 1
    assert result.stdout.strip().endswith("0 passed, 2 failed")


def test_unknown_top_level_key_is_a_scenario_error() -> None:
    with pytest.raises(ScenarioFailure, match="unknown top-level keys"):
        run_scenario({"format": 1, "id": "x", "game": "seep", "surprise": 1, "start": {}, "steps": []})


def test_partial_comparison_rules() -> None:
    actual = {
        "hands": [["AS", "2H"], []],
        "stock": ["3C", "4C"],
        "scores": [1, 2],
        "floor": {"houses": [{"value": 9, "components": [["4H", "5C"], ["9S"]], "owners": [1, 3]}]},
        "melds": [{"kind": "run", "cards": ["3H", "4H", "5H"]}, {"kind": "set", "cards": ["7H", "7S", "7D"]}],
    }
    # the rules of Seep's houses and of Contract Rummy's melds, together
    rules = Comparison(
        ordered=frozenset({"stock"}), keyed=(("houses", "value"),), groups=frozenset({"components"}),
        sets=frozenset({"owners"}), ordered_when=(("cards", "kind", "run"),),
    )
    mismatch = functools.partial(compare.mismatch, rules=rules)
    assert mismatch({"hands": [["2H", "AS"], []]}, actual) is None
    assert mismatch({"stock": ["4C", "3C"]}, actual) is not None
    house = {"value": 9, "owners": [3, 1], "components": [["9S"], ["5C", "4H"]]}
    assert mismatch({"floor": {"houses": [house]}}, actual) is None
    assert mismatch({"melds": [{"cards": ["5H", "4H", "3H"]}, {"cards": ["7D", "7S", "7H"]}]}, actual) is not None
    assert mismatch({"melds": [{"cards": ["3H", "4H", "5H"]}, {"cards": ["7D", "7S", "7H"]}]}, actual) is None
    assert mismatch({"melds": [{"kind": "run"}]}, actual) is not None  # lists of objects: same length
    assert mismatch({"scores": [2, 1]}, actual) is not None
    assert mismatch({"missing": 1}, actual) is not None
    assert mismatch({"scores": [True, 2]}, actual) is not None
