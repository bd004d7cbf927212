"""Another game's SubmitCommand beside a Seep game whose seats throw everything under B-7.

``python -m bench.run --only submit.beside_throwing`` (or ``python -m bench.beside_throwing``).

The attack (docs/threat-model.md, "Expensive positions"): a Seep game created with the option to
throw a card that could capture (``throw_when_capture_available``, B-7), whose seats throw every
card, crowds the floor to dozens of loose cards, and its client asks for the legal commands at
every position; counting them takes up to about a second of CPU (compiled). The probe runs the
service in this process (memory store, the default engine workers) and times one client's
SubmitCommand of random legal commands in an ordinary Seep match (as ``submit.memory`` does:
only the call is timed, a local mirror picks the commands), in each round twice: **alone**, and
**beside** the throwing game. The throwing game is played by a client in a process of its own (as
an attacker's would be): it throws until 30 cards lie loose (``--quick``: 17), then at every
position asks for the first page of legal commands (ListLegalCommands: the count and 1,000
commands, made in a worker) and throws, for as long as the ordinary client is timed. The row
compares the p99 beside with the p99 alone, in the same round; the target is 2x at most.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.harness import Context, Settings, latency_figures, measure
from bench.playout import load_game
from bench.rpc import SubmitProbe

#: The throwing game: its options, and how many cards it throws loose before it starts listing.
OPTIONS = {"throw_when_capture_available": True}
CROWDED = 30
CROWDED_QUICK = 17
_ROOT = str(Path(__file__).resolve().parent.parent)


class BesideThrowingProbe(SubmitProbe):
    name = "submit.beside_throwing"
    anchors = ()  # compared with itself: alone, in the same round

    def __init__(self) -> None:
        super().__init__("memory")
        self.name = BesideThrowingProbe.name
        self.attacks: list[dict[str, Any]] = []

    def _pick_game(self) -> tuple[str, Any]:
        return "seep", load_game("seep")

    def setup(self, ctx: Context) -> None:
        super().setup(ctx)
        self.crowded = CROWDED if ctx.settings.heavy else CROWDED_QUICK
        pool = self.running.games.pool
        ctx.run(pool.start())
        self._facts["server"] += f"; {pool.size} engine worker(s), deadline {pool.deadline:g} s"

    def sample(self, ctx: Context) -> dict[str, float]:
        return ctx.run(self._sample(ctx.settings.budget, ctx.settings.seed + len(self.attacks)))

    async def _sample(self, budget: float, seed: int) -> dict[str, float]:
        pool = self.running.games.pool
        while pool.running:  # the previous round's last count: not in the figure alone
            await asyncio.sleep(0.01)
        alone = latency_figures(await self._round_trips(budget))
        attacker = await _attacker(f"127.0.0.1:{self.running.port}", seed, self.crowded, budget)
        try:
            assert attacker.stdout is not None
            ready = json.loads(await attacker.stdout.readline())  # thrown until crowded: listing from now on
            beside = latency_figures(await self._round_trips(budget))
            report = json.loads(await attacker.stdout.readline())
        finally:
            if attacker.returncode is None:
                attacker.kill()
            await attacker.wait()
        self.attacks.append({**ready, **report})
        return {
            "alone_p50_us": alone["p50_us"], "alone_p99_us": alone["p99_us"],
            "beside_p50_us": beside["p50_us"], "beside_p99_us": beside["p99_us"],
        }

    def info(self) -> dict[str, Any]:
        facts = dict(self._facts)
        if self.attacks:
            facts["throwing game"] = (
                f"{min(a['loose'] for a in self.attacks)}-{max(a['largest'] for a in self.attacks)} loose cards, "
                f"up to {max(a['most'] for a in self.attacks):.1e} commands, "
                f"{sum(a['listings'] for a in self.attacks)} listings, the slowest "
                f"{max(a['slowest_ms'] for a in self.attacks):,.0f} ms (as its client waited)"
            )
        return facts


async def _attacker(address: str, seed: int, crowded: int, seconds: float) -> asyncio.subprocess.Process:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [_ROOT, env.get("PYTHONPATH")]))
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bench.beside_throwing", "--attack", address, "--seed", str(seed),
        "--crowded", str(crowded), "--seconds", str(seconds), stdout=asyncio.subprocess.PIPE, env=env,
    )


def attack(address: str, seed: int, crowded: int, seconds: float) -> None:
    """The throwing game's client (a process of its own): create a B-7 Seep game, throw until
    ``crowded`` cards lie loose, print a line, then for ``seconds`` list (a default page) and throw
    at every position, and print what it did. Each seat throws the first card it is allowed to."""
    import grpc
    from cardgames import wire
    from cardgames.v1 import game_service_pb2 as pb
    from cardgames.v1 import game_service_pb2_grpc

    with grpc.insecure_channel(address) as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        created = stub.CreateGame(pb.CreateGameRequest(
            game="seep", seed=f"{seed:064x}", options=wire.wrap_options("seep", OPTIONS)))
        game_id, tokens = created.game_id, list(created.seat_tokens)

        def play(listing: bool) -> tuple[int, int, float]:
            """One position: (loose cards, commands listed, ms the listing took)."""
            view = stub.GetView(pb.GetViewRequest(game_id=game_id)).view
            seat = view.to_act[0]
            metadata = (("cardgames-token", tokens[seat]),)
            own = wire.unwrap(stub.GetView(pb.GetViewRequest(game_id=game_id), metadata=metadata).view)[1]
            loose, total, spent = len(own["loose"]), 0, 0.0
            if listing or own["phase"] == "bid":
                started = time.perf_counter()
                legal = stub.ListLegalCommands(pb.ListLegalCommandsRequest(game_id=game_id), metadata=metadata)
                total, spent = legal.total, (time.perf_counter() - started) * 1000
                if own["phase"] == "bid":
                    stub.SubmitCommand(pb.SubmitCommandRequest(game_id=game_id, command=legal.commands[0]),
                                       metadata=metadata)
                    return loose, total, spent
            for card in own["hand"]:
                command = wire.wrap_command("seep", {"type": "throw", "card": card})
                try:
                    stub.SubmitCommand(pb.SubmitCommandRequest(game_id=game_id, command=command), metadata=metadata)
                    break
                except grpc.RpcError:
                    continue  # the opening play's restriction: not a throw
            else:
                legal = stub.ListLegalCommands(pb.ListLegalCommandsRequest(game_id=game_id, page_size=1),
                                               metadata=metadata)
                stub.SubmitCommand(pb.SubmitCommandRequest(game_id=game_id, command=legal.commands[0]),
                                   metadata=metadata)
            return loose, total, spent

        loose = 0
        while loose < crowded:
            loose = play(False)[0]
        print(json.dumps({"loose": loose}), flush=True)
        listings, largest, most, slowest = 0, loose, 0, 0.0
        until = time.perf_counter() + seconds
        while time.perf_counter() < until:
            view = stub.GetView(pb.GetViewRequest(game_id=game_id)).view
            if view.over:
                break
            loose, total, spent = play(True)
            listings += 1
            largest, most, slowest = max(largest, loose), max(most, total), max(slowest, spent)
        print(json.dumps({"listings": listings, "largest": largest, "most": most, "slowest_ms": slowest}), flush=True)


async def crossing(calls: int = 300) -> list[str]:
    """What a task costs to send to a worker, per game at its first position: the state pickled
    (size, time each way), and a page of one command made in a worker, end to end (p50 and p99)."""
    import pickle
    import random

    from cardgames.engine.bots import get_policy
    from cardgames.engine.core.protocol import Setup
    from cardgames.engine.core.registry import available_games, get_game
    from cardgames.engine.core.replay import new_match
    from cardgames.service.workers import Workers

    lines = []
    pool = Workers(1, 60.0)
    await pool.start()
    try:
        for name in available_games():
            game = get_game(name)
            config = game.make_config({}, None)
            state, _ = new_match(game, config, Setup(seed="ab" * 32))
            seat = game.to_act(state)[0]
            pickled = pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)
            started = time.perf_counter()
            for _ in range(calls):
                pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)
            dumps = (time.perf_counter() - started) / calls
            started = time.perf_counter()
            for _ in range(calls):
                pickle.loads(pickled)
            loads = (time.perf_counter() - started) / calls
            times = []
            for call in range(calls):
                key = (name, call)  # a new listing each time, as for a new position
                started = time.perf_counter()
                await pool.run("page", name, key, state, seat, 0, 1, 0.2, True, owner=name, key=key)
                times.append(time.perf_counter() - started)
            times.sort()
            sizes = {kind: len(pickle.dumps(get_policy(name, kind, config=config))) for kind in ("heuristic", "ismcts")}
            lines.append(
                f"{name}: state {len(pickled)} B, pickled in {dumps * 1e6:.0f} us, unpickled in {loads * 1e6:.0f} us; "
                f"a page of one in a worker p50 {times[len(times) // 2] * 1e3:.2f} ms, p99 "
                f"{times[int(len(times) * 0.99)] * 1e3:.2f} ms; view {len(pickle.dumps(game.view(state, seat)))} B, "
                f"bots {sizes['heuristic']} B (heuristic), {sizes['ismcts']} B (search), "
                f"random.Random {len(pickle.dumps(random.Random(1)))} B"
            )
    finally:
        await pool.close()
    return lines


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.beside_throwing", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="short samples, 3 rounds")
    parser.add_argument("--repeats", type=int, help="rounds (default 5)")
    parser.add_argument("--budget", type=float, help="seconds each client is timed per round (default 1.0)")
    parser.add_argument("--on-loop", action="store_true",
                        help="for comparison: no position costly and no page too long for the event loop, so "
                             "that the count, the pages and their encoding run on the loop, as before the workers")
    parser.add_argument("--crossing", action="store_true",
                        help="instead: what sending a task to a worker costs (pickles, a page of one)")
    parser.add_argument("--attack", metavar="ADDRESS", help=argparse.SUPPRESS)
    parser.add_argument("--seed", type=int, default=1, help=argparse.SUPPRESS)
    parser.add_argument("--crowded", type=int, default=CROWDED, help=argparse.SUPPRESS)
    parser.add_argument("--seconds", type=float, default=1.0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.attack:
        attack(args.attack, args.seed, args.crowded, args.seconds)
        return
    if args.crossing:
        print("\n".join(asyncio.run(crossing())))
        return
    if args.on_loop:
        import cardgames.service.games.paging

        cardgames.service.games.paging.costly = lambda rules, state, seat: False
        cardgames.service.games.paging.LOOP_COMMANDS = 10**9
    settings = Settings.quick() if args.quick else Settings()
    settings = Settings(budget=args.budget or settings.budget, repeats=args.repeats or settings.repeats,
                        seed=settings.seed, heavy=settings.heavy)
    result = measure([BesideThrowingProbe()], settings, lambda message: print(message, file=sys.stderr))
    [outcome] = result.values()
    print(json.dumps({"medians": outcome.medians, "info": outcome.info, "error": outcome.error}, indent=1))


if __name__ == "__main__":
    main()
