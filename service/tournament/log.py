"""A tournament's events, one stream per tournament in the games' event store.

The stream's record 0 is :class:`TournamentCreated` (everything the schedule is computed
from); records 1, 2, ... are :class:`EntrantRegistered`, :class:`MatchScheduled`,
:class:`MatchFinished` and :class:`TournamentFinished`, in the order they happened. A
runner that restarts folds the stream (:func:`fold_tournament`) and knows which matches
are finished (never played again), which were scheduled (their games are resumed, not
recreated) and which are still to come. Appends carry the stream's version, so two
runners of one tournament cannot both record the same step (the second one's write is
refused as stale).

Every tournament is also listed in one index stream (:data:`INDEX_ID`), so that a server
can find and resume the unfinished ones after a restart.

No secret is kept in plain text but the tournament's seed (as a game's header keeps its
seed): remote entrants' credentials and entrant tokens are kept as SHA-256 hashes, and seat
tokens not at all (a runner derives them again from the server's key, outside the store:
service/tournament/keys.py; the games' headers hold their hashes). A tournament's stream is
never served as it is: the API shows standings and matches, and the seed once it is over.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final, TypeAlias
from uuid import NAMESPACE_URL, UUID, uuid5

import msgspec
from eventsourcing.persistence import IntegrityError, StoredEvent

from cardgames.service.store import EventStore

TOPIC: Final = "cardgames.tournament."
INDEX_ID: Final = uuid5(NAMESPACE_URL, "cardgames:tournaments")
#: The built-in bots an entrant may name (anything else is a remote entrant that registers).
BUILTIN_KINDS: Final = ("random", "heuristic", "ismcts")


class ClockOptions(msgspec.Struct, frozen=True):
    """A match's clock: ``move_ms`` per decision, then the ``bank_ms`` time bank; ``on_timeout``
    ``forfeit`` or ``auto_move``; ``reconnect_ms``: how long a seat with no connection is
    waited for (None: as long as its clock lasts)."""

    move_ms: int
    bank_ms: int = 0
    on_timeout: str = "forfeit"
    reconnect_ms: int | None = None


class Entrant(msgspec.Struct, frozen=True):
    """An entrant: ``name``, and ``bot`` the built-in kind (None for a remote entrant, which registers
    with the credential whose SHA-256 is ``credential_hash``)."""

    name: str
    bot: str | None = None
    credential_hash: str = ""

    @property
    def remote(self) -> bool:
        return self.bot is None


class TournamentCreated(msgspec.Struct, frozen=True, tag="tournament_created", tag_field="type"):
    """Everything the schedule follows from. ``scheme``: how duplicate deals are spread
    (service/tournament/schedule.py; ``shared`` for tournaments stored before the others
    existed); ``trusted``: the creator let the same entrants play a deal's rotations;
    ``seed_commitment``: SHA-256 of the seed (public); ``key_id``: the server key that the
    seat tokens come from (service/tournament/keys.py)."""

    game: str
    players: int
    options: dict[str, Any]
    entrants: tuple[Entrant, ...]
    matches: int | None
    duplicate: bool
    seed: str
    clock: ClockOptions | None = None
    parallel: int = 1
    scheme: str = "shared"
    trusted: bool = False
    seed_commitment: str = ""
    key_id: str = ""


class EntrantRegistered(msgspec.Struct, frozen=True, tag="entrant_registered", tag_field="type"):
    """A remote entrant registered with its credential; ``token_hash``: SHA-256 of its entrant token (a
    later registration of the same entrant replaces it)."""

    name: str
    token_hash: str


class MatchScheduled(msgspec.Struct, frozen=True, tag="match_scheduled", tag_field="type"):
    """The match's game (its seat tokens are derived, never stored: service/tournament/keys.py)."""

    match_no: int
    game_id: str


class MatchFinished(msgspec.Struct, frozen=True, tag="match_finished", tag_field="type"):
    """``ranks``: per seat, 0 best (the game's outcome); ``forfeited``: the seat that forfeited, if any."""

    match_no: int
    game_id: str
    ranks: tuple[int, ...]
    sequence: int
    forfeited: int | None = None
    #: per seat, how many times its clock ran out
    timeouts: tuple[int, ...] = ()


class TournamentFinished(msgspec.Struct, frozen=True, tag="tournament_finished", tag_field="type"):
    matches: int


class TournamentListed(msgspec.Struct, frozen=True, tag="tournament_listed", tag_field="type"):
    tournament_id: str


TournamentEvent: TypeAlias = (
    TournamentCreated | EntrantRegistered | MatchScheduled | MatchFinished | TournamentFinished
)


class TournamentState(msgspec.Struct):
    """A tournament folded from its stream."""

    tournament_id: str
    created: TournamentCreated
    version: int = 0
    registered: dict[str, str] = {}
    scheduled: dict[int, MatchScheduled] = {}
    finished: dict[int, MatchFinished] = {}
    over: bool = False


def fold_tournament(tournament_id: str, events: Sequence[Any]) -> TournamentState:
    """The state after the stream's events (the first is its TournamentCreated)."""
    first = events[0]
    if not isinstance(first, TournamentCreated):
        raise ValueError("a tournament's stream starts with tournament_created")
    state = TournamentState(tournament_id, first)
    for event in events[1:]:
        apply(state, event)
    return state


def apply(state: TournamentState, event: Any) -> None:
    """Fold one event written after ``state.version`` into ``state`` (in place)."""
    if isinstance(event, EntrantRegistered):
        state.registered[event.name] = event.token_hash
    elif isinstance(event, MatchScheduled):
        state.scheduled[event.match_no] = event
    elif isinstance(event, MatchFinished):
        state.finished[event.match_no] = event
    elif isinstance(event, TournamentFinished):
        state.over = True
    state.version += 1


class TournamentNotFound(KeyError):
    def __str__(self) -> str:
        return f"no tournament with id {self.args[0]}"


class StaleTournament(Exception):
    """Another writer appended to the tournament first (nothing was written)."""


_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder(TournamentEvent)
_index_decoder = msgspec.json.Decoder(TournamentListed)


def _tag(event: Any) -> str:
    return str(type(event).__struct_config__.tag)


class TournamentLog:
    """Tournament streams on the games' event store (synchronous, like the store)."""

    def __init__(self, store: EventStore) -> None:
        self.store = store
        self.recorder = store.recorder

    def create(self, tournament_id: UUID, created: TournamentCreated) -> None:
        record = StoredEvent(tournament_id, 0, TOPIC + _tag(created), _encoder.encode(created))
        try:
            self.recorder.insert_events([record])
        except IntegrityError as error:
            raise StaleTournament(f"tournament {tournament_id} exists") from error
        self._list(tournament_id)

    def _list(self, tournament_id: UUID) -> None:
        for _ in range(100):
            records = self.recorder.select_events(INDEX_ID, desc=True, limit=1)
            version = records[0].originator_version + 1 if records else 0
            listed = TournamentListed(str(tournament_id))
            record = StoredEvent(INDEX_ID, version, TOPIC + _tag(listed), _encoder.encode(listed))
            try:
                self.recorder.insert_events([record])
                return
            except IntegrityError:
                continue
        raise StaleTournament("could not list the tournament in the index")

    def append(self, tournament_id: UUID, after: int, events: Sequence[Any]) -> int:
        """Write ``events`` after version ``after`` in one insert; StaleTournament when taken."""
        records = [
            StoredEvent(tournament_id, after + index, TOPIC + _tag(event), _encoder.encode(event))
            for index, event in enumerate(events, start=1)
        ]
        try:
            self.recorder.insert_events(records)
        except IntegrityError as error:
            raise StaleTournament(f"tournament {tournament_id}: version {after + 1} is taken") from error
        return after + len(events)

    def load(self, tournament_id: UUID) -> TournamentState:
        records = self.recorder.select_events(tournament_id)
        if not records or not records[0].topic.startswith(TOPIC):
            raise TournamentNotFound(str(tournament_id))
        return fold_tournament(str(tournament_id), [_decoder.decode(record.state) for record in records])

    def listed(self) -> list[str]:
        """Every tournament's id, oldest first."""
        return [_index_decoder.decode(record.state).tournament_id for record in self.recorder.select_events(INDEX_ID)]
