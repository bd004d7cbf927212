"""Where a game's playout time goes: ``python -m bench.profile GAME [--seconds S] [--top N]``.

Plays random legal matches (the same playout as the table's) under cProfile for
about S seconds and prints the top functions by own time and by cumulative time,
plus the share of the four protocol calls of a step.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
import time
from collections.abc import Sequence

from bench.harness import Settings
from bench.playout import SPECS, Player

STEP_CALLS = ("legal_commands", "decide", "evolve", "to_act", "is_over")


def profile(game_name: str, seconds: float, top: int) -> str:
    player = Player(SPECS[game_name], Settings().seed)
    player.play()  # warm up outside the profile
    profiler = cProfile.Profile()
    matches = actions = 0
    start = time.perf_counter()
    profiler.enable()
    while time.perf_counter() - start < seconds:
        match = player.play()
        matches += 1
        actions += match.actions
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    total = stats.total_tt  # type: ignore[attr-defined]
    out.write(f"{game_name}: {matches} matches, {actions} actions in {total:.2f} s of profiled time\n")
    out.write(f"cardgames.engine.{game_name} protocol calls (cumulative share of profiled time):\n")
    for (filename, _line, function), row in stats.stats.items():  # type: ignore[attr-defined]
        if function in STEP_CALLS and f"engine/{game_name}/" in filename.replace("\\", "/"):
            calls, cumulative = row[1], row[3]
            out.write(f"  {function:16} {calls:9,} calls  {cumulative:7.2f} s  {100 * cumulative / total:5.1f}%"
                      f"  {1e6 * cumulative / max(1, calls):8.1f} us/call\n")
    out.write("\n")
    stats.sort_stats("tottime").print_stats(top)
    stats.sort_stats("cumulative").print_stats(top)
    return out.getvalue()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.profile", description=__doc__.splitlines()[0])
    parser.add_argument("game", choices=sorted(SPECS))
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args(argv)
    sys.stdout.write(profile(args.game, args.seconds, args.top))
    return 0


if __name__ == "__main__":
    sys.exit(main())
