"""The Python client of the cardgames GameService, and bots built on it.

Only the wire contract is imported here (``cardgames.v1`` and ``cardgames.wire``), never
the engine or the service: a client sees what the service shows it, nothing more.
"""

from cardgames.clients.client import GameClient, OwnerHandle, SeatHandle, seed_hex
from cardgames.clients.errors import (
    AuthError,
    CardgamesError,
    CommandRejected,
    GameNotFound,
    InvalidRequest,
    RateLimited,
    ResourceExhausted,
    ServiceUnavailable,
    StaleSequence,
)
from cardgames.clients.models import (
    Accepted,
    CreatedGame,
    LegalCommands,
    Log,
    LogEvent,
    SeatStatus,
    TimeControl,
    Update,
    View,
    Written,
)
from cardgames.clients.retries import Retry

__all__ = [
    "Accepted",
    "AuthError",
    "CardgamesError",
    "CommandRejected",
    "CreatedGame",
    "GameClient",
    "GameNotFound",
    "InvalidRequest",
    "LegalCommands",
    "Log",
    "LogEvent",
    "OwnerHandle",
    "RateLimited",
    "ResourceExhausted",
    "Retry",
    "SeatHandle",
    "SeatStatus",
    "ServiceUnavailable",
    "StaleSequence",
    "TimeControl",
    "Update",
    "View",
    "Written",
    "seed_hex",
]
