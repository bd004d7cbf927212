"""Server interceptors that keep bad or greedy clients from hurting the service.

* :class:`MalformedRequests`: a request whose bytes do not parse as the method's message
  is refused with INVALID_ARGUMENT (``ErrorInfo.reason`` ``MALFORMED_REQUEST``) instead
  of grpc's generic UNKNOWN: the deserializer never raises into the framework.
* :class:`RateLimit`: a token bucket per connection (the peer address ``ip:port`` that
  ``context.peer()`` reports): ``rate`` calls a second on average, bursts of ``burst``;
  a call over the limit is refused with RESOURCE_EXHAUSTED (``ErrorInfo.reason``
  ``RATE_LIMITED``, ``metadata.retry_after_ms``, and a ``google.rpc.RetryInfo``), so one
  client cannot take the whole server. Each connection may also hold at most
  ``max_streams`` open ``Watch`` streams. Health checks and reflection are not limited.

Only unary-request methods are wrapped (all of GameService's); others pass through.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import grpc
from google.protobuf import any_pb2, duration_pb2
from google.protobuf.message import DecodeError
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

from service.games import InvalidRequest
from service.grpc_api import DOMAIN, SERVICE_NAME, error_status

#: How many per-connection buckets to keep before idle (refilled) ones are dropped.
MAX_IDLE_BUCKETS = 10_000
#: How many methods' wrapped handlers MalformedRequests keeps (a server has a few dozen methods).
MAX_WRAPPED = 1024


class _Undecodable:
    """What a safe deserializer returns for bytes that are not the method's message."""

    def __init__(self, message: str) -> None:
        self.message = message


def _safe(deserializer: Callable[[bytes], Any]) -> Callable[[bytes], Any]:
    def deserialize(data: bytes) -> Any:
        try:
            return deserializer(data)
        except (DecodeError, ValueError, TypeError, UnicodeDecodeError) as error:
            return _Undecodable(f"the request is not a valid message: {error}")

    return deserialize


def _wrap(
    handler: grpc.RpcMethodHandler,
    unary: Callable[[Callable[..., Awaitable[Any]]], Callable[..., Awaitable[Any]]],
    stream: Callable[[Callable[..., AsyncIterator[Any]]], Callable[..., AsyncIterator[Any]]],
    deserializer: Callable[[Callable[[bytes], Any]], Callable[[bytes], Any]] | None = None,
) -> grpc.RpcMethodHandler:
    """The same method handler with its behaviour (and maybe its deserializer) wrapped."""
    request_deserializer = handler.request_deserializer
    if deserializer is not None and request_deserializer is not None:
        request_deserializer = deserializer(request_deserializer)
    if handler.unary_unary is not None:
        return grpc.unary_unary_rpc_method_handler(
            unary(handler.unary_unary), request_deserializer, handler.response_serializer
        )
    if handler.unary_stream is not None:
        return grpc.unary_stream_rpc_method_handler(
            stream(handler.unary_stream), request_deserializer, handler.response_serializer
        )
    return handler


class MalformedRequests(grpc.aio.ServerInterceptor):
    """Refuse undecodable requests with INVALID_ARGUMENT / MALFORMED_REQUEST.

    A method's handler is wrapped once and the wrapped one reused (the registered handlers
    live as long as the server): no per-call closures or handler objects.
    """

    def __init__(self) -> None:
        self._wrapped: dict[int, tuple[grpc.RpcMethodHandler, grpc.RpcMethodHandler]] = {}

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        handler = await continuation(handler_call_details)
        if handler is None:
            return handler
        known = self._wrapped.get(id(handler))
        if known is not None and known[0] is handler:
            return known[1]
        wrapped = self._wrap(handler)
        if len(self._wrapped) < MAX_WRAPPED:
            self._wrapped[id(handler)] = (handler, wrapped)
        return wrapped

    @staticmethod
    def _wrap(handler: grpc.RpcMethodHandler) -> grpc.RpcMethodHandler:
        def unary(behaviour: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
            async def checked(request: Any, context: grpc.aio.ServicerContext) -> Any:
                if isinstance(request, _Undecodable):
                    await context.abort_with_status(_malformed(request))
                return await behaviour(request, context)

            return checked

        def stream(behaviour: Callable[..., AsyncIterator[Any]]) -> Callable[..., AsyncIterator[Any]]:
            async def checked(request: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
                if isinstance(request, _Undecodable):
                    await context.abort_with_status(_malformed(request))
                async for response in behaviour(request, context):
                    yield response

            return checked

        return _wrap(handler, unary, stream, _safe)


def _malformed(request: _Undecodable) -> grpc.Status:
    return error_status(InvalidRequest(request.message, reason="MALFORMED_REQUEST"))


# ---------------------------------------------------------------------------
# Rate limits.


@dataclass
class _Bucket:
    tokens: float
    stamp: float
    streams: int = 0


@dataclass(frozen=True)
class Limits:
    """Per connection: ``rate`` calls/s on average, ``burst`` at once, ``max_streams`` open Watch streams."""

    rate: float = 200.0
    burst: float = 400.0
    max_streams: int = 64


class TokenBuckets:
    """One token bucket per key (a connection), refilled at ``rate`` up to ``burst``."""

    def __init__(self, limits: Limits, clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits
        self.clock = clock
        self.buckets: dict[str, _Bucket] = {}

    def take(self, key: str) -> float:
        """Take one token: 0.0 when allowed, else the seconds until one is there."""
        now = self.clock()
        bucket = self.buckets.get(key)
        limits = self.limits
        if bucket is None:
            if len(self.buckets) >= MAX_IDLE_BUCKETS:
                self._prune(now)
            bucket = self.buckets[key] = _Bucket(limits.burst, now)
        else:
            bucket.tokens = min(limits.burst, bucket.tokens + (now - bucket.stamp) * limits.rate)
            bucket.stamp = now
        if bucket.tokens >= 1.0:
            bucket.tokens -= 1.0
            return 0.0
        return (1.0 - bucket.tokens) / limits.rate

    def _prune(self, now: float) -> None:
        """Drop the buckets that are full again and hold no stream (they would start full anyway)."""
        full_after = self.limits.burst / self.limits.rate
        for key in [k for k, b in self.buckets.items() if not b.streams and now - b.stamp >= full_after]:
            del self.buckets[key]

    def open_stream(self, key: str) -> bool:
        bucket = self.buckets.get(key)
        if bucket is None or bucket.streams >= self.limits.max_streams:
            return False
        bucket.streams += 1
        return True

    def close_stream(self, key: str) -> None:
        bucket = self.buckets.get(key)
        if bucket is not None and bucket.streams:
            bucket.streams -= 1


def limited_status(message: str, retry_after: float) -> grpc.Status:
    """RESOURCE_EXHAUSTED with ErrorInfo(RATE_LIMITED) and RetryInfo."""
    millis = max(1, int(retry_after * 1000 + 0.999))
    info = error_details_pb2.ErrorInfo(reason="RATE_LIMITED", domain=DOMAIN, metadata={"retry_after_ms": str(millis)})
    retry = error_details_pb2.RetryInfo(retry_delay=duration_pb2.Duration(seconds=millis // 1000,
                                                                          nanos=(millis % 1000) * 1_000_000))
    details = []
    for detail in (info, retry):
        packed = any_pb2.Any()
        packed.Pack(detail)
        details.append(packed)
    return rpc_status.to_status(status_pb2.Status(code=code_pb2.RESOURCE_EXHAUSTED, message=message, details=details))


class RateLimit(grpc.aio.ServerInterceptor):
    """A token bucket per connection on the GameService methods (see the module's docstring)."""

    def __init__(self, limits: Limits, services: tuple[str, ...] = (SERVICE_NAME,)) -> None:
        self.buckets = TokenBuckets(limits)
        self.prefixes = tuple(f"/{service}/" for service in services)

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        handler = await continuation(handler_call_details)
        if handler is None or not handler_call_details.method.startswith(self.prefixes):
            return handler
        buckets = self.buckets

        async def admit(context: grpc.aio.ServicerContext) -> str:
            peer = context.peer() or "unknown"
            wait = buckets.take(peer)
            if wait:
                await context.abort_with_status(limited_status(
                    f"too many calls on this connection (limit {buckets.limits.rate:g}/s, burst "
                    f"{buckets.limits.burst:g}): retry in {wait:.3f}s", wait))
            return peer

        def unary(behaviour: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
            async def limited(request: Any, context: grpc.aio.ServicerContext) -> Any:
                await admit(context)
                return await behaviour(request, context)

            return limited

        def stream(behaviour: Callable[..., AsyncIterator[Any]]) -> Callable[..., AsyncIterator[Any]]:
            async def limited(request: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
                peer = await admit(context)
                if not buckets.open_stream(peer):
                    await context.abort_with_status(limited_status(
                        f"too many open streams on this connection (at most {buckets.limits.max_streams})", 1.0))
                try:
                    async for response in behaviour(request, context):
                        yield response
                finally:
                    buckets.close_stream(peer)

            return limited

        return _wrap(handler, unary, stream)
