"""The anchors: outside code our figures are compared with, measured in the same run.

* RLCard (1.2.0) engine-only steps per second for ``bridge`` and ``gin-rummy``:
  the game object of ``rlcard.make(...)``, its judge's legal actions enumerated at
  every step and one chosen at random, ``game.step(action)``, whole games from
  ``init_game()``; no agents and no observation: neither the env's encoding
  (``_extract_state``) nor the game's own ``get_state``, which ``Game.step`` and
  ``init_game`` call at every step to build the next player's observation (gin
  rummy's lists the hand, the discards and the unknown cards as indices). The
  game object's ``get_state`` is replaced, on that instance only, by a function
  that builds nothing (:func:`no_observation`): nothing of the rules reads it (the
  judge and the round never call it), so what is timed is the round's moves, the
  judge's legal actions and ``step``'s dispatch: the rules engine alone.
* The eventsourcing (9.5.6) library: a plain ``Aggregate`` subclass with one event
  type, rebuilt by ``Application.repository.get`` from a log as long as our
  long-log replay (in-memory POPO store), events per second.
* A bare ``grpc.aio`` unary echo on localhost (port 0), bytes in and out, client and
  server on one event loop: p50, p99, round trips per second.
"""

from __future__ import annotations

import random
import time
from typing import Any

from eventsourcing.application import Application
from eventsourcing.domain import Aggregate, event

from bench.harness import Context, Probe, Unavailable, latency_figures, timed_loop
from bench.longlog import FALLBACK_LENGTH, long_log

# --------------------------------------------------------------------------- RLCard


def no_observation(player_id: int) -> dict[str, Any]:
    """Stands in for an RLCard game's ``get_state``: no observation is built."""
    return {}


class RLCardProbe(Probe):
    """Random legal actions through an RLCard game object, whole games, no observation."""

    def __init__(self, env_name: str) -> None:
        self.env_name = env_name
        self.name = f"rlcard.{env_name}"
        self._game: Any = None
        self._legal: Any = None
        self._steps_per_game: list[float] = []

    def setup(self, ctx: Context) -> None:
        try:
            import rlcard
        except ImportError as error:  # the bench extra is not installed
            raise Unavailable(f"rlcard is not installed (pip install -e '.[bench]'): {error}") from error
        env = rlcard.make(self.env_name, config={"seed": ctx.settings.seed})
        self._game = env.game
        self._game.get_state = no_observation  # the rules engine alone: no observation per step
        judge = getattr(self._game, "judger", None) or self._game.judge
        self._legal = judge.get_legal_actions
        self._rng = random.Random(ctx.settings.seed)

    def _one_game(self) -> int:
        game, legal, choice = self._game, self._legal, self._rng.choice
        game.init_game()
        steps = 0
        while not game.is_over():
            game.step(choice(legal()))
            steps += 1
        return steps

    def sample(self, ctx: Context) -> dict[str, float]:
        elapsed, steps = timed_loop(ctx.settings.budget, self._one_game)
        self._steps_per_game.append(sum(steps) / len(steps))
        return {"steps_per_s": sum(steps) / elapsed, "games_per_s": len(steps) / elapsed}

    def info(self) -> dict[str, Any]:
        return {"steps_per_game": round(sum(self._steps_per_game) / max(1, len(self._steps_per_game)), 1)}


# --------------------------------------------------------------------------- eventsourcing


class Table(Aggregate):
    """A plain Aggregate with one event type besides its creation event."""

    def __init__(self) -> None:
        self.plays = 0
        self.last = ""

    @event("CardPlayed")
    def play(self, seat: int, card: str) -> None:
        self.plays += 1
        self.last = card


class AggregateReplayProbe(Probe):
    """``repository.get`` of a plain Aggregate from a log as long as our long log."""

    name = "eventsourcing.aggregate"

    def setup(self, ctx: Context) -> None:
        try:
            self.length = len(long_log(ctx).events)
            self.length_from = "our long log"
        except Unavailable:
            self.length = FALLBACK_LENGTH
            self.length_from = "fallback (no long log yet)"
        self.app = Application[Any](env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
        table = Table()
        cards = ("AS", "10D", "QH", "7C")
        for index in range(self.length - 1):  # the creation event is the first of the log
            table.play(index % 4, cards[index % 4])
        self.app.save(table)
        self.table_id = table.id
        if self.app.repository.get(self.table_id).version != self.length:
            raise RuntimeError("the aggregate's log does not have the intended length")

    def sample(self, ctx: Context) -> dict[str, float]:
        get, table_id = self.app.repository.get, self.table_id

        def replay() -> object:
            return get(table_id)

        elapsed, replays = timed_loop(ctx.settings.budget, replay)
        return {"events_per_s": len(replays) * self.length / elapsed}

    def info(self) -> dict[str, Any]:
        return {"log_length": self.length, "length_from": self.length_from}


# --------------------------------------------------------------------------- gRPC echo

ECHO_METHOD = "/bench.Echo/Echo"
ECHO_PAYLOAD = bytes(range(64))  # about the size of a SubmitCommand request


class EchoProbe(Probe):
    """A bare grpc.aio unary round trip: the floor under any SubmitCommand."""

    name = "grpc.echo"
    #: what each round trip sends (a subclass may send another message)
    payload: Any = None

    def setup(self, ctx: Context) -> None:
        ctx.run(self._start())

    async def _start(self) -> None:
        import grpc

        async def echo(request: bytes, context: Any) -> bytes:
            return request

        server = grpc.aio.server()
        handler = grpc.method_handlers_generic_handler(
            "bench.Echo", {"Echo": grpc.unary_unary_rpc_method_handler(echo)}
        )
        server.add_generic_rpc_handlers((handler,))
        await self._serve(server)
        self.call = self.channel.unary_unary(ECHO_METHOD)
        self.payload = ECHO_PAYLOAD
        await self.call(ECHO_PAYLOAD)  # warm up

    async def _serve(self, server: Any) -> None:
        """Start ``server`` on a free localhost port and open a ready channel to it."""
        import grpc

        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        self.server = server
        self.channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
        await self.channel.channel_ready()

    async def _round_trips(self, budget: float) -> list[float]:
        clock, call, payload = time.perf_counter, self.call, self.payload
        latencies: list[float] = []
        start = clock()
        while True:
            before = clock()
            await call(payload)
            after = clock()
            latencies.append(after - before)
            if after - start >= budget:
                return latencies

    def sample(self, ctx: Context) -> dict[str, float]:
        return latency_figures(ctx.run(self._round_trips(ctx.settings.budget)))

    def teardown(self, ctx: Context) -> None:
        ctx.run(self._stop())

    async def _stop(self) -> None:
        await self.channel.close()
        await self.server.stop(None)
