"""What ``decide``'s shortcut for listed commands buys: random playouts with it and without it.

Seep and Contract Rummy apply a command the last ``legal_commands`` call listed for the very
same state object without checking it again (``cardgames.engine.core.listing.LastListing``).
Each sample plays the table's random playouts (:class:`bench.playout.Player`, whole matches)
for half its budget as they are, and for the other half with the game's last listing
forgotten right after every ``legal_commands`` call, so that every ``decide`` runs all its
checks. Both halves go through the same wrapper around the game (the one difference is the
call that forgets, about 0.1 us a step); the halves alternate in order from one sample to
the next. The row is the playout's actions per second with the shortcut against without it:
the shortcut stays while that gain is over 5% (docs/benchmarks.md).
"""

from __future__ import annotations

import importlib
from typing import Any

from bench.harness import Context, Probe, Unavailable, timed_loop
from bench.playout import SPECS, Player
from cardgames.engine.core.listing import LastListing


class _Forgetting:
    """The game, with its last listing forgotten after each ``legal_commands`` call when ``forget`` is set."""

    def __init__(self, game: Any, last: LastListing) -> None:
        self._game = game
        self._last = last
        self._legal = game.legal_commands
        self.forget = False

    def __getattr__(self, name: str) -> Any:
        return getattr(self._game, name)

    def legal_commands(self, state: Any, seat: int) -> Any:
        commands = self._legal(state, seat)
        if self.forget:
            self._last.remember(None, -1, [])
        return commands


class ShortcutProbe(Probe):
    def __init__(self, game_name: str) -> None:
        self.game_name = game_name
        self.name = f"{game_name}.shortcut"
        self._samples = 0

    def setup(self, ctx: Context) -> None:
        try:
            module = importlib.import_module(f"cardgames.engine.{self.game_name}.legal")
        except ImportError as error:
            raise Unavailable(f"cardgames.engine.{self.game_name}.legal does not import ({error})") from error
        last = getattr(module, "LAST_LISTING", None)
        if not isinstance(last, LastListing):
            raise Unavailable(f"{self.game_name}'s decide has no shortcut for listed commands")
        self.player = Player(SPECS[self.game_name], ctx.settings.seed)
        self.wrapped = _Forgetting(self.player.game, last)
        self.player.game = self.wrapped
        self.player.play()  # warm up, and check the wrapper plays
        self.wrapped.forget = True
        self.player.play()

    def sample(self, ctx: Context) -> dict[str, float]:
        figures: dict[str, float] = {}
        order = (False, True) if self._samples % 2 == 0 else (True, False)
        self._samples += 1
        for forget in order:
            self.wrapped.forget = forget
            elapsed, matches = timed_loop(ctx.settings.budget / 2, self.player.play)
            key = "off_actions_per_s" if forget else "on_actions_per_s"
            figures[key] = sum(match.actions for match in matches) / elapsed
        return figures
