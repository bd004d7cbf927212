"""Memory: what a live match costs in the server's resident memory (RSS), idle and active, per game.

For each game two fresh ``cardgames serve`` children (port 0, ``--rate-limit 0``, one engine worker,
SQLite in a temporary folder unless ``--store`` names one) are started and warmed up with a few
matches. The first, with idle eviction off:

* **idle**: ``--matches`` new matches (CreateGame only; dealt, nobody plays): RSS before and after;
* **active**: ``--matches`` more matches, each with a Watch stream open and ``--moves`` commands
  played (random legal ones, by the seat to act), RSS while the streams are still open.

The second, with ``--idle-evict-seconds`` set to ``--idle``: ``--matches`` idle matches, then a wait
until every game left memory (the ``cardgames_live_games`` gauge), then as many new idle matches:
what they add to RSS shows whether the memory the evicted games held is used again.

RSS is read from /proc/PID/status (VmRSS), after a pause so the allocator settles. The figures are
MiB per 1,000 matches: ``(after - before) / matches * 1000``. With ``--heap``, the Python objects
alone that ``--matches`` idle matches add are measured too, in this process (tracemalloc, the
application layer over SQLite, no gRPC): KiB per match.

    python -m bench.memory --matches 1000                 # every game, SQLite
    python -m bench.memory --games seep --matches 2000 --moves 20 --json out.json
    python -m bench.memory --heap --matches 1000
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import sys
import tempfile
import time
import urllib.request
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

GAMES = ("all_fours", "seep", "contract_rummy")
#: Calls in flight at once from the bench (enough to keep the server busy, few enough not to queue long).
CONCURRENCY = 64
WARMUP = 20
#: Watch streams per gRPC connection in the active phase.
STREAMS_PER_CHANNEL = 500
SETTLE = 1.0


@dataclass
class Figures:
    game: str
    matches: int
    moves: int
    rss_start_mib: float
    rss_idle_mib: float
    rss_active_mib: float
    rss_after_eviction_mib: float
    rss_reused_mib: float
    live_after_eviction: int
    idle_mib_per_1000: float
    active_mib_per_1000: float
    reused_mib_per_1000: float


def _metrics_url(lines: Sequence[str], wait: float = 30.0) -> str:
    """Where the server serves its metrics (it says so on stdout, after the serving line)."""
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        for line in list(lines):
            found = re.search(r"metrics on (http://\S+/metrics)", line)
            if found:
                return found.group(1)
        time.sleep(0.05)
    raise RuntimeError("the server did not say where its metrics are")


def live_games(url: str) -> int:
    """How many games the server holds in memory (its ``cardgames_live_games`` gauge, every state)."""
    with urllib.request.urlopen(url, timeout=10) as answer:
        text = answer.read().decode()
    return int(sum(float(value) for value in re.findall(r'^cardgames_live_games\{[^}]*\} (\S+)$', text, re.M)))


async def _bounded(jobs: Sequence[Any]) -> list[Any]:
    gate = asyncio.Semaphore(CONCURRENCY)

    async def one(job: Any) -> Any:
        async with gate:
            return await job

    return list(await asyncio.gather(*(one(job) for job in jobs)))


async def _play(stub: Any, pb: Any, metadata_key: str, game_id: str, tokens: list[str], moves: int,
                rng: random.Random) -> int:
    played = 0
    for _ in range(moves):
        view = (await stub.GetView(pb.GetViewRequest(game_id=game_id))).view
        if view.over:
            break
        seat = rng.choice(list(view.to_act))
        token = ((metadata_key, tokens[seat]),)
        legal = await stub.ListLegalCommands(pb.ListLegalCommandsRequest(game_id=game_id), metadata=token)
        command = rng.choice(list(legal.commands))
        await stub.SubmitCommand(
            pb.SubmitCommandRequest(game_id=game_id, command=command, expected_sequence=legal.sequence),
            metadata=token,
        )
        played += 1
    return played


class _Bench:
    """One server's stub and RSS, and the calls the phases make."""

    def __init__(self, stub: Any, rss: Any, game: str, rng: random.Random) -> None:
        from cardgames.service.grpc_api import TOKEN_METADATA
        from cardgames.v1 import game_service_pb2

        self.stub, self.rss, self.game, self.rng = stub, rss, game, rng
        self.target = ""
        self.pb, self.token_key = game_service_pb2, TOKEN_METADATA

    async def create(self, count: int) -> list[Any]:
        """``count`` new matches (a gRPC call starts when made: each is made once its turn comes)."""
        async def one() -> Any:
            return await self.stub.CreateGame(self.pb.CreateGameRequest(game=self.game))

        return await _bounded([one() for _ in range(count)])

    async def play(self, created: Sequence[Any], moves: int) -> None:
        await _bounded([_play(self.stub, self.pb, self.token_key, m.game_id, list(m.seat_tokens), moves, self.rng)
                        for m in created])

    async def settle(self) -> float:
        """RSS in KiB once the allocator had a moment."""
        await asyncio.sleep(SETTLE)
        return float(self.rss())


async def _on_server(target: str, rss: Any, game: str, seed: int, phases: Any) -> Any:
    import grpc

    from cardgames.v1 import game_service_pb2_grpc

    async with grpc.aio.insecure_channel(target) as channel:
        bench = _Bench(game_service_pb2_grpc.GameServiceStub(channel), rss, game, random.Random(seed))
        bench.target = target
        await bench.play(await bench.create(WARMUP), 5)
        return await phases(bench)


async def _idle_and_active(bench: _Bench, matches: int, moves: int) -> tuple[float, float, float]:
    import grpc

    from cardgames.v1 import game_service_pb2_grpc

    start = await bench.settle()
    await bench.create(matches)
    idle = await bench.settle()
    active = await bench.create(matches)
    # the Watch streams on connections of their own (STREAMS_PER_CHANNEL each), opened a few at a time
    channels = [grpc.aio.insecure_channel(bench.target, options=[("grpc.use_local_subchannel_pool", 1)])
                for _ in range(-(-matches // STREAMS_PER_CHANNEL))]
    stubs = [game_service_pb2_grpc.GameServiceStub(channel) for channel in channels]
    streams: list[Any] = []

    async def watch(index: int, game_id: str) -> None:
        stream = stubs[index // STREAMS_PER_CHANNEL].Watch(bench.pb.WatchRequest(game_id=game_id))
        streams.append(stream)
        await stream.read()  # the stream is open

    await _bounded([watch(index, m.game_id) for index, m in enumerate(active)])
    await bench.play(active, moves)
    busy = await bench.settle()
    for stream in streams:
        stream.cancel()
    for channel in channels:
        await channel.close()
    return start, idle, busy


async def _evicted(bench: _Bench, matches: int, idle: float, metrics: str) -> tuple[float, float, int]:
    await bench.create(matches)
    deadline = time.monotonic() + idle * 10 + 60
    while live_games(metrics) > 0 and time.monotonic() < deadline:
        await asyncio.sleep(max(0.2, idle / 4))
    left = live_games(metrics)
    before = await bench.settle()
    await bench.create(matches)
    return before, await bench.settle(), left


def run_one(game: str, args: argparse.Namespace, folder: Path) -> Figures:
    from cardgames.service.spawn import spawn_server

    results: list[Any] = []
    for phase, idle in (("measure", 0.0), ("evict", args.idle)):
        store = args.store or f"sqlite:///{folder}/{game}-{phase}.sqlite"
        server = spawn_server(store, http="off", args=[
            "--rate-limit", "0", "--metrics", "127.0.0.1:0", "--idle-evict-seconds", f"{idle:g}",
            "--max-live-games", str(4 * args.matches + 10 * WARMUP), "--workers", "1",
        ])
        try:
            metrics = _metrics_url(server.lines)

            async def phases(bench: _Bench, phase: str = phase, metrics: str = metrics) -> Any:
                if phase == "measure":
                    return await _idle_and_active(bench, args.matches, args.moves)
                return await _evicted(bench, args.matches, args.idle, metrics)

            results.append(asyncio.run(_on_server(server.target, server.rss_kib, game, args.seed, phases)))
        finally:
            code = server.stop()
            if code not in (0, -15):
                print(server.log()[-3000:], file=sys.stderr)
    (start, idle_rss, active_rss), (evicted_rss, reused_rss, left) = results
    per = 1000 / args.matches / 1024
    return Figures(
        game, args.matches, args.moves, round(start / 1024, 1), round(idle_rss / 1024, 1),
        round(active_rss / 1024, 1), round(evicted_rss / 1024, 1), round(reused_rss / 1024, 1), left,
        round((idle_rss - start) * per, 2), round((active_rss - idle_rss) * per, 2),
        round((reused_rss - evicted_rss) * per, 2),
    )


async def _heap(game: str, matches: int, folder: Path) -> float:
    import gc
    import tracemalloc

    from cardgames.service.games import Games
    from cardgames.service.store import EventStore

    games = Games(EventStore.from_url(f"sqlite:///{folder}/{game}-heap.sqlite"), idle_evict_seconds=0)
    try:
        for _ in range(WARMUP):
            await games.create(game, {}, None)
        gc.collect()
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(matches):
            await games.create(game, {}, None)
        gc.collect()
        after = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
    finally:
        await games.close()
    return (after - before) / matches / 1024


def heap_per_match(games: Sequence[str], matches: int) -> dict[str, float]:
    """KiB of Python objects an idle match adds to the application layer, per game."""
    with tempfile.TemporaryDirectory(prefix="cardgames-heap-") as folder:
        return {game: round(asyncio.run(_heap(game, matches, Path(folder))), 2) for game in games}


def table(results: Sequence[Figures]) -> str:
    lines = ["| game | matches | RSS start MiB | idle: MiB per 1,000 | active: MiB per 1,000 | "
             "after eviction: live games, RSS MiB | new idle after eviction: MiB per 1,000 |",
             "|---|---|---|---|---|---|---|"]
    for r in results:
        lines.append(f"| {r.game} | {r.matches:,} | {r.rss_start_mib:.0f} | {r.idle_mib_per_1000:.1f} | "
                     f"{r.active_mib_per_1000:.1f} | {r.live_after_eviction}, {r.rss_after_eviction_mib:.0f} | "
                     f"{r.reused_mib_per_1000:.1f} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.memory", description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", nargs="+", default=list(GAMES), choices=GAMES)
    parser.add_argument("--matches", type=int, default=1000, help="matches per phase (idle, active, after eviction)")
    parser.add_argument("--moves", type=int, default=10, help="commands played in each active match")
    parser.add_argument("--idle", type=float, default=2.0, help="the server's --idle-evict-seconds (evicted phase)")
    parser.add_argument("--store", default=None, help="a store URL (default: SQLite in a temporary folder)")
    parser.add_argument("--seed", type=int, default=21)
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    parser.add_argument("--heap", action="store_true",
                        help="only the Python objects of idle matches, in this process (KiB per match)")
    args = parser.parse_args(argv)
    if args.matches < 1 or args.moves < 0 or args.idle <= 0:
        parser.error("--matches is 1 or more, --moves 0 or more, --idle a positive number of seconds")
    if args.heap:
        heaps = heap_per_match(args.games, args.matches)
        print(json.dumps({"heap_kib_per_match": heaps}))
        if args.json is not None:
            args.json.write_text(json.dumps(heaps, indent=2) + "\n")
        return 0
    results = []
    with tempfile.TemporaryDirectory(prefix="cardgames-memory-") as folder:
        for game in args.games:
            figures = run_one(game, args, Path(folder))
            print(json.dumps(asdict(figures)), flush=True)
            results.append(figures)
    print(table(results))
    if args.json is not None:
        args.json.write_text(json.dumps([asdict(r) for r in results], indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
