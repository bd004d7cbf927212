"""What each viewer may see (D): ``view``, ``audience`` and ``redact``."""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec.structs import replace

from cardgames.engine.contract_rummy.config import CONTRACTS
from cardgames.engine.contract_rummy.events import CardsDealt, StockDrawn
from cardgames.engine.contract_rummy.melds import Meld
from cardgames.engine.contract_rummy.state import OVER, STOCK, State, Turn
from cardgames.engine.core.events import MatchSeeded, Shuffled, redact_core
from cardgames.engine.core.protocol import HIDDEN, PUBLIC, Audience, Viewer


class View(msgspec.Struct, frozen=True):
    """One viewer's picture: its own hand, and everything public (D).

    ``known`` lists per seat the cards publicly taken from the discard pile that are
    still in that hand; ``melds`` show who placed each card (``placed_by``); ``turn``
    is the seat to act's turn so far (a stock card only for the drawer);
    ``met_turn`` the turn of the deal in which each seat met its contract (0: not met,
    or before the position was set up).
    """

    viewer: int | None
    players: int
    deal: int
    dealer: int | None
    phase: str
    to_act: int | None
    contract_sets: int
    contract_runs: int
    hand: tuple[str, ...]
    hand_sizes: tuple[int, ...]
    known: tuple[tuple[str, ...], ...]
    stock_size: int
    stock_refills: int
    discard: tuple[str, ...]
    melds: tuple[Meld, ...]
    contract_met: tuple[bool, ...]
    met_turn: tuple[int, ...]
    turn_no: int
    turn: Turn | None
    scores: tuple[int, ...]
    last_deal_scores: tuple[int, ...] | None
    winners: tuple[int, ...] | None


def view(state: State, viewer: Viewer) -> View:
    turn = state.turn
    if turn is not None and turn.drew == STOCK and viewer != state.to_act:
        turn = replace(turn, taken=())
    sets, runs = CONTRACTS[state.deal - 1] if state.deal else (0, 0)
    return View(
        viewer=viewer,
        players=state.players,
        deal=state.deal,
        dealer=state.dealer,
        phase=state.phase,
        to_act=None if state.phase == OVER else state.to_act,
        contract_sets=sets,
        contract_runs=runs,
        hand=() if viewer is None else state.hands[viewer],
        hand_sizes=tuple(len(hand) for hand in state.hands),
        known=state.known,
        stock_size=len(state.stock),
        stock_refills=state.refills,
        discard=state.discard,
        melds=state.melds,
        contract_met=state.contract_met,
        met_turn=state.met_turn,
        turn_no=state.turn_no,
        turn=turn,
        scores=state.scores,
        last_deal_scores=state.last_deal_scores,
        winners=state.winners,
    )


def audience(event: Any) -> Audience:
    """Dealt cards and a stock draw go to their seat only; the chance source is hidden (D)."""
    if isinstance(event, CardsDealt | StockDrawn):
        return event.seat
    if isinstance(event, MatchSeeded | Shuffled):
        return HIDDEN
    return PUBLIC


def redact(event: Any, viewer: Viewer) -> Any:
    """The event as a viewer outside its audience sees it: no cards, counts kept."""
    if isinstance(event, CardsDealt):
        return event if viewer == event.seat else replace(event, cards=())
    if isinstance(event, StockDrawn):
        return event if viewer == event.seat else replace(event, card="")
    if isinstance(event, MatchSeeded | Shuffled):
        return redact_core(event)
    return event
