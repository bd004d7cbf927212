"""Bots through the server: matches per minute, and what the bot protocol costs per decision.

* ``bots.remote``: whole matches of random bots that are gRPC clients of the service
  (``cardgames.service.server.start`` on 127.0.0.1:0, in this process, on the client's event loop,
  like ``submit.*``): each seat follows BotService.Decisions and answers with
  GameService.SubmitCommand (clients/remote_bot.py), ``CONCURRENT`` matches at a time,
  memory store. Figures: matches per minute and decisions per second.
* ``bots.tournament``: the same random bots as built-in entrants of a tournament run in
  process (service/tournament: the application layer, no gRPC), one match at a time.
* ``bots.decision``: the cost per decision. One match at a time through the server (the
  protocol: a Decisions message with view, legal commands and clock, then a
  SubmitCommand round trip), against the engine alone (view, legal_commands, a random
  choice, decide and evolve) on the same game: microseconds per decision for each and
  the difference, which is what the protocol adds.

``python -m bench.bots [--quick]`` prints these figures alone; ``python -m bench.run``
includes them.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import time
from collections.abc import Callable, Mapping
from typing import Any

from bench.harness import Context, Probe, Result, Settings, Unavailable, measure
from bench.report import Row, anchor_row, compared_row

GAME = "all_fours"
PLAYERS = 2
#: Matches played at once by ``bots.remote``.
CONCURRENT = 4


class _ServerProbe(Probe):
    def setup(self, ctx: Context) -> None:
        try:
            from cardgames.service.server import start
            from cardgames.service.store import EventStore
        except ImportError as error:  # pragma: no cover - the service is part of the project
            raise Unavailable(f"service not available: {error}") from error
        self.rng = random.Random(ctx.settings.seed)
        self.running: Any = ctx.run(start("127.0.0.1:0", EventStore.from_url("memory:")))
        self.channel: Any = None
        self.matches = 0
        self.decisions = 0

    async def _channel(self) -> Any:
        import grpc

        if self.channel is None:
            self.channel = grpc.aio.insecure_channel(f"127.0.0.1:{self.running.port}")
            await self.channel.channel_ready()
        return self.channel

    async def _match(self) -> int:
        """One match of two remote random bots; returns its number of decisions."""
        from cardgames.clients.remote_bot import play_seat

        channel = await self._channel()
        created = await self.running.games.create(GAME, {}, PLAYERS, seed=self.rng.randbytes(32).hex())
        count = [0]
        rng = random.Random(self.rng.random())

        def choose(decision: dict[str, Any]) -> int:
            count[0] += 1
            return rng.randrange(len(decision["legal"]))

        await asyncio.gather(*(play_seat(channel, created.game_id, token, choose) for token in created.seat_tokens))
        self.matches += 1
        return count[0]

    def teardown(self, ctx: Context) -> None:
        async def stop() -> None:
            if self.channel is not None:
                await self.channel.close()
            await self.running.stop(0)

        ctx.run(stop())

    def info(self) -> dict[str, Any]:
        return {"game": f"{GAME} ({PLAYERS} players)", "matches": self.matches, "decisions": self.decisions}


class RemoteBotsProbe(_ServerProbe):
    name = "bots.remote"

    async def _batch(self, budget: float) -> dict[str, float]:
        started = time.perf_counter()
        matches = decisions = 0
        while time.perf_counter() - started < budget or matches == 0:
            counts = await asyncio.gather(*(self._match() for _ in range(CONCURRENT)))
            matches += len(counts)
            decisions += sum(counts)
        elapsed = time.perf_counter() - started
        self.decisions += decisions
        return {"matches_per_min": 60 * matches / elapsed, "decisions_per_s": decisions / elapsed}

    def sample(self, ctx: Context) -> dict[str, float]:
        return ctx.run(self._batch(ctx.settings.budget))


class DecisionCostProbe(_ServerProbe):
    name = "bots.decision"

    def setup(self, ctx: Context) -> None:
        super().setup(ctx)
        from cardgames.engine.core.registry import get_game

        self.game = get_game(GAME)
        self.config = self.game.make_config({}, PLAYERS)

    async def _through_server(self, budget: float) -> tuple[float, int]:
        started = time.perf_counter()
        decisions = 0
        while time.perf_counter() - started < budget or decisions == 0:
            decisions += await self._match()
        return time.perf_counter() - started, decisions

    def _engine(self, budget: float) -> tuple[float, int]:
        from cardgames.engine.core.protocol import Rejection, Setup
        from cardgames.engine.core.replay import new_match

        game, rng = self.game, random.Random(self.rng.random())
        started = time.perf_counter()
        decisions = 0
        while time.perf_counter() - started < budget or decisions == 0:
            state, _ = new_match(game, self.config, Setup(seed=rng.randbytes(32).hex()))
            while not game.is_over(state):
                seat = game.to_act(state)[0]
                game.view(state, seat)
                legal = game.legal_commands(state, seat)
                events = game.decide(state, seat, legal[rng.randrange(len(legal))])
                if isinstance(events, Rejection):
                    raise RuntimeError(f"a legal command was refused: {events}")
                for event in events:
                    state = game.evolve(state, event)
                decisions += 1
        return time.perf_counter() - started, decisions

    def sample(self, ctx: Context) -> dict[str, float]:
        half = ctx.settings.budget / 2
        server_time, server_decisions = ctx.run(self._through_server(half))
        engine_time, engine_decisions = self._engine(half)
        self.decisions += server_decisions
        protocol = 1e6 * server_time / server_decisions
        engine = 1e6 * engine_time / engine_decisions
        return {"protocol_us": protocol, "engine_us": engine, "added_us": protocol - engine}


class TournamentProbe(Probe):
    name = "bots.tournament"

    def setup(self, ctx: Context) -> None:
        from cardgames.service.games import Games
        from cardgames.service.store import EventStore
        from cardgames.service.tournament.manager import Tournaments

        self.games = Games(EventStore.from_url("memory:"))
        self.tournaments = Tournaments(self.games)
        self.rng = random.Random(ctx.settings.seed)
        self.matches = 0

    async def _run(self, budget: float) -> dict[str, float]:
        started = time.perf_counter()
        matches = 0
        while time.perf_counter() - started < budget or matches == 0:
            created = await self.tournaments.create(GAME, ["random", "r2=random"], players=PLAYERS, matches=4,
                                                    seed=self.rng.randbytes(32).hex())
            matches += (await self.tournaments.wait(created.tournament_id)).played
        elapsed = time.perf_counter() - started
        self.matches += matches
        return {"matches_per_min": 60 * matches / elapsed}

    def sample(self, ctx: Context) -> dict[str, float]:
        return ctx.run(self._run(ctx.settings.budget))

    def teardown(self, ctx: Context) -> None:
        ctx.run(self.tournaments.close())
        ctx.run(self.games.close())

    def info(self) -> dict[str, Any]:
        return {"game": f"{GAME} ({PLAYERS} players)", "matches": self.matches}


PROBES = (RemoteBotsProbe, TournamentProbe, DecisionCostProbe)


def _note(result: Result, keys: tuple[str, ...]) -> str:
    return ", ".join(f"{key} {result.info[key]}" for key in keys if key in result.info)


def matches_rows(name: str, label: str) -> Callable[[Mapping[str, Result]], list[Row]]:
    """The report's row for a matches-per-minute probe (no anchor: an absolute figure)."""

    def rows(results: Mapping[str, Result]) -> list[Row]:
        result = results[name]
        return [anchor_row(label, result, "matches_per_min", "matches/min", _note(result, ("game", "matches")))]

    return rows


def decision_rows(results: Mapping[str, Result]) -> list[Row]:
    """The protocol's time per decision against the engine's alone, and the difference."""
    result = results["bots.decision"]
    added = f"adds {result.medians['added_us']:,.0f} us per decision" if result.ok else ""
    return [
        compared_row("bot protocol per decision", result, "protocol_us", "us", result, "engine_us",
                     "engine alone per decision", None, ", ".join(filter(None, [added, _note(result, ("game",))]))),
    ]




def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="short samples (smoke test)")
    arguments = parser.parse_args()
    settings = Settings.quick() if arguments.quick else Settings(budget=3.0, repeats=3)
    results = measure([probe() for probe in PROBES], settings, lambda line: print(line, file=sys.stderr))
    for result in results.values():
        figures = ", ".join(f"{key} {value:,.1f}" for key, value in result.medians.items())
        print(f"{result.name}: {figures or result.error or result.unavailable} {result.info}")


if __name__ == "__main__":
    main()
