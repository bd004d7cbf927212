"""SubmitCommand round trips over localhost, with the in-memory and the SQLite store.

The server is the service's own (``cardgames.service.server.start`` on 127.0.0.1:0, in this
process, on the same event loop as the client, exactly like the echo anchor). A
match is created over gRPC with a seed, and the benchmark mirrors it locally with
the engine (same seed, same ``new_match``) to pick a random legal command for the
seat to act; only the SubmitCommand call itself is timed (with
``expected_sequence`` set, as a careful client sends it). A finished match is
replaced by a new one, untimed. Every response's sequence is checked against the
local mirror, so a figure always comes from accepted commands.
"""

from __future__ import annotations

import importlib
import random
import secrets
import tempfile
import time
import uuid
from functools import partial
from pathlib import Path
from typing import Any

import msgspec
from cardgames.engine.core.protocol import Rejection, Setup
from cardgames.engine.core.replay import apply, new_match

from bench.anchors import EchoProbe
from bench.harness import Context, Probe, Unavailable, latency_figures
from bench.playout import load_game

#: The game whose commands are submitted: the first one available.
GAME_ORDER = ("all_fours", "seep", "contract_rummy")


def _import(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ImportError as error:
        raise Unavailable(f"service not available ({name}: {error})") from error


class SubmitFloorProbe(EchoProbe):
    """What gRPC alone costs a SubmitCommand: the real messages and token, a constant handler.

    A bare ``grpc.aio`` server with the generated GameService servicer whose SubmitCommand
    returns a prebuilt response of a typical size (one event with its hash and the chain
    head); the client sends a typical All Fours command with ``expected_sequence`` and the
    seat token in the metadata. Compared with the echo, it shows the part of a SubmitCommand
    round trip that protobuf, the metadata and the generated stubs take before the service
    does any work.
    """

    name = "grpc.submit_floor"
    anchors = ("grpc.echo",)

    async def _start(self) -> None:
        import grpc

        pb = _import("cardgames.v1.game_service_pb2")
        stubs = _import("cardgames.v1.game_service_pb2_grpc")
        wire = _import("cardgames.wire")
        response = pb.SubmitCommandResponse(sequence=13, head="ab" * 32)
        entry = response.events.add(sequence=13, seat=1, hash="cd" * 32)
        wire.fill_game(entry.event, "all_fours", {"type": "card_played", "seat": 1, "card": "KS"})
        wire.fill_game(entry.command, "all_fours", {"type": "play", "card": "KS"})

        class Constant(stubs.GameServiceServicer):  # type: ignore[name-defined]
            async def SubmitCommand(self, request: Any, context: Any) -> Any:
                return response

        server = grpc.aio.server()
        stubs.add_GameServiceServicer_to_server(Constant(), server)
        await self._serve(server)
        self.payload = pb.SubmitCommandRequest(
            game_id=str(uuid.uuid4()), command=wire.wrap_command("all_fours", {"type": "play", "card": "KS"}),
            expected_sequence=12,
        )
        self.call = partial(stubs.GameServiceStub(self.channel).SubmitCommand,
                            metadata=(("cardgames-token", secrets.token_urlsafe(32)),))
        await self.call(self.payload)  # warm up


class SubmitProbe(Probe):
    anchors: tuple[str, ...] = ("grpc.echo", "grpc.submit_floor")

    def __init__(self, store: str) -> None:
        self.store_kind = store
        self.name = f"submit.{store}"
        self._tempdir: tempfile.TemporaryDirectory[str] | None = None
        self._facts: dict[str, Any] = {}
        self.running: Any = None

    def setup(self, ctx: Context) -> None:
        server = _import("cardgames.service.server")
        store_module = _import("cardgames.service.store")
        self.wire = _import("cardgames.wire")
        self.pb = _import("cardgames.v1.game_service_pb2")
        grpc_stubs = _import("cardgames.v1.game_service_pb2_grpc")
        self.game_name, self.game = self._pick_game()
        if self.store_kind == "sqlite":
            self._tempdir = tempfile.TemporaryDirectory(prefix="cardgames-bench-")
            url = f"sqlite:///{Path(self._tempdir.name) / 'service.sqlite'}"
        else:
            url = "memory:"
        store = store_module.EventStore.from_url(url)
        self.rng = random.Random(ctx.settings.seed)
        self.config = self.game.make_config({}, None)
        ctx.run(self._start(server, store, grpc_stubs))
        self._facts = {"game": self.game_name, "server": f"cardgames.service.server.start, store {store.describe()}"}

    def _pick_game(self) -> tuple[str, Any]:
        reasons = []
        for name in GAME_ORDER:
            try:
                return name, load_game(name)
            except Unavailable as why:
                reasons.append(str(why))
        raise Unavailable("no game to submit commands to: " + "; ".join(reasons))

    async def _start(self, server: Any, store: Any, grpc_stubs: Any) -> None:
        import grpc

        self.running = await server.start("127.0.0.1:0", store)
        self.channel = grpc.aio.insecure_channel(f"127.0.0.1:{self.running.port}")
        await self.channel.channel_ready()
        self.stub = grpc_stubs.GameServiceStub(self.channel)
        await self._new_match()
        await self._round_trip()  # warm up

    async def _new_match(self) -> None:
        seed = self.rng.randbytes(32).hex()
        created = await self.stub.CreateGame(self.pb.CreateGameRequest(game=self.game_name, seed=seed))
        self.game_id = created.game_id
        self.seat_tokens = list(created.seat_tokens)
        self.tokens = [(("cardgames-token", token),) for token in created.seat_tokens]
        self.state, events = new_match(self.game, self.config, Setup(seed=seed))
        self.sequence = len(events)
        if created.sequence != self.sequence:
            raise RuntimeError(f"the service started the match at sequence {created.sequence}, "
                               f"the local mirror at {self.sequence}")

    async def _round_trip(self, send: Any = None) -> float:
        """One timed SubmitCommand of a random legal command; the mirror follows untimed. ``send``: another
        way to call it than native gRPC, ``await send(request, seat_token)``."""
        game, choice = self.game, self.rng.choice
        if game.is_over(self.state):
            await self._new_match()
        seats = game.to_act(self.state)
        seat = seats[0] if len(seats) == 1 else choice(seats)
        command = choice(game.legal_commands(self.state, seat))
        request = self.pb.SubmitCommandRequest(
            game_id=self.game_id,
            command=self.wire.wrap_command(self.game_name, msgspec.to_builtins(command)),
            expected_sequence=self.sequence,
        )
        call, metadata = self.stub.SubmitCommand, self.tokens[seat]
        if send is None:
            before = time.perf_counter()
            response = await call(request, metadata=metadata)
        else:
            token = self.seat_tokens[seat]
            before = time.perf_counter()
            response = await send(request, token)
        elapsed = time.perf_counter() - before
        outcome = apply(game, self.state, seat, command)
        if isinstance(outcome, Rejection):
            raise RuntimeError(f"the local mirror rejected a legal command: {outcome}")
        self.state, events = outcome
        self.sequence += len(events)
        if response.sequence != self.sequence:
            raise RuntimeError(f"the service is at sequence {response.sequence}, the local mirror at {self.sequence}")
        return elapsed

    async def _round_trips(self, budget: float) -> list[float]:
        latencies: list[float] = []
        spent = 0.0
        while spent < budget or not latencies:
            latency = await self._round_trip()
            latencies.append(latency)
            spent += latency
        return latencies

    def sample(self, ctx: Context) -> dict[str, float]:
        return latency_figures(ctx.run(self._round_trips(ctx.settings.budget)))

    def teardown(self, ctx: Context) -> None:
        if self.running is not None:
            ctx.run(self._stop())
        if self._tempdir is not None:
            self._tempdir.cleanup()

    async def _stop(self) -> None:
        await self.channel.close()
        await self.running.stop(None)

    def info(self) -> dict[str, Any]:
        return dict(self._facts)


#: The ways SubmitOverHttpProbe calls SubmitCommand, in the order of each round.
TRANSPORTS = ("grpc", "connect_json", "grpc_web")


class SubmitOverHttpProbe(SubmitProbe):
    """SubmitCommand over HTTP next to native gRPC, in one run on one server.

    The service's own server (in-memory store) with its HTTP listener
    (``cardgames.service.http.server.start_http``, uvicorn in the same event loop); each round
    submits one command over native gRPC (grpc.aio), one with the Connect protocol in JSON and
    one with gRPC-Web (binary), the last two with connectrpc's generated client, no compression
    either way. The calls alternate, so the three figures share the same moments of the machine.
    """

    name = "submit.http"
    anchors: tuple[str, ...] = ("grpc.echo",)

    def __init__(self) -> None:
        super().__init__("memory")
        self.name = "submit.http"
        self.clients: list[Any] = []

    async def _start(self, server: Any, store: Any, grpc_stubs: Any) -> None:
        await super()._start(server, store, grpc_stubs)
        http_server = _import("cardgames.service.http.server")
        connect = _import("cardgames.v1.game_service_connect")
        compat = _import("connectrpc.compat")
        protocol = _import("connectrpc.protocol")
        self.running.http = await http_server.start_http("127.0.0.1:0", self.running)
        url = f"http://127.0.0.1:{self.running.http.port}"
        plain: dict[str, Any] = {"send_compression": None, "accept_compression": []}
        json_client = connect.GameServiceClient(url, codec=compat.google_protobuf_json_codec(), **plain)
        web_client = connect.GameServiceClient(url, protocol=protocol.ProtocolType.GRPC_WEB, **plain)
        self.clients = [json_client, web_client]

        def over(client: Any) -> Any:
            async def send(request: Any, token: str) -> Any:
                return await client.submit_command(request, headers={"cardgames-token": token})

            return send

        self.senders = {"grpc": None, "connect_json": over(json_client), "grpc_web": over(web_client)}
        for send in self.senders.values():
            await self._round_trip(send)  # warm up

    def setup(self, ctx: Context) -> None:
        super().setup(ctx)
        self._facts["server"] += "; HTTP: uvicorn in the same loop, connectrpc clients (no compression)"

    async def _rounds(self, budget: float) -> dict[str, float]:
        latencies: dict[str, list[float]] = {name: [] for name in TRANSPORTS}
        spent = 0.0
        while spent < budget or not latencies["grpc"]:
            for name in TRANSPORTS:
                latency = await self._round_trip(self.senders[name])
                latencies[name].append(latency)
                spent += latency
        figures = {name: latency_figures(latencies[name]) for name in TRANSPORTS}
        return {f"{name}_{key}": value for name, found in figures.items() for key, value in found.items()}

    def sample(self, ctx: Context) -> dict[str, float]:
        return ctx.run(self._rounds(ctx.settings.budget))

    async def _stop(self) -> None:
        for client in self.clients:
            await client.close()
        await super()._stop()
