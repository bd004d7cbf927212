"""The long log: one game stream with many events, for the store replay and its anchor.

One All Fours match played to a high target score (many ordinary matches' worth of
hands in one stream, still a valid log that folds to a finished match); while All
Fours is not there, a Contract Rummy game or a long Seep match. Built once per run
by random legal play through the registry, and shared by the eventsourcing anchor
(same length) and the store replay.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bench.harness import Context, Unavailable
from bench.playout import SPECS, Player

#: The log length the eventsourcing anchor uses when no game can build our long log.
FALLBACK_LENGTH = 5000

#: (game, options) tried in order; the first available game builds the long log.
CANDIDATES: tuple[tuple[str, dict[str, Any]], ...] = (
    ("all_fours", {"target_score": 200}),
    ("contract_rummy", {}),
    ("seep", {"baazis_to_play": 5}),
)


@dataclass(frozen=True)
class LongLog:
    game_name: str
    options: dict[str, Any]
    config: Any
    events: list[Any]
    final_state: Any
    start_events: int  #: events written when the game is created
    seed: str  #: the match's seed
    commands: list[tuple[int, Any, int]]  #: (seat, command, events it caused), in order

    def describe(self) -> str:
        options = ", ".join(f"{key}={value}" for key, value in self.options.items())
        return f"one {self.game_name} match ({options or 'default options'}): {len(self.events)} events"


def build_long_log(seed: int, full: bool = True) -> LongLog:
    """The long log; with ``full`` False (smoke runs) an ordinary match of the same game."""
    missing = []
    for name, options in CANDIDATES:
        options = options if full else {}
        try:
            player = Player(SPECS[name], seed, options)
        except Unavailable as why:
            missing.append(str(why))
            continue
        commands: list[tuple[int, Any, int]] = []
        match = player.play(commands=commands)
        return LongLog(name, options, player.config, match.events, match.state, match.start_events, match.seed,
                       commands)
    raise Unavailable("no game can build the long log: " + "; ".join(missing))


def long_log(ctx: Context) -> LongLog:
    return ctx.cached("long_log", lambda: build_long_log(ctx.settings.seed, ctx.settings.heavy))
