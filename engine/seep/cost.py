"""``costly``: whether a position's listing may take more than a few milliseconds (a cheap test).

A service keeps the work of ordinary positions in its own process and hands the rest to
worker processes (service/workers.py); this tells the two apart without listing anything.

Under the default rules at most 16 cards lie loose at once (docs/seep_legal_commands.md,
"Which floors play can produce"), and listing the slowest such floor and picking one of its
72,529 commands takes about a millisecond in the compiled build. Only the option to throw a
card that could capture (B-7) lets the floor grow past that: the number of groupings then
grows exponentially with the loose cards (10^17 on a floor of 46), and so does the count
(up to about a second on a 50-card floor, compiled; about ten times that in a pure install).
A floor of more loose cards than the default rules ever leave is costly; any other is not.
"""

from __future__ import annotations

from typing import Final

from cardgames.engine.seep.state import PLAY, State

#: The most loose cards the default rules ever leave on the floor.
MOST_LOOSE_BY_DEFAULT: Final = 16


def costly(state: State, seat: int) -> bool:
    """Whether listing ``seat``'s commands may take more than a few milliseconds: the seat is to
    play on a floor of more than :data:`MOST_LOOSE_BY_DEFAULT` loose cards (any other seat's
    listing is empty)."""
    return (state.phase == PLAY and len(state.loose) > MOST_LOOSE_BY_DEFAULT
            and seat == (state.dealer + state.plays + 1) % 4)
