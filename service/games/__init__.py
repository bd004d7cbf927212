"""The application layer: games, seats, commands, views, logs and live fan-out (no gRPC here).

Every game is reached through :func:`cardgames.engine.core.registry.get_game`; nothing here knows a
game's rules. The layer is made of parts with one job each, composed by :class:`Games`
(service/games/facade.py); docs/architecture.md has the table of them:

* :mod:`~cardgames.service.games.live`: one live game (state, chain head, watchers; ``advance``);
* :mod:`~cardgames.service.games.cache`: the live games of the process, loaded and caught up;
* :mod:`~cardgames.service.games.executor`: the store's blocking calls, as reads and writes;
* :mod:`~cardgames.service.games.auth`: which seat a token belongs to;
* :mod:`~cardgames.service.games.create`, :mod:`~cardgames.service.games.entropy`: new games, seat entropy;
* :mod:`~cardgames.service.games.commands`: a seat's command, and batches the service decides;
* :mod:`~cardgames.service.games.reading`, :mod:`~cardgames.service.games.disclosure`: views, logs,
  and when a finished game shows everything;
* :mod:`~cardgames.service.games.paging`: legal commands by the page, and built-in bots' decisions;
* :mod:`~cardgames.service.games.watch`: watch streams and the cross-process feed;
* :mod:`~cardgames.service.games.results`, :mod:`~cardgames.service.games.bounds`: what calls return,
  and the wire's bounds on a batch.

The audit log (docs/log-format.md): each event's chain hash is computed here (from the genesis of
the game's log header) and kept in its record with the command that caused its batch; a live game
holds the head, returned with every accepted command and view; the log reveals the server's seed
once the match is over. Errors are :mod:`cardgames.service.errors`, re-exported here.
"""

from cardgames.service.errors import (
    GameNotFoundError,
    InvalidOptions,
    InvalidRequest,
    MissingToken,
    NotNow,
    Rejected,
    ServiceError,
    StaleSequenceError,
    StoreUnavailable,
    UnknownGameError,
    Unservable,
    WorkDeadline,
    WorkerFailed,
    WorkersBusy,
    WrongToken,
)
from cardgames.service.games.auth import token_hash
from cardgames.service.games.facade import Games, store_is_shared
from cardgames.service.games.live import LiveGame
from cardgames.service.games.paging import DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, costly
from cardgames.service.games.results import (
    Accepted,
    Created,
    EntropyStatus,
    Entry,
    LegalCommands,
    LegalListing,
    LogResult,
    ViewResult,
    WatchItem,
    entries_for,
    shown,
)

__all__ = [
    "DEFAULT_PAGE_SIZE",
    "MAX_PAGE_SIZE",
    "Accepted",
    "Created",
    "EntropyStatus",
    "Entry",
    "GameNotFoundError",
    "Games",
    "InvalidOptions",
    "InvalidRequest",
    "LegalCommands",
    "LegalListing",
    "LiveGame",
    "LogResult",
    "MissingToken",
    "NotNow",
    "Rejected",
    "ServiceError",
    "StaleSequenceError",
    "StoreUnavailable",
    "UnknownGameError",
    "Unservable",
    "ViewResult",
    "WatchItem",
    "WorkDeadline",
    "WorkerFailed",
    "WorkersBusy",
    "WrongToken",
    "costly",
    "entries_for",
    "shown",
    "store_is_shared",
    "token_hash",
]
