"""Typed errors decoded from the service's rich statuses (docs/service.md, "Errors").

Every refused call carries a ``google.rpc.Status`` whose details hold a
``google.rpc.ErrorInfo`` (domain ``cardgames``) and, for a rules rejection, a
``cardgames.v1.Rejection``. :func:`from_rpc_error` turns it into one of the classes here,
all subclasses of :class:`CardgamesError`:

==========================  ==================================================================
class                       reasons
==========================  ==================================================================
:class:`CommandRejected`    GAME_OVER, NOT_YOUR_TURN, INVALID_COMMAND, ILLEGAL_MOVE (the rules), and
                            DEADLINE_PASSED (a match clock ran out: ``code`` ``not_your_turn``)
:class:`StaleSequence`      STALE_SEQUENCE (``latest`` is the game's sequence now: re-read, retry)
:class:`AuthError`          TOKEN_REQUIRED, TOKEN_INVALID
:class:`GameNotFound`       GAME_NOT_FOUND
:class:`InvalidRequest`     UNKNOWN_GAME, INVALID_OPTIONS, INVALID_SEED, INVALID_SETUP,
                            INVALID_SEQUENCE, INVALID_GAME_ID, MALFORMED_REQUEST (INVALID_ARGUMENT)
:class:`RateLimited`        RESOURCE_EXHAUSTED with a retry hint (RATE_LIMITED: too many calls or
                            streams from this caller; or the service past its capacity): nothing
                            was done, retry after ``retry_after`` seconds (the status's RetryInfo,
                            else the ``grpc-retry-pushback-ms`` trailer), which the client does
                            itself, a bounded number of times (:class:`~cardgames.clients.Retry`)
:class:`ResourceExhausted`  RESOURCE_EXHAUSTED without a retry hint (WORKERS_BUSY, TABLES_FULL, a
                            message over gRPC's size limit): not resent by the client
:class:`ServiceUnavailable` the service could not be reached (UNAVAILABLE, DEADLINE_EXCEEDED),
                            or its store is down (STORE_UNAVAILABLE)
:class:`CardgamesError`     any other reason (e.g. NOT_NOW, MATCH_NOT_STARTED): ``reason`` says which
==========================  ==================================================================
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from cardgames.v1 import common_pb2

#: gRPC codes after which the same call may simply be tried again once the service is back.
TRANSIENT_CODES = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED})
REJECTION_REASONS = frozenset({"GAME_OVER", "NOT_YOUR_TURN", "INVALID_COMMAND", "ILLEGAL_MOVE"})
#: The trailer with a server's retry pushback in milliseconds (gRFC A6).
PUSHBACK = "grpc-retry-pushback-ms"


class CardgamesError(Exception):
    """A call the service refused (or could not answer).

    ``reason`` is the ErrorInfo reason (``"NOT_YOUR_TURN"``), ``status`` the gRPC status code
    (``None`` for an error found before sending), ``metadata`` the ErrorInfo metadata.
    """

    default_reason: ClassVar[str] = "ERROR"

    def __init__(
        self,
        message: str,
        *,
        reason: str | None = None,
        status: grpc.StatusCode | None = None,
        metadata: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.reason = reason or self.default_reason
        self.status = status
        self.metadata = dict(metadata or {})

    def __str__(self) -> str:
        return f"{self.reason}: {self.message}"


class CommandRejected(CardgamesError):
    """The rules refused the command: ``code`` as FORMAT.md writes it, ``rule``, ``message``."""

    default_reason = "INVALID_COMMAND"

    def __init__(self, code: str, rule: str, message: str, **kwargs: object) -> None:
        kwargs.setdefault("reason", code.upper())
        super().__init__(message, **kwargs)  # type: ignore[arg-type]
        self.code = code
        self.rule = rule

    def __str__(self) -> str:
        where = f" ({self.rule})" if self.rule else ""
        return f"{self.code}: {self.message}{where}"


class StaleSequence(CardgamesError):
    """``expected_sequence`` was not the latest: ``latest`` is the game's sequence now."""

    default_reason = "STALE_SEQUENCE"

    def __init__(self, latest: int, message: str = "", **kwargs: object) -> None:
        super().__init__(message or f"the game is at sequence {latest}", **kwargs)  # type: ignore[arg-type]
        self.latest = latest


class AuthError(CardgamesError):
    """No token where a seat must act (TOKEN_REQUIRED), or not a seat token of this game (TOKEN_INVALID)."""

    default_reason = "TOKEN_INVALID"


class GameNotFound(CardgamesError):
    """No game has this id."""

    default_reason = "GAME_NOT_FOUND"


class InvalidRequest(CardgamesError):
    """A malformed request: unknown game, bad options, seed, setup, sequence or game id."""

    default_reason = "INVALID_REQUEST"


class ResourceExhausted(CardgamesError):
    """RESOURCE_EXHAUSTED: the service cannot take this call now. Without a retry hint (this class
    itself) the client does not send it again by itself: the reason says what ran out."""

    default_reason = "RESOURCE_EXHAUSTED"


class RateLimited(ResourceExhausted):
    """A call refused with a retry hint (too many calls from this caller, or the service past its
    capacity); the call did nothing. Retry after ``retry_after`` s (the status's
    ``google.rpc.RetryInfo``, else the ``grpc-retry-pushback-ms`` trailer). ``refusals``: how many
    times in a row the client saw this call refused before it gave up (1 when it did not resend)."""

    default_reason = "RATE_LIMITED"

    def __init__(self, retry_after: float, message: str = "", **kwargs: object) -> None:
        super().__init__(message or f"rate limited: retry in {retry_after:.3f} s", **kwargs)  # type: ignore[arg-type]
        self.retry_after = retry_after
        self.refusals = 1


class ServiceUnavailable(CardgamesError):
    """The service could not be reached in time. For a submit, whether it was applied is unknown."""

    default_reason = "UNAVAILABLE"


_BY_REASON: dict[str, type[CardgamesError]] = {
    "TOKEN_REQUIRED": AuthError,
    "TOKEN_INVALID": AuthError,
    "GAME_NOT_FOUND": GameNotFound,
}
_BY_STATUS: dict[grpc.StatusCode, type[CardgamesError]] = {
    grpc.StatusCode.UNAUTHENTICATED: AuthError,
    grpc.StatusCode.PERMISSION_DENIED: AuthError,
    grpc.StatusCode.NOT_FOUND: GameNotFound,
    grpc.StatusCode.UNAVAILABLE: ServiceUnavailable,
    grpc.StatusCode.DEADLINE_EXCEEDED: ServiceUnavailable,
}


def _details(
    error: grpc.aio.AioRpcError,
) -> tuple[error_details_pb2.ErrorInfo | None, common_pb2.Rejection | None, error_details_pb2.RetryInfo | None]:
    """The ErrorInfo, Rejection and RetryInfo in the call's rich status, when it has them."""
    try:
        status = rpc_status.from_call(error)
    except ValueError:  # a status that disagrees with the call: ignore the details
        status = None
    if status is None:
        return None, None, None
    info = rejection = retry = None
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
        elif detail.Is(common_pb2.Rejection.DESCRIPTOR):
            rejection = common_pb2.Rejection()
            detail.Unpack(rejection)
        elif detail.Is(error_details_pb2.RetryInfo.DESCRIPTOR):
            retry = error_details_pb2.RetryInfo()
            detail.Unpack(retry)
    return info, rejection, retry


def retry_after(error: grpc.aio.AioRpcError, retry: error_details_pb2.RetryInfo | None,
                metadata: Mapping[str, str]) -> float | None:
    """Seconds to wait before a refused call may be sent again: the status's RetryInfo, else the
    ``grpc-retry-pushback-ms`` trailer, else ErrorInfo's ``retry_after_ms``; None without a hint.

    A pushback trailer that is not a whole number of milliseconds at least 0 means "do not
    retry" (gRFC A6): None too.
    """
    if retry is not None and retry.HasField("retry_delay"):
        return max(0.0, retry.retry_delay.ToNanoseconds() / 1e9)
    for key, value in error.trailing_metadata() or ():
        if key == PUSHBACK:
            text = value.decode("ascii", "replace") if isinstance(value, bytes) else str(value)
            return int(text) / 1000 if text.isdigit() else None
    hinted = metadata.get("retry_after_ms", "")
    return int(hinted) / 1000 if hinted.isdigit() else None


def from_rpc_error(error: grpc.aio.AioRpcError) -> CardgamesError:
    """The typed error for a failed call (by its ErrorInfo reason, else by its gRPC code)."""
    status = error.code()
    message = error.details() or status.name
    info, rejection, retry = _details(error)
    reason = info.reason if info is not None else None
    metadata = dict(info.metadata) if info is not None else {}
    common = {"status": status, "metadata": metadata}
    if rejection is not None or reason in REJECTION_REASONS:
        code = rejection.reason if rejection is not None else str(reason).lower()
        rule = rejection.rule if rejection is not None else metadata.get("rule", "")
        text = rejection.message if rejection is not None else metadata.get("message", message)
        return CommandRejected(code, rule, text, reason=reason, **common)
    if reason == "RATE_LIMITED" or status == grpc.StatusCode.RESOURCE_EXHAUSTED:
        wait = retry_after(error, retry, metadata)
        if wait is None:  # no hint: nothing says when (or whether) the same call could succeed
            return ResourceExhausted(message, reason=reason or "RESOURCE_EXHAUSTED", **common)
        return RateLimited(wait, message, reason=reason or "RATE_LIMITED", **common)
    if reason == "STALE_SEQUENCE":
        latest = int(metadata.get("sequence", "-1"))
        return StaleSequence(latest, message, reason=reason, **common)
    kind = _BY_REASON.get(reason or "") or _BY_STATUS.get(status)
    if kind is None:  # INVALID_ARGUMENT: a malformed request; anything else (NOT_NOW, ...) keeps its reason
        kind = InvalidRequest if status == grpc.StatusCode.INVALID_ARGUMENT else CardgamesError
    return kind(message, reason=reason or (status.name if kind is CardgamesError else kind.default_reason), **common)
