"""The HTTP application: the Connect services by path, CORS for the origins allowed, static files.

* ``POST /<service>/<method>`` (``/cardgames.v1.GameService/SubmitCommand``; another HTTP method:
  405, ``unimplemented``, since no call is free of side effects, Connect's GET does not apply): the Connect
  protocol (``application/json``, ``application/proto``; streams ``application/connect+json``,
  ``application/connect+proto``) and gRPC-Web (``application/grpc-web``, ``+proto``, ``+json``).
  Another content type is refused before anything is read: HTTP 415 with a Connect error
  (``invalid_argument``). An unknown service or method: HTTP 404, ``unimplemented``.
* ``GET /path``: a file of the static folder (``index.html`` at ``/``), else 404.
* CORS: requests from an allowed origin (``--cors-origin``; ``*`` allows any) get the
  ``Access-Control-*`` headers that Connect and gRPC-Web clients need, preflights included.
  The page served here is same-origin and needs none.
"""

from __future__ import annotations

import json
import mimetypes
from collections.abc import Awaitable, Callable, Iterable, MutableMapping, Sequence
from pathlib import Path
from typing import Any

from google.protobuf import descriptor_pool

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
Application = Callable[[Scope, Receive, Send], Awaitable[None]]

STATIC = Path(__file__).resolve().parent / "static"
#: The content types (without parameters) of gRPC-Web, and of Connect's unary calls and streams.
GRPC_WEB = frozenset({"application/grpc-web", "application/grpc-web+proto", "application/grpc-web+json"})
UNARY_TYPES = GRPC_WEB | {"application/json", "application/proto"}
STREAM_TYPES = GRPC_WEB | {"application/connect+json", "application/connect+proto"}
#: What browsers may send and read across origins (Connect's and gRPC-Web's headers, and the seat token's).
ALLOW_HEADERS = ", ".join(
    [
        "content-type",
        "connect-protocol-version",
        "connect-timeout-ms",
        "connect-accept-encoding",
        "connect-content-encoding",
        "accept-encoding",
        "content-encoding",
        "grpc-timeout",
        "x-grpc-web",
        "x-user-agent",
        "cardgames-token",
    ]
)
EXPOSE_HEADERS = ", ".join(
    [
        "grpc-status",
        "grpc-message",
        "grpc-status-details-bin",
        "content-encoding",
        "connect-content-encoding",
    ]
)
ALLOW_METHODS = "GET, POST, OPTIONS"
MAX_AGE = "7200"


def _header(scope: Scope, name: bytes) -> str:
    for key, value in scope.get("headers", ()):
        if key == name:
            return bytes(value).decode("latin-1")
    return ""


async def _respond(send: Send, status: int, body: bytes, headers: list[tuple[bytes, bytes]]) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [*headers, (b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})


async def connect_error(
    send: Send, status: int, code: str, message: str, headers: Sequence[tuple[bytes, bytes]] = ()
) -> None:
    """A Connect error (its JSON body) with an HTTP status."""
    body = json.dumps({"code": code, "message": message}).encode()
    await _respond(send, status, body, [(b"content-type", b"application/json"), *headers])


class HttpApp:
    """The ASGI application: ``services`` (Connect applications, by their ``path``), CORS, static files."""

    def __init__(self, services: Iterable[Any], *, cors_origins: Iterable[str] = (), static: Path = STATIC) -> None:
        self.routes: dict[str, Application] = {service.path: service for service in services}
        pool = descriptor_pool.Default()
        #: Every procedure's path, and whether its answer is a stream.
        self.procedures: dict[str, bool] = {
            f"{path}/{method.name}": method.server_streaming
            for path, service in self.routes.items()
            for method in pool.FindServiceByName(path[1:]).methods
            if method.name in getattr(service, "methods", (method.name,))
        }
        self.origins = frozenset(cors_origins)
        self.static = static.resolve()

    def _cors(self, scope: Scope) -> list[tuple[bytes, bytes]]:
        origin = _header(scope, b"origin")
        if not origin or not (origin in self.origins or "*" in self.origins):
            return []
        return [
            (b"access-control-allow-origin", origin.encode("latin-1")),
            (b"vary", b"Origin"),
            (b"access-control-expose-headers", EXPOSE_HEADERS.encode()),
        ]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        if scope["type"] != "http":
            await send({"type": "websocket.close", "code": 1003})
            return
        cors = self._cors(scope)
        method = scope["method"]
        if method == "OPTIONS":
            await self._preflight(send, cors)
            return
        path: str = scope["path"]
        service = self.routes.get(path[: path.find("/", 1)] if path.count("/") >= 2 else "")
        if service is not None and path not in self.procedures:
            service = None
        if service is not None or method == "POST":
            await self._rpc(service, scope, receive, send, cors)
        else:
            await self._file(scope, send, cors)

    async def _preflight(self, send: Send, cors: list[tuple[bytes, bytes]]) -> None:
        if not cors:
            await _respond(send, 403, b"", [])
            return
        await _respond(
            send,
            204,
            b"",
            [
                *cors,
                (b"access-control-allow-methods", ALLOW_METHODS.encode()),
                (b"access-control-allow-headers", ALLOW_HEADERS.encode()),
                (b"access-control-max-age", MAX_AGE.encode()),
            ],
        )

    async def _rpc(
        self, service: Application | None, scope: Scope, receive: Receive, send: Send, cors: list[tuple[bytes, bytes]]
    ) -> None:
        if service is None:
            await connect_error(send, 404, "unimplemented", f"no such procedure: {scope['path'][:200]}", cors)
            return
        if scope["method"] != "POST":  # Connect's GET is for calls without side effects: none here
            await connect_error(
                send,
                405,
                "unimplemented",
                f"{scope['method'][:10]} is not a call: POST it",
                [*cors, (b"allow", b"POST")],
            )
            return
        content_type = _header(scope, b"content-type").partition(";")[0].strip().lower()
        streams = self.procedures[scope["path"]]
        if content_type not in (STREAM_TYPES if streams else UNARY_TYPES):
            connect = (
                "application/connect+json or application/connect+proto"
                if streams
                else ("application/json or application/proto")
            )
            await connect_error(
                send,
                415,
                "invalid_argument",
                f"unsupported content type {content_type[:100]!r} for this {'stream' if streams else 'call'}: use "
                f"{connect} (Connect) or application/grpc-web+proto (gRPC-Web); native gRPC is on the gRPC port",
                cors,
            )
            return
        if not cors:
            await service(scope, receive, send)
            return

        async def send_with_cors(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", ()), *cors]}
            await send(message)

        await service(scope, receive, send_with_cors)

    async def _file(self, scope: Scope, send: Send, cors: list[tuple[bytes, bytes]]) -> None:
        if scope["method"] not in ("GET", "HEAD"):
            await _respond(send, 405, b"", [(b"allow", b"GET, HEAD, POST, OPTIONS")])
            return
        relative = scope["path"].lstrip("/") or "index.html"
        target = (self.static / relative).resolve()
        if target.is_dir():
            target = target / "index.html"
        if not target.is_relative_to(self.static) or not target.is_file():
            await _respond(send, 404, b"not found\n", [(b"content-type", b"text/plain; charset=utf-8")])
            return
        body = target.read_bytes()
        kind = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
        if kind.startswith("text/") or kind in ("application/javascript", "application/json"):
            kind += "; charset=utf-8"
        headers = [
            (b"content-type", kind.encode()),
            (b"cache-control", b"no-cache"),
            (b"x-content-type-options", b"nosniff"),
            *cors,
        ]
        if scope["method"] == "HEAD":
            await send(
                {
                    "type": "http.response.start",
                    "status": 200,
                    "headers": [*headers, (b"content-length", str(len(body)).encode())],
                }
            )
            await send({"type": "http.response.body", "body": b""})
            return
        await _respond(send, 200, body, headers)
