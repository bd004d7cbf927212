"""Load: N concurrent matches of random bots against one `cardgames serve` process.

    python -m bench.load --matches 500 --duration 120 --store sqlite --store postgres

For each ``--store`` (``memory``, ``sqlite``: a fresh file, ``postgres``: a fresh database on
``--pg``, or a store URL) a server is started as a child process (``--rate-limit 0``; the
bots are one client). ``--clients`` processes each drive their share of the ``--matches``
concurrent matches over a few gRPC connections. A bot is a thin remote client: per move it
calls GetView (who is to act), ListLegalCommands (that seat's token) and SubmitCommand
(a random legal command with ``expected_sequence``); a finished match is replaced by a new
one until ``--duration`` seconds have passed. Every loop is bounded (the duration, a move
cap per match, a deadline per call) and the run stops by itself.

Reported per store, over the measured window (after ``--warmup`` seconds): moves per second,
calls per second, SubmitCommand latency p50/p99 and all calls' p50/p99 (ms, seen by the
client), errors by status code, matches finished, and the server's resident memory (RSS)
at the start of the window, at its end and its maximum (sampled every ``--sample`` s).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import secrets
import statistics
import sys
import tempfile
import time
from array import array
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

#: A match longer than this many moves is abandoned (a bound, never reached by the games here).
MOVE_CAP = 20_000
#: Deadline of every call, seconds.
CALL_DEADLINE = 30.0
#: Matches per gRPC connection within a client process.
MATCHES_PER_CHANNEL = 50


# ---------------------------------------------------------------------------
# The bots (in client processes).


@dataclass
class ClientStats:
    moves: int = 0
    calls: int = 0
    finished: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    details: list[str] = field(default_factory=list)
    submit_ms: array = field(default_factory=lambda: array("d"))
    call_ms: array = field(default_factory=lambda: array("d"))


async def _bots(target: str, matches: int, game: str, start: float, warmup: float, duration: float,
                seed: int) -> ClientStats:
    import grpc

    from cardgames.service.grpc_api import TOKEN_METADATA
    from cardgames.v1 import game_service_pb2 as pb
    from cardgames.v1 import game_service_pb2_grpc

    stats = ClientStats()
    errors: Counter[str] = Counter()
    measure_from, stop_at = start + warmup, start + warmup + duration
    channels = [
        grpc.aio.insecure_channel(target, options=[("grpc.use_local_subchannel_pool", 1)])
        for _ in range(max(1, -(-matches // MATCHES_PER_CHANNEL)))
    ]
    stubs = [game_service_pb2_grpc.GameServiceStub(channel) for channel in channels]

    async def call(method: Any, request: Any, token: str | None = None, submit: bool = False) -> Any:
        began = time.monotonic()
        metadata = ((TOKEN_METADATA, token),) if token else None
        reply = await method(request, metadata=metadata, timeout=CALL_DEADLINE)
        ended = time.monotonic()
        if began >= measure_from and ended <= stop_at:
            stats.calls += 1
            stats.call_ms.append((ended - began) * 1000)
            if submit:
                stats.moves += 1
                stats.submit_ms.append((ended - began) * 1000)
        return reply

    async def bot(index: int) -> None:
        rng = random.Random(seed * 1_000_003 + index)
        stub = stubs[index % len(stubs)]
        while time.monotonic() < stop_at:
            try:
                created = await call(stub.CreateGame, pb.CreateGameRequest(game=game))
                game_id, tokens = created.game_id, list(created.seat_tokens)
                for _ in range(MOVE_CAP):
                    if time.monotonic() >= stop_at:
                        return
                    view = (await call(stub.GetView, pb.GetViewRequest(game_id=game_id))).view
                    if view.over:
                        if time.monotonic() <= stop_at and view.sequence:
                            stats.finished += 1
                        break
                    seat = rng.choice(list(view.to_act))
                    legal = await call(stub.ListLegalCommands, pb.ListLegalCommandsRequest(game_id=game_id),
                                       tokens[seat])
                    command = rng.choice(list(legal.commands))
                    await call(stub.SubmitCommand, pb.SubmitCommandRequest(
                        game_id=game_id, command=command, expected_sequence=legal.sequence), tokens[seat], True)
            except grpc.aio.AioRpcError as error:
                if time.monotonic() < stop_at:
                    errors[error.code().name] += 1
                    if len(stats.details) < 5:
                        stats.details.append(f"{error.code().name}: {error.details()}")
                    await asyncio.sleep(0.1)

    await asyncio.gather(*(bot(index) for index in range(matches)))
    for channel in channels:
        await channel.close()
    stats.errors = dict(errors)
    return stats


def _client(target: str, matches: int, game: str, start: float, warmup: float, duration: float, seed: int,
            out: Any) -> None:
    stats = asyncio.run(_bots(target, matches, game, start, warmup, duration, seed))
    out.put(stats)


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
    error_details: list[str]
    finished: int
    rss_start_mib: float
    rss_end_mib: float
    rss_max_mib: float
    rss_samples_mib: list[float]


def _quantile(values: Sequence[float], q: float) -> float:
    if not values:
        return float("nan")
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[round(q * 100) - 1]


def run_one(kind: str, args: argparse.Namespace) -> Result:
    from cardgames.service.spawn import spawn_server

    with store_url(kind, args.pg) as url:
        env = {"CARDGAMES_SNAPSHOT_EVERY": str(args.snapshot_every)} if args.snapshot_every is not None else {}
        server = spawn_server(url, args=["--rate-limit", "0"], env=env)
        try:
            context = multiprocessing.get_context("spawn")
            out = context.Queue()
            start = time.monotonic() + 2.0  # every client starts together
            shares = [args.matches // args.clients + (1 if i < args.matches % args.clients else 0)
                      for i in range(args.clients)]
            workers = [
                context.Process(target=_client, args=(server.target, share, args.game, start, args.warmup,
                                                      args.duration, args.seed + i, out))
                for i, share in enumerate(shares) if share
            ]
            for worker in workers:
                worker.start()
            samples: list[float] = []
            while time.monotonic() < start + args.warmup:
                time.sleep(0.05)
            rss_start = server.rss_kib() / 1024
            samples.append(rss_start)
            end = start + args.warmup + args.duration
            while time.monotonic() < end:
                time.sleep(min(args.sample, max(0.0, end - time.monotonic())))
                samples.append(server.rss_kib() / 1024)
            rss_end = samples[-1]
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
    for s in stats:
        errors.update(s.errors)
    moves = sum(s.moves for s in stats)
    return Result(
        store=kind if kind in ("memory", "sqlite", "postgres") else url.split(":", 1)[0],
        matches=args.matches, clients=len(workers), seconds=args.duration, moves=moves,
        moves_per_s=moves / args.duration, calls_per_s=sum(s.calls for s in stats) / args.duration,
        submit_p50_ms=_quantile(submit_ms, 0.50), submit_p99_ms=_quantile(submit_ms, 0.99),
        submit_max_ms=submit_ms[-1] if submit_ms else float("nan"),
        call_p50_ms=_quantile(call_ms, 0.50), call_p99_ms=_quantile(call_ms, 0.99),
        errors=dict(errors), error_details=[d for s in stats for d in s.details],
        finished=sum(s.finished for s in stats),
        rss_start_mib=round(rss_start, 1), rss_end_mib=round(rss_end, 1), rss_max_mib=round(max(samples), 1),
        rss_samples_mib=[round(x, 1) for x in samples],
    )


def table(results: Sequence[Result]) -> str:
    head = ("| store | matches | seconds | moves/s | calls/s | submit p50 ms | submit p99 ms | submit max ms "
            "| call p50 ms | call p99 ms | errors | finished | RSS start MiB | RSS end MiB | RSS max MiB |")
    rows = [head, "|" + "---|" * 15]
    for r in results:
        errors = ", ".join(f"{k} {v}" for k, v in sorted(r.errors.items())) or "0"
        rows.append(
            f"| {r.store} | {r.matches} | {r.seconds:g} | {r.moves_per_s:.0f} | {r.calls_per_s:.0f} | "
            f"{r.submit_p50_ms:.1f} | {r.submit_p99_ms:.1f} | {r.submit_max_ms:.0f} | {r.call_p50_ms:.1f} | "
            f"{r.call_p99_ms:.1f} | "
            f"{errors} | {r.finished} | {r.rss_start_mib:.0f} | {r.rss_end_mib:.0f} | {r.rss_max_mib:.0f} |"
        )
    return "\n".join(rows)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.load", description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=100, help="concurrent matches (default 100)")
    parser.add_argument("--duration", type=float, default=30.0, help="measured seconds (default 30)")
    parser.add_argument("--warmup", type=float, default=5.0, help="seconds before measuring (default 5)")
    parser.add_argument("--store", action="append", help="memory, sqlite, postgres or a URL (repeatable)")
    parser.add_argument("--pg", default="postgresql://postgres@127.0.0.1:5432/postgres",
                        help="PostgreSQL server for --store postgres (a fresh database is made there)")
    parser.add_argument("--clients", type=int, default=min(4, os.cpu_count() or 1), help="client processes")
    parser.add_argument("--game", default="all_fours")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--sample", type=float, default=10.0, help="seconds between RSS samples")
    parser.add_argument("--snapshot-every", type=int, default=None, help="CARDGAMES_SNAPSHOT_EVERY for the server")
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args(argv)
    if args.matches < 1 or args.duration <= 0 or args.clients < 1:
        parser.error("--matches, --duration and --clients must be positive")
    results = []
    for kind in args.store or ["sqlite"]:
        print(f"load: {args.matches} matches on {kind} for {args.warmup:g}+{args.duration:g}s "
              f"({args.clients} client processes)...", file=sys.stderr, flush=True)
        results.append(run_one(kind, args))
    print(table(results))
    for result in results:
        for detail in result.error_details:
            print(f"error ({result.store}): {detail}", file=sys.stderr)
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in results], indent=1))
    return 0 if not any(r.errors for r in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
