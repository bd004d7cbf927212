"""Bot strengths: each strength against the one below it, with the significance test's verdict.

``python -m bench.strength [--games all_fours seep contract_rummy] [--deals 100]
[--iterations 100] [--rollout heuristic] [--workers 2] [--json FILE]``

For every game: heuristic vs random, then ismcts vs heuristic, each over ``--deals``
seeds played once per rotation of the two bots around the table (so every match has a
paired twin with the seats swapped: ``cardgames.engine.bots.arena``). A bot "wins" a match when
its best-placed seat is placed better than the other bot's. The table gives wins,
losses, ties, the win rate (ties count half), its 95% Wilson interval, and two exact
two-sided binomial tests: over decisive matches, and over decisive deal pairs (a sign
test that respects the pairing). Progress goes to stderr, the markdown table to stdout.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

import msgspec

from cardgames.engine.bots import get_policy
from cardgames.engine.bots.arena import Comparison, MatchRecord, compare, run_arena
from cardgames.engine.bots.policy import BotsUnavailable, bot_rules
from cardgames.engine.core.registry import available_games

LADDER = (("heuristic", "random"), ("ismcts", "heuristic"))


@dataclass(frozen=True)
class Job:
    game: str
    a: str
    b: str
    first_deal: int
    deals: int
    seed: str
    budget: tuple[tuple[str, Any], ...]
    options: tuple[tuple[str, Any], ...]


def _policy(game: str, kind: str, config: Any, budget: dict[str, Any]) -> Any:
    if kind != "ismcts":
        return get_policy(game, kind, config=config)
    extra: dict[str, Any] = dict(budget)
    if extra.get("time_limit") is not None:
        extra["clock"] = time.perf_counter
    return get_policy(game, kind, config=config, **extra)


def run_job(job: Job) -> tuple[list[MatchRecord], float]:
    from cardgames.engine.core.registry import get_game

    config = get_game(job.game).make_config(dict(job.options), None)
    budget = dict(job.budget)
    entrants = {job.a: _policy(job.game, job.a, config, budget), job.b: _policy(job.game, job.b, config, budget)}
    started = time.process_time()
    records = run_arena(
        job.game, entrants, deals=job.deals, base_seed=job.seed, config=config, first_deal=job.first_deal
    )
    return records, time.process_time() - started


def budget_text(kind_a: str, budget: dict[str, Any]) -> str:
    if kind_a != "ismcts":
        return "-"
    parts = []
    if budget.get("iterations") is not None:
        parts.append(f"{budget['iterations']} iterations")
    if budget.get("time_limit") is not None:
        parts.append(f"{budget['time_limit']} s")
    parts.append(f"{budget.get('rollout', 'random')} rollouts")
    parts.append(f"{budget.get('root', 'paired')} root")
    if budget.get("root", "paired") == "paired":
        anchor = budget.get("anchor")
        parts.append(f"anchor {anchor}, alpha {budget.get('alpha')}" if anchor else "no anchor")
    if budget.get("horizon") is not None:
        parts.append(f"horizon {budget['horizon']}")
    return ", ".join(parts)


def row(game: str, comparison: Comparison, budget: str, cpu: float) -> dict[str, Any]:
    c = comparison
    return {
        "game": game,
        "a": c.a,
        "b": c.b,
        "budget": budget,
        "matches": c.matches,
        "wins": c.wins,
        "losses": c.losses,
        "ties": c.ties,
        "win_rate": round(c.win_rate, 4),
        "ci95": [round(c.per_match.low, 4), round(c.per_match.high, 4)],
        "p_matches": c.per_match.p_value,
        "pairs": c.pairs,
        "pair_wins": c.pair_wins,
        "pair_losses": c.pair_losses,
        "p_pairs": c.per_pair.p_value,
        "verdict": c.per_match.verdict,
        "cpu_s_per_match": round(cpu / c.matches, 3) if c.matches else 0.0,
    }


def markdown(rows: Sequence[dict[str, Any]]) -> str:
    head = (
        "| game | bot | vs | budget | matches | W-L-T | win rate (95% CI) | p (matches) "
        "| deal pairs W-L | p (pairs) | verdict | CPU s/match |"
    )
    lines = [head, "|" + "---|" * 12]
    for r in rows:
        lines.append(
            f"| {r['game']} | {r['a']} | {r['b']} | {r['budget']} | {r['matches']} "
            f"| {r['wins']}-{r['losses']}-{r['ties']} | {r['win_rate']:.3f} ({r['ci95'][0]:.3f}-{r['ci95'][1]:.3f}) "
            f"| {r['p_matches']:.2g} | {r['pair_wins']}-{r['pair_losses']} | {r['p_pairs']:.2g} "
            f"| {r['verdict']} | {r['cpu_s_per_match']} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", nargs="*", default=None, help="games (default: every game with bots)")
    parser.add_argument("--deals", type=int, default=100, help="seeds per comparison (x2 rotations = matches)")
    parser.add_argument("--ismcts-deals", type=int, default=None, help="seeds for ismcts vs heuristic")
    parser.add_argument("--iterations", type=int, default=100, help="ISMCTS iterations per decision")
    parser.add_argument("--time-limit", type=float, default=None, help="ISMCTS seconds per decision")
    parser.add_argument("--rollout", default="heuristic", choices=("random", "heuristic"))
    parser.add_argument("--root", default="paired", choices=("paired", "ucb"), help="ISMCTS root selection")
    parser.add_argument("--anchor", default="heuristic", choices=("heuristic", "none"), help="ISMCTS root anchor")
    parser.add_argument("--alpha", type=float, default=0.1, help="ISMCTS level to leave the anchor's choice")
    parser.add_argument("--horizon", type=int, default=None, help="ISMCTS plies (default: the game's)")
    parser.add_argument("--only", choices=("heuristic", "ismcts"), default=None, help="one rung of the ladder")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--chunk", type=int, default=5, help="seeds per job")
    parser.add_argument("--seed", default="strength-v1")
    parser.add_argument("--option", action="append", default=[], help="game option key=json, e.g. target_score=7")
    parser.add_argument("--json", default=None, help="write the rows to this file")
    args = parser.parse_args(argv)

    games = args.games or [g for g in available_games() if _has_bots(g)]
    options = tuple((key, json.loads(value)) for key, value in (o.split("=", 1) for o in args.option))
    budget = {
        "iterations": args.iterations,
        "time_limit": args.time_limit,
        "rollout": args.rollout,
        "root": args.root,
        "anchor": None if args.anchor == "none" else args.anchor,
        "alpha": args.alpha,
        "horizon": args.horizon,
    }
    ladder = [rung for rung in LADDER if args.only is None or rung[0] == args.only]
    jobs: list[Job] = []
    for game in games:
        for a, b in ladder:
            deals = args.ismcts_deals if a == "ismcts" and args.ismcts_deals else args.deals
            for first in range(0, deals, args.chunk):
                jobs.append(
                    Job(game, a, b, first, min(args.chunk, deals - first), args.seed, tuple(budget.items()), options)
                )
    results: dict[tuple[str, str, str], tuple[list[MatchRecord], float]] = {}
    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        for job, (records, cpu) in zip(jobs, pool.map(run_job, jobs), strict=True):
            key = (job.game, job.a, job.b)
            previous, spent = results.get(key, ([], 0.0))
            results[key] = (previous + records, spent + cpu)
            done = len(results[key][0])
            print(
                f"{job.game} {job.a} vs {job.b}: {done} matches ({time.perf_counter() - started:.0f} s)",
                file=sys.stderr,
            )
    rows = [
        row(game, compare(records, a, b), budget_text(a, budget), cpu)
        for (game, a, b), (records, cpu) in results.items()
    ]
    print(markdown(rows))
    if args.json:
        with open(args.json, "wb") as handle:
            handle.write(msgspec.json.format(msgspec.json.encode({"rows": rows, "budget": budget, "seed": args.seed})))
    return 0


def _has_bots(game: str) -> bool:
    try:
        bot_rules(game)
    except BotsUnavailable:
        return False
    return True


if __name__ == "__main__":
    raise SystemExit(main())
