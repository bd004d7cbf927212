"""Every public All Fours vector (../shared/conformance/all-fours) passes through cardgames.service.conformance."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cardgames.service.conformance import run_scenario
from tests.conftest import CONFORMANCE

VECTORS = sorted((CONFORMANCE / "all-fours").glob("*.json"))


def test_the_public_vectors_are_there() -> None:
    if not CONFORMANCE.is_dir():  # a clone on its own: the project's own vectors (tests/vectors) still run
        pytest.skip(f"the public conformance vectors are not checked out beside the project: {CONFORMANCE}")
    assert len(VECTORS) >= 32


@pytest.mark.parametrize("path", VECTORS, ids=[path.stem for path in VECTORS])
def test_all_fours_vector(path: Path) -> None:
    run_scenario(json.loads(path.read_text(encoding="utf-8")))
