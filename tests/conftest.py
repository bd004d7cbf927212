"""Shared test fixtures: where the shared conformance vectors live; an in-process server."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from cardgames.service.server import Running, start
from cardgames.service.store import EventStore

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
CONFORMANCE = SHARED / "conformance"


@pytest.fixture(scope="session")
def conformance_dir() -> Path:
    if not CONFORMANCE.is_dir():  # a clone on its own: the project's own vectors still run
        pytest.skip(f"the public conformance vectors are not checked out beside the project: {CONFORMANCE}")
    return CONFORMANCE


@pytest.fixture
async def server() -> AsyncIterator[Running]:
    """A server on port 0 with an in-memory store and no limits (a module may have its own ``server``)."""
    running = await start("127.0.0.1:0", EventStore.from_url("memory:"))
    yield running
    await running.stop(grace=None)


def pytest_sessionstart(session: pytest.Session) -> None:
    """Stop at once when compiled engine modules are older than their sources (setup.py)."""
    from cardgames.service.native import REINSTALL, native_build

    build = native_build()
    if build.stale:
        pytest.exit(f"compiled engine modules do not match their sources: {', '.join(build.stale)}; {REINSTALL}", 2)


def _in_ci() -> bool:
    return os.environ.get("CI", "").lower() in {"1", "true", "yes"}


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """Under CI (``CI=true``, as .ci/run runs) a skip is a failure: a missing tool or file there means a
    part of the suite did not run, which must not pass unnoticed. Outside CI a skip stays a skip."""
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    if report.skipped and _in_ci() and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = f"skipped under CI, where everything the suite needs is installed: {reason}"
