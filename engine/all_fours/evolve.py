"""``evolve``: apply one event to the state (the reducer; it never decides anything)."""

from __future__ import annotations

from collections.abc import Callable
from itertools import filterfalse
from typing import Any

from msgspec.structs import replace

from cardgames.engine.all_fours.cards import side_of
from cardgames.engine.all_fours.events import (
    Begged,
    CardExposed,
    CardPlayed,
    CardsDealt,
    CardsDelivered,
    CardTurnedUp,
    DealerChosen,
    ExposedCardCalled,
    GaveOne,
    HandScored,
    HandStarted,
    MatchCreated,
    MatchWon,
    PackExhausted,
    PackRun,
    PointsScored,
    Stood,
    TrickWon,
    TrumpFixed,
    TurnUpSetAside,
)
from cardgames.engine.all_fours.state import (
    BEG,
    DEAL,
    DEALER_CHOICE,
    OVER,
    PLAY,
    Award,
    LastHand,
    Played,
    State,
    empty_hands,
)
from cardgames.engine.core.cards import STANDARD_PACK
from cardgames.engine.core.chance import advance
from cardgames.engine.core.events import SEAT_EVENTS, MatchSeeded, Shuffled


def _replace_at(items: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return (*items[:index], value, *items[index + 1 :])


def _match_created(state: State, event: MatchCreated) -> State:
    return replace(state, scores=event.scores, dealer=event.dealer)


def _match_seeded(state: State, event: MatchSeeded) -> State:
    return replace(state, chance=event.chance())


def _shuffled(state: State, event: Shuffled) -> State:
    return replace(state, stock=event.order, chance=advance(state.chance))


def _dealer_chosen(state: State, event: DealerChosen) -> State:
    return replace(state, dealer=event.dealer)


def _hand_started(state: State, event: HandStarted) -> State:
    """Every card is gathered into the stock (A9 redeal, A13 next hand)."""
    hands = empty_hands(state.players)
    return replace(
        state,
        phase=DEAL,
        dealer=event.dealer,
        turn=None,
        hand_no=event.hand_no,
        redeal_no=event.redeal_no,
        hand_size=0,
        hands=hands,
        stock=STANDARD_PACK,
        turn_up=None,
        trump=None,
        set_aside=(),
        run_no=0,
        trick=(),
        trick_no=0,
        tricks_won=((), ()),
        exposed=hands,
        in_play=hands,
        hand_awards=state.hand_awards if event.redeal_no else (),
    )


def _cards_dealt(state: State, event: CardsDealt) -> State:
    """The cards move from the stock to the hand; a round's cards all lie in its top count x N cards."""
    dealt = set(event.cards)
    hands = state.hands
    stock = state.stock
    window = event.count * state.players
    return replace(
        state,
        hands=_replace_at(hands, event.seat, hands[event.seat] + event.cards),
        stock=(*filterfalse(dealt.__contains__, stock[:window]), *stock[window:]),
    )


def _card_turned_up(state: State, event: CardTurnedUp) -> State:
    stock = state.stock
    stock = stock[1:] if stock and stock[0] == event.card else tuple(c for c in stock if c != event.card)
    if event.run_index:
        return replace(state, stock=stock, turn_up=event.card, run_no=event.run_index, hand_size=len(state.hands[0]))
    return replace(
        state,
        stock=stock,
        turn_up=event.card,
        hand_size=len(state.hands[0]),
        phase=BEG,
        turn=state.eldest,
    )


def _turn_up_set_aside(state: State, event: TurnUpSetAside) -> State:
    return replace(state, turn_up=None, set_aside=(*state.set_aside, event.card))


def _trump_fixed(state: State, event: TrumpFixed) -> State:
    return replace(
        state, trump=event.suit, turn_up=event.card, phase=PLAY, turn=state.eldest, trick_no=1, in_play=state.hands
    )


def _begged(state: State, event: Begged) -> State:
    return replace(state, phase=DEALER_CHOICE, turn=state.dealer)


def _card_exposed(state: State, event: CardExposed) -> State:
    exposed = state.exposed
    return replace(state, exposed=_replace_at(exposed, event.seat, (*exposed[event.seat], event.card)))


def _card_played(state: State, event: CardPlayed) -> State:
    seat, card = event.seat, event.card
    hands = state.hands
    hand = hands[seat]
    at = hand.index(card)  # a hand holds each card once (one pack)
    hand = hand[:at] + hand[at + 1 :]
    exposed = state.exposed
    if card in exposed[seat]:
        exposed = _replace_at(exposed, seat, tuple(c for c in exposed[seat] if c != card))
    return replace(
        state,
        hands=_replace_at(hands, seat, hand),
        exposed=exposed,
        trick=(*state.trick, Played(seat, card)),
        turn=(seat + 1) % state.players,
    )


def _trick_won(state: State, event: TrickWon) -> State:
    side = side_of(event.seat)
    won = state.tricks_won
    return replace(
        state,
        tricks_won=_replace_at(won, side, won[side] + event.cards),
        trick=(),
        trick_no=event.trick_no + 1,
        turn=event.seat,
    )


def _points_scored(state: State, event: PointsScored) -> State:
    award = Award(side=event.side, points=event.amount, reason=event.reason, card=event.card)
    return replace(state, scores=event.totals, hand_awards=(*state.hand_awards, award))


def _hand_scored(state: State, event: HandScored) -> State:
    return replace(state, last_hand=LastHand(awards=state.hand_awards, game_totals=event.game_totals))


def _match_won(state: State, event: MatchWon) -> State:
    return replace(state, phase=OVER, turn=None, winner=event.side)


def _unchanged(state: State, event: Any) -> State:
    return state


_APPLY: dict[type, Callable[[State, Any], State]] = {
    MatchCreated: _match_created,
    MatchSeeded: _match_seeded,
    Shuffled: _shuffled,
    DealerChosen: _dealer_chosen,
    HandStarted: _hand_started,
    CardsDealt: _cards_dealt,
    CardsDelivered: _unchanged,
    CardTurnedUp: _card_turned_up,
    TurnUpSetAside: _turn_up_set_aside,
    TrumpFixed: _trump_fixed,
    Stood: _unchanged,
    Begged: _begged,
    GaveOne: _unchanged,
    PackRun: _unchanged,
    PackExhausted: _unchanged,
    CardExposed: _card_exposed,
    ExposedCardCalled: _unchanged,
    CardPlayed: _card_played,
    TrickWon: _trick_won,
    PointsScored: _points_scored,
    HandScored: _hand_scored,
    MatchWon: _match_won,
    # Seat events (the service's clock): their meaning is engine/core/seat_events.py's.
    **dict.fromkeys(SEAT_EVENTS, _unchanged),
}


def evolve(state: State, event: Any) -> State:
    """The state after ``event``."""
    return _APPLY[type(event)](state, event)
