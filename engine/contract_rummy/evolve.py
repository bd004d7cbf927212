"""The reducer: one event applied to the state. It trusts the log ``decide`` wrote."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from msgspec.structs import replace

from cardgames.engine.contract_rummy.events import (
    CardLaidOff,
    CardsDealt,
    ContractMelded,
    DealBlocked,
    DealerCardDrawn,
    DealerChosen,
    DealScored,
    DealStarted,
    DiscardDrawn,
    DiscardDug,
    Discarded,
    GameEnded,
    JokerSwapped,
    MatchCreated,
    MeldsAdded,
    PlayerWentOut,
    StockDrawn,
    StockRefilled,
    UpcardTurned,
)
from cardgames.engine.contract_rummy.hands import remove_cards, trim_known
from cardgames.engine.contract_rummy.melds import POSITION, RUN, Meld, extend, face, hand_code, replace_joker
from cardgames.engine.contract_rummy.state import (
    DEAL,
    DIG,
    DISCARD,
    DRAW,
    OVER,
    PLAY,
    STOCK,
    State,
    Turn,
)
from cardgames.engine.core.chance import advance
from cardgames.engine.core.events import Shuffled, core_reducers


def _set(items: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return (*items[:index], value, *items[index + 1 :])


def _match_created(state: State, event: MatchCreated) -> State:
    scores = event.scores or state.scores
    return replace(state, dealer=event.dealer, deal=event.deal - 1, scores=scores)


def _shuffled(state: State, event: Shuffled) -> State:
    """A shuffle of the gathered pack (before a deal) or of the refill cards (A.12: the new stock)."""
    if state.phase == DRAW:
        return replace(state, chance=advance(state.chance), stock=event.order, pack=())
    return replace(state, chance=advance(state.chance), pack=event.order)


def _dealer_card_drawn(state: State, event: DealerCardDrawn) -> State:
    return state


def _dealer_chosen(state: State, event: DealerChosen) -> State:
    return replace(state, dealer=event.dealer)


def _deal_started(state: State, event: DealStarted) -> State:
    players = state.players
    return replace(
        state,
        phase=DEAL,
        deal=event.deal,
        dealer=event.dealer,
        to_act=None,
        pack=state.deck,
        hands=((),) * players,
        stock=(),
        discard=(),
        melds=(),
        contract_met=(False,) * players,
        met_turn=(0,) * players,
        turn_no=0,
        turn=None,
        refills=0,
        known=((),) * players,
    )


def _cards_dealt(state: State, event: CardsDealt) -> State:
    """The seat's cards leave the pack (their places in it stay, empty, until the upcard, A.5)."""
    players = state.players
    pack = list(state.pack)
    dealt = players * len(event.cards)
    for index in range((event.seat - (state.dealer or 0) - 1) % players, dealt, players):
        pack[index] = ""
    return replace(state, hands=_set(state.hands, event.seat, event.cards), pack=tuple(pack))


def _upcard_turned(state: State, event: UpcardTurned) -> State:
    """The undealt rest of the pack: the upcard, then the stock in pack order (A.5)."""
    dealer = state.dealer or 0
    return replace(
        state,
        phase=DRAW,
        to_act=(dealer + 1) % state.players,
        discard=(event.card,),
        stock=state.pack[len(state.pack) - event.stock_size :],
        pack=(),
    )


def _stock_refilled(state: State, event: StockRefilled) -> State:
    """The pile but its top card leaves the pile: turned over as the stock, or gathered for the
    shuffle whose event follows and makes the stock (A.12)."""
    if event.shuffled:
        return replace(state, pack=event.cards, discard=state.discard[:1], refills=event.refills)
    return replace(state, stock=event.cards, discard=state.discard[:1], refills=event.refills)


def _stock_drawn(state: State, event: StockDrawn) -> State:
    seat = event.seat
    card = state.stock[0]
    return replace(
        state,
        phase=PLAY,
        stock=state.stock[1:],
        hands=_set(state.hands, seat, (*state.hands[seat], card)),
        turn_no=state.turn_no + 1,
        turn=Turn(drew=STOCK, taken=(card,)),
    )


def _discard_drawn(state: State, event: DiscardDrawn) -> State:
    seat = event.seat
    card = event.card
    return replace(
        state,
        phase=PLAY,
        discard=state.discard[1:],
        hands=_set(state.hands, seat, (*state.hands[seat], card)),
        known=_set(state.known, seat, (*state.known[seat], card)),
        turn_no=state.turn_no + 1,
        turn=Turn(drew=DISCARD, taken=(card,), barred=card),
    )


def _discard_dug(state: State, event: DiscardDug) -> State:
    seat = event.seat
    return replace(
        state,
        phase=PLAY,
        discard=state.discard[event.depth :],
        hands=_set(state.hands, seat, (*state.hands[seat], *event.cards)),
        known=_set(state.known, seat, (*state.known[seat], *event.cards)),
        turn_no=state.turn_no + 1,
        turn=Turn(drew=DIG, taken=event.cards),
    )


def _placed(state: State, seat: int, cards: list[str], melds: tuple[Meld, ...], **changes: Any) -> State:
    """``cards`` (table forms) left ``seat``'s hand for the table, now ``melds``."""
    codes = [hand_code(card) for card in cards]
    hand = remove_cards(state.hands[seat], codes)
    turn = state.turn
    if (
        turn is not None
        and turn.barred is not None
        and state.config.top_discard_return_rule == "physical_card"
        and turn.barred in codes
    ):
        turn = replace(turn, barred=None)  # the copy just taken went to the table
    return replace(
        state,
        hands=_set(state.hands, seat, hand),
        known=_set(state.known, seat, trim_known(state.known[seat], hand, codes)),
        melds=melds,
        turn=turn,
        **changes,
    )


def new_meld(cards: tuple[str, ...], kind: str, seat: int) -> Meld:
    """A meld built from an event's normalized cards (runs are listed low to high)."""
    placed = (seat,) * len(cards)
    if kind == RUN:
        first = face(cards[0])
        low = 1 if first[:-1] == "A" else POSITION[first[:-1]]
        return Meld(
            owner=seat,
            kind=RUN,
            cards=cards,
            placed_by=placed,
            suit=first[-1],
            low=low,
            high=low + len(cards) - 1,
        )
    return Meld(owner=seat, kind=kind, cards=cards, placed_by=placed, rank=face(cards[0])[:-1])


def _contract_melded(state: State, event: ContractMelded) -> State:
    seat = event.seat
    made = tuple(new_meld(cards, kind, seat) for cards, kind in zip(event.melds, event.kinds, strict=True))
    if state.turn is not None:
        state = replace(state, turn=replace(state.turn, went_down=True))
    return _placed(
        state,
        seat,
        [card for cards in event.melds for card in cards],
        state.melds + made,
        contract_met=_set(state.contract_met, seat, True),
        met_turn=_set(state.met_turn, seat, state.turn_no),
    )


def _melds_added(state: State, event: MeldsAdded) -> State:
    seat = event.seat
    made = tuple(new_meld(cards, kind, seat) for cards, kind in zip(event.melds, event.kinds, strict=True))
    return _placed(state, seat, [card for cards in event.melds for card in cards], state.melds + made)


def _card_laid_off(state: State, event: CardLaidOff) -> State:
    melds = state.melds
    grown = extend(melds[event.meld], event.card, event.end, event.seat)
    return _placed(state, event.seat, [event.card], _set(melds, event.meld, grown))


def _joker_swapped(state: State, event: JokerSwapped) -> State:
    seat = event.seat
    melds = _set(state.melds, event.meld, replace_joker(state.melds[event.meld], event.card, seat))
    from_hand = [event.card]
    if event.new_meld is not None:
        melds = (*melds, new_meld(event.new_meld, event.new_meld_kind or RUN, seat))
        rest = list(event.new_meld)
        rest.remove(event.joker_as)
        from_hand += rest
    else:
        assert event.to_meld is not None
        melds = _set(melds, event.to_meld, extend(melds[event.to_meld], event.joker_as, event.end, seat))
    return _placed(state, seat, from_hand, melds)


def _discarded(state: State, event: Discarded) -> State:
    seat = event.seat
    hand = remove_cards(state.hands[seat], (event.card,))
    return replace(
        state,
        phase=DRAW,
        to_act=(seat + 1) % state.players,
        hands=_set(state.hands, seat, hand),
        known=_set(state.known, seat, trim_known(state.known[seat], hand, (event.card,))),
        discard=(event.card, *state.discard),
        turn=None,
    )


def _player_went_out(state: State, event: PlayerWentOut) -> State:
    return replace(state, phase=DEAL, to_act=None, turn=None)


def _deal_blocked(state: State, event: DealBlocked) -> State:
    return replace(state, phase=DEAL, to_act=None, turn=None)


def _deal_scored(state: State, event: DealScored) -> State:
    return replace(state, scores=event.totals, last_deal_scores=event.penalties, phase=DEAL, to_act=None)


def _game_ended(state: State, event: GameEnded) -> State:
    return replace(state, phase=OVER, to_act=None, turn=None, winners=event.winners)


_EVOLVE: dict[type, Callable[[State, Any], State]] = {
    MatchCreated: _match_created,
    DealerCardDrawn: _dealer_card_drawn,
    DealerChosen: _dealer_chosen,
    DealStarted: _deal_started,
    CardsDealt: _cards_dealt,
    UpcardTurned: _upcard_turned,
    StockRefilled: _stock_refilled,
    StockDrawn: _stock_drawn,
    DiscardDrawn: _discard_drawn,
    DiscardDug: _discard_dug,
    ContractMelded: _contract_melded,
    MeldsAdded: _melds_added,
    CardLaidOff: _card_laid_off,
    JokerSwapped: _joker_swapped,
    Discarded: _discarded,
    PlayerWentOut: _player_went_out,
    DealBlocked: _deal_blocked,
    DealScored: _deal_scored,
    GameEnded: _game_ended,
    **core_reducers(_shuffled),
}


def evolve(state: State, event: Any) -> State:
    return _EVOLVE[type(event)](state, event)
