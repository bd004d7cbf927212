"""The service's errors: every refusal is a :class:`ServiceError` with a stable ``reason``.

``reason`` is the string the gRPC layer puts in ``google.rpc.ErrorInfo.reason`` (and the
status code it maps to is in :mod:`cardgames.service.grpc_errors`); the rules' own refusals
are :class:`Rejected`, whose reason is the FORMAT.md code in upper case. No error writes
anything.
"""

from __future__ import annotations

from typing import ClassVar

from cardgames.engine.core.protocol import Rejection

# Errors.


class ServiceError(Exception):
    """A request the service refuses; nothing was written."""

    reason: ClassVar[str] = "SERVICE_ERROR"

    def __init__(self, message: str, /, **metadata: str) -> None:
        super().__init__(message)
        self.message = message
        self.metadata = metadata


class InvalidRequest(ServiceError):
    """A malformed request (a bad seed, sequence or game id). ``reason`` may be refined."""

    reason = "INVALID_REQUEST"

    def __init__(self, message: str, /, reason: str | None = None, **metadata: str) -> None:
        super().__init__(message, **metadata)
        if reason:
            self.reason = reason  # type: ignore[misc]


class UnknownGameError(ServiceError):
    """No game of that name is registered."""

    reason = "UNKNOWN_GAME"


class InvalidOptions(ServiceError):
    """The game refuses the options (or the player count)."""

    reason = "INVALID_OPTIONS"


class GameNotFoundError(ServiceError):
    """No game with that id in the store."""

    reason = "GAME_NOT_FOUND"


class MissingToken(ServiceError):
    """A call that acts for a seat came without a seat token."""

    reason = "TOKEN_REQUIRED"


class WrongToken(ServiceError):
    """The token is not a seat token of the game."""

    reason = "TOKEN_INVALID"


class StaleSequenceError(ServiceError):
    """The caller's ``expected_sequence`` is not the game's: fetch the view and retry."""

    reason = "STALE_SEQUENCE"

    @classmethod
    def at(cls, expected: int, sequence: int) -> StaleSequenceError:
        """The error for a caller that expected ``expected`` of a game at ``sequence``."""
        return cls(
            f"expected sequence {expected}, but the game is at {sequence}: fetch the view and retry",
            expected=str(expected),
            sequence=str(sequence),
        )


class NotNow(ServiceError):
    """A call the game's stage does not allow (FAILED_PRECONDITION); ``reason`` says which.

    ``MATCH_NOT_STARTED``: the seats have not all revealed their entropy yet;
    ``NO_SEAT_ENTROPY``: the game takes no seat entropy (or has started);
    ``ALREADY_COMMITTED`` / ``ALREADY_REVEALED``: the seat did it already (with another value);
    ``COMMITMENTS_PENDING``: a reveal before every seat has committed.
    """

    reason = "NOT_NOW"

    def __init__(self, message: str, /, reason: str, **metadata: str) -> None:
        super().__init__(message, **metadata)
        self.reason = reason  # type: ignore[misc]


class Unservable(ServiceError):
    """A batch the wire could not carry (a number past its field's type): refused, nothing written.

    The options' bounds (engine/*/config.py) keep every score and counter within its wire
    type, so this is the last guard: a game never holds an event its views, log and streams
    could not send.
    """

    reason = "OUT_OF_RANGE"


class StoreUnavailable(ServiceError):
    """The store failed or did not answer in time (disk full, database down); retry later.

    For a command, its outcome is then unknown: read the view (or retry with the same
    ``expected_sequence``, which is refused as stale if the command was recorded after all).
    """

    reason = "STORE_UNAVAILABLE"


class WorkDeadline(ServiceError):
    """Expensive engine work (a crowded listing's count and pages, a built-in bot's decision) did not
    finish within the workers' deadline; the worker running it was replaced (DEADLINE_EXCEEDED)."""

    reason = "WORK_DEADLINE"


class WorkersBusy(ServiceError):
    """Too much expensive work of this game (or in all) is waiting for the workers (RESOURCE_EXHAUSTED)."""

    reason = "WORKERS_BUSY"


class WorkerFailed(ServiceError):
    """The workers could not do the work (they died under it twice, or the service is stopping)."""

    reason = "WORKER_FAILED"


class Rejected(ServiceError):
    """The rules refused the command (FORMAT.md code, message, rule)."""

    def __init__(self, rejection: Rejection) -> None:
        code = rejection.code.value
        super().__init__(rejection.message, code=code, rule=rejection.rule, message=rejection.message)
        self.rejection = rejection
        self.reason = code.upper()  # type: ignore[misc]
