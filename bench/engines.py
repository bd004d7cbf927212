"""Engine figures per game: random full matches per second and actions per second.

Generic: the game comes from ``cardgames.engine.core.registry.get_game`` and is played by
:class:`bench.playout.Player` (legal commands enumerated at every step, a seeded
random choice, decide + evolve via ``cardgames.engine.core.replay``). A sample plays whole
matches until the time budget is spent; an action is one command applied.
"""

from __future__ import annotations

from typing import Any

from bench.harness import Context, Probe, timed_loop
from bench.playout import MATCH_UNITS, SPECS, Match, Player


class PlayoutProbe(Probe):
    def __init__(self, game_name: str) -> None:
        self.spec = SPECS[game_name]
        self.name = f"{game_name}.playout"
        self.anchors = (self.spec.anchor,)
        self._matches = 0
        self._actions = 0
        self._events = 0
        self._units = 0

    def setup(self, ctx: Context) -> None:
        self.player = Player(self.spec, ctx.settings.seed)
        self.player.play()  # warm up (imports, caches) and fail early on a broken game

    def sample(self, ctx: Context) -> dict[str, float]:
        elapsed, matches = timed_loop(ctx.settings.budget, self.player.play)
        actions = sum(match.actions for match in matches)
        units = sum(self.player.units(match) for match in matches)
        self._tally(matches, units)
        return {
            "actions_per_s": actions / elapsed,
            "matches_per_s": len(matches) / elapsed,
            "units_per_s": units / elapsed,
        }

    def _tally(self, matches: list[Match], units: int) -> None:
        self._matches += len(matches)
        self._actions += sum(match.actions for match in matches)
        self._events += sum(len(match.events) for match in matches)
        self._units += units

    def info(self) -> dict[str, Any]:
        matches = max(1, self._matches)
        facts: dict[str, Any] = {
            "matches_played": self._matches,
            "actions_per_match": round(self._actions / matches, 1),
            "events_per_match": round(self._events / matches, 1),
        }
        if self.spec.unit not in MATCH_UNITS:
            facts[f"{self.spec.unit}_per_match"] = round(self._units / matches, 2)
        return facts
