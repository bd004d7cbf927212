"""Tournaments on the application layer: create, register, assignments, standings, and the runner.

:class:`Tournaments` is to tournaments what :class:`cardgames.service.games.Games` is to games: it
keeps each tournament's folded state in memory, writes its events to the tournament's
stream (service/tournament/log.py) and runs its schedule as an asyncio task:

* every match is a game of the application layer, created from the schedule's seed; a
  built-in entrant's seats are played in process (service/tournament/players.py), a
  remote entrant's are posted to its assignment stream (service/tournament/hub.py), by
  service/tournament/matches.py; a request is checked by service/tournament/requests.py;
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
import secrets
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import suppress
from dataclasses import dataclass, field
from functools import partial
from typing import Any, TypeVar
from uuid import UUID, uuid4

from cardgames.service.games import (
    Games,
    InvalidRequest,
    MissingToken,
    ServiceError,
    token_hash,
)
from cardgames.service.tournament.hub import Assignment, Hub
from cardgames.service.tournament.keys import TournamentKey, tournament_key
from cardgames.service.tournament.log import (
    ClockOptions,
    EntrantRegistered,
    StaleTournament,
    TournamentCreated,
    TournamentFinished,
    TournamentLog,
    TournamentNotFound,
    TournamentState,
    apply,
    fold_tournament,
)
from cardgames.service.tournament.matches import MatchPlayer
from cardgames.service.tournament.requests import (
    CreatedTournament,
    CredentialInvalid,
    CredentialRequired,
    EntrantTokenInvalid,
    FieldTooSmall,
    InvalidTournament,
    KeyMismatch,
    TournamentInfo,
    TournamentNotFoundError,
    UnknownEntrant,
    check_bot,
    parse_entrants,
    tournament_created,
    tournament_info,
)
from cardgames.service.tournament.schedule import MatchSpec
from cardgames.service.tournament.standings import Standings, standings, tournament_schedule

#: The request's checks and structs live in service/tournament/requests.py; these are its names
#: that callers of the manager use.
__all__ = [
    "CreatedTournament",
    "FieldTooSmall",
    "InvalidTournament",
    "KeyMismatch",
    "TournamentInfo",
    "TournamentNotFoundError",
    "Tournaments",
    "UnknownEntrant",
    "check_bot",
    "parse_entrants",
]

T = TypeVar("T")
log = logging.getLogger(__name__)
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
        self.matches = MatchPlayer(games, clocks)
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
        created, credentials = tournament_created(
            game, entrants, players=players, options=options, matches=matches, duplicate=duplicate, seed=seed,
            clock=clock, parallel=parallel, trusted=trusted, key_id=self.key.key_id,
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
        tokens = self.seat_tokens(str(running.uuid), spec.match_no, running.created.players)

        async def record(event: Any) -> None:
            async with running.lock:
                await self._append(running, [event])

        scheduled = running.state.scheduled.get(spec.match_no)
        finished = await self.matches.play(str(running.uuid), running.created, spec, tokens, running.hub, scheduled,
                                           record)
        await record(finished)

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
        return tournament_info(str(running.uuid), running.state, running.specs(), running.deal_over)
