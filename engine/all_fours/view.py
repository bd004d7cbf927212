"""What each viewer may see (D): ``view``, ``audience`` and ``redact``."""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec.structs import replace

from cardgames.engine.all_fours.events import CardsDealt, CardsDelivered
from cardgames.engine.all_fours.state import OVER, LastHand, Played, State
from cardgames.engine.core.events import MatchSeeded, Shuffled, redact_core
from cardgames.engine.core.protocol import HIDDEN, PUBLIC, Audience, Viewer


class View(msgspec.Struct, frozen=True):
    """One viewer's picture of the match: its own hand only, the public facts, the scores.

    ``hand_hidden`` is true while a seat's cards are held back before trump is fixed
    (``beg_phase_hand_visibility = dealer_and_eldest_only``); ``hand`` is then empty.
    """

    viewer: int | None
    players: int
    target_score: int
    phase: str
    dealer: int | None
    eldest: int | None
    to_act: int | None
    hand: tuple[str, ...]
    hand_hidden: bool
    hand_sizes: tuple[int, ...]
    stock_size: int
    hand_size: int
    turn_up: str | None
    trump: str | None
    set_aside: tuple[str, ...]
    trick: tuple[Played, ...]
    trick_no: int
    tricks_won: tuple[tuple[str, ...], ...]
    exposed: tuple[tuple[str, ...], ...]
    scores: tuple[int, ...]
    hand_no: int
    redeal_no: int
    last_hand: LastHand | None
    winner: int | None


def hand_hidden(state: State, seat: int) -> bool:
    """True while ``seat`` may not see its own cards (D, option dealer_and_eldest_only)."""
    return (
        state.config.beg_phase_hand_visibility == "dealer_and_eldest_only"
        and state.trump is None
        and state.phase != OVER
        and seat != state.dealer
        and seat != state.eldest
    )


def view(state: State, viewer: Viewer) -> View:
    hidden = viewer is not None and hand_hidden(state, viewer)
    hand: tuple[str, ...] = () if viewer is None or hidden else state.hands[viewer]
    return View(
        viewer=viewer,
        players=state.players,
        target_score=state.config.target_score,
        phase=state.phase,
        dealer=state.dealer,
        eldest=state.eldest,
        to_act=None if state.phase == OVER else state.turn,
        hand=hand,
        hand_hidden=hidden,
        hand_sizes=tuple(len(cards) for cards in state.hands),
        stock_size=len(state.stock),
        hand_size=state.hand_size,
        turn_up=state.turn_up,
        trump=state.trump,
        set_aside=state.set_aside,
        trick=state.trick,
        trick_no=state.trick_no,
        tricks_won=state.tricks_won,
        exposed=state.exposed,
        scores=state.scores,
        hand_no=state.hand_no,
        redeal_no=state.redeal_no,
        last_hand=state.last_hand,
        winner=state.winner,
    )


def audience(event: Any) -> Audience:
    """Dealt cards go to their seat (or to nobody while held back, D); chance is hidden."""
    kind = type(event)
    if kind is CardsDealt:
        return HIDDEN if event.held_back else event.seat
    if kind is CardsDelivered:
        return event.seat
    if kind is MatchSeeded or kind is Shuffled:
        return HIDDEN
    return PUBLIC


def redact(event: Any, viewer: Viewer) -> Any:
    """The form of ``event`` for a viewer outside its audience: counts, never cards."""
    kind = type(event)
    if kind is CardsDealt or kind is CardsDelivered:
        return replace(event, cards=())
    if kind is MatchSeeded or kind is Shuffled:
        return redact_core(event)
    return event
