"""Tournaments on the application layer: create, register, assignments, standings, and the runner.

:class:`Tournaments` is to tournaments what :class:`cardgames.service.games.Games` is to games: it
keeps each tournament's folded state in memory, writes its events to the tournament's
stream (service/tournament/log.py) and runs its schedule as an asyncio task:

* every match is a game of the application layer, created from the schedule's seed; a
  built-in entrant's seats are played in process (service/tournament/players.py), a
  remote entrant's are posted to its assignment stream (service/tournament/hub.py);
* a match is recorded ``match_scheduled`` (its game) before anyone plays it and
  ``match_finished`` (the ranks) once its game is over, so a runner that stops at any
  point and starts again resumes each scheduled match's own game, never plays a finished
  match again, and schedules the rest; seat tokens are derived from the server's key
  (service/tournament/keys.py), never stored;
* the matches wait until every remote entrant has registered with the credential it was
  given at creation (only the credentials' hashes are kept);
* every match's game is created *held* by the tournament: it shows what a finished match
  shows (its seed, shuffles, hands) only once every match of its deal is over
  (:meth:`Tournaments.released`), so that a duplicate deal's seed is never revealed while
  another match that uses it is still to be played.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import re
import secrets
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import aclosing, suppress
from dataclasses import dataclass, field
from functools import partial
from typing import Any, TypeVar
from uuid import UUID, uuid4

import msgspec

from cardgames.engine.core import fairness
from cardgames.engine.core.events import SeatTimedOut
from cardgames.engine.core.protocol import OptionsError
from cardgames.engine.core.registry import UnknownGame, get_game
from cardgames.engine.core.seat_events import CONSEQUENCES
from cardgames.service.games import (
    GameNotFoundError,
    Games,
    InvalidOptions,
    InvalidRequest,
    MissingToken,
    ServiceError,
    UnknownGameError,
    WrongToken,
    token_hash,
)
from cardgames.service.tournament.hub import Assignment, Hub
from cardgames.service.tournament.keys import TournamentKey, tournament_key
from cardgames.service.tournament.log import (
    BUILTIN_KINDS,
    ClockOptions,
    Entrant,
    EntrantRegistered,
    MatchFinished,
    MatchScheduled,
    StaleTournament,
    TournamentCreated,
    TournamentFinished,
    TournamentLog,
    TournamentNotFound,
    TournamentState,
    apply,
    fold_tournament,
)
from cardgames.service.tournament.players import play_seat, policy_for
from cardgames.service.tournament.schedule import DISJOINT, TABLE, MatchSpec, disjoint_possible, sides_of
from cardgames.service.tournament.standings import Standings, standings, tournament_schedule

T = TypeVar("T")
log = logging.getLogger(__name__)
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


@dataclass(eq=False)
class _Running:
    uuid: UUID
    state: TournamentState
    hub: Hub
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    changed: asyncio.Condition = field(default_factory=asyncio.Condition)
    task: asyncio.Task[None] | None = None
    _specs: list[MatchSpec] | None = None
    _deals: dict[int, list[int]] | None = None

    @property
    def created(self) -> TournamentCreated:
        return self.state.created

    def specs(self) -> list[MatchSpec]:
        """The schedule (computed once)."""
        if self._specs is None:
            self._specs = tournament_schedule(self.state)
        return self._specs

    def deal_over(self, deal_no: int) -> bool:
        """Whether every match of the deal is finished (or the tournament is over)."""
        if self._deals is None:
            deals: dict[int, list[int]] = {}
            for spec in self.specs():
                deals.setdefault(spec.deal_no, []).append(spec.match_no)
            self._deals = deals
        return self.state.over or all(match_no in self.state.finished for match_no in self._deals.get(deal_no, ()))


class Tournaments:
    """The tournaments of one process, on the games' store and application layer."""

    def __init__(self, games: Games, *, clocks: Any = None, key: TournamentKey | None = None) -> None:
        self.games = games
        self.log = TournamentLog(games.store)
        self.clocks = clocks
        self._key = key
        self._open: dict[str, _Running] = {}
        games.releases = self.released
        #: The tournament log's store calls run here: a cancelled runner's write goes on in its
        #: thread, and :meth:`close` waits for it (the store may be closed right after).
        self._writer = ThreadPoolExecutor(max_workers=2, thread_name_prefix="cardgames-tournament-log")

    @property
    def key(self) -> TournamentKey:
        """Where seat tokens come from (kept out of the store; service/tournament/keys.py), found when first
        needed: a server that runs no tournament makes no key file."""
        if self._key is None:
            self._key = tournament_key(self.games.store)
        return self._key

    async def _log_call(self, function: Callable[..., T], *args: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._writer, partial(function, *args))

    # -- creating and finding ---------------------------------------------------------

    async def create(
        self,
        game: str,
        entrants: Sequence[str],
        *,
        players: int | None = None,
        options: Mapping[str, Any] | None = None,
        matches: int | None = None,
        duplicate: bool = False,
        seed: str | None = None,
        clock: ClockOptions | None = None,
        parallel: int = 1,
        trusted: bool = False,
        start: bool = True,
        tournament_id: str | None = None,
    ) -> CreatedTournament:
        """A new tournament (its schedule fixed by these settings); its runner starts unless ``start`` is False.

        ``trusted``: with duplicate deals, let the same entrants play every rotation of a deal even when
        some are remote (each of them then sees a deal from every side: for entrants the creator
        trusts not to use it). Each remote entrant gets a credential to register with.
        """
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
            key_id=self.key.key_id,
        )
        uuid = UUID(tournament_id) if tournament_id else uuid4()
        state = fold_tournament(str(uuid), [created])
        try:
            specs = await asyncio.to_thread(tournament_schedule, state)  # a large disjoint round robin takes a while
        except ValueError as error:
            raise InvalidTournament(str(error)) from error
        try:
            await self._log_call(self.log.create, uuid, created)
        except StaleTournament as error:
            raise InvalidTournament(str(error)) from error
        running = _Running(uuid, state, Hub([e.name for e in created.entrants if e.remote]))
        self._open[str(uuid)] = running
        if start:
            self.start(str(uuid))
        return CreatedTournament(str(uuid), len(specs), created.seed_commitment, credentials)

    async def _get(self, tournament_id: str) -> _Running:
        try:
            uuid = UUID(tournament_id)
        except (ValueError, TypeError, AttributeError) as error:
            raise InvalidRequest(f"not a tournament id: {tournament_id!r}", reason="INVALID_TOURNAMENT_ID") from error
        running = self._open.get(str(uuid))
        if running is None:
            try:
                state = await self._log_call(self.log.load, uuid)
            except TournamentNotFound as error:
                raise TournamentNotFoundError(str(error), tournament_id=tournament_id) from error
            running = self._open.setdefault(
                str(uuid), _Running(uuid, state, Hub([e.name for e in state.created.entrants if e.remote]))
            )
        return running

    async def state(self, tournament_id: str) -> TournamentState:
        return (await self._get(tournament_id)).state

    async def standings(self, tournament_id: str) -> Standings:
        return standings((await self._get(tournament_id)).state)

    async def watch(self, tournament_id: str) -> AsyncIterator[Standings]:
        """The standings now, then after every finished match; ends with the tournament."""
        running = await self._get(tournament_id)
        seen = [-1]
        while True:
            async with running.changed:
                await running.changed.wait_for(lambda: running.state.version != seen[0])
                seen[0] = running.state.version
            yield standings(running.state)
            if running.state.over:
                return

    # -- remote entrants -----------------------------------------------------------------

    async def register(self, tournament_id: str, name: str, credential: str | None) -> str:
        """Register the remote entrant ``name`` with the credential it was given at creation: its new
        secret entrant token (shown once; only its hash is kept).

        Registering again (a bot that lost its token, or any restart) gives a new token: the earlier
        one stops working and its Assignments stream ends; the entrant's seats stay its own.
        """
        running = await self._get(tournament_id)
        entrant = next((e for e in running.created.entrants if e.name == name), None)
        if entrant is None or not entrant.remote:
            raise UnknownEntrant(f"{name!r} is not a remote entrant of this tournament", name=name)
        if not credential:
            raise CredentialRequired(f"registering {name!r} takes the credential it was given when the tournament "
                                     "was created", name=name)
        if not entrant.credential_hash or not hmac.compare_digest(entrant.credential_hash, token_hash(credential)):
            raise CredentialInvalid(f"this is not {name!r}'s credential", name=name)
        token = secrets.token_urlsafe(32)
        async with running.lock:
            again = name in running.state.registered
            await self._append(running, [EntrantRegistered(name, token_hash(token))])
        if again:
            await running.hub.supersede(name)
        return token

    def _entrant(self, running: _Running, token: str | None) -> str:
        if not token:
            raise MissingToken("send the entrant token from RegisterEntrant in the cardgames-token metadata")
        digest = token_hash(token)
        for name, known in running.state.registered.items():
            if secrets.compare_digest(known, digest):
                return name
        raise EntrantTokenInvalid("the token is not an entrant token of this tournament")

    async def assignments(self, tournament_id: str, token: str | None) -> AsyncIterator[Assignment]:
        """The entrant's open match assignments, then each new one, until the tournament ends."""
        running = await self._get(tournament_id)
        name = self._entrant(running, token)
        return running.hub.follow(name)

    # -- running -------------------------------------------------------------------------

    def start(self, tournament_id: str) -> None:
        """Run the tournament (KeyMismatch when its seat tokens come from another server key)."""
        running = self._open[tournament_id]
        key_id = running.created.key_id
        if key_id != self.key.key_id and not running.state.over:
            raise KeyMismatch(
                f"tournament {tournament_id} was created under another server key "
                f"({'id ' + key_id if key_id else 'from before keys'}; this process holds id {self.key.key_id}, "
                f"from {self.key.source}): resume it with the key it was created with",
                tournament_id=tournament_id,
            )
        if running.task is None or running.task.done():
            running.task = asyncio.create_task(self._run(running), name=f"tournament-{tournament_id}")

    async def wait(self, tournament_id: str) -> Standings:
        running = await self._get(tournament_id)
        if running.task is not None:
            await running.task
        return standings(running.state)

    async def resume_all(self) -> list[str]:
        """Start the runner of every unfinished tournament in the store (a restarted server)."""
        resumed = []
        for tournament_id in await self._log_call(self.log.listed):
            running = await self._get(tournament_id)
            if not running.state.over:
                try:
                    self.start(tournament_id)
                except KeyMismatch as error:
                    log.warning("%s", error)
                    continue
                resumed.append(tournament_id)
        return resumed

    async def close(self) -> None:
        for running in self._open.values():
            if running.task is not None and not running.task.done():
                running.task.cancel()
                with suppress(asyncio.CancelledError):
                    await running.task
            await running.hub.close()
        # A write that a cancelled task was waiting for still runs: let it end before the store closes.
        await asyncio.get_running_loop().run_in_executor(None, partial(self._writer.shutdown, wait=True))

    async def _append(self, running: _Running, events: list[Any]) -> None:
        """Write events after the tournament's version (lock held by the caller) and fold them."""
        await self._log_call(self.log.append, running.uuid, running.state.version, events)
        for event in events:
            apply(running.state, event)
        async with running.changed:
            running.changed.notify_all()

    async def _run(self, running: _Running) -> None:
        state, created = running.state, running.created
        try:
            remote = [entrant.name for entrant in created.entrants if entrant.remote]
            async with running.changed:
                await running.changed.wait_for(lambda: all(name in state.registered for name in remote))
            specs = running.specs()
            gate = asyncio.Semaphore(created.parallel)

            async def one(spec: MatchSpec) -> None:
                async with gate:
                    await self._play(running, spec)

            await asyncio.gather(*(one(spec) for spec in specs if spec.match_no not in state.finished))
            if not state.over:
                async with running.lock:
                    await self._append(running, [TournamentFinished(len(specs))])
        except StaleTournament:
            log.warning("tournament %s: another runner wrote first; this one stops", running.uuid)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("tournament %s: the runner failed", running.uuid)
            raise
        finally:
            if state.over:
                await running.hub.close()

    def seat_tokens(self, tournament_id: str, match_no: int, players: int) -> list[str]:
        """The seat tokens of a match: derived from the server's key, never stored."""
        return [self.key.seat_token(tournament_id, match_no, seat) for seat in range(players)]

    async def _play(self, running: _Running, spec: MatchSpec) -> None:
        created = running.created
        tokens = self.seat_tokens(str(running.uuid), spec.match_no, created.players)
        scheduled = running.state.scheduled.get(spec.match_no)
        if scheduled is None:
            made = await self.games.create(created.game, created.options, created.players, seed=spec.seed,
                                           tokens=tokens, held_by=str(running.uuid))
            scheduled = MatchScheduled(spec.match_no, made.game_id)
            async with running.lock:
                await self._append(running, [scheduled])
        game_id = scheduled.game_id
        clocked = self.clocks is not None and created.clock is not None
        if clocked:
            await self.clocks.keep(game_id, tokens, created.clock)
        entrants = {entrant.name: entrant for entrant in created.entrants}
        config = get_game(created.game).make_config(created.options, created.players)
        seats: list[asyncio.Task[None]] = []
        for seat, name in enumerate(spec.seats):
            entrant, token = entrants[name], tokens[seat]
            if entrant.bot is None:
                await running.hub.post(
                    name, Assignment(str(running.uuid), spec.match_no, game_id, created.game, seat, token, spec.seats)
                )
            else:
                if clocked:
                    self.clocks.connected(game_id, seat)  # played in process: always connected
                policy = policy_for(created.game, entrant.bot, config)
                seats.append(asyncio.create_task(
                    play_seat(self.games, game_id, token, seat, policy, spec.seed, in_thread=entrant.bot != "random")
                ))
        try:
            await self._until_over(game_id)
        finally:
            for task in seats:
                task.cancel()
            for task in seats:
                with suppress(asyncio.CancelledError):
                    await task
            for name in set(spec.seats):
                if entrants[name].bot is None:
                    await running.hub.withdraw(name, spec.match_no)
        finished = await self._result(spec.match_no, game_id)
        async with running.lock:
            await self._append(running, [finished])

    async def _until_over(self, game_id: str) -> None:
        items = await self.games.watch(game_id, None)
        async with aclosing(items):
            async for item in items:
                if item.view.over:
                    return

    # -- what is shown, and when --------------------------------------------------------

    async def released(self, held_by: str, game_id: str) -> bool:
        """Whether the finished game ``game_id`` that the tournament ``held_by`` holds may show its seed,
        shuffles and hands: once every match of its deal is over, so that no deal's seed is known while
        a match that uses it is still to be played (a game that no match was recorded with, left by a
        runner that stopped in between, waits for the end of the tournament)."""
        try:
            running = await self._get(held_by)
        except ServiceError:
            return False
        if (running.task is None or running.task.done()) and not running.state.over:  # run elsewhere: read it again
            running.state = await self._log_call(self.log.load, running.uuid)
        match_no = next((n for n, scheduled in running.state.scheduled.items() if scheduled.game_id == game_id), None)
        if match_no is None:
            return running.state.over
        return running.deal_over(running.specs()[match_no].deal_no)

    async def describe(self, tournament_id: str) -> TournamentInfo:
        """The tournament as the API shows it: settings, seed commitment (the seed once it is over), and
        every match, whose game id shows once its deal is released (:meth:`released`)."""
        running = await self._get(tournament_id)
        state, created = running.state, running.created
        matches = []
        for spec in running.specs():
            scheduled, finished = state.scheduled.get(spec.match_no), state.finished.get(spec.match_no)
            status = "finished" if finished else "playing" if scheduled else "waiting"
            released = running.deal_over(spec.deal_no)
            matches.append(MatchInfo(
                spec.match_no, spec.deal_no, spec.table_no, spec.rotation, spec.seats, status,
                scheduled.game_id if scheduled is not None and released else "",
                finished.ranks if finished is not None and released else (),
            ))
        return TournamentInfo(
            str(running.uuid), created.game, created.players,
            tuple((entrant.name, entrant.bot or "") for entrant in created.entrants), created.duplicate,
            created.scheme, created.trusted, created.parallel, created.seed_commitment, state.over,
            created.seed if state.over else "", tuple(matches),
        )

    async def _result(self, match_no: int, game_id: str) -> MatchFinished:
        live = await self.games.game(game_id)  # the folded state of the game that just ended
        rules, state = live.rules, live.state
        ranks = tuple(rules.outcome(state))
        timeouts = [0] * len(ranks)
        for entry in (await self.games.log(game_id, None)).entries:
            if isinstance(entry.event, SeatTimedOut):
                timeouts[entry.event.seat] += 1
        return MatchFinished(match_no, game_id, ranks, live.sequence, getattr(state, "forfeited", None),
                             tuple(timeouts))


