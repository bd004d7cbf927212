"""Disclosure: whether a game shows what a finished match shows (its seed, shuffles, hands, commands).

A match shows everything once it is over, unless it was created ``held_by`` someone (a tournament:
its matches of one deal share a seed) who has not released it yet: :attr:`Disclosure.releases` is
asked, and a released game stays released.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from cardgames.service.games.live import LiveGame


class Disclosure:
    """Answers "may this game show everything now?" for every part that shows events."""

    def __init__(self) -> None:
        #: Asked with (``held_by``, game id) whether a finished game that its holder withholds may show
        #: what a finished match shows; None: never. (service/tournament/manager.py sets it.)
        self.releases: Callable[[str, str], Awaitable[bool]] | None = None

    async def disclosed(self, live: LiveGame, over: bool) -> bool:
        """Whether the game shows what a finished match shows: over, and not withheld by its holder."""
        if not over or live.released or not live.header.held_by:
            return over
        if self.releases is not None and await self.releases(live.header.held_by, str(live.game_id)):
            live.released = True
        return live.released
