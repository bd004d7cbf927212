"""A gRPC server in front of the service that refuses calls as an overloaded service does, and records them.

:class:`RefusingProxy` is a real ``grpc.aio`` server on a free port: it forwards every call of
GameService, BotService and TournamentService (unary or server-streaming, request and answers
as bytes, the token's metadata and the rich errors kept) to the service, except the calls its
``policy`` refuses: those end at once with RESOURCE_EXHAUSTED and the service's own refusal
(``cardgames.service.guards.limited_status``: ``ErrorInfo`` ``RATE_LIMITED``, ``RetryInfo``
and the ``grpc-retry-pushback-ms`` trailer), or with another status the policy makes (a
trailer alone, no hint at all). The service itself never sees them.

Every arrival is recorded with the *same call's* key (method, seat token, request bytes): a
client that resends a refused call sends those bytes again, so :meth:`RefusingProxy.early`
finds the resends that came before the refusal's hint.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import grpc
from google.protobuf import descriptor_pool

from cardgames.service.guards import PUSHBACK, limited_status
from cardgames.v1 import bots_pb2, game_service_pb2, tournament_pb2  # noqa: F401  (their services in the pool)

Key = tuple[str, str, bytes]


@dataclass
class Arrival:
    """One call as it reached the proxy: ``nth`` is how many times the same call came before."""

    method: str
    key: Key
    nth: int
    at: float
    #: The hint it was refused with, in seconds (None: forwarded, or refused without a hint).
    hint: float | None = None
    refused: bool = False


#: What to do with an arrival: None to forward it, else the status to refuse it with.
Policy = Callable[[Arrival], grpc.Status | None]


def refuse_first(times: int, millis: int, methods: tuple[str, ...] = ()) -> Policy:
    """Refuse the first ``times`` arrivals of every call (of ``methods`` only, by short name, when given)
    with the service's refusal and a ``millis`` hint."""

    def policy(arrival: Arrival) -> grpc.Status | None:
        chosen = not methods or arrival.method.rsplit("/", 1)[-1] in methods
        if chosen and arrival.nth < times:
            return limited_status(f"over capacity: retry in {millis} ms", millis)
        return None

    return policy


@dataclass(frozen=True)
class _Bare(grpc.Status):
    code: grpc.StatusCode
    details: str
    trailing_metadata: tuple[tuple[str, str], ...] = ()


def bare_refusal(pushback_ms: str | None = None) -> grpc.Status:
    """RESOURCE_EXHAUSTED with no rich details: the pushback trailer alone, or (None) no hint at all."""
    trailers = ((PUSHBACK, pushback_ms),) if pushback_ms is not None else ()
    return _Bare(grpc.StatusCode.RESOURCE_EXHAUSTED, "over capacity", trailers)


def _hint(status: grpc.Status) -> float | None:
    for key, value in status.trailing_metadata or ():
        if key == PUSHBACK and str(value).isdigit():
            return int(value) / 1000
    return None


def _streaming(method: str) -> bool | None:
    """Whether ``/package.Service/Method`` streams its answers (None: not a method of the contract)."""
    try:
        found = descriptor_pool.Default().FindMethodByName(method.lstrip("/").replace("/", "."))
    except KeyError:
        return None
    return bool(found.server_streaming)


@dataclass
class RefusingProxy:
    """Forwards to ``target`` (``host:port``) what ``policy`` lets through; see the module's docstring."""

    target: str
    policy: Policy
    arrivals: list[Arrival] = field(default_factory=list)
    port: int = 0
    seen: dict[Key, int] = field(default_factory=dict)
    server: Any = None
    channel: Any = None

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    async def start(self) -> RefusingProxy:
        self.channel = grpc.aio.insecure_channel(self.target)
        self.server = grpc.aio.server()
        self.server.add_generic_rpc_handlers((_Forward(self),))
        self.port = self.server.add_insecure_port("127.0.0.1:0")
        await self.server.start()
        return self

    async def stop(self) -> None:
        await self.server.stop(None)
        await self.channel.close()

    async def admit(
        self, method: str, request: bytes, context: grpc.aio.ServicerContext
    ) -> tuple[tuple[str, Any], ...]:
        """Record the arrival; refuse it (``context.abort``) or return the metadata to forward."""
        metadata = tuple((key, value) for key, value in context.invocation_metadata() or ()
                         if not key.startswith((":", "grpc-")) and key not in ("user-agent", "te", "content-type"))
        token = next((str(value) for key, value in metadata if key == "cardgames-token"), "")
        key = (method, token, request)
        arrival = Arrival(method, key, self.seen.get(key, 0), time.monotonic())
        self.seen[key] = arrival.nth + 1
        self.arrivals.append(arrival)
        status = self.policy(arrival)
        if status is not None:
            arrival.refused, arrival.hint = True, _hint(status)
            await context.abort(status.code, status.details, trailing_metadata=status.trailing_metadata)
        return metadata

    @staticmethod
    async def relay(error: grpc.aio.AioRpcError, context: grpc.aio.ServicerContext) -> None:
        """End the call as the service ended it: its code, message and trailers (the rich status among them)."""
        trailers = tuple((key, value) for key, value in error.trailing_metadata() or () if not key.startswith(":"))
        await context.abort(error.code(), error.details() or "", trailing_metadata=trailers)

    def refused(self) -> list[Arrival]:
        return [arrival for arrival in self.arrivals if arrival.refused]

    def early(self) -> list[tuple[Arrival, float]]:
        """Every arrival that came sooner after its call's refusal than the refusal's hint, with the gap."""
        previous: dict[Key, Arrival] = {}
        found = []
        for arrival in self.arrivals:
            before = previous.get(arrival.key)
            if before is not None and before.hint is not None and arrival.at - before.at < before.hint:
                found.append((arrival, arrival.at - before.at))
            previous[arrival.key] = arrival
        return found

    def resend_gaps(self) -> list[tuple[float, float]]:
        """(hint, gap) for every refusal with a hint whose call came again."""
        previous: dict[Key, Arrival] = {}
        gaps = []
        for arrival in self.arrivals:
            before = previous.get(arrival.key)
            if before is not None and before.hint is not None:
                gaps.append((before.hint, arrival.at - before.at))
            previous[arrival.key] = arrival
        return gaps


class _Forward(grpc.GenericRpcHandler):
    def __init__(self, proxy: RefusingProxy) -> None:
        self.proxy = proxy

    def service(self, handler_call_details: grpc.HandlerCallDetails) -> grpc.RpcMethodHandler | None:
        method = handler_call_details.method
        streaming = _streaming(method)
        if streaming is None:
            return None
        proxy = self.proxy

        async def unary(request: bytes, context: grpc.aio.ServicerContext) -> bytes:
            metadata = await proxy.admit(method, request, context)
            try:
                answer: bytes = await proxy.channel.unary_unary(method)(
                    request, metadata=metadata, timeout=context.time_remaining())
            except grpc.aio.AioRpcError as error:
                await proxy.relay(error, context)
                raise
            return answer

        async def stream(request: bytes, context: grpc.aio.ServicerContext) -> AsyncIterator[bytes]:
            metadata = await proxy.admit(method, request, context)
            call = proxy.channel.unary_stream(method)(request, metadata=metadata, timeout=context.time_remaining())
            try:
                async for answer in call:
                    yield answer
            except grpc.aio.AioRpcError as error:
                await proxy.relay(error, context)
            finally:
                call.cancel()

        if streaming:
            return grpc.unary_stream_rpc_method_handler(stream)
        return grpc.unary_unary_rpc_method_handler(unary)
