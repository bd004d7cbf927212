"""The service's errors on the wire, and what every gRPC servicer of the service shares.

Errors are rich: the status carries a ``google.rpc.Status`` (grpcio-status) whose details
hold a ``google.rpc.ErrorInfo`` with domain ``cardgames``, ``reason`` an UPPER_SNAKE_CASE
constant and ``metadata`` with what else is known; a rules rejection also carries a
``cardgames.v1.Rejection``. The reasons and their gRPC codes:

=====================  ===================  ===============================================
reason                 gRPC code            when
=====================  ===================  ===============================================
GAME_OVER              FAILED_PRECONDITION  the match has ended (FORMAT.md ``game_over``)
NOT_YOUR_TURN          FAILED_PRECONDITION  FORMAT.md ``not_your_turn``
ILLEGAL_MOVE           FAILED_PRECONDITION  FORMAT.md ``illegal_move``
INVALID_COMMAND        INVALID_ARGUMENT     FORMAT.md ``invalid_command`` (also: no command,
                                            another game's command)
UNKNOWN_GAME           INVALID_ARGUMENT     CreateGame names no known game
INVALID_OPTIONS        INVALID_ARGUMENT     unknown option values, a bad player count,
                                            another game's options
INVALID_SEED           INVALID_ARGUMENT     a seed that is not 64 hex digits
INVALID_SETUP          INVALID_ARGUMENT     stacked decks or dealer the game cannot start from
INVALID_SEQUENCE       INVALID_ARGUMENT     a sequence outside the log
INVALID_GAME_ID        INVALID_ARGUMENT     a game id that is not a UUID
GAME_NOT_FOUND         NOT_FOUND            no game with that id
TOKEN_REQUIRED         UNAUTHENTICATED      the call acts for a seat and has no token
TOKEN_INVALID          PERMISSION_DENIED    the token is not a seat token of the game
STALE_SEQUENCE         ABORTED              expected_sequence is not the latest (retry)
MALFORMED_REQUEST      INVALID_ARGUMENT     the request bytes are not the method's message
RATE_LIMITED           RESOURCE_EXHAUSTED   over the caller's rate limit (RetryInfo)
STORE_UNAVAILABLE      UNAVAILABLE          the store failed or timed out (disk full,
                                            database down); a command's outcome is unknown
OUT_OF_RANGE           OUT_OF_RANGE         a command whose events or view would hold a
                                            number past its wire type (a game created
                                            before the options' bounds); nothing written
WORK_DEADLINE          DEADLINE_EXCEEDED    a costly listing (a crowded Seep floor under
                                            B-7) took longer than the engine workers'
                                            deadline (``cardgames serve --work-deadline``)
WORKERS_BUSY           RESOURCE_EXHAUSTED   too many costly requests of the game (or in
                                            all) wait for the engine workers already
WORKER_FAILED          UNAVAILABLE          the engine workers could not do the work
=====================  ===================  ===============================================

For a rejection, ``metadata`` holds ``code`` (the FORMAT.md code as written there),
``rule`` and ``message``; for STALE_SEQUENCE, ``expected`` and ``sequence`` (the latest).
No refused call writes anything.

Also here: the seat token of a call (:func:`token_of`) and the wrapper of unary methods that turns
a :class:`~cardgames.service.errors.ServiceError` into its status (:func:`unary`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import wraps
from typing import Any, TypeVar

import grpc
from cardgames import wire
from cardgames.v1 import common_pb2
from google.protobuf import any_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

from cardgames.engine.core.echo import clip
from cardgames.service import errors
from cardgames.service.errors import Rejected, ServiceError

TOKEN_METADATA = "cardgames-token"
DOMAIN = "cardgames"

R = TypeVar("R")

#: The gRPC status code of each error (a rules rejection: FAILED_PRECONDITION, but see below).
CODES: dict[type[ServiceError], int] = {
    errors.UnknownGameError: code_pb2.INVALID_ARGUMENT,
    errors.InvalidOptions: code_pb2.INVALID_ARGUMENT,
    errors.InvalidRequest: code_pb2.INVALID_ARGUMENT,
    errors.GameNotFoundError: code_pb2.NOT_FOUND,
    errors.MissingToken: code_pb2.UNAUTHENTICATED,
    errors.WrongToken: code_pb2.PERMISSION_DENIED,
    errors.StaleSequenceError: code_pb2.ABORTED,
    errors.StoreUnavailable: code_pb2.UNAVAILABLE,
    errors.NotNow: code_pb2.FAILED_PRECONDITION,
    errors.Unservable: code_pb2.OUT_OF_RANGE,
    errors.WorkDeadline: code_pb2.DEADLINE_EXCEEDED,
    errors.WorkersBusy: code_pb2.RESOURCE_EXHAUSTED,
    errors.WorkerFailed: code_pb2.UNAVAILABLE,
}
_REJECTION_CODES = {"INVALID_COMMAND": code_pb2.INVALID_ARGUMENT}


def error_status(error: ServiceError) -> grpc.Status:
    """The rich status of a refused call: ErrorInfo (and the Rejection of a rules refusal).

    Every text in it is clipped to ``MESSAGE_BYTES`` (engine/core/echo.py): a message that
    repeats a client's input never grows with it, and the status always fits the trailers
    (a peer drops trailers past 8-16 KB, and the caller would get RESOURCE_EXHAUSTED instead).
    """
    if isinstance(error, Rejected):
        code = _REJECTION_CODES.get(error.reason, code_pb2.FAILED_PRECONDITION)
    else:
        code = next((c for kind, c in CODES.items() if isinstance(error, kind)), code_pb2.INVALID_ARGUMENT)
    metadata = {key: clip(value) for key, value in error.metadata.items()}
    details = [error_details_pb2.ErrorInfo(reason=error.reason, domain=DOMAIN, metadata=metadata)]
    if isinstance(error, Rejected):
        rejection = error.rejection
        details.append(
            wire.to_message(
                common_pb2.Rejection,
                {"code": rejection.code.value, "reason": rejection.code.value,
                 "message": clip(rejection.message), "rule": clip(rejection.rule)},
            )
        )
    packed = []
    for detail in details:
        any_detail = any_pb2.Any()
        any_detail.Pack(detail)
        packed.append(any_detail)
    return rpc_status.to_status(status_pb2.Status(code=code, message=clip(error.message), details=packed))


def token_of(context: grpc.aio.ServicerContext) -> str | None:
    """The seat token in the call's metadata (``cardgames-token``), if any."""
    for key, value in context.invocation_metadata() or ():
        if key == TOKEN_METADATA:
            return value if isinstance(value, str) else value.decode("utf-8", "replace")
    return None


def unary(
    method: Callable[[Any, Any, grpc.aio.ServicerContext], Awaitable[R]],
) -> Callable[[Any, Any, grpc.aio.ServicerContext], Awaitable[R]]:
    """A unary method whose ServiceError becomes the call's rich status (:func:`error_status`)."""

    @wraps(method)
    async def handler(self: Any, request: Any, context: grpc.aio.ServicerContext) -> R:
        try:
            return await method(self, request, context)
        except ServiceError as error:
            await context.abort_with_status(error_status(error))
            raise  # abort raises; this line is never reached

    return handler
