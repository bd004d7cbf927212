"""Prometheus metrics of one server: its RPCs, games, watchers, store, rate limits and engine workers.

A :class:`Metrics` owns its registry (never prometheus_client's global one: two servers in one
process keep apart) and is wired in at the composition point (service/server.py):

* :meth:`Metrics.interceptor`, the outermost server interceptor: every call of a registered
  method by service, method and gRPC status code; the latency of unary-answer calls; the open
  ``GameService.Watch`` streams; ``SubmitCommand`` by game and outcome (``accepted`` or the
  refusal's ``ErrorInfo.reason``); refusals with reason ``RATE_LIMITED``.
* :meth:`Metrics.watch_store`: the store's calls timed (and their failures counted) by
  operation, the store object's own methods wrapped in place.
* :meth:`Metrics.watch_games`: the live games and the engine worker pool, read when scraped.
* :meth:`Metrics.serve`: the registry over HTTP (``/metrics``) on a thread of its own.

docs/operations.md ("Metrics and logs") lists every metric with its labels.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from concurrent.futures import Future
from dataclasses import dataclass, field
from functools import wraps
from typing import Any, Final
from wsgiref.simple_server import WSGIServer

import grpc
from google.protobuf.message import Message
from google.rpc import error_details_pb2, status_pb2
from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    GCCollector,
    Histogram,
    PlatformCollector,
    ProcessCollector,
    disable_created_metrics,
    generate_latest,
    start_http_server,
)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from cardgames.service.games import Games
from cardgames.service.grpc_api import DOMAIN, SERVICE_NAME
from cardgames.service.store import EventStore, GameNotFound, StaleSequence

log = logging.getLogger(__name__)

#: Latency buckets of a call (seconds): a cached view takes well under a millisecond, a costly listing seconds.
RPC_BUCKETS: Final = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
#: Latency buckets of a store call (seconds): an in-memory read takes microseconds.
STORE_BUCKETS: Final = (
    0.0001,
    0.00025,
    0.0005,
    0.001,
    0.0025,
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
    5.0,
    10.0,
)
#: The store's calls that are timed (EventStore's public methods that read or write).
STORE_OPERATIONS: Final = (
    "create",
    "append",
    "append_later",
    "add_entropy",
    "entropy",
    "header",
    "events",
    "log",
    "head",
    "load",
)
#: What a store call may raise that is an answer, not a failure: a taken sequence, a missing game.
STORE_ANSWERS: Final = (StaleSequence, GameNotFound)
WATCH: Final = f"/{SERVICE_NAME}/Watch"
SUBMIT: Final = f"/{SERVICE_NAME}/SubmitCommand"
DETAILS_TRAILER: Final = "grpc-status-details-bin"
RATE_LIMITED: Final = "RATE_LIMITED"


def refusal_reason(context: grpc.aio.ServicerContext) -> str | None:
    """The ``ErrorInfo.reason`` of the cardgames status a call was refused with (None without one)."""
    for key, value in context.trailing_metadata() or ():
        if key != DETAILS_TRAILER or not isinstance(value, bytes):
            continue
        try:
            status = status_pb2.Status.FromString(value)
        except Exception:  # not ours to judge: a status we cannot read has no reason
            return None
        for detail in status.details:
            if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
                info = error_details_pb2.ErrorInfo()
                detail.Unpack(info)
                return str(info.reason) if info.domain == DOMAIN else None
    return None


def status_of(context: grpc.aio.ServicerContext, error: BaseException | None) -> str:
    """The status code's name a call ended with, as gRPC reports it to the client."""
    if isinstance(error, asyncio.CancelledError | GeneratorExit):  # the client went away
        return "CANCELLED"
    code = context.code()
    if code is not None:
        return str(getattr(code, "name", code))
    if error is not None:
        return "UNKNOWN"  # what gRPC answers for an exception a handler let out
    return "OK"


@dataclass
class _Method:
    """The metrics of one method, bound to its labels once (not at every call)."""

    metrics: Metrics
    path: str
    #: Whether its calls are timed (those that answer once; a stream's length says nothing of the server).
    timed: bool
    codes: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.service, _, self.name = self.path.lstrip("/").rpartition("/")
        self.latency = self.metrics.rpc_seconds.labels(self.service, self.name)
        self.watchers = self.metrics.watchers if self.path == WATCH else None

    def finished(
        self, context: grpc.aio.ServicerContext, request: Any, error: BaseException | None, started: float | None
    ) -> None:
        code = status_of(context, error)
        calls = self.codes.get(code)
        if calls is None:
            calls = self.codes[code] = self.metrics.rpc_calls.labels(self.service, self.name, code)
        calls.inc()
        if started is not None:
            self.latency.observe(time.perf_counter() - started)
        reason = refusal_reason(context) if code != "OK" else None
        if reason == RATE_LIMITED:
            self.metrics.rate_limited.labels(self.service, self.name).inc()
        if self.path == SUBMIT:
            command = getattr(request, "command", None)  # (an undecodable request has none)
            game = command.WhichOneof("game") if isinstance(command, Message) else None
            self.metrics.commands.labels(game or "none", "accepted" if code == "OK" else reason or code).inc()


class _Call:
    """One call of a method, from start to end (a context manager around its handler)."""

    __slots__ = ("context", "method", "request", "started")

    def __init__(self, method: _Method, request: Any, context: grpc.aio.ServicerContext) -> None:
        self.method, self.request, self.context = method, request, context
        self.started = time.perf_counter() if method.timed else None
        if method.watchers is not None:
            method.watchers.inc()

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, traceback: Any) -> None:
        if self.method.watchers is not None:
            self.method.watchers.dec()
        try:
            self.method.finished(self.context, self.request, error, self.started)
        except Exception:  # counting never changes a call's outcome
            log.exception("cannot count a call of %s", self.method.path)


#: What gRPC calls an interceptor with to get the handler of a call.
Continuation = Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]]


class Interceptor(grpc.aio.ServerInterceptor):
    """Counts and times every call of a registered method (the outermost interceptor: it sees every refusal)."""

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics
        self._wrapped: dict[str, tuple[grpc.RpcMethodHandler, grpc.RpcMethodHandler]] = {}

    async def intercept_service(self, continuation: Continuation, details: grpc.HandlerCallDetails) -> Any:
        handler = await continuation(details)
        if handler is None:  # an unknown method: gRPC answers UNIMPLEMENTED (not counted: any name may come)
            return handler
        known = self._wrapped.get(details.method)
        if known is None or known[0] is not handler:
            known = self._wrapped[details.method] = (handler, self._wrap(handler, details.method))
        return known[1]  # (registered methods only: a few dozen)

    def _wrap(self, handler: grpc.RpcMethodHandler, path: str) -> grpc.RpcMethodHandler:
        kinds = (
            ("unary_unary", grpc.unary_unary_rpc_method_handler, True),
            ("stream_unary", grpc.stream_unary_rpc_method_handler, True),
            ("unary_stream", grpc.unary_stream_rpc_method_handler, False),
            ("stream_stream", grpc.stream_stream_rpc_method_handler, False),
        )
        for kind, make, timed in kinds:
            behaviour = getattr(handler, kind)
            if behaviour is not None:
                counted = _counted(behaviour, _Method(self.metrics, path, timed))
                return make(counted, handler.request_deserializer, handler.response_serializer)
        return handler


def _counted(behaviour: Callable[..., Any], method: _Method) -> Callable[..., Any]:
    """``behaviour`` with its calls counted (see :class:`_Call`); a streaming one stays streaming."""
    if inspect.isasyncgenfunction(behaviour):

        async def streaming(request: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
            with _Call(method, request, context):
                async for response in behaviour(request, context):
                    yield response

        return streaming

    @wraps(behaviour)
    async def answering(request: Any, context: grpc.aio.ServicerContext) -> Any:
        with _Call(method, request, context):
            return await behaviour(request, context)

    return answering


class _Scraped(Collector):
    """What is read when scraped: the live games of an application layer, its engine worker pool."""

    def __init__(self, games: Games) -> None:
        self.games = games

    def collect(self) -> Iterator[Metric]:
        live = GaugeMetricFamily(
            "cardgames_live_games",
            "Games this process holds in memory, by state (waiting: seat entropy pending).",
            labels=["state"],
        )
        try:
            counts = live_games(self.games)
        except Exception as error:  # never fail a whole scrape over one figure
            log.warning("cannot count the live games: %s", error)
        else:
            for state, count in counts.items():
                live.add_metric([state], count)
            yield live
        left = CounterMetricFamily("cardgames_live_games_evicted", "Games that left memory (loaded again when asked "
                                   "for): idle too long, or beyond --max-live-games.", labels=["reason"])
        left.add_metric(["idle"], self.games.cache.evicted)
        left.add_metric(["bound"], self.games.cache.dropped)
        yield left
        pool = self.games.pool
        yield GaugeMetricFamily("cardgames_engine_workers", "Engine worker processes running.", value=len(pool.pids))
        yield GaugeMetricFamily(
            "cardgames_engine_workers_size", "Engine worker processes the pool keeps.", value=pool.size
        )
        yield GaugeMetricFamily("cardgames_engine_workers_busy", "Engine tasks being run now.", value=pool.running)
        yield CounterMetricFamily(
            "cardgames_engine_workers_replaced",
            "Engine workers replaced (after a deadline, or a death).",
            value=pool.replaced,
        )


def live_games(games: Games) -> dict[str, int]:
    """How many games ``games`` holds in memory: waiting for seat entropy, being played, over."""
    counts = {"waiting": 0, "playing": 0, "over": 0}
    for live in games.cache.cached():  # a copy made at once (the loop's thread may add one meanwhile)
        if not live.started:
            counts["waiting"] += 1
        elif live.rules.is_over(live.state):
            counts["over"] += 1
        else:
            counts["playing"] += 1
    return counts


class Metrics:
    """One server's metrics, on a registry of its own (see the module's docstring)."""

    def __init__(self) -> None:
        # No ``*_created`` series beside each counter and histogram (the library's setting is one per
        # process; Prometheus reads none of them from the text format by default).
        disable_created_metrics()
        self.registry = CollectorRegistry()
        registry = self.registry
        ProcessCollector(registry=registry)
        PlatformCollector(registry=registry)
        GCCollector(registry=registry)

        def counter(name: str, text: str, *labels: str) -> Counter:
            return Counter(name, text, labels, registry=registry)

        def histogram(name: str, text: str, buckets: tuple[float, ...], *labels: str) -> Histogram:
            return Histogram(name, text, labels, buckets=buckets, registry=registry)

        self.rpc_calls = counter(
            "cardgames_rpc_calls",
            "Finished calls by service, method and gRPC status code.",
            "service",
            "method",
            "code",
        )
        self.rpc_seconds = histogram(
            "cardgames_rpc_seconds", "Time to answer a unary-answer call, by method.", RPC_BUCKETS, "service", "method"
        )
        self.watchers = Gauge("cardgames_watchers", "GameService.Watch streams open.", registry=registry)
        self.commands = counter(
            "cardgames_commands",
            "SubmitCommand calls by game and outcome (accepted, or the refusal's ErrorInfo reason).",
            "game",
            "outcome",
        )
        self.rate_limited = counter(
            "cardgames_rate_limit_refusals", "Calls refused by the rate limits, by method.", "service", "method"
        )
        self.store_seconds = histogram(
            "cardgames_store_seconds", "Time of a store call, by operation.", STORE_BUCKETS, "operation"
        )
        self.store_errors = counter(
            "cardgames_store_errors",
            "Store calls that failed (not a taken sequence or a missing game), by operation.",
            "operation",
        )
        self.interceptor = Interceptor(self)
        self._http: WSGIServer | None = None

    def watch_store(self, store: EventStore) -> EventStore:
        """The same store, its calls timed and their failures counted (its methods wrapped in place)."""
        for operation in STORE_OPERATIONS:
            call = getattr(store, operation)
            setattr(store, operation, self._timed(call, operation))
        return store

    def _timed(self, call: Callable[..., Any], operation: str) -> Callable[..., Any]:
        seconds = self.store_seconds.labels(operation)
        errors = self.store_errors.labels(operation)

        @wraps(call)  # (its __name__ too: the application layer picks a thread pool by it)
        def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                result = call(*args, **kwargs)
            except STORE_ANSWERS:
                seconds.observe(time.perf_counter() - started)
                raise
            except BaseException:
                seconds.observe(time.perf_counter() - started)
                errors.inc()
                raise
            if isinstance(result, Future) and not result.done():  # append_later: timed until written

                def settled(future: Future[Any]) -> None:
                    seconds.observe(time.perf_counter() - started)
                    error = future.exception()
                    if error is not None and not isinstance(error, STORE_ANSWERS):
                        errors.inc()

                result.add_done_callback(settled)
            else:
                seconds.observe(time.perf_counter() - started)
            return result

        return timed

    def watch_games(self, games: Games) -> None:
        """Report the live games and the engine worker pool of ``games`` at every scrape."""
        self.registry.register(_Scraped(games))

    def serve(self, host: str, port: int) -> int:
        """Serve the registry over HTTP on ``host:port`` (a thread of its own); the bound port. OSError otherwise."""
        name = host[1:-1] if host.startswith("[") else host
        self._http, _ = start_http_server(port, name, registry=self.registry)
        return int(self._http.server_port)

    async def close(self) -> None:
        """Stop serving over HTTP (if it does)."""
        http, self._http = self._http, None
        if http is not None:
            await asyncio.get_running_loop().run_in_executor(None, http.shutdown)
            http.server_close()

    def scrape(self) -> bytes:
        """The registry in Prometheus' text format (what ``/metrics`` answers)."""
        return generate_latest(self.registry)
