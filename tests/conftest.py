"""Shared test fixtures: where the shared conformance vectors live."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
CONFORMANCE = SHARED / "conformance"


@pytest.fixture(scope="session")
def conformance_dir() -> Path:
    if not CONFORMANCE.is_dir():  # a clone on its own: the project's own vectors still run
        pytest.skip(f"the public conformance vectors are not checked out beside the project: {CONFORMANCE}")
    return CONFORMANCE


def pytest_sessionstart(session: pytest.Session) -> None:
    """Stop at once when compiled engine modules are older than their sources (setup.py)."""
    from service.native import REINSTALL, native_build

    build = native_build()
    if build.stale:
        pytest.exit(f"compiled engine modules do not match their sources: {', '.join(build.stale)}; {REINSTALL}", 2)
