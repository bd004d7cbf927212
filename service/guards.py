"""Server interceptors that keep bad or greedy clients from hurting the service.

* :class:`MalformedRequests`: a request whose bytes do not parse as the method's message
  is refused with INVALID_ARGUMENT (``ErrorInfo.reason`` ``MALFORMED_REQUEST``) instead
  of grpc's generic UNKNOWN: the deserializer never raises into the framework.
* :class:`RateLimit`: a token bucket per caller, so that one client cannot take the whole
  server: ``rate`` calls a second on average, bursts of ``burst``. The caller is the seat
  token a call carries, once the service has accepted that token in an earlier call; any
  other call (no token, or a token not known good: a random one) is its client address's
  (the peer's IP; an IPv6 /64). All the callers of one address together also have
  ``address_rate`` (a multiple of ``rate``), so that the seat tokens of many games cannot
  multiply one client's budget. A call over a limit is refused with RESOURCE_EXHAUSTED:
  ``ErrorInfo.reason`` ``RATE_LIMITED`` with ``metadata.retry_after_ms``, a
  ``google.rpc.RetryInfo`` and the ``grpc-retry-pushback-ms`` trailer, all with the same
  wait, which the message repeats. Each caller may also hold at most ``max_streams`` open
  ``Watch`` streams. Health checks and reflection are not limited.

Only unary-request methods are wrapped (all of GameService's); others pass through.
"""

from __future__ import annotations

import hashlib
import inspect
import ipaddress
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Final, NamedTuple
from urllib.parse import unquote

import grpc
from google.protobuf import any_pb2, duration_pb2
from google.protobuf.message import DecodeError
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

from cardgames.service.games import InvalidRequest
from cardgames.service.grpc_api import DOMAIN, SERVICE_NAME, TOKEN_METADATA, error_status

#: How many callers' buckets (proven tokens and addresses) and addresses' buckets to keep: the least
#: recently used go first. Both tables full take about 48 MB.
MAX_BUCKETS = 100_000
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


def wrap_handler(
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
        # A streaming handler that writes with ``context.write`` (health's Watch) is a coroutine, not an
        # async generator: it is wrapped as a unary one (what it returns is not the stream).
        streaming = stream if inspect.isasyncgenfunction(handler.unary_stream) else unary
        return grpc.unary_stream_rpc_method_handler(
            streaming(handler.unary_stream), request_deserializer, handler.response_serializer
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

        return wrap_handler(handler, unary, stream, _safe)


def _malformed(request: _Undecodable) -> grpc.Status:
    return error_status(InvalidRequest(request.message, reason="MALFORMED_REQUEST"))


# ---------------------------------------------------------------------------
# Rate limits.

#: The methods whose success proves the token they carried (they refuse a wrong one with
#: PERMISSION_DENIED): after one of them a token is a caller of its own. CreateGame ignores tokens.
TOKEN_CHECKED: Final = frozenset(
    f"/{SERVICE_NAME}/{name}"
    for name in ("GetView", "ListLegalCommands", "SubmitCommand", "Watch", "GetLog", "CommitEntropy", "RevealEntropy")
)
#: The trailer in which gRPC clients look for a server's retry pushback (gRFC A6).
PUSHBACK: Final = "grpc-retry-pushback-ms"


#: A bucket's key: a client address (str), or the digest of a proven seat token (bytes).
Key = str | bytes


@dataclass(slots=True)
class _Bucket:
    tokens: float
    stamp: float


@dataclass(frozen=True)
class Limits:
    """Per caller: ``rate`` calls/s on average, ``burst`` at once, ``max_streams`` open Watch streams.

    Per client address, all its callers together: ``address_rate`` calls/s (None: 4 x ``rate``),
    bursts of twice that.

    The defaults: a client that plays the four seats of one match as fast as this service
    answers (about 1,100 calls/s on 2 cores, each seat's calls 230-270/s sustained) is never
    refused; one caller flooding (1,500 calls/s and more) is.
    """

    rate: float = 400.0
    burst: float = 800.0
    max_streams: int = 64
    address_rate: float | None = None

    @property
    def per_address(self) -> float:
        return self.address_rate if self.address_rate is not None else 4 * self.rate


class TokenBuckets:
    """One token bucket per key, refilled at ``rate`` up to ``burst``; at most ``capacity`` keys.

    A key not seen for a while is dropped first when the table is full (a dropped key starts
    again with a full bucket: bypassing a limit that way takes more live keys than the table
    holds).
    """

    def __init__(self, rate: float, burst: float, clock: Callable[[], float] = time.monotonic,
                 capacity: int = MAX_BUCKETS) -> None:
        self.rate = rate
        self.burst = burst
        self.clock = clock
        self.capacity = capacity
        self.buckets: OrderedDict[Key, _Bucket] = OrderedDict()

    def take(self, key: Key) -> float:
        """Take one token: 0.0 when allowed, else the seconds until one is there (nothing taken)."""
        now = self.clock()
        bucket = self.buckets.get(key)
        if bucket is None:
            if len(self.buckets) >= self.capacity:
                self.buckets.popitem(last=False)
            bucket = self.buckets[key] = _Bucket(self.burst, now)
        else:
            bucket.tokens = min(self.burst, bucket.tokens + (now - bucket.stamp) * self.rate)
            bucket.stamp = now
            self.buckets.move_to_end(key)
        if bucket.tokens >= 1.0:
            bucket.tokens -= 1.0
            return 0.0
        return (1.0 - bucket.tokens) / self.rate

    def add(self, key: Key) -> None:
        """A full bucket for ``key`` unless it has one."""
        if key not in self.buckets:
            if len(self.buckets) >= self.capacity:
                self.buckets.popitem(last=False)
            self.buckets[key] = _Bucket(self.burst, self.clock())

    def give_back(self, key: Key) -> None:
        """Return a token taken by a call another limit refused."""
        bucket = self.buckets.get(key)
        if bucket is not None:
            bucket.tokens = min(self.burst, bucket.tokens + 1.0)


def call_token(details: grpc.HandlerCallDetails) -> str | None:
    """The seat token a call carries in its metadata (None: none)."""
    token = next((value for key, value in details.invocation_metadata or () if key == TOKEN_METADATA), None)
    return token.decode("utf-8", "replace") if isinstance(token, bytes) else token


def token_digest(token: str) -> bytes:
    """A seat token's key: the first 128 bits of its SHA-256 (plenty for a key; the token is not kept)."""
    return hashlib.sha256(token.encode("utf-8", "replace")).digest()[:16]


def address_of(peer: str) -> str:
    """The client address of a gRPC peer: its IP without the port (an IPv6 address: its /64)."""
    kind, _, rest = peer.partition(":")
    if kind == "ipv4":
        return "ipv4:" + rest.rsplit(":", 1)[0]
    if kind == "ipv6":
        host = unquote(rest).rsplit(":", 1)[0].strip("[]").split("%", 1)[0]
        try:
            return f"ipv6:{ipaddress.IPv6Network((host, 64), strict=False)}"
        except ValueError:
            return "ipv6:" + host
    return peer or "unknown"  # unix sockets and the like: every caller shares the one key


def wait_ms(seconds: float) -> int:
    """A wait as the refusal states it: whole milliseconds, at least 1, never shorter than the wait."""
    return max(1, int(seconds * 1000 + 0.999))


def limited_status(message: str, millis: int, reason: str = "RATE_LIMITED") -> grpc.Status:
    """RESOURCE_EXHAUSTED with ErrorInfo(``reason``), RetryInfo and the pushback trailer, all saying ``millis``."""
    info = error_details_pb2.ErrorInfo(reason=reason, domain=DOMAIN, metadata={"retry_after_ms": str(millis)})
    retry = error_details_pb2.RetryInfo(retry_delay=duration_pb2.Duration(seconds=millis // 1000,
                                                                          nanos=(millis % 1000) * 1_000_000))
    details = []
    for detail in (info, retry):
        packed = any_pb2.Any()
        packed.Pack(detail)
        details.append(packed)
    status = rpc_status.to_status(status_pb2.Status(code=code_pb2.RESOURCE_EXHAUSTED, message=message, details=details))
    return _Status(status.code, status.details, (*status.trailing_metadata, (PUSHBACK, str(millis))))


class _Status(NamedTuple("_Status", [("code", grpc.StatusCode), ("details", str),
                                      ("trailing_metadata", tuple[tuple[str, str | bytes], ...])]), grpc.Status):
    """A status with trailers of our own (grpc_status makes the same kind, with only the details' trailer)."""


class ServiceGuard(grpc.aio.ServerInterceptor):
    """An interceptor that wraps the handlers of the methods of ``services`` (:meth:`guard`), the others untouched."""

    def __init__(self, services: tuple[str, ...] = (SERVICE_NAME,)) -> None:
        self.prefixes = tuple(f"/{service}/" for service in services)

    def guard(self, handler: grpc.RpcMethodHandler, method: str, token: str | None) -> grpc.RpcMethodHandler:
        """The handler of a call of ``method`` carrying ``token``, wrapped."""
        raise NotImplementedError

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        handler = await continuation(handler_call_details)
        method = handler_call_details.method
        if handler is None or not method.startswith(self.prefixes):
            return handler
        return self.guard(handler, method, call_token(handler_call_details))


class RateLimit(ServiceGuard):
    """Token buckets per caller and per client address on the GameService methods (see the module's docstring)."""

    def __init__(self, limits: Limits, services: tuple[str, ...] = (SERVICE_NAME,),
                 clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(services)
        self.limits = limits
        self.callers = TokenBuckets(limits.rate, limits.burst, clock)
        self.addresses = TokenBuckets(limits.per_address, 2 * limits.per_address, clock)
        #: Open Watch streams per caller (only callers that hold some).
        self.streams: dict[Key, int] = {}

    def caller(self, token: str | None, address: str) -> tuple[Key, bytes | None]:
        """The key a call is charged to, and its token's digest (None without a token).

        A seat token is a caller of its own once proven (:meth:`prove`): it then has a bucket
        under its digest. Until then, and for a made-up token, the call is its address's.
        """
        if not token:
            return address, None
        digest = token_digest(token)
        return (digest if digest in self.callers.buckets else address), digest

    def prove(self, digest: bytes | None) -> None:
        """A call that checks tokens succeeded with this token's digest: it is a caller from now on."""
        if digest is not None:
            self.callers.add(digest)

    def guard(self, handler: grpc.RpcMethodHandler, method: str, token: str | None) -> grpc.RpcMethodHandler:
        proves = method in TOKEN_CHECKED

        async def admit(context: grpc.aio.ServicerContext) -> tuple[Key, bytes | None]:
            address = address_of(context.peer() or "")
            key, digest = self.caller(token, address)
            wait = self.callers.take(key)
            whose = "this seat token" if key != address else "this client address"
            limit = f"{self.limits.rate:g}/s, burst {self.limits.burst:g}"
            if not wait:
                wait = self.addresses.take(address)
                if wait:
                    self.callers.give_back(key)
                    whose, limit = "this client address's callers together", f"{self.limits.per_address:g}/s"
            if wait:
                millis = wait_ms(wait)
                await context.abort_with_status(limited_status(
                    f"too many calls from {whose} (limit {limit}): retry in {millis} ms", millis))
            return key, digest

        def unary(behaviour: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
            async def limited(request: Any, context: grpc.aio.ServicerContext) -> Any:
                _, digest = await admit(context)
                response = await behaviour(request, context)
                if proves:
                    self.prove(digest)
                return response

            return limited

        def stream(behaviour: Callable[..., AsyncIterator[Any]]) -> Callable[..., AsyncIterator[Any]]:
            async def limited(request: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
                key, digest = await admit(context)
                open_now = self.streams.get(key, 0)
                if open_now >= self.limits.max_streams:
                    await context.abort_with_status(limited_status(
                        f"too many open streams from this caller (at most {self.limits.max_streams}): "
                        f"retry in 1000 ms, or close one", 1000))
                self.streams[key] = open_now + 1
                try:
                    async for response in behaviour(request, context):
                        if proves:
                            self.prove(digest)
                        yield response
                finally:
                    left = self.streams.get(key, 1) - 1
                    if left > 0:
                        self.streams[key] = left
                    else:
                        self.streams.pop(key, None)

            return limited

        return wrap_handler(handler, unary, stream)
