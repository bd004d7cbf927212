"""The measuring machinery: probes, interleaved rounds, medians, machine facts.

A :class:`Probe` measures one thing. ``sample()`` does a time-boxed amount of work
(whole games, whole replays, a run of round trips) and returns its figures; the
runner calls every selected probe once per round, for several rounds, so that the
anchors and the figures compared with them are measured side by side, and keeps
the median of each figure over the rounds.
"""

from __future__ import annotations

import asyncio
import gc
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Coroutine, Iterable, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any, TypeVar

from cardgames.service.native import native_build

T = TypeVar("T")

REPO = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Settings:
    """How much work each sample does and how many rounds are run."""

    budget: float = 1.0  #: seconds of work per sample (whole units: a sample may run over)
    repeats: int = 5  #: rounds; every figure is the median over them
    seed: int = 20261129  #: seeds the benchmark's own random.Random instances
    #: the real sizes: worst cases of seconds per call, the long log (off for smoke tests)
    heavy: bool = True

    @classmethod
    def quick(cls) -> Settings:
        return cls(budget=0.25, repeats=3)


class Unavailable(Exception):
    """The thing a probe measures does not exist yet (a game package, the store, the server)."""


class Context:
    """What probes share during one run: settings, one event loop, cached artefacts."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._loop: asyncio.AbstractEventLoop | None = None
        self._cache: dict[str, Any] = {}

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        """One event loop for every asynchronous probe (gRPC aio binds to a loop)."""
        if self._loop is None:
            self._loop = asyncio.new_event_loop()
        return self._loop

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        return self.loop.run_until_complete(coroutine)

    def cached(self, key: str, build: Callable[[], T]) -> T:
        """``build()`` once per run; later calls (and exceptions) are remembered."""
        if key not in self._cache:
            try:
                self._cache[key] = build()
            except Exception as error:
                self._cache[key] = error
        value = self._cache[key]
        if isinstance(value, Exception):
            raise value
        return value

    def close(self) -> None:
        if self._loop is not None:
            self._loop.run_until_complete(self._loop.shutdown_asyncgens())
            self._loop.close()
            self._loop = None


class Probe:
    """One measured thing. Subclasses set ``name`` and implement ``sample``."""

    name: str = ""
    #: probes whose figures this probe's rows compare against (selected with it by --only)
    anchors: tuple[str, ...] = ()

    def setup(self, ctx: Context) -> None:
        """Prepare (raise :class:`Unavailable` when the measured code does not exist)."""

    def sample(self, ctx: Context) -> dict[str, float]:
        """Do one time-boxed run of work and return its figures."""
        raise NotImplementedError

    def teardown(self, ctx: Context) -> None:
        """Release what ``setup`` took."""

    def info(self) -> dict[str, Any]:
        """Facts about the measured work (sizes, counts) for the report."""
        return {}


@dataclass
class Result:
    """A probe's outcome: medians of its figures over the rounds, or why it has none."""

    name: str
    medians: dict[str, float] = field(default_factory=dict)
    samples: dict[str, list[float]] = field(default_factory=dict)
    info: dict[str, Any] = field(default_factory=dict)
    unavailable: str | None = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.unavailable is None and self.error is None

    def get(self, key: str) -> float | None:
        return self.medians.get(key) if self.ok else None


#: The clock of CPU-bound figures: CPU time of the measuring thread (user + system), so
#: that other processes on a shared machine do not count; equal to wall time on an idle one.
cpu_clock = time.thread_time


def timed_loop(budget: float, unit: Callable[[], T]) -> tuple[float, list[T]]:
    """Run ``unit()`` (one whole unit of work) until ``budget`` wall-clock seconds have passed.

    Returns the CPU time the units took (:data:`cpu_clock`) and each unit's return value;
    at least one unit runs.
    """
    wall = time.perf_counter
    outcomes: list[T] = []
    start_wall, start_cpu = wall(), cpu_clock()
    while True:
        outcomes.append(unit())
        if wall() - start_wall >= budget:
            return cpu_clock() - start_cpu, outcomes


def percentile(values: Sequence[float], fraction: float) -> float:
    """The ``fraction`` quantile of ``values`` (nearest rank on the sorted values)."""
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


def latency_figures(latencies: Sequence[float]) -> dict[str, float]:
    """p50 and p99 in microseconds and round trips per second (sequential calls)."""
    return {
        "p50_us": percentile(latencies, 0.50) * 1e6,
        "p99_us": percentile(latencies, 0.99) * 1e6,
        "per_s": len(latencies) / sum(latencies),
    }


def measure(
    probes: Sequence[Probe],
    settings: Settings,
    progress: Callable[[str], None] = lambda message: None,
) -> dict[str, Result]:
    """Set up every probe, run the interleaved rounds, tear down; one Result per probe."""
    ctx = Context(settings)
    results: dict[str, Result] = {probe.name: Result(probe.name) for probe in probes}
    live: list[Probe] = []
    try:
        for probe in probes:
            result = results[probe.name]
            progress(f"setup {probe.name}")
            try:
                probe.setup(ctx)
            except Unavailable as why:
                result.unavailable = str(why)
                progress(f"  {probe.name}: not available ({why})")
                continue
            except Exception as error:
                result.error = f"{type(error).__name__}: {error}"
                progress(f"  {probe.name}: setup failed ({result.error})")
                continue
            live.append(probe)
        for round_no in range(1, settings.repeats + 1):
            for probe in list(live):
                result = results[probe.name]
                gc.collect()  # no probe pays for another's garbage
                try:
                    figures = probe.sample(ctx)
                except Exception as error:
                    result.error = f"{type(error).__name__}: {error}"
                    progress(f"  {probe.name}: failed ({result.error})")
                    live.remove(probe)
                    continue
                for key, value in figures.items():
                    result.samples.setdefault(key, []).append(value)
                progress(f"round {round_no}/{settings.repeats} {probe.name}: {_brief(figures)}")
        for probe in probes:
            result = results[probe.name]
            if result.ok:
                result.medians = {key: statistics.median(values) for key, values in result.samples.items()}
                result.info = probe.info()
    finally:
        for probe in live:
            try:
                probe.teardown(ctx)
            except Exception as error:  # a failed teardown must not hide the figures
                progress(f"  {probe.name}: teardown failed ({type(error).__name__}: {error})")
        ctx.close()
    return results


def _brief(figures: dict[str, float]) -> str:
    return ", ".join(f"{key}={value:,.4g}" for key, value in figures.items())


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _versions(names: Iterable[str]) -> dict[str, str]:
    found = {}
    for name in names:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = "not installed"
    return found


def _commit() -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True, timeout=5
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return out.stdout.strip() or "unknown"


def load_average() -> float | None:
    """The 1-minute load average (other work on the machine skews every figure), if known."""
    try:
        return round(os.getloadavg()[0], 2)
    except (AttributeError, OSError):
        return None


def machine_facts() -> dict[str, Any]:
    """CPU model, cores, Python, the load, the versions of the measured libraries and the engine's build."""
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count() or 0
    return {
        "cpu": _cpu_model(),
        "cores": os.cpu_count() or 0,
        "usable_cores": usable,
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "platform": platform.platform(terse=True),
        "executable": sys.executable,
        "commit": _commit(),
        "load_at_start": load_average(),
        "versions": _versions(["msgspec", "eventsourcing", "grpcio", "protobuf", "rlcard", "numpy"]),
        "engine_build": native_build().describe(),
    }
