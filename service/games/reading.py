"""Reading a game: a viewer's view (now or at an earlier sequence) and the log as the viewer may see it.

Once the match is over (and released, service/games/disclosure.py) a log shows every event, every
seat's command and the reveal (the seeds); before, each viewer sees what the rules show it.
"""

from __future__ import annotations

from cardgames.service.audit.logfile import reveal
from cardgames.service.errors import InvalidRequest
from cardgames.service.games.auth import seat_of
from cardgames.service.games.cache import LiveGames
from cardgames.service.games.disclosure import Disclosure
from cardgames.service.games.executor import StoreExecutor
from cardgames.service.games.results import LogResult, ViewResult, entries_for, split_notes


class Reading:
    """Views and logs of the games of a process."""

    def __init__(self, games: LiveGames, executor: StoreExecutor, disclosure: Disclosure) -> None:
        self.games = games
        self.executor = executor
        self.disclosure = disclosure

    async def view(self, game_id: str, token: str | None, sequence: int | None = None) -> ViewResult:
        """The caller's view at the latest sequence, or at ``sequence`` (the log's prefix folded)."""
        live = await self.games.fresh(game_id)
        viewer = seat_of(live, token)
        current, state = live.sequence, live.state
        if sequence is None or sequence == current:
            return live.view(state, current, viewer)
        if not 1 <= sequence <= current:
            raise InvalidRequest(f"sequence {sequence} is not in 1..{current}", reason="INVALID_SEQUENCE")
        earlier, head = await self.games.state_at(live, sequence)
        return live.view(earlier, sequence, viewer, head)

    async def log(self, game_id: str, token: str | None, after: int = 0, limit: int = 0) -> LogResult:
        """The events after ``after`` as the caller may see them (all of them once the match is over)."""
        live = await self.games.fresh(game_id, started=False)
        viewer = seat_of(live, token)
        if after < 0 or limit < 0:
            raise InvalidRequest("after_sequence and limit are not negative", reason="INVALID_SEQUENCE")
        if not live.started:
            return LogResult(live.header.game, 0, [], live.log_header())
        current, over = live.sequence, await self.disclosure.disclosed(live, live.rules.is_over(live.state))
        upto = current if limit == 0 else min(current, after + limit)
        store = self.executor.store
        pairs = await self.executor.read(store.log, live.game_id, live.rules, after, upto) if after < upto else []
        events, notes = split_notes(pairs)
        revealed = reveal(live.header.seed, live.entropies) if over and live.header.seed else None
        return LogResult(live.header.game, current, entries_for(live.rules, after + 1, events, viewer, over, notes),
                         live.log_header(), revealed, live.head.hex())
