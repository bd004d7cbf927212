"""What ``decide`` asks of a state at every command: whose turn it is, the house of a value.

A module of its own so that the compiled build compiles these (``state.py`` defines
msgspec structs with default values, which mypyc does not compile) and the compiled
rules reach them without a call into interpreted code. ``to_act`` and ``is_over`` stay
in ``state.py``: callers in interpreted code (a playout, the service) reach them faster
there, where CPython reads struct fields with its specialised instructions.
"""

from __future__ import annotations

from cardgames.engine.seep.state import BID, PLAY, House, State


def actor(state: State) -> int | None:
    """The seat the game waits for: the bidder in phase bid, seat d+n+1 after n plays (A5.7)."""
    phase = state.phase
    if phase == PLAY:
        return (state.dealer + state.plays + 1) % 4
    if phase == BID:
        return (state.dealer + 1) % 4
    return None


def house_of(state: State, value: int) -> House | None:
    """The house of ``value`` on the floor, if any (F1: at most one)."""
    for house in state.houses:
        if house.value == value:
            return house
    return None
