"""The project's own conformance vectors (tests/vectors/<game>/*.json, FORMAT.md's format).

Written against the rules files by hand, beside the public vectors: each option of every
game's configuration table at a non-default value, the resolved ambiguities, scoring edge
cases and rejection precedence that the public vectors leave out. ``cardgames conformance
tests/vectors`` runs them from the command line too.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cardgames.service.conformance import run_scenario

FOLDER = Path(__file__).parent / "vectors"
VECTORS = sorted(FOLDER.rglob("*.json"))


@pytest.mark.parametrize("path", VECTORS, ids=[path.stem for path in VECTORS])
def test_project_vector(path: Path) -> None:
    run_scenario(json.loads(path.read_text(encoding="utf-8")))


def test_every_game_has_project_vectors_with_distinct_ids() -> None:
    for folder in ("all-fours", "seep", "contract-rummy"):
        assert len(list((FOLDER / folder).glob("*.json"))) >= 50, folder
    ids = [json.loads(path.read_text(encoding="utf-8"))["id"] for path in VECTORS]
    assert len(ids) == len(set(ids))
