"""``cardgames serve [--address HOST:PORT] [--http HOST:PORT|off] [--cors-origin ORIGIN] [--store URL] ...``.

(... ``[--tls-cert F --tls-key F] [--rate-limit N] [--max-in-flight N] [--queue-wait MS] [--metrics HOST:PORT]``
``[--log-format text|json] [--max-live-games N] [--max-finished-games N] [--idle-evict-seconds S]``.)
Native gRPC on ``--address``; Connect and gRPC-Web (and the page at /) on ``--http``
(service/http/), in the same process over the same store.
A malformed address or a port past 65535 exits with code 2, an address this process cannot
listen on (a port another program or another server holds) with code 1: one line on stderr
each, never a traceback and never a second listener on a held port (service/server.py).
The same goes for the ``--metrics`` address (Prometheus over HTTP, service/metrics.py), and for the
live games' bounds (service/games/cache.py): a value out of range or not a number exits with code 2.
"""

from __future__ import annotations

import asyncio
import logging
import os
from pathlib import Path

import typer

from cardgames.engine.core.echo import echo
from cardgames.service import logs
from cardgames.service.admission import Bounds
from cardgames.service.games.cache import IDLE_EVICT_SECONDS, MAX_FINISHED, MAX_LIVE, CacheSizes
from cardgames.service.guards import Limits
from cardgames.service.http.server import DEFAULT_HTTP_ADDRESS
from cardgames.service.native import native_build
from cardgames.service.server import DEFAULT_ADDRESS, AddressError, CannotListen, parse_address, serve
from cardgames.service.store import ENV_STORE, EventStore, StoreError, resolve_environment
from cardgames.service.workers import DEFAULT_DEADLINE, Workers

#: Library settings given to a PostgreSQL store unless the environment sets them: a request
#: waits at most this long for a connection, so a database that is down fails calls quickly.
POSTGRES_DEFAULTS = {"POSTGRES_CONNECT_TIMEOUT": "5", "POSTGRES_POOL_SIZE": "8", "POSTGRES_MAX_OVERFLOW": "8"}


def store_environment(url: str | None, environ: dict[str, str] | None = None) -> dict[str, str]:
    """The store's environment with the serving defaults for PostgreSQL (the environment's own values win)."""
    environ = dict(os.environ) if environ is None else environ
    env = resolve_environment(url, environ)
    if env.get("PERSISTENCE_MODULE", "").endswith("postgres"):
        for key, value in POSTGRES_DEFAULTS.items():
            env.setdefault(key, environ.get(key, value))
    return env


def cache_sizes(max_live: str, max_finished: str, idle_evict: str) -> CacheSizes | str:
    """The live games' bounds from the options' text, or what is wrong with them in one line."""
    numbers: list[float] = []
    for option, text, kind, what in (("--max-live-games", max_live, int, "a whole number"),
                                     ("--max-finished-games", max_finished, int, "a whole number"),
                                     ("--idle-evict-seconds", idle_evict, float, "a number of seconds (0: never)")):
        try:
            numbers.append(kind(text))
        except ValueError:
            return f"{option} is {what}, not {echo(text)}"
    live, finished, idle = numbers
    sizes = CacheSizes(int(live), int(finished), idle)
    return sizes.problem() or sizes


def serve_command(
    address: str = typer.Option(DEFAULT_ADDRESS, "--address", help="Where to listen (HOST:PORT; port 0: any)."),
    http: str = typer.Option(
        DEFAULT_HTTP_ADDRESS, "--http",
        help="Where to serve Connect, gRPC-Web and the page at / (HOST:PORT; port 0: any; off: nowhere).",
    ),
    cors_origin: list[str] = typer.Option(
        [], "--cors-origin",
        help="An origin (https://app.example) whose pages may call the HTTP API; repeatable; * for any.",
    ),
    store: str | None = typer.Option(
        None,
        "--store",
        help=f"memory:, sqlite:///path/file.sqlite or postgresql://user@host:port/db "
        f"(default: ${ENV_STORE}, else ./data/cardgames.sqlite). Several processes may share one PostgreSQL.",
    ),
    tls_cert: Path | None = typer.Option(None, "--tls-cert", help="PEM certificate chain: serve over TLS only."),
    tls_key: Path | None = typer.Option(None, "--tls-key", help="PEM private key of --tls-cert."),
    rate_limit: float = typer.Option(
        400.0, "--rate-limit", envvar="CARDGAMES_RATE_LIMIT",
        help="Calls per second per caller: a seat token, or a client address for calls without one (0: no limit).",
    ),
    rate_burst: float = typer.Option(
        0.0, "--rate-burst", envvar="CARDGAMES_RATE_BURST", help="Burst per caller (0: twice the rate).",
        show_default="twice the rate",
    ),
    address_limit: float = typer.Option(
        0.0, "--address-limit", envvar="CARDGAMES_ADDRESS_LIMIT",
        help="Calls per second of all the callers of one client address together (0: 4 x the rate).",
        show_default="4 x the rate",
    ),
    max_streams: int = typer.Option(
        64, "--max-streams", envvar="CARDGAMES_MAX_STREAMS", help="Open Watch streams per caller."
    ),
    max_in_flight: int = typer.Option(
        Bounds.max_in_flight, "--max-in-flight", envvar="CARDGAMES_MAX_IN_FLIGHT", min=0,
        help="Calls worked on at once (admission control: more wait briefly or are refused with "
        "RESOURCE_EXHAUSTED and a retry hint; reads get 3/4 of them, one caller 1/4; 0: no bound).",
    ),
    queue_wait: float = typer.Option(
        Bounds.max_wait * 1000, "--queue-wait", envvar="CARDGAMES_QUEUE_WAIT", min=0.0,
        help="Milliseconds a call may wait for a slot when all are taken (a read: half), never past its deadline.",
    ),
    workers: int = typer.Option(
        0, "--workers", envvar="CARDGAMES_WORKERS", min=0,
        help="Engine worker processes for costly listings and bot decisions (0: one less than the CPUs, 1-4).",
    ),
    work_deadline: float = typer.Option(
        DEFAULT_DEADLINE, "--work-deadline", envvar="CARDGAMES_WORK_DEADLINE", min=0.001,
        help="Seconds an engine worker's task may take (then DEADLINE_EXCEEDED, and the worker is replaced).",
    ),
    metrics: str | None = typer.Option(
        None, "--metrics", envvar="CARDGAMES_METRICS", metavar="HOST:PORT",
        help="Serve Prometheus metrics over HTTP at http://HOST:PORT/metrics (port 0: any; default: none).",
    ),
    max_live_games: str = typer.Option(
        str(MAX_LIVE), "--max-live-games", envvar="CARDGAMES_MAX_LIVE_GAMES", metavar="N",
        help="Games kept folded in memory, at least 1 (the least recently used idle ones leave first).",
    ),
    max_finished_games: str = typer.Option(
        str(MAX_FINISHED), "--max-finished-games", envvar="CARDGAMES_MAX_FINISHED_GAMES", metavar="N",
        help="Finished games kept among them (0 or more).",
    ),
    idle_evict_seconds: str = typer.Option(
        f"{IDLE_EVICT_SECONDS:g}", "--idle-evict-seconds", envvar="CARDGAMES_IDLE_EVICT_SECONDS", metavar="SECONDS",
        help="A game no call asked for in this time leaves memory (it loads again when asked for; 0: never). "
        "Watched and clocked games stay.",
    ),
    log_format: logs.Format = typer.Option(
        logs.Format.text, "--log-format", envvar="CARDGAMES_LOG_FORMAT",
        help="Log lines on stderr: text, or json (one JSON object per line).",
    ),
) -> None:
    """Serve the GameService over gRPC (with health and reflection) and over HTTP (Connect, gRPC-Web) until
    interrupted."""
    web = None if http.strip().lower() == "off" else http
    for option, where in (("", address), ("--http: ", web), ("--metrics: ", metrics)):
        try:
            if where is not None:
                parse_address(where)
        except AddressError as error:
            typer.echo(f"cardgames serve: {option}{error}", err=True)
            raise typer.Exit(code=2) from None
    sizes = cache_sizes(max_live_games, max_finished_games, idle_evict_seconds)
    if isinstance(sizes, str):
        typer.echo(f"cardgames serve: {sizes}", err=True)
        raise typer.Exit(code=2)
    logs.configure(log_format)
    if (tls_cert is None) != (tls_key is None):
        typer.echo("cardgames serve: --tls-cert and --tls-key go together", err=True)
        raise typer.Exit(code=2)
    tls = None
    if tls_cert is not None and tls_key is not None:
        try:
            tls = (tls_cert.read_bytes(), tls_key.read_bytes())
        except OSError as error:
            typer.echo(f"cardgames serve: {error}", err=True)
            raise typer.Exit(code=2) from error
    build = native_build()
    if log_format is logs.Format.json:
        logging.getLogger("cardgames.service.native").info(build.describe())
    else:
        typer.echo(f"cardgames serve: {build.describe()}", err=True)  # (stdout starts with the serving line)
    limits = (Limits(rate_limit, rate_burst or 2 * rate_limit, max_streams, address_limit or None)
              if rate_limit > 0 else None)
    bounds = Bounds(max_in_flight=max_in_flight, max_wait=queue_wait / 1000) if max_in_flight > 0 else None
    try:
        event_store = EventStore(store_environment(store))
    except StoreError as error:
        typer.echo(f"cardgames serve: {error}", err=True)
        raise typer.Exit(code=2) from error
    try:
        asyncio.run(serve(address, event_store, lambda line: typer.echo(line, err=False), tls=tls, limits=limits,
                          workers=Workers(workers or None, work_deadline), metrics=metrics, http=web,
                          cors_origins=cors_origin, sizes=sizes, bounds=bounds))
    except CannotListen as error:
        typer.echo(f"cardgames serve: {error}", err=True)
        raise typer.Exit(code=1) from None
    except OSError as error:
        typer.echo(f"cardgames serve: {error}", err=True)
        raise typer.Exit(code=2) from error
