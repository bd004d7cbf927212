"""Paging: a seat's legal commands, a page at a time, and a built-in bot's decision among them.

Only a page is ever made: a Seep floor under the option to throw a card that could capture can
have more than 10^17 groupings, which no list could hold. Expensive engine work (a listing the
game calls costly, a page of more than ``LOOP_COMMANDS`` commands, a built-in bot's search or its
decision among that many) runs in the worker processes of :mod:`cardgames.service.workers`, with a
deadline; ordinary positions are served on the event loop. The latest listings are kept, so that a
bot that asks for a page and then for a command by its index is answered from one count.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any
from uuid import UUID

from cardgames.engine.core.protocol import GameRules
from cardgames.engine.core.seat_events import SeatRules
from cardgames.service.errors import InvalidRequest, WorkDeadline, WorkerFailed, WorkersBusy
from cardgames.service.games.auth import seat_required
from cardgames.service.games.cache import LiveGames
from cardgames.service.games.live import LiveGame
from cardgames.service.games.results import LegalCommands, LegalListing
from cardgames.service.worker_process import page_of
from cardgames.service.workers import Busy, Failed, TimedOut, Workers

log = logging.getLogger(__name__)

#: The commands of a page of legal commands when the caller names no size (ListLegalCommands,
#: a bot's decision), and the most a caller may ask for: a page of 10,000 Seep builds is about
#: 0.6 MB on the wire, a quarter of a second of the server's time.
DEFAULT_PAGE_SIZE = 1_000
MAX_PAGE_SIZE = 10_000
#: The most time a page's commands may take to make (in a worker): a page stops short after it,
#: with one command at least. A lazy listing makes a command by walking its counts, a few
#: microseconds on any floor of the default rules, but tens of milliseconds at an index deep into
#: a Seep floor of 10^16 groupings (the option to throw a card that could capture).
PAGE_SECONDS = 0.2
#: The most commands a page or a built-in bot's decision takes on the event loop; more go to a worker.
#: Putting a command on the wire costs 10-40 us (a page of 1,000 Seep builds: 36 ms of the loop's
#: time), a heuristic decision among hundreds of commands milliseconds: ordinary positions list far
#: fewer (a random Seep, All Fours or Contract Rummy match: 32 or fewer at all but a few).
LOOP_COMMANDS = 64
#: Listings kept for the pages that follow (a state's listing never changes; a crowded Seep floor's
#: count can take a second under B-7, and its memo some megabytes).
LISTINGS_KEPT = 16


class Paging:
    """Legal commands and bot decisions of the games of a process (see the module's docstring)."""

    def __init__(self, games: LiveGames, pool: Workers) -> None:
        self.games = games
        self.pool = pool
        #: The latest listings, by (game, sequence, seat) (LISTINGS_KEPT at most).
        self._listings: OrderedDict[tuple[UUID, int, int], Sequence[Any]] = OrderedDict()

    async def legal_listing(self, game_id: str, token: str | None) -> LegalListing:
        """The caller's seat's legal commands, all of them, as the game lists them (lazily), in this
        process: for players and tools that run here. (A costly position's count then runs on the
        event loop: the service's own calls go through :meth:`legal_commands` and :meth:`choose`.)"""
        live = await self.games.fresh(game_id)
        seat = seat_required(live, token)
        return LegalListing(live.header.game, live.sequence, seat, self._listing(live, seat))

    def _listing(self, live: LiveGame, seat: int) -> Sequence[Any]:
        """The seat's listing at the live game's sequence, kept for the calls that follow."""
        key = (live.game_id, live.sequence, seat)
        listing = self._listings.get(key)
        if listing is None:
            listing = self._listings[key] = live.rules.legal_commands(live.state, seat)
            if len(self._listings) > LISTINGS_KEPT:
                self._listings.popitem(last=False)
        else:
            self._listings.move_to_end(key)
        return listing

    async def legal_commands(
        self, game_id: str, token: str | None, offset: int = 0, page_size: int = 0, *, wire: int = 0
    ) -> LegalCommands:
        """A page of the caller's seat's legal commands: ``page_size`` (0: the default) from ``offset``.

        Only the page is made: a Seep floor under the option to throw a card that could capture
        can have more than 10^17 groupings, which no list (and no message) could hold. A page
        whose commands take more than ``PAGE_SECONDS`` to make ends there (a short page: ask
        again from ``offset + size``). A position the game calls costly is listed in a worker
        process, and so is a page of more than ``LOOP_COMMANDS`` commands (``wire``: encoded there for
        the field of that number, see :class:`LegalCommands`).
        """
        if offset < 0:
            raise InvalidRequest(f"offset is a command's index (0 or more), not {offset}", reason="INVALID_PAGE")
        if not 0 <= page_size <= MAX_PAGE_SIZE:
            raise InvalidRequest(
                f"page_size is 1..{MAX_PAGE_SIZE:,} (0 for {DEFAULT_PAGE_SIZE:,}), not {page_size}",
                reason="INVALID_PAGE",
            )
        live = await self.games.fresh(game_id)
        seat = seat_required(live, token)
        game, sequence, size = live.header.game, live.sequence, page_size or DEFAULT_PAGE_SIZE
        if not costly(live.rules, live.state, seat):
            commands = self._listing(live, seat)
            total = len(commands)
            end = min(total, offset + size)
            if end - offset <= LOOP_COMMANDS:
                return LegalCommands(game, sequence, seat, page_of(commands, offset, end, PAGE_SECONDS), total, offset)
        total, page = await self._work("page", live, seat, offset, size, PAGE_SECONDS, wire)
        if wire:
            count, encoded = page
            return LegalCommands(game, sequence, seat, [], total, offset, encoded, count)
        return LegalCommands(game, sequence, seat, page, total, offset)

    async def choose(
        self, game_id: str, token: str | None, sequence: int, policy: Any, view: Any, rng: Any,
        *, searches: bool = False, in_thread: bool = False, fallback: Any = None,
    ) -> Any:
        """A built-in bot's decision for the token's seat at ``sequence``: ``policy.choose(view,
        legal commands, rng)``, or None when the game has moved past ``sequence`` (or the seat has no
        command). Decided in a worker process when the policy ``searches`` (its decision is many
        playouts anywhere), when the game calls the position costly, or among more than
        ``LOOP_COMMANDS`` commands; here otherwise (in a thread with ``in_thread``).
        A decision past the workers' deadline is WorkDeadline (WorkersBusy when no worker was free
        in time), or with a ``fallback`` policy (a random one: a count and one pick) decided again by
        it (logged).
        """
        try:
            return await self._choose(game_id, token, sequence, policy, view, rng, searches, in_thread)
        except (WorkDeadline, WorkersBusy) as error:
            if fallback is None:
                raise
            log.warning("game %s at %d: %s; %s decides instead", game_id, sequence, error, type(fallback).__name__)
            return await self._choose(game_id, token, sequence, fallback, view, rng, False, in_thread)

    async def _choose(
        self, game_id: str, token: str | None, sequence: int, policy: Any, view: Any, rng: Any, searches: bool,
        in_thread: bool,
    ) -> Any:
        live = await self.games.fresh(game_id)
        seat = seat_required(live, token)
        if live.sequence != sequence:
            return None
        if not searches and not costly(live.rules, live.state, seat):
            commands = self._listing(live, seat)
            if not commands:
                return None
            if len(commands) <= LOOP_COMMANDS:
                if in_thread:
                    return await asyncio.to_thread(policy.choose, view, commands, rng)
                return policy.choose(view, commands, rng)
        return await self._work("choose", live, seat, view, policy, rng)

    async def _work(self, kind: str, live: LiveGame, seat: int, *args: Any) -> Any:
        """The worker task ``kind`` (service/workers.py's TASKS) on the seat's position (a ServiceError if it fails)."""
        # the worker runs the game's own rules on the game's own state (the seat-event wrapper's
        # class is made at run time: it does not pickle)
        state = live.state.game if isinstance(live.rules, SeatRules) else live.state
        key = (str(live.game_id), live.sequence, seat)
        try:
            return await self.pool.run(kind, live.header.game, key, state, seat, *args, owner=live.game_id, key=key)
        except TimedOut as error:
            what = "a bot's decision" if kind == "choose" else "the legal commands"
            raise WorkDeadline(f"{what} took longer than the server allows ({self.pool.deadline:g} s)",
                               deadline_ms=str(round(self.pool.deadline * 1000)), work=kind) from error
        except Busy as error:
            raise WorkersBusy(f"{error}: retry later", work=kind) from error
        except Failed as error:
            raise WorkerFailed(f"the engine workers could not do it: {error}", work=kind) from error


def costly(rules: GameRules, state: Any, seat: int) -> bool:
    """Whether listing ``seat``'s commands may take more than a few milliseconds: the game's own cheap
    test (``costly(state, seat)``: Seep's floors past 16 loose cards); a game without one has none."""
    if isinstance(rules, SeatRules):
        if state.forfeited is not None:
            return False  # nothing to list
        rules, state = rules.rules, state.game
    test = getattr(rules, "costly", None)
    return test is not None and bool(test(state, seat))
