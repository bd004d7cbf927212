"""The gRPC server: GameService, health (grpc.health.v1) and reflection, on grpc.aio.

Optional: TLS (``tls=(certificate_chain_pem, private_key_pem)``) and per-connection rate
limits (``limits``, see :mod:`service.guards`). Undecodable requests are always refused with
INVALID_ARGUMENT. With a shared store (PostgreSQL) the application layer subscribes to the
store's feed, so several processes can serve the same games (docs/operations.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Callable
from dataclasses import dataclass

import grpc
from cardgames.v1 import game_service_pb2_grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from service.bots_server import NAMES as BOT_SERVICE_NAMES
from service.bots_server import BotServices, add_bot_services
from service.games import Games
from service.grpc_api import SERVICE_NAME, GameServiceApi, PreEncoded
from service.guards import Limits, MalformedRequests, RateLimit
from service.store import EventStore
from service.workers import Workers

DEFAULT_ADDRESS = "127.0.0.1:50051"


@dataclass
class Running:
    """A started server: its bound port (useful with port 0), the app layer, the health servicer."""

    server: grpc.aio.Server
    port: int
    games: Games
    health: health.aio.HealthServicer
    #: BotService's clocks and TournamentService's tournaments (service/bots_server.py).
    bots: BotServices | None = None

    async def stop(self, grace: float | None = 1.0) -> None:
        await self.health.enter_graceful_shutdown()
        await self.server.stop(grace)
        if self.bots is not None:
            await self.bots.close()
        await self.games.close()


async def start(
    address: str = DEFAULT_ADDRESS,
    store: EventStore | None = None,
    *,
    tls: tuple[bytes, bytes] | None = None,
    limits: Limits | None = None,
    games: Games | None = None,
    workers: Workers | None = None,
) -> Running:
    """Start serving on ``address`` (``host:0`` picks a free port) with ``store`` (default: from the env).

    ``tls``: (PEM certificate chain, PEM private key) to serve over TLS only; ``limits``: per-connection
    rate limits (None: none); ``games``: an application layer to serve instead of a new one on ``store``;
    ``workers``: its engine worker processes (default: service.workers' defaults, started when first needed).
    """
    if games is None:
        games = Games(store if store is not None else EventStore.from_url(), pool=workers)
    interceptors: list[grpc.aio.ServerInterceptor] = [MalformedRequests(), PreEncoded()]
    if limits is not None:
        interceptors.insert(0, RateLimit(limits))  # outermost: garbage counts against the limit too
    server = grpc.aio.server(interceptors=interceptors)
    game_service_pb2_grpc.add_GameServiceServicer_to_server(GameServiceApi(games), server)
    bots = add_bot_services(games, server)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection(
        (SERVICE_NAME, *BOT_SERVICE_NAMES, health.SERVICE_NAME, reflection.SERVICE_NAME), server
    )
    if tls is None:
        port = server.add_insecure_port(address)
    else:
        certificate, key = tls
        port = server.add_secure_port(address, grpc.ssl_server_credentials([(key, certificate)]))
    if port == 0:
        await games.close()
        raise OSError(f"cannot listen on {address}")
    await games.open()
    await server.start()
    for name in ("", SERVICE_NAME, *BOT_SERVICE_NAMES):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    return Running(server, port, games, health_servicer, bots)


async def serve(
    address: str,
    store: EventStore,
    announce: Callable[[str], None] = print,
    *,
    tls: tuple[bytes, bytes] | None = None,
    limits: Limits | None = None,
    workers: Workers | None = None,
) -> None:
    """Serve until SIGINT or SIGTERM, then stop gracefully (the engine workers start at once)."""
    running = await start(address, store, tls=tls, limits=limits, workers=workers)
    await running.games.pool.start()
    host = address.rsplit(":", 1)[0]
    extras = [store.describe()]
    if running.games.shared:
        extras.append("shared: replicas welcome")
    extras.append("TLS" if tls else "plaintext")
    if limits is not None:
        extras.append(f"limit {limits.rate:g}/s burst {limits.burst:g} per connection")
    pool = running.games.pool
    extras.append(f"{pool.size} engine worker{'s' if pool.size != 1 else ''}, deadline {pool.deadline:g}s")
    announce(f"cardgames: serving GameService on {host}:{running.port} ({'; '.join(extras)})")
    if running.bots is not None:
        resumed = await running.bots.tournaments.resume_all()
        if resumed:
            announce(f"cardgames: resumed {len(resumed)} unfinished tournament(s)")
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(signum, stopping.set)
    try:
        await stopping.wait()
    finally:
        announce("cardgames: stopping")
        await running.stop()
