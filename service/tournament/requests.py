"""A tournament request checked: its settings and entrants, the errors of a refusal, and what the API shows.

:class:`~cardgames.service.tournament.manager.Tournaments` runs tournaments; this module holds what
it checks before it writes anything (:func:`tournament_created`, :func:`parse_entrants`,
:func:`duplicate_scheme`, :func:`check_bot`), the tournaments' errors, and the structs its calls
return (:class:`CreatedTournament`, :class:`TournamentInfo`, :class:`MatchInfo`).
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import msgspec

from cardgames.engine.core import fairness
from cardgames.engine.core.protocol import OptionsError
from cardgames.engine.core.registry import UnknownGame, get_game
from cardgames.engine.core.seat_events import CONSEQUENCES
from cardgames.service.errors import (
    GameNotFoundError,
    InvalidOptions,
    InvalidRequest,
    ServiceError,
    UnknownGameError,
    WrongToken,
)
from cardgames.service.games import token_hash
from cardgames.service.tournament.log import BUILTIN_KINDS, ClockOptions, Entrant, TournamentCreated, TournamentState
from cardgames.service.tournament.schedule import DISJOINT, TABLE, MatchSpec, disjoint_possible, sides_of

#: The clock of a tournament with remote entrants when none is given: a bot that never answers must not
#: hold a match forever (10 s a decision, a 60 s bank, then the seat forfeits).
DEFAULT_REMOTE_CLOCK = ClockOptions(move_ms=10_000, bank_ms=60_000, on_timeout="forfeit")
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,39}")
#: The largest search budget an ``ismcts:ITERATIONS`` entrant may ask for.
MAX_ITERATIONS = 100_000
SEED_HEX = re.compile(r"[0-9a-f]{64}")


class TournamentNotFoundError(GameNotFoundError):
    reason = "TOURNAMENT_NOT_FOUND"


class InvalidTournament(InvalidRequest):
    reason = "INVALID_TOURNAMENT"


class UnknownEntrant(InvalidRequest):
    reason = "UNKNOWN_ENTRANT"


class FieldTooSmall(InvalidTournament):
    """Duplicate deals with a remote entrant, too few entrants to give a deal's rotations to different ones."""

    reason = "FIELD_TOO_SMALL"


class EntrantTokenInvalid(WrongToken):
    reason = "ENTRANT_TOKEN_INVALID"


class CredentialRequired(WrongToken):
    reason = "CREDENTIAL_REQUIRED"


class CredentialInvalid(WrongToken):
    reason = "CREDENTIAL_INVALID"


class KeyMismatch(ServiceError):
    """The tournament's seat tokens come from another server key than this process holds."""

    reason = "TOURNAMENT_KEY_MISMATCH"


class CreatedTournament(msgspec.Struct, frozen=True):
    """A new tournament: its id, its number of matches, the commitment to its seed, and each remote
    entrant's credential (given once: only their hashes are kept)."""

    tournament_id: str
    matches: int
    seed_commitment: str
    credentials: dict[str, str]


class MatchInfo(msgspec.Struct, frozen=True):
    """One match of the schedule as the API shows it: ``game_id`` and ``ranks`` once its deal is released
    (every match of the deal is over), so that nobody watches or learns the result of a match of a deal
    they still have to play."""

    match_no: int
    deal_no: int
    table_no: int
    rotation: int
    seats: tuple[str, ...]
    status: str  #: ``waiting``, ``playing`` or ``finished``
    game_id: str = ""
    ranks: tuple[int, ...] = ()


class TournamentInfo(msgspec.Struct, frozen=True):
    """A tournament's settings, the commitment to its seed (the seed itself once it is over) and its matches."""

    tournament_id: str
    game: str
    players: int
    #: (name, built-in bot or "" for a remote entrant)
    entrants: tuple[tuple[str, str], ...]
    duplicate: bool
    scheme: str
    trusted: bool
    parallel: int
    seed_commitment: str
    finished: bool
    seed: str  #: "" until the tournament is over
    matches: tuple[MatchInfo, ...]


def parse_entrants(specs: Sequence[str]) -> tuple[Entrant, ...]:
    """``random``, ``heuristic``, ``ismcts`` (built-in, named after the kind), ``NAME=KIND`` (a
    built-in under another name; ``NAME=ismcts:ITERATIONS`` sets the search budget) or any
    other ``NAME`` (a remote entrant that registers)."""
    entrants = []
    for spec in specs:
        name, _, kind = spec.strip().partition("=")
        name, kind = name.strip(), kind.strip()
        if not NAME.fullmatch(name):
            raise InvalidTournament(f"an entrant's name is 1-40 letters, digits, '_', '.', '-': {name!r}")
        if kind:
            check_bot(name, kind)
        bot = kind or (name if name in BUILTIN_KINDS else None)
        entrants.append(Entrant(name, bot))
    return tuple(entrants)


def duplicate_scheme(game: str, players: int, entrants: Sequence[Entrant], trusted: bool) -> str:
    """How duplicate deals are spread: among the same entrants (``table``) for built-in bots or a
    ``trusted`` tournament, else to entrants that are all different (``disjoint``), which takes
    ``sides ** 2`` entrants (FieldTooSmall otherwise)."""
    if trusted or not any(entrant.remote for entrant in entrants):
        return TABLE
    sides = len(sides_of(game, players))
    if not disjoint_possible(len(entrants), sides):
        raise FieldTooSmall(
            f"duplicate deals with remote entrants give a deal's {sides} rotations to different entrants, so that "
            f"nobody plays a deal twice: that takes {sides * sides} entrants, not {len(entrants)}; add entrants, "
            f"drop duplicate, or create the tournament trusted (the same entrants then play every rotation)",
            entrants=str(len(entrants)), needed=str(sides * sides),
        )
    return DISJOINT


def check_bot(name: str, kind: str) -> None:
    """Refuse a built-in bot spec other than ``KIND`` or ``ismcts:ITERATIONS`` (1..100000)."""
    base, colon, budget = kind.partition(":")
    if base not in BUILTIN_KINDS:
        raise InvalidTournament(f"unknown bot {kind!r} for {name!r}; built-in bots: {', '.join(BUILTIN_KINDS)}")
    if colon and (base != "ismcts" or not budget.isdigit() or not 1 <= int(budget) <= MAX_ITERATIONS):
        raise InvalidTournament(
            f"bot {kind!r} for {name!r}: only ismcts takes a budget, as ismcts:ITERATIONS (1..{MAX_ITERATIONS})"
        )



def tournament_created(
    game: str,
    entrants: Sequence[str],
    *,
    players: int | None,
    options: Mapping[str, Any] | None,
    matches: int | None,
    duplicate: bool,
    seed: str | None,
    clock: ClockOptions | None,
    parallel: int,
    trusted: bool,
    key_id: str,
) -> tuple[TournamentCreated, dict[str, str]]:
    """A tournament's first event from a create request's settings, checked, and each remote entrant's
    credential (see :meth:`~cardgames.service.tournament.manager.Tournaments.create`)."""
    try:
        rules = get_game(game)
    except (UnknownGame, ModuleNotFoundError) as error:
        raise UnknownGameError(f"unknown game {game!r}", game=game) from error
    try:
        config = rules.make_config(dict(options or {}), players)
    except OptionsError as error:
        raise InvalidOptions(str(error), game=game) from error
    if seed is not None and not SEED_HEX.fullmatch(seed):
        raise InvalidRequest("a seed is 32 bytes in hex (64 hex digits)", reason="INVALID_SEED")
    if clock is not None and (clock.move_ms <= 0 or clock.bank_ms < 0 or clock.on_timeout not in CONSEQUENCES):
        raise InvalidTournament("a clock has move_ms > 0, bank_ms >= 0 and on_timeout forfeit or auto_move")
    parsed = parse_entrants(entrants)
    if clock is None and any(entrant.remote for entrant in parsed):
        clock = DEFAULT_REMOTE_CLOCK
    seats = int(config.players)
    scheme = duplicate_scheme(game, seats, parsed, trusted) if duplicate else TABLE
    credentials = {entrant.name: secrets.token_urlsafe(32) for entrant in parsed if entrant.remote}
    parsed = tuple(
        msgspec.structs.replace(entrant, credential_hash=token_hash(credentials[entrant.name]))
        if entrant.remote else entrant
        for entrant in parsed
    )
    seed = seed or secrets.token_hex(32)
    created = TournamentCreated(
        game=game,
        players=seats,
        options=dict(options or {}),
        entrants=parsed,
        matches=matches,
        duplicate=duplicate,
        seed=seed,
        clock=clock,
        parallel=max(1, parallel),
        scheme=scheme,
        trusted=trusted,
        seed_commitment=fairness.commitment(seed),
        key_id=key_id,
    )
    return created, credentials


def tournament_info(
    tournament_id: str, state: TournamentState, specs: Sequence[MatchSpec], deal_over: Callable[[int], bool]
) -> TournamentInfo:
    """The tournament as the API shows it: a match's game id and ranks only once ``deal_over`` its deal."""
    created = state.created
    matches = []
    for spec in specs:
        scheduled, finished = state.scheduled.get(spec.match_no), state.finished.get(spec.match_no)
        status = "finished" if finished else "playing" if scheduled else "waiting"
        released = deal_over(spec.deal_no)
        matches.append(MatchInfo(
            spec.match_no, spec.deal_no, spec.table_no, spec.rotation, spec.seats, status,
            scheduled.game_id if scheduled is not None and released else "",
            finished.ranks if finished is not None and released else (),
        ))
    return TournamentInfo(
        tournament_id, created.game, created.players,
        tuple((entrant.name, entrant.bot or "") for entrant in created.entrants), created.duplicate,
        created.scheme, created.trusted, created.parallel, created.seed_commitment, state.over,
        created.seed if state.over else "", tuple(matches),
    )
