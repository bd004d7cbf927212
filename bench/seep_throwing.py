"""Seep deals in which every seat throws: ``python -m bench.seep_throwing [--deals N]``.

Under the option to throw a card that could capture (``throw_when_capture_available``, B-7),
a seat that throws whenever the rules let it leaves every card it plays on the floor; when all
four do, the floor ends the first deal with 51 loose cards, and the number of ways to group
them runs past 10^17. Random play never gets there (its floors stay under a dozen and a half
cards), so the playout rows never meet these floors and the worst-case table holds only one
of them: this plays such deals and reports, per deal, the largest floor, the slowest listing
(what a random playout pays at a position: ``legal_commands``, its length, one command picked
at random) and the listings' CPU time summed over the deal. ``--random-matches M`` first
plays M whole matches at random under the same option, for comparison; ``--picks P`` then
times, at each deal's slowest position, P commands picked at random indices and the heuristic
bot's decision.

Each deal is the first of a match started with seed ``N`` (as 64 hex digits); a seat throws the
first card of its hand that the rules accept (the bid, and a throw refused, take the first
legal command instead), so a run is the same every time but for the times.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from cardgames.engine.core.protocol import GameRules, Rejection, Setup
from cardgames.engine.core.registry import get_game
from cardgames.engine.core.replay import apply, new_match
from cardgames.engine.seep.events import DealScored
from cardgames.engine.seep.heuristic import heuristic_policy

OPTIONS = {"throw_when_capture_available": True}


@dataclass(frozen=True)
class ThrowingDeal:
    seed: int
    largest_floor: int
    slowest_ms: float
    slowest_commands: int
    listings_s: float  #: CPU seconds of every listing of the deal, summed
    slowest_state: Any  #: the position of the slowest listing, and its seat
    slowest_seat: int

    @property
    def slowest_floor(self) -> int:
        return len(self.slowest_state.loose)


def _first_match(seed: int) -> tuple[GameRules, Any]:
    """Seep under B-7 and the state of a match started with ``seed`` (as 64 hex digits)."""
    game = get_game("seep")
    state, _ = new_match(game, game.make_config(OPTIONS, None), Setup(seed=f"{seed:064x}"))
    return game, state


def _list_and_pick(game: GameRules, state: Any, seat: int, rng: random.Random) -> tuple[float, int, Any]:
    """What a random playout pays at a position: the CPU seconds of listing, counting and picking
    one command at random, the number of commands, and the command."""
    started = time.process_time()
    legal = game.legal_commands(state, seat)
    count = len(legal)
    picked = legal[rng.randrange(count)]
    return time.process_time() - started, count, picked


def _throw(game: GameRules, state: Any, seat: int) -> tuple[Any, Sequence[Any]] | None:
    """The outcome of throwing the first card of the seat's hand that the rules accept, if any."""
    for card in state.hands[seat]:
        outcome = apply(game, state, seat, {"type": "throw", "card": card})
        if not isinstance(outcome, Rejection):
            return outcome
    return None


def throwing_deal(seed: int) -> ThrowingDeal:
    """The first deal of a B-7 match in which every seat throws whenever it may."""
    game, state = _first_match(seed)
    rng = random.Random(seed)
    largest = slowest_commands = slowest_seat = 0
    slowest = summed = 0.0
    slowest_state = state
    scored = False
    while not scored:
        seat = game.to_act(state)[0]
        spent, count, picked = _list_and_pick(game, state, seat, rng)
        summed += spent
        largest = max(largest, len(state.loose))
        if spent > slowest:
            slowest, slowest_commands, slowest_state, slowest_seat = spent, count, state, seat
        outcome = _throw(game, state, seat) or apply(game, state, seat, picked)
        assert not isinstance(outcome, Rejection), outcome
        state, events = outcome
        scored = any(isinstance(event, DealScored) for event in events)
    return ThrowingDeal(seed, largest, slowest * 1000, slowest_commands, summed, slowest_state, slowest_seat)


def picks_and_decision(deal: ThrowingDeal, picks: int) -> tuple[float, float]:
    """At the deal's slowest position: the CPU ms of a command picked at a random index (the
    listing counted first, untimed), and the CPU seconds of the heuristic bot's decision (its
    own listing included, as a bot that is handed nothing counted pays it)."""
    game = get_game("seep")
    state, seat = deal.slowest_state, deal.slowest_seat
    legal = game.legal_commands(state, seat)
    rng = random.Random(deal.seed)
    started = time.process_time()
    for _ in range(picks):
        legal[rng.randrange(len(legal))]
    per_pick = (time.process_time() - started) / picks * 1000
    player = heuristic_policy(state.config)
    started = time.process_time()
    player.choose(game.view(state, seat), game.legal_commands(state, seat), rng)
    return per_pick, time.process_time() - started


def random_matches(matches: int) -> tuple[int, float]:
    """The largest floor and the slowest listing (ms) of ``matches`` random B-7 matches (seeds 1..N)."""
    largest, slowest = 0, 0.0
    for seed in range(1, matches + 1):
        game, state = _first_match(seed)
        rng = random.Random(seed)
        while not game.is_over(state):
            seat = game.to_act(state)[0]
            spent, _, picked = _list_and_pick(game, state, seat, rng)
            slowest = max(slowest, spent * 1000)
            largest = max(largest, len(state.loose))
            outcome = apply(game, state, seat, picked)
            assert not isinstance(outcome, Rejection), outcome
            state = outcome[0]
    return largest, slowest


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.seep_throwing", description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=5, help="deals to play (seeds 1..N; default 5)")
    parser.add_argument("--picks", type=int, default=0,
                        help="then, at each deal's slowest position, time this many picks at random indices "
                             "and the heuristic bot's decision")
    parser.add_argument("--random-matches", type=int, default=0,
                        help="first play this many whole matches at random under the same option")
    args = parser.parse_args(argv)
    if args.random_matches:
        largest, slowest = random_matches(args.random_matches)
        print(f"{args.random_matches} random matches: largest floor {largest} loose cards, "
              f"slowest listing {slowest:.2f} ms\n")
    print("| seed | largest floor | slowest listing | the deal's listings |")
    print("|---:|---:|---|---:|")
    deals = []
    for seed in range(1, args.deals + 1):
        deal = throwing_deal(seed)
        deals.append(deal)
        print(f"| {deal.seed} | {deal.largest_floor} | {deal.slowest_ms:,.0f} ms ({deal.slowest_floor} loose, "
              f"{deal.slowest_commands:.1e} commands) | {deal.listings_s:.2f} s |", flush=True)
    if args.picks:
        print()
        for deal in deals:
            per_pick, decision = picks_and_decision(deal, args.picks)
            print(f"seed {deal.seed}, slowest position: {per_pick:.1f} ms a command at a random index, "
                  f"the heuristic bot decides in {decision:.1f} s", flush=True)


if __name__ == "__main__":
    main()
