"""The code stays ruff- and mypy-clean: the same checks a reviewer runs."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
#: protos/cardgames is the import package: the wire code and, through links, engine/, service/ and clients/.
PACKAGES = ["protos/cardgames", "bench", "setup.py"]
#: ruff does not follow links: it reads engine/, service/ and clients/ where they are.
LINTED = ["engine", "service", "clients", *PACKAGES]


def _tool(name: str) -> str:
    local = Path(sys.executable).parent / name
    found = str(local) if local.exists() else shutil.which(name)
    assert found, f"{name} is not installed (pip install -e '.[dev]')"
    return found


def test_ruff_is_clean() -> None:
    result = subprocess.run(
        [_tool("ruff"), "check", *LINTED, "tests"], cwd=REPO, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_is_clean() -> None:
    targets = [package for package in [*PACKAGES, "tests"] if (REPO / package).exists()]
    result = subprocess.run(
        [_tool("mypy"), *targets], cwd=REPO, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr
