"""What one step of a playout costs, call by call: ``python -m bench.steps GAME [--matches N]``.

Plays N random legal matches (the table's playout, seeded), records every step (state, seat,
command), then times each protocol call of a step separately over all the recorded steps:
``legal_commands``, ``legal_commands`` + ``decide`` (decide trusts what was just listed for
the same state object, so it is timed after a listing, as in a playout), the fold of the
command's events, and ``to_act`` + ``is_over``. Each figure is the best of three passes,
in microseconds per step. Unlike ``bench.profile`` (cProfile) this sees compiled code as
it runs, without a profiler's overhead.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from bench.harness import Settings
from bench.playout import SPECS, Player
from cardgames.engine.core.protocol import Rejection
from cardgames.engine.core.replay import fold

PASSES = 3


def _best(steps: int, work: Callable[[], object]) -> float:
    """The best of :data:`PASSES` timings of ``work``, in microseconds per step."""
    best = float("inf")
    for _ in range(PASSES):
        before = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - before)
    return best / steps * 1e6


def breakdown(game_name: str, matches: int) -> str:
    player = Player(SPECS[game_name], Settings().seed)
    game = player.game
    recorded: list[tuple[int, Any, int]] = []
    states: list[Any] = []
    for _ in range(matches):
        match = player.play(commands=recorded)
        state = game.initial(player.config)
        state = fold(game, state, match.events[: match.start_events])
        at = match.start_events
        for _seat, _command, caused in recorded[len(states):]:
            states.append(state)
            state = fold(game, state, match.events[at : at + caused])
            at += caused
    steps = [(state, seat, command) for state, (seat, command, _) in zip(states, recorded, strict=True)]
    legal, decide, to_act, is_over = game.legal_commands, game.decide, game.to_act, game.is_over
    outcomes: list[Sequence[Any]] = []
    for state, seat, command in steps:
        legal(state, seat)
        outcome = decide(state, seat, command)
        if isinstance(outcome, Rejection):
            raise RuntimeError(f"{game_name}: a recorded command was rejected on replay: {outcome}")
        outcomes.append(outcome)
    listed = sum(len(legal(state, seat)) for state, seat, _ in steps) / len(steps)

    def listing() -> None:
        for state, seat, _ in steps:
            legal(state, seat)

    def listing_and_deciding() -> None:
        for state, seat, command in steps:
            legal(state, seat)
            decide(state, seat, command)

    def folding() -> None:
        for (state, _, _), events in zip(steps, outcomes, strict=True):
            fold(game, state, events)

    def asking() -> None:
        for state, _, _ in steps:
            to_act(state)
            is_over(state)

    list_us = _best(len(steps), listing)
    decide_us = _best(len(steps), listing_and_deciding) - list_us
    lines = [
        f"{game_name}: {matches} matches, {len(steps):,} steps, {listed:.1f} commands listed per step",
        f"  legal_commands      {list_us:6.2f} us/step",
        f"  decide (listed)     {decide_us:6.2f} us/step",
        f"  fold of its events  {_best(len(steps), folding):6.2f} us/step",
        f"  to_act + is_over    {_best(len(steps), asking):6.2f} us/step",
    ]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.steps", description=__doc__.splitlines()[0])
    parser.add_argument("game", choices=sorted(SPECS))
    parser.add_argument("--matches", type=int, default=150, help="random matches to record (default 150)")
    args = parser.parse_args(argv)
    if args.matches < 1:
        parser.error("--matches must be at least 1")
    sys.stdout.write(breakdown(args.game, args.matches))
    return 0


if __name__ == "__main__":
    sys.exit(main())
