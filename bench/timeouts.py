"""Lateness of timeout events: how long after a seat's deadline its timeout is in the log.

``python -m bench.run --only clocks.lateness`` (or ``python -m bench.timeouts [--games N] [--store sqlite]``).

The service's application layer and its table clocks (service/table_clocks.py) in this process,
on a SQLite file in a temporary folder (``clocks.lateness``) or the in-memory store
(``clocks.lateness.memory``, info). Each sample creates 500 games (``--quick``: 200), a third of
each game (All Fours, Seep, Contract Rummy), all with a time control whose move limit ends six
to seven seconds after the first is created (creating them takes a few seconds; the deadlines
are spread evenly over that last second: 500 deadlines a second) and ``on_timeout`` FORFEIT;
nobody plays. The real timer writes every timeout; a game's lateness is the server's time when
the timer decided the timeout (the time its batch's clock mark records, to the millisecond)
minus the seat's deadline: event time minus deadline. Figures: p50 and p99 over the games of a
sample, the median over samples; the target is p99 <= 50 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.harness import Context, Probe, Settings, load_average, measure, percentile
from bench.report import Row, fmt

GAMES = ("all_fours", "seep", "contract_rummy")
#: Clocked games per sample.
COUNT = 500
COUNT_QUICK = 200
#: The first deadline comes this long after the first game is created (after the last one is, too: creating
#: 500 games takes a few seconds), the others over the next SPREAD_MS.
LEAD_MS = 6_000
SPREAD_MS = 1_000
TARGET_P99_MS = 50.0
#: A smoke run's (Settings.heavy off) games and lead.
SMOKE_COUNT = 12
SMOKE_LEAD_MS = 400


async def lateness(count: int, store_url: str, lead_ms: int = LEAD_MS, spread_ms: int = SPREAD_MS) -> dict[str, float]:
    """Create ``count`` clocked games nobody plays; the figures of their timeouts' lateness (ms)."""
    from cardgames.service.games import Games
    from cardgames.service.store import EventStore
    from cardgames.service.table_clocks import TableClocks

    games = Games(EventStore.from_url(store_url))
    clocks = TableClocks(games, scan_every=0)
    try:
        await clocks.start()
        start = games.now_ms()
        created = []
        for index in range(count):
            # the deadline is measured from creation: aim each game's at start + LEAD + its share of SPREAD
            aim = start + lead_ms + spread_ms * index // count
            move_ms = max(100, aim - games.now_ms())
            made = await games.create(
                GAMES[index % len(GAMES)], time_control={"move_ms": move_ms, "on_timeout": "forfeit"}
            )
            created.append(made.game_id)
        setup_ms = games.now_ms() - start
        limit = time.monotonic() + (lead_ms + spread_ms) / 1000 + 30
        while len(clocks.timeouts) < count and time.monotonic() < limit:
            await asyncio.sleep(0.05)
        late = [decided - deadline for _, _, deadline, decided in clocks.timeouts]
        if len(late) < count:
            raise RuntimeError(f"only {len(late)} of {count} timeouts were written")
        return {
            "p50_ms": percentile(late, 0.50),
            "p99_ms": percentile(late, 0.99),
            "max_ms": max(late),
            "games": float(count),
            "setup_ms": float(setup_ms),
        }
    finally:
        await clocks.close()
        await games.close()


class LatenessProbe(Probe):
    """One sample: ``count`` clocked games, every one timing out once."""

    name = "clocks.lateness"

    def __init__(self, store: str = "sqlite", count: int | None = None) -> None:
        self.store = store
        self.name = "clocks.lateness" if store == "sqlite" else f"clocks.lateness.{store}"
        self.given = count
        self.count = count or COUNT
        self.lead_ms = LEAD_MS
        self.loads: list[float | None] = []
        self._folder: tempfile.TemporaryDirectory[str] | None = None
        self._samples = 0

    def setup(self, ctx: Context) -> None:
        if self.given is None:
            self.count = COUNT if ctx.settings.heavy and ctx.settings.budget >= 1.0 else COUNT_QUICK
        if not ctx.settings.heavy:  # a smoke run: a few games, soon due
            self.count, self.lead_ms = self.given or SMOKE_COUNT, SMOKE_LEAD_MS
        self._folder = tempfile.TemporaryDirectory(prefix="cardgames-bench-clocks-")

    def _url(self) -> str:
        if self.store != "sqlite":
            return "memory:"
        assert self._folder is not None
        self._samples += 1
        return f"sqlite:///{Path(self._folder.name) / f'clocks-{self._samples}.sqlite'}"

    def sample(self, ctx: Context) -> dict[str, float]:
        figures = ctx.run(lateness(self.count, self._url(), self.lead_ms))
        self.loads.append(load_average())
        return figures

    def teardown(self, ctx: Context) -> None:
        if self._folder is not None:
            self._folder.cleanup()

    def info(self) -> dict[str, Any]:
        store = "SQLite file" if self.store == "sqlite" else "in-memory store"
        loads = sorted(load for load in self.loads if load is not None)
        return {
            "games": f"{self.count} clocked games, {SPREAD_MS} ms of deadlines",
            "store": store,
            "load": loads[len(loads) // 2] if loads else None,
        }


def lateness_rows(name: str, label: str, judged: bool) -> Any:
    """The table's rows of a lateness probe: p50 (info) and p99 against the 50 ms target."""

    def rows(results: Any) -> list[Row]:
        result = results[name]
        if not result.ok:
            why = result.unavailable or result.error
            return [Row(f"{label} p99", None, "ms", target="<= 50 ms", verdict="error", note=str(why))]
        medians = result.medians
        note = (
            f"{result.info.get('games', '')}, {result.info.get('store', '')}; load average "
            f"{fmt(result.info.get('load'))} during the samples"
        )
        p99 = medians["p99_ms"]
        ratio = p99 / TARGET_P99_MS
        verdict = ("met" if ratio <= 1 else f"MISSED ({ratio:,.2f} of target)") if judged else "info"
        return [
            Row(f"{label} p50", medians["p50_ms"], "ms", verdict="info", note=note),
            Row(
                f"{label} p99",
                p99,
                "ms",
                f"target {TARGET_P99_MS:g} ms",
                ratio,
                "<= 1x" if judged else "",
                verdict,
                note,
            ),
        ]

    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=COUNT)
    parser.add_argument("--store", choices=("sqlite", "memory"), default="sqlite")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    probe = LatenessProbe(args.store, args.games)
    results = measure([probe], Settings(repeats=args.repeats), lambda line: print(line, file=sys.stderr))
    result = results[probe.name]
    if not result.ok:
        print(f"{probe.name}: {result.unavailable or result.error}", file=sys.stderr)
        return 1
    medians = result.medians
    print(
        f"{probe.name}: {int(medians['games'])} games, lateness p50 {medians['p50_ms']:.1f} ms, "
        f"p99 {medians['p99_ms']:.1f} ms (target <= {TARGET_P99_MS:g} ms), max {medians['max_ms']:.1f} ms"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
