"""The gRPC servicers' methods as Connect handlers, so that HTTP callers get the very same service.

A handler calls the servicer's method (``CreateGame`` for ``create_game``) with a stand-in
for grpc.aio's ServicerContext (:class:`HttpContext`): the request headers are the call
metadata (the seat token in ``cardgames-token``), and ``abort_with_status`` raises the
status as a :class:`~connectrpc.errors.ConnectError` with the same code, message and
``google.rpc`` details (ErrorInfo, Rejection, RetryInfo) that a gRPC caller finds in
``grpc-status-details-bin``. An answer a method gives as bytes already
(:data:`cardgames.service.grpc_api.PRE_ENCODED`) is parsed into its message (JSON needs
one). Any other exception becomes INTERNAL without its text: never a traceback on the wire.
"""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any, NamedTuple, NoReturn

import grpc
from connectrpc.code import Code
from connectrpc.codec import Codec
from connectrpc.compat import google_protobuf_binary_codec, google_protobuf_json_codec
from connectrpc.errors import ConnectError, ErrorDetail
from connectrpc.method import IdempotencyLevel, MethodInfo, StreamType
from connectrpc.request import RequestContext
from connectrpc.server import ConnectASGIApplication, Endpoint
from google.protobuf import any_pb2, json_format
from google.protobuf.descriptor import ServiceDescriptor
from google.protobuf.message import DecodeError, Message
from google.rpc import code_pb2, error_details_pb2, status_pb2
from protobuf.wkt import Any as AnyDetail

from cardgames.engine.core.echo import clip
from cardgames.service.grpc_api import DOMAIN

logger = logging.getLogger(__name__)

#: google.rpc.Code (= grpc.StatusCode's numbers) to Connect's codes.
_CODES: dict[int, Code] = {
    code_pb2.CANCELLED: Code.CANCELED,
    code_pb2.UNKNOWN: Code.UNKNOWN,
    code_pb2.INVALID_ARGUMENT: Code.INVALID_ARGUMENT,
    code_pb2.DEADLINE_EXCEEDED: Code.DEADLINE_EXCEEDED,
    code_pb2.NOT_FOUND: Code.NOT_FOUND,
    code_pb2.ALREADY_EXISTS: Code.ALREADY_EXISTS,
    code_pb2.PERMISSION_DENIED: Code.PERMISSION_DENIED,
    code_pb2.RESOURCE_EXHAUSTED: Code.RESOURCE_EXHAUSTED,
    code_pb2.FAILED_PRECONDITION: Code.FAILED_PRECONDITION,
    code_pb2.ABORTED: Code.ABORTED,
    code_pb2.OUT_OF_RANGE: Code.OUT_OF_RANGE,
    code_pb2.UNIMPLEMENTED: Code.UNIMPLEMENTED,
    code_pb2.INTERNAL: Code.INTERNAL,
    code_pb2.UNAVAILABLE: Code.UNAVAILABLE,
    code_pb2.DATA_LOSS: Code.DATA_LOSS,
    code_pb2.UNAUTHENTICATED: Code.UNAUTHENTICATED,
}
_DETAILS_KEY = "grpc-status-details-bin"


def _detail(message: Message) -> ErrorDetail:
    packed = message if isinstance(message, any_pb2.Any) else _pack(message)
    return ErrorDetail(AnyDetail(type_url=packed.type_url, value=packed.value))


def _pack(message: Message) -> any_pb2.Any:
    packed = any_pb2.Any()
    packed.Pack(message)
    return packed


def status_error(status: grpc.Status) -> ConnectError:
    """The Connect error of a rich gRPC status (its code, message and google.rpc details)."""
    code_value = status.code.value[0] if isinstance(status.code, grpc.StatusCode) else int(status.code)
    details: list[ErrorDetail] = []
    for key, value in status.trailing_metadata or ():
        if key == _DETAILS_KEY and isinstance(value, bytes):
            details.extend(_detail(detail) for detail in status_pb2.Status.FromString(value).details)
    return ConnectError(_CODES.get(code_value, Code.UNKNOWN), status.details or "", details)


def malformed(message: str) -> ConnectError:
    """INVALID_ARGUMENT with ErrorInfo MALFORMED_REQUEST, as the gRPC server refuses undecodable bytes."""
    info = error_details_pb2.ErrorInfo(reason="MALFORMED_REQUEST", domain=DOMAIN)
    return ConnectError(Code.INVALID_ARGUMENT, message, [_detail(info)])


class StrictCodec(Codec[Message, Any]):
    """A codec whose undecodable input (bad JSON, unknown fields, bad bytes) is MALFORMED_REQUEST."""

    def __init__(self, inner: Codec[Message, Any]) -> None:
        self.inner = inner

    def name(self) -> str:
        return self.inner.name()

    def encode(self, message: Message) -> bytes:
        return self.inner.encode(message)

    def decode(self, data: bytes | bytearray, message_class: type[Any]) -> Any:
        try:
            return self.inner.decode(data, message_class)
        except (json_format.ParseError, DecodeError, ValueError, TypeError, UnicodeDecodeError) as error:
            raise malformed(clip(f"the request is not a valid {message_class.DESCRIPTOR.name}: {error}")) from None


class CompactJsonCodec(Codec[Message, Any]):
    """Protobuf JSON as Connect clients expect it (lowerCamelCase), without the pretty-printing, unknown
    fields refused."""

    def __init__(self) -> None:
        self.strict = google_protobuf_json_codec(ignore_unknown_fields=False)

    def name(self) -> str:
        return "json"

    def encode(self, message: Message) -> bytes:
        return json_format.MessageToJson(message, indent=None).encode()

    def decode(self, data: bytes | bytearray, message_class: type[Any]) -> Any:
        return self.strict.decode(data, message_class)


def codecs() -> list[Codec[Any, Any]]:
    """The HTTP server's codecs: binary protobuf and JSON, both strict."""
    return [StrictCodec(google_protobuf_binary_codec()), StrictCodec(CompactJsonCodec())]


class HttpContext:
    """What the servicers and the server's interceptors (rate limits, metrics) use of grpc.aio.ServicerContext,
    over a Connect request's context; an abort raises its status as a ConnectError, and is remembered."""

    __slots__ = ("_code", "_trailing", "ctx")

    def __init__(self, ctx: RequestContext[Any, Any]) -> None:
        self.ctx = ctx
        self._code: grpc.StatusCode | None = None
        self._trailing: Any = ()

    def code(self) -> grpc.StatusCode | None:
        return self._code

    def trailing_metadata(self) -> Any:
        return self._trailing

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return tuple(self.ctx.request_headers.allitems())

    def time_remaining(self) -> float | None:
        """Seconds to the call's deadline (its Connect timeout), None without one."""
        millis = self.ctx.timeout_ms
        return None if millis is None else millis / 1000

    def cancelled(self) -> bool:
        return False  # (a Connect handler's task is cancelled when its client goes)

    def peer(self) -> str:
        address = self.ctx.client_address or ""
        return f"ipv6:[{address.rpartition(':')[0]}]:0" if address.count(":") > 1 else f"ipv4:{address}"

    async def abort_with_status(self, status: grpc.Status) -> NoReturn:
        self._code, self._trailing = status.code, status.trailing_metadata
        raise status_error(status)

    async def abort(self, code: grpc.StatusCode, details: str = "", trailing_metadata: Any = ()) -> NoReturn:
        raise status_error(_Status(code, details, trailing_metadata))


class _Status:
    def __init__(self, code: grpc.StatusCode, details: str, trailing_metadata: Any) -> None:
        self.code, self.details, self.trailing_metadata = code, details, trailing_metadata


def _message(ctx: RequestContext[Any, Any], response: Any) -> Any:
    return ctx.method.output.FromString(response) if isinstance(response, bytes) else response


def _internal(error: Exception) -> ConnectError:
    logger.exception("an HTTP call failed", exc_info=error)
    return ConnectError(Code.INTERNAL, "internal error")


class _CallDetails(NamedTuple):
    """What a gRPC server interceptor reads of a call (grpc.HandlerCallDetails)."""

    method: str
    invocation_metadata: tuple[tuple[str, str], ...]


async def _guarded(
    guards: Sequence[grpc.aio.ServerInterceptor], path: str, handler: Any, streaming: bool, context: HttpContext
) -> Any:
    """The behaviour of ``handler`` as ``guards`` (the gRPC server's interceptors, outermost first: metrics,
    rate limits) wrap it for this call's metadata."""
    details = _CallDetails(path, context.invocation_metadata())
    for guard in reversed(guards):

        async def continuation(_: Any, inner: Any = handler) -> Any:
            return inner

        handler = await guard.intercept_service(continuation, details)
    return handler.unary_stream if streaming else handler.unary_unary


def unary(
    method: Callable[[Any, Any], Awaitable[Any]], path: str = "", guards: Sequence[grpc.aio.ServerInterceptor] = ()
) -> Callable[[Any, RequestContext[Any, Any]], Awaitable[Any]]:
    """A Connect unary handler calling the servicer's ``method`` (through ``guards``, if any)."""
    handler = grpc.unary_unary_rpc_method_handler(method)

    async def handle(request: Any, ctx: RequestContext[Any, Any]) -> Any:
        context = HttpContext(ctx)
        try:
            behaviour = await _guarded(guards, path, handler, False, context) if guards else method
            return _message(ctx, await behaviour(request, context))
        except ConnectError:
            raise
        except Exception as error:
            raise _internal(error) from None

    return handle


def server_stream(
    method: Callable[[Any, Any], AsyncIterator[Any]], path: str = "", guards: Sequence[grpc.aio.ServerInterceptor] = ()
) -> Callable[[Any, RequestContext[Any, Any]], AsyncIterator[Any]]:
    """A Connect server-stream handler iterating the servicer's ``method`` (through ``guards``, if any)."""
    handler = grpc.unary_stream_rpc_method_handler(method)

    async def handle(request: Any, ctx: RequestContext[Any, Any]) -> AsyncIterator[Any]:
        context = HttpContext(ctx)
        behaviour = await _guarded(guards, path, handler, True, context) if guards else method
        responses = behaviour(request, context)
        try:
            async for response in responses:
                yield _message(ctx, response)
        except ConnectError:
            raise
        except Exception as error:
            raise _internal(error) from None
        finally:
            aclose = getattr(responses, "aclose", None)
            if aclose is not None:
                await aclose()

    return handle


def python_name(method: str) -> str:
    """The generated Connect Protocol's name of a method: ``ListLegalCommands`` -> ``list_legal_commands``."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", method).lower()


class Bridge:
    """A Connect service (the generated Protocol: ``create_game``, ``watch``, ...) over a gRPC servicer
    (``CreateGame``, ``Watch``, ...) of the service ``descriptor``; ``guards``: the gRPC server's own
    interceptors that apply to HTTP calls as to gRPC calls, outermost first (its metrics,
    :mod:`cardgames.service.metrics`, and its rate limits, :class:`cardgames.service.guards.RateLimit`)."""

    def __init__(
        self, servicer: object, descriptor: ServiceDescriptor, guards: Sequence[grpc.aio.ServerInterceptor] = ()
    ) -> None:
        for method in descriptor.methods:
            grpc_method = getattr(servicer, method.name)
            path = f"/{descriptor.full_name}/{method.name}"
            make = server_stream if method.server_streaming else unary
            setattr(self, python_name(method.name), make(grpc_method, path, guards))


class DescribedApplication(ConnectASGIApplication[Bridge]):
    """A Connect application of a service's unary methods, built from its descriptor, for services that are
    not in protos/ (grpc.health.v1.Health: Check and List) and so have no generated code."""

    def __init__(self, servicer: object, descriptor: ServiceDescriptor, messages: Any) -> None:
        self._path = f"/{descriptor.full_name}"
        #: Its methods: the unary ones (a streaming servicer method of grpcio writes to its context).
        self.methods = tuple(method.name for method in descriptor.methods if not method.server_streaming)

        def endpoints(bridge: Bridge) -> dict[str, Any]:
            found: dict[str, Any] = {}
            for method in descriptor.methods:
                if method.name not in self.methods:
                    continue
                info = MethodInfo(
                    name=method.name,
                    service_name=descriptor.full_name,
                    input=getattr(messages, method.input_type.name),
                    output=getattr(messages, method.output_type.name),
                    idempotency_level=IdempotencyLevel.UNKNOWN,
                    stream_type=StreamType.SERVER_STREAM if method.server_streaming else StreamType.UNARY,
                )
                function = getattr(bridge, python_name(method.name))
                found[f"{self._path}/{method.name}"] = (
                    Endpoint.server_stream(info, function)
                    if method.server_streaming
                    else Endpoint.unary(info, function)
                )
            return found

        super().__init__(service=Bridge(servicer, descriptor), endpoints=endpoints, codecs=codecs())

    @property
    def path(self) -> str:
        return self._path
