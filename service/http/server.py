"""The HTTP listener: uvicorn in the grpc.aio server's event loop, over the same application layer.

:func:`start_http` serves GameService, BotService, TournamentService, TableService and health's Check and
List (grpc.health.v1.Health) with the Connect protocol and gRPC-Web on one HTTP/1.1 port,
plus the static files (service/http/app.py), next to a running gRPC server
(:func:`cardgames.service.server.start`): one process, one store, one ``Games``, the same
servicer code. uvicorn runs as a task of the running loop (never its own loop, thread or
process; its signal handling is left to ``cardgames serve``).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import os
import socket
import ssl
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, cast

import uvicorn
from grpc_health.v1 import health_pb2

from cardgames.service.bot_service import BotServiceApi
from cardgames.service.grpc_api import GameServiceApi
from cardgames.service.http.app import HttpApp
from cardgames.service.http.bridge import Bridge, DescribedApplication, codecs
from cardgames.service.server import CannotListen, Running, parse_address
from cardgames.service.tables import TableServiceApi
from cardgames.service.tournament.grpc_api import TournamentServiceApi
from cardgames.v1 import (
    bots_connect,
    bots_pb2,
    game_service_connect,
    game_service_pb2,
    table_connect,
    table_pb2,
    tournament_connect,
    tournament_pb2,
)

DEFAULT_HTTP_ADDRESS = "127.0.0.1:8080"
#: The largest request body (4 MiB, gRPC's default receive limit): past it, RESOURCE_EXHAUSTED.
MAX_REQUEST_BYTES = 4 * 1024 * 1024
#: Seconds open streams (Watch) get to finish when the server stops, then they are cancelled.
GRACE = 1


class _Server(uvicorn.Server):
    """uvicorn without its signal handlers: ``cardgames serve`` owns SIGINT and SIGTERM."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


@dataclass
class HttpRunning:
    """A started HTTP listener: its bound port (useful with port 0) and the ASGI application."""

    port: int
    app: HttpApp
    server: uvicorn.Server
    task: asyncio.Task[None]

    async def stop(self) -> None:
        self.server.should_exit = True
        await self.task


def applications(running: Running) -> list[Any]:
    """The Connect applications of a running gRPC server's services, on its servicers' code."""

    def service(module: Any, name: str) -> Any:
        return module.DESCRIPTOR.services_by_name[name]

    games = running.games
    #: The gRPC server's interceptors that HTTP calls go through too, outermost first (service/http/bridge.py).
    meter = running.metrics.interceptor if running.metrics is not None else None
    guards = tuple(guard for guard in (meter, running.rate_limit, running.admission) if guard is not None)
    found: list[Any] = [
        game_service_connect.GameServiceASGIApplication(
            cast(Any, Bridge(GameServiceApi(games), service(game_service_pb2, "GameService"), guards)),
            read_max_bytes=MAX_REQUEST_BYTES,
            codecs=codecs(),
        ),
        DescribedApplication(running.health, service(health_pb2, "Health"), health_pb2),
    ]
    if running.bots is not None:
        found.append(
            bots_connect.BotServiceASGIApplication(
                cast(
                    Any,
                    Bridge(BotServiceApi(games, running.bots.clocks), service(bots_pb2, "BotService"), guards),
                ),
                read_max_bytes=MAX_REQUEST_BYTES,
                codecs=codecs(),
            )
        )
        found.append(
            tournament_connect.TournamentServiceASGIApplication(
                cast(
                    Any,
                    Bridge(
                        TournamentServiceApi(running.bots.tournaments),
                        tournament_pb2.DESCRIPTOR.services_by_name["TournamentService"],
                        guards,
                    ),
                ),
                read_max_bytes=MAX_REQUEST_BYTES,
                codecs=codecs(),
            )
        )
        found.append(
            table_connect.TableServiceASGIApplication(
                cast(Any, Bridge(TableServiceApi(running.bots.tables), service(table_pb2, "TableService"))),
                read_max_bytes=MAX_REQUEST_BYTES,
                codecs=codecs(),
            )
        )
    return found


def _listen(host: str, port: int) -> socket.socket:
    """A listening socket on the first address ``host`` names (an IPv6 host in brackets)."""
    name = host[1:-1] if host.startswith("[") else host
    found = socket.getaddrinfo(name, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    family, kind, protocol, _, where = found[0]
    sock = socket.socket(family, kind, protocol)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if family == socket.AF_INET6:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        sock.bind(where)
        sock.listen(2048)
        sock.setblocking(False)
    except OSError:
        sock.close()
        raise
    return sock


def _tls_context(tls: tuple[bytes, bytes]) -> ssl.SSLContext:
    certificate, key = tls
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    with tempfile.TemporaryDirectory() as folder:
        paths = os.path.join(folder, "cert.pem"), os.path.join(folder, "key.pem")
        for path, data in zip(paths, (certificate, key), strict=True):
            with open(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600), "wb") as file:
                file.write(data)
        context.load_cert_chain(*paths)
    return context


async def start_http(
    address: str,
    running: Running,
    *,
    cors_origins: Iterable[str] = (),
    tls: tuple[bytes, bytes] | None = None,
) -> HttpRunning:
    """Serve ``running``'s services over HTTP on ``address`` (HOST:PORT, port 0: any free port); with
    ``tls`` (the gRPC server's certificate chain and key), over HTTPS only. Raises AddressError for a
    malformed address, CannotListen when this process cannot listen there."""
    host, port = parse_address(address)
    try:
        sock = _listen(host, port)
    except (OSError, IndexError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        in_use = getattr(error, "errno", None) == errno.EADDRINUSE
        held = " (another program, or another server, holds it)" if in_use else ""
        raise CannotListen(f"cannot listen on {address} (HTTP): {reason}{held}") from None
    app = HttpApp(applications(running), cors_origins=cors_origins)
    config = uvicorn.Config(
        app,
        lifespan="off",
        http="h11",  # plain Python, the same everywhere (httptools, where installed, would be picked otherwise)
        ws="none",
        log_level=logging.WARNING,
        access_log=False,
        server_header=False,
        timeout_graceful_shutdown=GRACE,
    )
    config.load()
    if tls is not None:
        config.ssl = _tls_context(tls)
    server = _Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started and not task.done():
        await asyncio.sleep(0.005)
    if task.done():
        sock.close()
        task.result()
        raise CannotListen(f"cannot listen on {address} (HTTP): the server did not start")
    return HttpRunning(sock.getsockname()[1], app, server, task)
