"""What each viewer may see (D): views, event audiences and redactions."""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec.structs import replace

from cardgames.engine.core.events import MatchSeeded, Shuffled, redact_core
from cardgames.engine.core.protocol import HIDDEN, PUBLIC, Audience, Viewer
from cardgames.engine.seep.events import CardsDealt, FloorDealt
from cardgames.engine.seep.state import BID, OVER, House, LastDeal, State
from cardgames.engine.seep.turn import actor


class View(msgspec.Struct, frozen=True):
    """A viewer's picture of the table (D: "Views per seat").

    ``hand`` is the viewer's own hand (empty for a spectator); the others are
    ``hand_sizes``. In phase ``bid`` the floor is ``face_down`` cards, not shown.
    ``last_capture`` holds the cards of the last capture while the inspection window
    is open; ``piles`` the piles' contents only when the rules allow it (window
    ``always``, or the match is over); ``pile_sizes`` always.
    """

    viewer: int | None
    phase: str
    dealer: int
    bidder: int
    to_act: int | None
    bid: int | None
    plays: int
    redeals: int
    hand: tuple[str, ...]
    hand_sizes: tuple[int, ...]
    stock_size: int
    face_down: int
    loose: tuple[str, ...]
    houses: tuple[House, ...]
    pile_sizes: tuple[int, int]
    piles: tuple[tuple[str, ...], tuple[str, ...]]
    last_capture: tuple[str, ...]
    last_capture_team: int | None
    sweeps: tuple[int, int]
    last_deal_points: tuple[int, int] | None
    last_deal: LastDeal | None
    difference: int
    baazis: tuple[int, int]


def view(state: State, viewer: Viewer) -> View:
    window = state.config.capture_inspect_window
    face_down = state.phase == BID
    piles_open = window == "always" or state.phase == OVER
    return View(
        viewer=viewer,
        phase=state.phase,
        dealer=state.dealer,
        bidder=(state.dealer + 1) % 4,
        to_act=actor(state),
        bid=state.bid,
        plays=state.plays,
        redeals=state.redeals,
        hand=state.hands[viewer] if viewer is not None and 0 <= viewer < 4 else (),
        hand_sizes=tuple(len(hand) for hand in state.hands),
        stock_size=len(state.stock),
        face_down=len(state.loose) if face_down else 0,
        loose=() if face_down else state.loose,
        houses=state.houses,
        pile_sizes=(len(state.piles[0]), len(state.piles[1])),
        piles=state.piles if piles_open else ((), ()),
        last_capture=state.window if window != "never" else (),
        last_capture_team=state.last_capture_team,
        sweeps=state.sweeps,
        last_deal_points=state.last_deal_points,
        last_deal=state.last_deal,
        difference=state.difference,
        baazis=state.baazis,
    )


def audience(event: Any) -> Audience:
    """Cards dealt to a seat: that seat; the face-down floor and the chance events: nobody; else everyone."""
    if isinstance(event, CardsDealt):
        return event.seat
    if isinstance(event, FloorDealt | MatchSeeded | Shuffled):
        return HIDDEN
    return PUBLIC


def redact(event: Any, viewer: Viewer) -> Any:
    """The event as a viewer outside its audience sees it: the same event with the cards emptied."""
    if isinstance(event, CardsDealt | FloorDealt):
        if isinstance(event, CardsDealt) and viewer == event.seat:
            return event
        return replace(event, cards=())
    if isinstance(event, MatchSeeded | Shuffled):
        return redact_core(event)
    return event
