"""``legal_commands``: every command a seat may choose now (out-of-turn exposures left out).

The house flags of A7 are stated once here and used by ``decide`` too.
"""

from __future__ import annotations

from typing import Any

from cardgames.engine.all_fours.cards import side_of
from cardgames.engine.all_fours.commands import BEG, GIVE_ONE, PLAYS, RUN_PACK, STAND, Call
from cardgames.engine.all_fours.state import BEG as BEG_PHASE
from cardgames.engine.all_fours.state import DEALER_CHOICE, PLAY, State
from cardgames.engine.all_fours.tricks import legal_cards


def _holds_turn_up_suit(state: State, seat: int) -> bool:
    turn_up = state.turn_up
    assert turn_up is not None
    suit = turn_up[-1]
    return any(card[-1] == suit for card in state.hands[seat])


def stand_forbidden(state: State, seat: int) -> str | None:
    """Why the eldest may not stand (A7 house flag), or None."""
    if state.config.stand_requires_trump and not _holds_turn_up_suit(state, seat):
        return "stand_requires_trump: the eldest holds no card of the turn-up suit"
    return None


def give_one_forbidden(state: State, seat: int) -> str | None:
    """Why the dealer may not give one (A7 house flags), or None."""
    config = state.config
    if config.give_one_requires_trump and not _holds_turn_up_suit(state, seat):
        return "give_one_requires_trump: the dealer holds no card of the turn-up suit"
    beggars = side_of(seat + 1)
    if config.no_give_one_for_match and state.scores[beggars] + config.give_one_points >= config.target_score:
        return "no_give_one_for_match: the point would win the match; the dealer must run the pack"
    return None


def legal_commands(state: State, seat: int) -> list[Any]:
    """Stand/beg, give one/run the pack, the legal plays of the seat to act, and valid calls."""
    phase = state.phase
    turn = state.turn
    if phase == PLAY:
        assert turn is not None
        if seat == turn:
            return [PLAYS[card] for card in legal_cards(state.hands[turn], state.trick, state.trump, state.config)]
        exposed = state.exposed[turn]
        if not exposed or (state.config.callers == "opponents" and side_of(seat) == side_of(turn)):
            return []
        legal = legal_cards(state.hands[turn], state.trick, state.trump, state.config)
        return [Call(owner=turn, card=card) for card in exposed if card in legal]
    if seat != turn:
        return []
    if phase == BEG_PHASE:
        return [BEG] if stand_forbidden(state, seat) else [STAND, BEG]
    if phase == DEALER_CHOICE:
        return [RUN_PACK] if give_one_forbidden(state, seat) else [GIVE_ONE, RUN_PACK]
    return []
