"""Shared test fixtures: where the shared conformance vectors live; an in-process server; the
Hypothesis profile (tests/profiles.py: ``ci`` under CI, ``dev`` by default, ``nightly`` on demand)."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from cardgames.service.server import Running, start
from cardgames.service.store import EventStore
from tests.profiles import in_ci, profile_name

settings.load_profile(profile_name())

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


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """A nightly run draws from a random seed that it prints (pytest_report_header), so that a failure
    it finds can be replayed with ``--hypothesis-seed``; runs before Hypothesis' plugin reads the seed."""
    profile = config.getoption("hypothesis_profile", None) or profile_name()
    if profile == "nightly" and config.getoption("hypothesis_seed", None) is None:
        config.option.hypothesis_seed = str(secrets.randbits(64))


def pytest_report_header(config: pytest.Config) -> str:
    seed = config.getoption("hypothesis_seed", None)
    replay = f", seed {seed} (replay: --hypothesis-seed={seed})" if seed is not None else ""
    return f"hypothesis profile {settings.get_current_profile_name()!r}{replay}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """Under CI (``CI=true``, as .ci/run runs) a skip is a failure: a missing tool or file there means a
    part of the suite did not run, which must not pass unnoticed. Outside CI a skip stays a skip."""
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    if report.skipped and in_ci() and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = f"skipped under CI, where everything the suite needs is installed: {reason}"
