"""Load time of a game vs the length of its log, with and without snapshots.

    python -m bench.loadtime --lengths 590,2090,8090,20090 --store memory --store sqlite --store postgres

One long All Fours match (a high ``target_score``, random legal play, a fixed seed) is played
through the application layer on the in-memory store, once per length: a game whose log
holds about that many events (cut at the first command boundary at or after it), with a
snapshot after the command crossing each multiple of ``--every``. Its records (header,
events with their chain hashes, snapshots) are then copied as they are into each store.
A cold load is what a process does for a game it does not hold: a fresh application layer
(empty cache) answering GetView for it: header, latest snapshot, the events after it, fold.
Reported: the median of ``--repeat`` cold loads, with snapshots and with them ignored
(``snapshot_every=0``: the whole log folded), and how many events the snapshot path folded.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from uuid import UUID

import msgspec
from cardgames.engine.core.registry import get_game
from cardgames.service.games import Games
from cardgames.service.store import EventStore

from bench.load import store_url

GAME = "all_fours"
OPTIONS = {"target_score": 2000}
SEED = "10" * 32


@dataclass
class Row:
    store: str
    length: int
    snapshot_ms: float
    replay_ms: float
    folded: int


async def build(games: Games, length: int, rng_seed: int) -> str:
    """A game of about ``length`` events in ``games`` (random legal play, deterministic)."""
    rules = get_game(GAME)
    created = await games.create(GAME, OPTIONS, None, seed=SEED)
    game_id, tokens = created.game_id, created.seat_tokens
    rng = random.Random(rng_seed)
    live = games.cache[UUID(game_id)]
    while live.sequence < length and not rules.is_over(live.state):
        seat = rng.choice(tuple(rules.to_act(live.state)))
        command = rng.choice(tuple(rules.legal_commands(live.state, seat)))
        await games.submit(game_id, tokens[seat], msgspec.to_builtins(command), live.sequence)
    await games.executor.drain()
    return game_id


def copy(source: EventStore, target: EventStore, game_id: UUID) -> None:
    """The game's records and snapshots, byte for byte, into another store."""
    from cardgames.service.snapshots import snapshot_recorder

    records = source.recorder.select_events(game_id)
    for start in range(0, len(records), 2000):
        target.recorder.insert_events(records[start : start + 2000])
    snapshots = snapshot_recorder(source.factory).select_events(game_id)
    if snapshots:
        snapshot_recorder(target.factory).insert_events(snapshots)


async def cold_load(store: EventStore, game_id: str, every: int, repeat: int) -> tuple[float, int]:
    """Median ms of a cold GetView, and the events folded after the snapshot (the last load's)."""
    times = []
    folded = 0
    for _ in range(repeat):
        games = Games(store, snapshot_every=every)
        began = time.perf_counter()
        view = await games.view(game_id, None)
        times.append((time.perf_counter() - began) * 1000)
        snapshot = games.snapshots.latest(UUID(game_id), GAME, type(games.cache[UUID(game_id)].state))
        folded = view.sequence - (snapshot.sequence if snapshot else 0)
        games.executor.shutdown()
    return statistics.median(times), folded


async def run(lengths: Sequence[int], stores: Sequence[str], every: int, repeat: int, pg: str) -> list[Row]:
    source = EventStore.from_url("memory:")
    builder = Games(source, snapshot_every=every)
    built = {length: await build(builder, length, length) for length in lengths}
    rows = []
    for kind in stores:
        with store_url(kind, pg) as url:
            store = source if kind == "memory" else EventStore.from_url(url)
            for game_id in built.values():
                if store is not source:
                    copy(source, store, UUID(game_id))
                actual = len(source.recorder.select_events(UUID(game_id))) - 1
                with_snapshots, folded = await cold_load(store, game_id, every, repeat)
                without, _ = await cold_load(store, game_id, 0, repeat)
                rows.append(Row(kind, actual, with_snapshots, without, folded))
                print(f"  {kind} {actual} events: {with_snapshots:.1f} ms / {without:.1f} ms", file=sys.stderr)
            if store is not source:
                store.close()
    return rows


def table(rows: Sequence[Row], every: int) -> str:
    lines = [f"| store | log length (events) | cold load, snapshots every {every} (ms) | events folded "
             "| cold load, no snapshots (ms) |", "|---|---|---|---|---|"]
    for row in rows:
        lines.append(f"| {row.store} | {row.length} | {row.snapshot_ms:.1f} | {row.folded} | {row.replay_ms:.1f} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.loadtime", description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", default="590,2090,8090,20090", help="log lengths (events), comma-separated")
    parser.add_argument("--store", action="append", help="memory, sqlite, postgres (repeatable; default all three)")
    parser.add_argument("--every", type=int, default=100, help="snapshot every K events (default 100)")
    parser.add_argument("--repeat", type=int, default=5, help="cold loads per figure (median)")
    parser.add_argument("--pg", default="postgresql://postgres@127.0.0.1:5432/postgres")
    args = parser.parse_args(argv)
    lengths = [int(x) for x in args.lengths.split(",") if x.strip()]
    if not lengths or min(lengths) < 1 or args.every < 1 or args.repeat < 1:
        parser.error("lengths, --every and --repeat must be positive")
    rows = asyncio.run(run(lengths, args.store or ["memory", "sqlite", "postgres"], args.every, args.repeat, args.pg))
    print(table(rows, args.every))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
