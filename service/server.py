"""The gRPC server: GameService, health (grpc.health.v1) and reflection (v1 and v1alpha), on grpc.aio.

Optional: TLS (``tls=(certificate_chain_pem, private_key_pem)``), per-caller rate
limits (``limits``, see :mod:`cardgames.service.guards`) and Prometheus metrics over HTTP
(``metrics="HOST:PORT"``, see :mod:`cardgames.service.metrics`). Undecodable requests are always refused with
INVALID_ARGUMENT. With a shared store (PostgreSQL) the application layer subscribes to the
store's feed, so several processes can serve the same games (docs/operations.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import signal
import socket
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from cardgames.engine.core.echo import echo
from cardgames.service.admission import Admission, AdmissionControl, Bounds
from cardgames.service.bots_server import NAMES as BOT_SERVICE_NAMES
from cardgames.service.bots_server import BotServices, add_bot_services
from cardgames.service.games import Games
from cardgames.service.games.cache import CacheSizes
from cardgames.service.grpc_api import SERVICE_NAME, GameServiceApi, PreEncoded
from cardgames.service.guards import Limits, MalformedRequests, RateLimit
from cardgames.service.metrics import Metrics
from cardgames.service.reflection import Health, enable_reflection
from cardgames.service.store import EventStore
from cardgames.service.table_clocks import TableClocks
from cardgames.service.workers import Workers
from cardgames.v1 import game_service_pb2_grpc

if TYPE_CHECKING:
    from cardgames.service.http.server import HttpRunning

DEFAULT_ADDRESS = "127.0.0.1:50051"
#: Server options. gRPC sets SO_REUSEPORT on its listening sockets by default, so a second server
#: could bind a port that a running one holds, and the kernel would split the connections
#: between them (games "vanish", sequences go backwards): never.
#: gRPC also cancels (plain CANCELLED, no hint) calls that arrive while more than 1,000 wait to be
#: taken by the event loop, and all past 3,000: a busy loop takes calls late, and thousands of
#: clients make them wait there. The admission control refuses them instead, with a hint when to
#: retry (docs/operations.md, "Overload"); the bound here stays, higher, against a flood.
MAX_PENDING = 20_000
SERVER_OPTIONS = (("grpc.so_reuseport", 0), ("grpc.server.max_pending_requests", MAX_PENDING),
                  ("grpc.server.max_pending_requests_hard_limit", MAX_PENDING))
log = logging.getLogger(__name__)


class AddressError(ValueError):
    """A listening address that is not HOST:PORT with a port in 0..65535 (0: any free port)."""


class CannotListen(OSError):
    """The address is well formed, but this process cannot listen there (in use, not local, ...)."""


def parse_address(address: str) -> tuple[str, int]:
    """The host and port of ``HOST:PORT`` (an IPv6 host in brackets: ``[::1]:50051``); else AddressError."""
    host, colon, port = address.rpartition(":")
    if not colon or not host:
        raise AddressError(f"the address must be HOST:PORT (0.0.0.0 or [::] for every interface), not {echo(address)}")
    if ":" in host and not (host.startswith("[") and host.endswith("]")):
        raise AddressError(f"an IPv6 host goes in brackets, as [::1]:50051, not {echo(address)}")
    if not (port.isascii() and port.isdigit() and len(port) <= 5 and int(port) <= 65535):
        raise AddressError(f"the port must be a number in 0..65535 (0: any free port), not {echo(port)}")
    return host, int(port)


def _why_not(host: str, port: int) -> str | None:
    """In words, why this process cannot listen on ``host:port`` (the OS's reason, found with a plain
    socket on every address the host names); None when it can."""
    name = host[1:-1] if host.startswith("[") else host
    try:
        found = socket.getaddrinfo(name, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as error:
        return f"cannot resolve the host {echo(name)} ({error.strerror})"
    for family, kind, protocol, _, where in found:
        with socket.socket(family, kind, protocol) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as gRPC: TIME_WAIT is no obstacle
            try:
                probe.bind(where)
            except OSError as error:
                held = " (another program, or another server, holds it)" if error.errno == errno.EADDRINUSE else ""
                return f"{error.strerror}{held}"
    return None


@dataclass
class Running:
    """A started server: its bound port (useful with port 0), the app layer, the health servicer."""

    server: grpc.aio.Server
    port: int
    games: Games
    health: health.aio.HealthServicer
    #: BotService's clocks and TournamentService's tournaments (service/bots_server.py).
    bots: BotServices | None = None
    #: The server's metrics (None: off), and the port they are served on over HTTP.
    metrics: Metrics | None = None
    metrics_port: int | None = None
    #: The HTTP listener (Connect, gRPC-Web) over the same application layer, if one was started.
    http: HttpRunning | None = None
    #: The per-caller limits (None: none), shared by both listeners: one budget per caller, whichever it uses.
    rate_limit: RateLimit | None = None
    #: The timers and bots of games with a time control or a handed-over seat (service/table_clocks.py).
    clocks: TableClocks | None = None
    #: Admission control (None: none), shared by both listeners like the limits.
    admission: AdmissionControl | None = None

    async def stop(self, grace: float | None = 1.0) -> None:
        await self.health.enter_graceful_shutdown()
        if self.http is not None:
            await self.http.stop()
        await self.server.stop(grace)
        if self.admission is not None:
            self.admission.close()
        if self.clocks is not None:
            await self.clocks.close()
        if self.metrics is not None:
            await self.metrics.close()
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
    metrics: str | None = None,
    sizes: CacheSizes | None = None,
    bounds: Bounds | None = None,
) -> Running:
    """Start serving on ``address`` (``host:0`` picks a free port) with ``store`` (default: from the env).

    ``tls``: (PEM certificate chain, PEM private key) to serve over TLS only; ``limits``: per-caller
    rate limits (None: none); ``games``: an application layer to serve instead of a new one on ``store``;
    ``workers``: its engine worker processes (default: cardgames.service.workers' defaults, started when first needed);
    ``metrics``: ``HOST:PORT`` to serve Prometheus metrics on over HTTP (port 0: any; None: no metrics);
    ``sizes``: the bounds of the live games kept in memory (default: service/games/cache.py's).
    ``bounds``: admission control's (service/admission.py; None: none).
    """
    host, port = parse_address(address)  # before anything: grpc would wrap a port past 65535
    metrics_at = parse_address(metrics) if metrics is not None else None
    meter = Metrics() if metrics_at is not None else None
    if games is None:
        store = store if store is not None else EventStore.from_url()
        sizes = sizes if sizes is not None else CacheSizes()
        games = Games(meter.watch_store(store) if meter is not None else store, pool=workers,
                      max_live=sizes.max_live, max_finished=sizes.max_finished,
                      idle_evict_seconds=sizes.idle_evict_seconds)
    interceptors: list[grpc.aio.ServerInterceptor] = [MalformedRequests(), PreEncoded()]
    rate_limit = RateLimit(limits) if limits is not None else None
    admission = None
    if bounds is not None:
        admission = AdmissionControl(Admission(bounds), rate_limit=rate_limit,
                                     registry=meter.registry if meter is not None else None)
        interceptors.insert(0, admission)  # after the limits: a call over its rate takes no slot
    if rate_limit is not None:
        interceptors.insert(0, rate_limit)  # outermost: garbage counts against the limit too
    if meter is not None:
        interceptors.insert(0, meter.interceptor)  # before the limits: it counts their refusals
        meter.watch_games(games)
    server = grpc.aio.server(interceptors=interceptors, options=SERVER_OPTIONS)
    game_service_pb2_grpc.add_GameServiceServicer_to_server(GameServiceApi(games), server)
    bots = add_bot_services(games, server)
    health_servicer = Health()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    enable_reflection((SERVICE_NAME, *BOT_SERVICE_NAMES, health.SERVICE_NAME), server)
    # Every address the host names must be free: gRPC binds "localhost" as 127.0.0.1 and ::1, and when
    # one of them is held it listens on the other alone, where a client may reach it instead.
    problem = _why_not(host, port)
    try:
        if problem is not None:
            raise RuntimeError(problem)
        if tls is None:
            bound = server.add_insecure_port(address)
        else:
            certificate, key = tls
            bound = server.add_secure_port(address, grpc.ssl_server_credentials([(key, certificate)]))
    except RuntimeError:  # grpc's "Failed to bind to address"
        bound = 0
    if bound == 0:
        await games.close()
        raise CannotListen(f"cannot listen on {address}: {problem or _why_not(host, port) or 'gRPC could not bind it'}")
    metrics_port = None
    if meter is not None and metrics_at is not None:
        try:
            metrics_port = _serve_metrics(meter, *metrics_at)
        except CannotListen:
            await server.stop(None)
            await games.close()
            raise
    await games.open()
    clocks = TableClocks(games)
    await clocks.start()  # the clocked games' timers, rebuilt from their logs
    await server.start()
    for name in ("", SERVICE_NAME, *BOT_SERVICE_NAMES):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    return Running(server, bound, games, health_servicer, bots, meter, metrics_port, rate_limit=rate_limit,
                   clocks=clocks, admission=admission)


def _serve_metrics(meter: Metrics, host: str, port: int) -> int:
    """Serve ``meter`` over HTTP on ``host:port``: the bound port, else CannotListen with the reason."""
    problem = _why_not(host, port)
    if problem is None:
        try:
            return meter.serve(host, port)
        except OSError as error:
            problem = error.strerror or str(error)
    raise CannotListen(f"cannot serve metrics on {host}:{port}: {problem}")


async def serve(
    address: str,
    store: EventStore,
    announce: Callable[[str], None] = print,
    *,
    tls: tuple[bytes, bytes] | None = None,
    limits: Limits | None = None,
    workers: Workers | None = None,
    metrics: str | None = None,
    http: str | None = None,
    cors_origins: Sequence[str] = (),
    sizes: CacheSizes | None = None,
    bounds: Bounds | None = None,
) -> None:
    """Serve until SIGINT or SIGTERM, then stop gracefully (the engine workers start at once). ``http``:
    also serve Connect and gRPC-Web on that HOST:PORT (service/http/), ``cors_origins`` allowed there;
    ``sizes``: the bounds of the live games kept in memory; ``bounds``: admission control's."""
    running = await start(address, store, tls=tls, limits=limits, workers=workers, metrics=metrics, sizes=sizes,
                          bounds=bounds)
    if http is not None:
        from cardgames.service.http.server import start_http  # (it imports this module)

        try:
            running.http = await start_http(http, running, cors_origins=cors_origins, tls=tls)
        except BaseException:
            await running.stop()
            raise
    await running.games.pool.start()
    host = address.rsplit(":", 1)[0]
    extras = [store.describe()]
    if running.games.shared:
        extras.append("shared: replicas welcome")
    extras.append("TLS" if tls else "plaintext")
    if limits is not None:
        extras.append(f"limit {limits.rate:g}/s burst {limits.burst:g} per caller, "
                      f"{limits.per_address:g}/s per address")
    if bounds is not None:
        extras.append(f"at most {bounds.max_in_flight} calls in flight")
    pool = running.games.pool
    extras.append(f"{pool.size} engine worker{'s' if pool.size != 1 else ''}, deadline {pool.deadline:g}s")
    cache = running.games.cache
    idle = f", idle ones leave after {cache.idle_evict_seconds:g}s" if cache.idle_evict_seconds else ""
    extras.append(f"up to {cache.max_live} live games{idle}")
    announce(f"cardgames: serving GameService on {host}:{running.port} ({'; '.join(extras)})")
    log.info("serving GameService on %s:%d", host, running.port,
             extra={"address": f"{host}:{running.port}", "store": store.describe()})
    if running.http is not None:
        web = f"{http.rsplit(':', 1)[0] if http else host}:{running.http.port}"
        announce(f"cardgames: serving Connect and gRPC-Web on http{'s' if tls else ''}://{web}/")
    if running.metrics_port is not None and metrics is not None:
        where = f"http://{metrics.rsplit(':', 1)[0]}:{running.metrics_port}/metrics"
        announce(f"cardgames: metrics on {where}")
        log.info("metrics on %s", where, extra={"metrics": where})
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
        log.info("stopping")
        await running.stop()
