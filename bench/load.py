"""Load: N concurrent matches of random bots against one `cardgames serve` process.

    python -m bench.load --store sqlite --clients 2 --matches 500 --matches 2000 --matches 5000
    python -m bench.load --store sqlite --clients 2 --matches 2000 --soak 600

For each ``--store`` (``memory``, ``sqlite``: a fresh file, ``postgres``: a fresh database on
``--pg``, or a store URL) and each ``--matches`` level, a fresh server is started as a child
process (``--rate-limit 0``: the bots are one client machine; ``--max-in-flight`` passed on when
given, the same for every level). ``--clients`` processes each drive their share of the
concurrent matches over a few gRPC connections (bench/load_bots.py: the bots honour the
server's retry hint when it refuses a call). A finished match is replaced by a new one until
``--duration`` seconds have passed. Every loop is bounded (the duration, a move cap per match,
a deadline per call, a number of retries) and the run stops by itself.

Reported per store and level, over the measured window (after ``--warmup`` seconds): goodput
(accepted commands per second) and its ratio to the first level's, calls per second, the
server's own CPU seconds per move (utime + stime of the server process, /proc/PID/stat, so that
the client processes on the same cores do not hide its cost) and the server's and clients' CPU
use, latency of admitted calls (SubmitCommand's and all calls' p50/p99, ms, seen by the
client), refusals by code (retried), errors by code (not retried), matches finished, and the
server's resident memory (RSS): at the start of the window, at its end, its maximum (sampled
every ``--sample`` s). ``--soak SECONDS`` measures one level that long after a warm-up of 900 s
unless ``--warmup`` says otherwise (the bots arrive over its first half; a server whose matches
all began together fills up for about ten minutes, see docs/operations.md) and adds the RSS slope (MiB per minute,
least squares over the samples), the warm-up's RSS samples, and a verdict: FLAT when the growth
the slope gives over the window is within twice the samples' scatter about the line, else GROWING.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import re
import secrets
import statistics
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path

from bench.load_bots import client, run_queue_seconds

# ---------------------------------------------------------------------------
# Stores and the server.


@contextmanager
def store_url(kind: str, pg: str) -> Iterator[str]:
    """A fresh store for one run: a temp SQLite file, a fresh PostgreSQL database, or the URL given."""
    if kind == "memory":
        yield "memory:"
    elif kind == "sqlite":
        with tempfile.TemporaryDirectory(prefix="cardgames-load-") as folder:
            yield f"sqlite://{folder}/load.sqlite"
    elif kind == "postgres":
        import psycopg

        name = f"cardgames_load_{secrets.token_hex(4)}"
        with psycopg.connect(pg.rsplit("/", 1)[0] + "/postgres", autocommit=True) as admin:
            admin.execute(f'CREATE DATABASE "{name}"')
        try:
            yield pg.rsplit("/", 1)[0] + "/" + name
        finally:
            with psycopg.connect(pg.rsplit("/", 1)[0] + "/postgres", autocommit=True) as admin:
                admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    else:
        yield kind


@dataclass
class Result:
    store: str
    matches: int
    clients: int
    seconds: float
    moves: int
    moves_per_s: float
    calls_per_s: float
    submit_p50_ms: float
    submit_p99_ms: float
    submit_max_ms: float
    call_p50_ms: float
    call_p99_ms: float
    errors: dict[str, int]
    refusals: dict[str, int]
    error_details: list[str]
    #: Median milliseconds from sending to the error (or refusal), and how many, per code and method.
    error_median_ms: dict[str, float]
    #: The server's gauges sampled every --sample seconds: mean and max of each.
    server_gauges: dict[str, tuple[float, float]]
    #: Refusals by method and reason.
    refusal_reasons: dict[str, int]
    finished: int
    #: The server's CPU seconds (user + system) in the window, per move, and per second of the window.
    server_cpu_s: float
    server_cpu_ms_per_move: float
    server_cpu_use: float
    #: Seconds per second the server's threads waited for a CPU while ready to run (CPU starvation).
    server_cpu_wait: float
    #: The client processes' CPU seconds per second of their run (warmup included), and their wait for a CPU.
    clients_cpu_use: float
    clients_cpu_wait: float
    #: How late the client processes' event loops ran (ms, mean and p99 of 20 ms probes).
    clients_lag_ms: tuple[float, float]
    rss_start_mib: float
    rss_end_mib: float
    rss_max_mib: float
    rss_samples_mib: list[float]
    #: RSS slope over the window, MiB per minute (least squares).
    rss_slope_mib_per_min: float
    #: The samples' standard deviation about the least-squares line, MiB (their scatter).
    rss_scatter_mib: float = 0.0
    #: RSS sampled during the warm-up, every --sample seconds.
    rss_warmup_mib: list[float] = field(default_factory=list)
    #: Goodput over the first level's (same store, same run).
    ratio: float = 1.0


def _quantile(values: Sequence[float], q: float) -> float:
    if not values:
        return float("nan")
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[round(q * 100) - 1]


def cpu_seconds(pid: int) -> float:
    """A process's CPU seconds so far, user + system (Linux /proc/PID/stat; 0 when gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime (fields 14, 15)


#: The warm-up of a soak unless --warmup is given: the process's fill-up after N matches begin at once.
SOAK_WARMUP = 900.0
_METRICS_AT = re.compile(r"metrics on http://[^/]+:(\d+)/metrics")
#: The server's gauges sampled during a run (service/admission.py): work in hand and how late its loop runs.
GAUGES = ("cardgames_calls_in_flight", "cardgames_calls_queued", "cardgames_event_loop_lag_seconds",
          "cardgames_call_delay_seconds")


def gauges(lines: Sequence[str]) -> dict[str, float]:
    """The server's admission gauges now (empty when it serves no metrics or has no admission control)."""
    port = next((match.group(1) for line in lines if (match := _METRICS_AT.search(line))), None)
    if port is None:
        return {}
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as answer:
            text = answer.read().decode()
    except OSError:
        return {}
    found = {}
    for line in text.splitlines():
        name, _, value = line.partition(" ")
        if name in GAUGES:
            found[name] = float(value)
    return found


def _slope(samples: Sequence[tuple[float, float]]) -> float:
    """Least-squares slope of (seconds, MiB) samples, per minute."""
    if len(samples) < 2 or len({t for t, _ in samples}) < 2:
        return 0.0
    return statistics.linear_regression([t for t, _ in samples], [m for _, m in samples]).slope * 60


def _scatter(samples: Sequence[tuple[float, float]]) -> float:
    """The standard deviation of (seconds, MiB) samples about their least-squares line, MiB."""
    if len(samples) < 3 or len({t for t, _ in samples}) < 2:
        return 0.0
    line = statistics.linear_regression([t for t, _ in samples], [m for _, m in samples])
    return statistics.stdev([m - (line.intercept + line.slope * t) for t, m in samples])


def flat(result: Result) -> bool:
    """Whether the RSS the soak saw is flat: the line's growth over the window within twice the scatter."""
    return result.rss_slope_mib_per_min * result.seconds / 60 <= 2 * result.rss_scatter_mib


def run_one(kind: str, matches: int, args: argparse.Namespace) -> Result:
    from cardgames.service.spawn import spawn_server

    server_args = ["--rate-limit", "0", "--metrics", "127.0.0.1:0"]
    if args.max_in_flight is not None:
        server_args += ["--max-in-flight", str(args.max_in_flight)]
    with store_url(kind, args.pg) as url:
        env = {"CARDGAMES_SNAPSHOT_EVERY": str(args.snapshot_every)} if args.snapshot_every is not None else {}
        server = spawn_server(url, args=server_args, env=env)
        try:
            context = multiprocessing.get_context("spawn")
            out = context.Queue()
            start = time.monotonic() + 2.0  # every client starts together
            shares = [matches // args.clients + (1 if i < matches % args.clients else 0)
                      for i in range(args.clients)]
            workers = [
                context.Process(target=client, args=(server.target, share, args.game, start, args.warmup,
                                                     args.duration, args.seed + i, out))
                for i, share in enumerate(shares) if share
            ]
            for worker in workers:
                worker.start()
            warmup_rss = []
            while time.monotonic() < start + args.warmup:
                time.sleep(min(args.sample, max(0.0, start + args.warmup - time.monotonic())))
                warmup_rss.append(round(server.rss_kib() / 1024, 1))
            began = time.monotonic()
            cpu_start, queued_start = cpu_seconds(server.pid), run_queue_seconds(server.pid)
            samples = [(0.0, server.rss_kib() / 1024)]
            seen: dict[str, list[float]] = {}
            end = start + args.warmup + args.duration
            while time.monotonic() < end:
                time.sleep(min(args.sample, max(0.0, end - time.monotonic())))
                samples.append((time.monotonic() - began, server.rss_kib() / 1024))
                for name, value in gauges(server.lines).items():
                    seen.setdefault(name, []).append(value)
            cpu = cpu_seconds(server.pid) - cpu_start
            queued = run_queue_seconds(server.pid) - queued_start
            stats = [out.get(timeout=args.duration + 120) for _ in workers]
            for worker in workers:
                worker.join(60)
        finally:
            server.stop()
            log = server.log().strip()
            if log:
                print(f"server log ({kind}):\n{log[-4000:]}", file=sys.stderr)
    submit_ms = sorted(x for s in stats for x in s.submit_ms)
    call_ms = sorted(x for s in stats for x in s.call_ms)
    errors: Counter[str] = Counter()
    refusals: Counter[str] = Counter()
    error_ms: dict[str, list[float]] = {}
    why: Counter[str] = Counter()
    for s in stats:
        why.update(s.why)
        errors.update(s.errors)
        refusals.update(s.refusals)
        for code, values in s.error_ms.items():
            error_ms.setdefault(code, []).extend(values)
    moves = sum(s.moves for s in stats)
    lags = sorted(x for s in stats for x in s.lag_s)
    rss = [m for _, m in samples]
    return Result(
        store=kind if kind in ("memory", "sqlite", "postgres") else url.split(":", 1)[0],
        matches=matches, clients=len(workers), seconds=args.duration, moves=moves,
        moves_per_s=moves / args.duration, calls_per_s=sum(s.calls for s in stats) / args.duration,
        submit_p50_ms=_quantile(submit_ms, 0.50), submit_p99_ms=_quantile(submit_ms, 0.99),
        submit_max_ms=submit_ms[-1] if submit_ms else float("nan"),
        call_p50_ms=_quantile(call_ms, 0.50), call_p99_ms=_quantile(call_ms, 0.99),
        errors=dict(errors), refusals=dict(refusals), error_details=[d for s in stats for d in s.details],
        error_median_ms={f"{code} (x{len(values)})": round(statistics.median(values), 1)
                         for code, values in sorted(error_ms.items())},
        refusal_reasons=dict(why.most_common()),
        server_gauges={name.removeprefix("cardgames_"): (round(statistics.fmean(v), 3), round(max(v), 3))
                       for name, v in seen.items()},
        finished=sum(s.finished for s in stats),
        server_cpu_s=round(cpu, 2), server_cpu_ms_per_move=round(cpu * 1000 / moves, 3) if moves else float("nan"),
        server_cpu_use=round(cpu / args.duration, 2), server_cpu_wait=round(queued / args.duration, 2),
        clients_cpu_use=round(sum(s.cpu_s for s in stats) / (args.warmup + args.duration), 2),
        clients_cpu_wait=round(sum(s.cpu_wait_s for s in stats) / (args.warmup + args.duration), 2),
        clients_lag_ms=(round(statistics.fmean(lags) * 1000, 1) if lags else float("nan"),
                        round(_quantile(lags, 0.99) * 1000, 1)),
        rss_start_mib=round(rss[0], 1), rss_end_mib=round(rss[-1], 1), rss_max_mib=round(max(rss), 1),
        rss_samples_mib=[round(x, 1) for x in rss], rss_slope_mib_per_min=round(_slope(samples), 2),
        rss_scatter_mib=round(_scatter(samples), 2), rss_warmup_mib=warmup_rss,
    )


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) or "0"


def table(results: Sequence[Result]) -> str:
    head = ("| store | matches | seconds | goodput moves/s | ratio | calls/s | server CPU ms/move | server CPU use "
            "| server CPU wait | clients CPU use | clients CPU wait | submit p50 ms | submit p99 ms | call p50 ms "
            "| call p99 ms | refusals (retried) "
            "| errors | finished | RSS start MiB | RSS end MiB | RSS max MiB | RSS slope MiB/min |")
    rows = [head, "|" + "---|" * 22]
    for r in results:
        rows.append(
            f"| {r.store} | {r.matches} | {r.seconds:g} | {r.moves_per_s:.0f} | {r.ratio:.2f} | {r.calls_per_s:.0f} "
            f"| {r.server_cpu_ms_per_move:.2f} | {r.server_cpu_use:.2f} | {r.server_cpu_wait:.2f} "
            f"| {r.clients_cpu_use:.2f} | {r.clients_cpu_wait:.2f} "
            f"| {r.submit_p50_ms:.1f} | {r.submit_p99_ms:.1f} | {r.call_p50_ms:.1f} | {r.call_p99_ms:.1f} "
            f"| {_counts(r.refusals)} | {_counts(r.errors)} | {r.finished} "
            f"| {r.rss_start_mib:.0f} | {r.rss_end_mib:.0f} | {r.rss_max_mib:.0f} | {r.rss_slope_mib_per_min:+.2f} |"
        )
    return "\n".join(rows)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.load", description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, action="append",
                        help="concurrent matches (repeatable: one fresh server per level; default 100)")
    parser.add_argument("--duration", type=float, default=30.0, help="measured seconds (default 30)")
    parser.add_argument("--soak", type=float, default=None, metavar="SECONDS",
                        help="measure the first --matches level this long instead (RSS over time)")
    parser.add_argument("--warmup", type=float, default=None,
                        help="seconds before measuring (default 5; with --soak 900)")
    parser.add_argument("--store", action="append", help="memory, sqlite, postgres or a URL (repeatable)")
    parser.add_argument("--pg", default="postgresql://postgres@127.0.0.1:5432/postgres",
                        help="PostgreSQL server for --store postgres (a fresh database is made there)")
    parser.add_argument("--clients", type=int, default=min(4, os.cpu_count() or 1), help="client processes")
    parser.add_argument("--max-in-flight", type=int, default=None,
                        help="the server's --max-in-flight (default: the server's default; 0: no bound)")
    parser.add_argument("--game", default="all_fours")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--sample", type=float, default=10.0, help="seconds between RSS samples")
    parser.add_argument("--snapshot-every", type=int, default=None, help="CARDGAMES_SNAPSHOT_EVERY for the server")
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args(argv)
    levels = args.matches or [100]
    if args.soak is not None:
        levels, args.duration = levels[:1], args.soak
    if args.warmup is None:
        args.warmup = SOAK_WARMUP if args.soak is not None else 5.0
    if min(levels) < 1 or args.duration <= 0 or args.clients < 1:
        parser.error("--matches, --duration, --soak and --clients must be positive")
    results = []
    for kind in args.store or ["sqlite"]:
        first: Result | None = None
        for matches in levels:
            print(f"load: {matches} matches on {kind} for {args.warmup:g}+{args.duration:g}s "
                  f"({args.clients} client processes)...", file=sys.stderr, flush=True)
            result = run_one(kind, matches, args)
            first = first or result
            result.ratio = result.moves_per_s / first.moves_per_s if first.moves_per_s else float("nan")
            results.append(result)
            print(table([result]).splitlines()[-1], file=sys.stderr, flush=True)
    print(table(results))
    for result in results:
        for detail in result.error_details:
            print(f"error ({result.store}, {result.matches}): {detail}", file=sys.stderr)
        if result.error_median_ms:
            print(f"median ms to an error or refusal ({result.store}, {result.matches}): {result.error_median_ms}",
                  file=sys.stderr)
        print(f"client event loops' lag, mean and p99 ms ({result.store}, {result.matches}): {result.clients_lag_ms}",
              file=sys.stderr)
        if result.server_gauges:
            print(f"server gauges, mean and max ({result.store}, {result.matches}): {result.server_gauges}",
                  file=sys.stderr)
        if result.refusal_reasons:
            print(f"refusals ({result.store}, {result.matches}): {result.refusal_reasons}", file=sys.stderr)
    if args.soak is not None:
        for r in results:
            print(f"soak ({r.store}, {r.matches} matches, {r.seconds:g}s): RSS first {r.rss_start_mib} MiB, "
                  f"last {r.rss_end_mib} MiB, max {r.rss_max_mib} MiB, slope {r.rss_slope_mib_per_min:+.2f} MiB/min, "
                  f"scatter {r.rss_scatter_mib:.2f} MiB: {'FLAT' if flat(r) else 'GROWING'}; "
                  f"samples {r.rss_samples_mib}; warm-up samples {r.rss_warmup_mib}")
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in results], indent=1))
    return 0 if not any(r.errors for r in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
