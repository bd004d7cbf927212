"""Games whose every command Hypothesis draws, so that a failing check shrinks to a short game.

A property that draws one integer seed for ``random.Random`` cannot shrink: its failure is a
whole random game. Here each command is drawn as an index into the listing of the seat to act,
shown as the command itself; a failure prints the game move by move (``Draw 7 (seat 2):
Throw(card='5H')``), shrunk towards fewer moves and the first listed commands.

At every position between commands the checks that hold in every game run: every command
listed for the seat to act is accepted by ``decide`` on a copy of the state the listing never
saw (tests/soundness.py), and no view, a seat's or a spectator's, shows a card hidden from it.
Each game adds its own checks after every event (cards conserved, scores that add up).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from cardgames.engine.core.protocol import Rejection
from tests.bots.games import HIDDEN
from tests.soundness import assert_listed_accepted

#: A game's own check of one event: (state before, event, state after).
EventCheck = Callable[[Any, Any, Any], object]


@dataclass
class DrawnGame:
    """The commands a drawn game sent, as (seat, command), in order (the last run's: the shrunk game)."""

    moves: list[tuple[int, Any]] = field(default_factory=list)


def draw_command(data: st.DataObject, listed: Sequence[Any], seat: int) -> Any:
    """One of ``listed`` (a list or a lazy listing), drawn by its index and shown as the command."""
    return data.draw(st.integers(0, len(listed) - 1).map(listed.__getitem__), label=f"seat {seat}")


def assert_views_hide(name: str, rules: Any, state: Any, seats: int) -> None:
    """No seat's view, nor the spectator's, shows a card hidden from it (tests/bots/games.py's
    HIDDEN). Where codes repeat (two packs) a shown code may be a copy the viewer sees: there
    the view must instead stay the same when the hidden cards are dealt again."""
    hidden_of, reshuffle, view_cards = HIDDEN[name]
    single = all(count == 1 for count in Counter(getattr(state, "deck", ()) or ()).values())
    for viewer in [*range(seats), None]:
        view = rules.view(state, viewer)
        if single:
            leaked = view_cards(view) & hidden_of(state, viewer)
            assert not leaked, f"the view of {viewer} shows hidden cards {sorted(leaked)}"
        else:
            redealt = reshuffle(state, viewer, random.Random(len(state.stock)))
            assert rules.view(redealt, viewer) == view, f"the view of {viewer} changes with hidden cards"


def play_drawn(
    data: st.DataObject, name: str, rules: Any, state: Any, seats: int, most: int, check: EventCheck,
    record: DrawnGame | None = None, position: Callable[[Any], None] | None = None,
    among: Callable[[Sequence[Any]], Sequence[Any]] | None = None,
) -> Any:
    """Up to ``most`` drawn commands from ``state`` (fewer if the match ends), every position
    (``position``: the game's own check of one) and every event checked; the last state. ``among``
    gives the listed commands the mover's command is drawn from (a greedy player's, say; all of
    them by default): each of them is still checked.

    Every seat's listing is checked; the mover is the seat to act, or (drawn) another seat that has
    commands too (an All Fours call of an exposed card)."""
    record = record if record is not None else DrawnGame()
    for _ in range(most):
        if rules.is_over(state):
            break
        assert_views_hide(name, rules, state, seats)
        if position is not None:
            position(state)
        first = rules.to_act(state)[0]
        listings = {seat: assert_listed_accepted(rules, state, seat) for seat in range(seats)}
        assert listings[first], f"seat {first} is to act and has no legal command"
        movers = [first, *(seat for seat in range(seats) if seat != first and listings[seat])]
        seat = movers[0] if len(movers) == 1 else data.draw(st.sampled_from(movers), label="mover")
        listed = listings[seat] if among is None else among(listings[seat])
        command = draw_command(data, listed, seat)
        record.moves.append((seat, command))
        outcome = rules.decide(state, seat, command)
        assert not isinstance(outcome, Rejection), f"listed {command!r} rejected: {outcome}"
        for event in outcome:
            after = rules.evolve(state, event)
            check(state, event, after)
            state = after
    return state
