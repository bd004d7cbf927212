"""One match of a tournament played: its game created held by the tournament (or resumed), its built-in
entrants' seats played in process and its remote entrants' posted to their assignment streams
(service/tournament/hub.py), its clock kept, and its result once the game is over.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from contextlib import aclosing, suppress
from typing import Any

from cardgames.engine.core.events import SeatTimedOut
from cardgames.engine.core.registry import get_game
from cardgames.service.games import Games
from cardgames.service.tournament.hub import Assignment, Hub
from cardgames.service.tournament.log import MatchFinished, MatchScheduled, TournamentCreated
from cardgames.service.tournament.players import play_seat, policy_for
from cardgames.service.tournament.schedule import MatchSpec


class MatchPlayer:
    """Plays tournaments' matches on the games of the process (with their clocks, when it keeps them)."""

    def __init__(self, games: Games, clocks: Any = None) -> None:
        self.games = games
        self.clocks = clocks

    async def play(
        self, tournament_id: str, created: TournamentCreated, spec: MatchSpec, tokens: Sequence[str], hub: Hub,
        scheduled: MatchScheduled | None, record: Callable[[Any], Awaitable[None]],
    ) -> MatchFinished:
        """Play the match ``spec`` of the tournament to its end (its game resumed when ``scheduled``);
        ``record`` writes the tournament's ``match_scheduled`` event. Returns its ``match_finished``."""
        if scheduled is None:
            made = await self.games.create(created.game, created.options, created.players, seed=spec.seed,
                                           tokens=list(tokens), held_by=tournament_id)
            scheduled = MatchScheduled(spec.match_no, made.game_id)
            await record(scheduled)
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
                await hub.post(
                    name, Assignment(tournament_id, spec.match_no, game_id, created.game, seat, token, spec.seats)
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
                    await hub.withdraw(name, spec.match_no)
        return await self._result(spec.match_no, game_id)

    async def _until_over(self, game_id: str) -> None:
        items = await self.games.watch(game_id, None)
        async with aclosing(items):
            async for item in items:
                if item.view.over:
                    return

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


