"""The reducer: one event applied to the state. It only reads events; chance is in ``shuffled``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, cast

from msgspec.structs import replace as _replace

from cardgames.engine.core.cards import STANDARD_PACK
from cardgames.engine.core.chance import advance
from cardgames.engine.core.events import SEAT_EVENTS, MatchSeeded, Shuffled
from cardgames.engine.seep.events import (
    BaaziWon,
    BidMade,
    Broken,
    Built,
    Captured,
    CardsDealt,
    DealerChosen,
    DealScored,
    DealStarted,
    Event,
    FloorDealt,
    FloorRevealed,
    LeftoverAwarded,
    MatchCreated,
    MatchEnded,
    Redealt,
    SweepScored,
    Thrown,
)
from cardgames.engine.seep.state import BID, OVER, PLAY, House, LastDeal, State

# ``Final``: the compiled build keeps these in C statics (a plain module name is a dictionary
# lookup at every use, and there is one ``replace`` per event); the play events' classes too.
replace: Final = _replace
_THROWN: Final = Thrown
_CAPTURED: Final = Captured
_BUILT: Final = Built
_HOUSE: Final = House


def _without(cards: tuple[str, ...], gone: tuple[str, ...] | frozenset[str] | set[str]) -> tuple[str, ...]:
    return tuple([card for card in cards if card not in gone])


def _dealt(stock: tuple[str, ...], cards: tuple[str, ...]) -> tuple[str, ...]:
    """The stock without ``cards``: cut off the top when they are the top (stage 1), else removed one by one."""
    if stock[: len(cards)] == cards:
        return stock[len(cards) :]
    return _without(stock, frozenset(cards))


def _played(state: State, seat: int, card: str) -> tuple[tuple[str, ...], ...]:
    """The hands once ``seat`` has played ``card`` (a hand holds each card once)."""
    hands = list(state.hands)
    hands[seat] = tuple([held for held in hands[seat] if held != card])
    return tuple(hands)


def _set_house(houses: tuple[House, ...], drop: tuple[int, ...], house: House | None) -> tuple[House, ...]:
    """``houses`` without the values in ``drop``, plus ``house``, in ascending order of value."""
    kept = [existing for existing in houses if existing.value not in drop]
    if house is not None:  # at most five houses: an insertion, no sort
        value = house.value
        at = 0
        while at < len(kept) and kept[at].value < value:
            at += 1
        kept.insert(at, house)
    return tuple(kept)


def _match_created(state: State, event: MatchCreated) -> State:
    return replace(
        state,
        config=event.config,
        dealer=event.dealer if event.dealer is not None else state.dealer,
        difference=event.difference,
        baazis=event.baazis,
    )


def _match_seeded(state: State, event: MatchSeeded) -> State:
    return replace(state, chance=event.chance())


def _shuffled(state: State, event: Shuffled) -> State:
    return replace(state, stock=event.order, chance=advance(state.chance))


def _dealer_chosen(state: State, event: DealerChosen) -> State:
    return replace(state, dealer=event.dealer)


def _deal_started(state: State, event: DealStarted) -> State:
    return replace(
        state,
        phase=BID,
        dealer=event.dealer,
        deal_no=event.deal,
        redeals=event.attempt - 1,
        bid=None,
        plays=0,
        hands=((), (), (), ()),
        stock=STANDARD_PACK,
        loose=(),
        houses=(),
        piles=((), ()),
        sweeps=(0, 0),
        last_capture_team=None,
        window=(),
        window_team=None,
    )


def _cards_dealt(state: State, event: CardsDealt) -> State:
    hands = list(state.hands)
    hands[event.seat] = hands[event.seat] + event.cards
    return replace(state, hands=tuple(hands), stock=_dealt(state.stock, event.cards))


def _floor_dealt(state: State, event: FloorDealt) -> State:
    return replace(state, loose=state.loose + event.cards, stock=_dealt(state.stock, event.cards))


def _redealt(state: State, event: Redealt) -> State:
    return state


def _bid_made(state: State, event: BidMade) -> State:
    return replace(state, bid=event.value)


def _floor_revealed(state: State, event: FloorRevealed) -> State:
    return replace(state, phase=PLAY)


def _captured(state: State, event: Captured) -> State:
    card = event.card
    cards = [card]  # what the team gains: the card, the groups, then the house (one list, one tuple)
    for group in event.groups:
        cards.extend(group)
    # (the played card is not a loose card: leaving it among those removed changes nothing)
    loose = _without(state.loose, tuple(cards)) if len(cards) > 1 else state.loose
    houses = state.houses
    house = event.house
    if house is not None:
        for component in house.components:  # House.cards(), without a call into interpreted code
            cards.extend(component)
        houses = _set_house(houses, (house.value,), None)
    gained = tuple(cards)
    team = event.team
    piles = list(state.piles)
    piles[team] = piles[team] + gained
    return replace(
        state,
        hands=_played(state, event.seat, card),
        loose=loose,
        houses=houses,
        piles=(piles[0], piles[1]),
        plays=event.play,
        last_capture_team=team,
        window=gained,
        window_team=team,
    )


def _thrown(state: State, event: Thrown) -> State:
    return replace(
        state,
        hands=_played(state, event.seat, event.card),
        loose=state.loose + (event.card,),  # noqa: RUF005 (one tuple; the compiled (*a, b) goes through a list)
        plays=event.play,
        window=(),
        window_team=None,
    )


def _built(state: State, event: Built) -> State:
    used = {card for group in event.groups for card in group}
    used.update(event.merged)
    components = event.groups + tuple((card,) for card in event.merged)
    value = event.value
    houses = state.houses
    for existing in houses:
        if existing.value == value:
            components = existing.components + components
    house = _HOUSE(value=value, components=components, owners=event.owners)
    return replace(
        state,
        hands=_played(state, event.seat, event.card),
        loose=_without(state.loose, used),
        houses=_set_house(houses, (value,), house),
        plays=event.play,
        window=(),
        window_team=None,
    )


def _broken(state: State, event: Broken) -> State:
    raised: tuple[str, ...] = ()
    components: tuple[tuple[str, ...], ...] = ()
    for house in state.houses:
        if house.value == event.house:
            raised = (*house.components[0], event.card)
        elif house.value == event.value:
            components = house.components
    components = (*components, raised, *((card,) for card in event.merged))
    house = _HOUSE(value=event.value, components=components, owners=event.owners)
    return replace(
        state,
        hands=_played(state, event.seat, event.card),
        loose=_without(state.loose, event.merged) if event.merged else state.loose,
        houses=_set_house(state.houses, (event.house, event.value), house),
        plays=event.play,
        window=(),
        window_team=None,
    )


def _sweep_scored(state: State, event: SweepScored) -> State:
    sweeps = list(state.sweeps)
    sweeps[event.team] += event.points
    return replace(state, sweeps=(sweeps[0], sweeps[1]))


def _leftover_awarded(state: State, event: LeftoverAwarded) -> State:
    if event.team is None:
        return state
    piles = list(state.piles)
    piles[event.team] = piles[event.team] + event.cards
    return replace(state, piles=(piles[0], piles[1]), loose=_without(state.loose, event.cards))


def _deal_scored(state: State, event: DealScored) -> State:
    return replace(
        state,
        last_deal_points=event.scores,
        last_deal=LastDeal(
            card_points=event.card_points,
            sweeps=event.sweeps,
            leftover=event.leftover,
            leftover_to=event.leftover_to,
            baazi_winner=event.baazi_winner,
        ),
        difference=event.difference,
    )


def _baazi_won(state: State, event: BaaziWon) -> State:
    return replace(state, baazis=event.baazis)


def _match_ended(state: State, event: MatchEnded) -> State:
    return replace(state, phase=OVER, window=(), window_team=None)


_HANDLERS: Final[dict[type, Callable[[State, Any], State]]] = {
    MatchCreated: _match_created,
    MatchSeeded: _match_seeded,
    Shuffled: _shuffled,
    DealerChosen: _dealer_chosen,
    DealStarted: _deal_started,
    CardsDealt: _cards_dealt,
    FloorDealt: _floor_dealt,
    Redealt: _redealt,
    BidMade: _bid_made,
    FloorRevealed: _floor_revealed,
    Captured: _captured,
    Thrown: _thrown,
    Built: _built,
    Broken: _broken,
    SweepScored: _sweep_scored,
    LeftoverAwarded: _leftover_awarded,
    DealScored: _deal_scored,
    BaaziWon: _baazi_won,
    MatchEnded: _match_ended,
    # Seat events (the service's clock): their meaning is engine/core/seat_events.py's.
    **dict.fromkeys(SEAT_EVENTS, lambda state, event: state),
}


def evolve(state: State, event: Event) -> State:
    """Apply one event (DESIGN.md: the reducer never fails on a log that decide produced)."""
    kind = type(event)
    # The plays first, called directly: in the compiled build a call through the table goes
    # through each handler's Python-level entry (its arguments parsed again).
    if kind is _THROWN:
        return _thrown(state, cast(Thrown, event))
    if kind is _CAPTURED:
        return _captured(state, cast(Captured, event))
    if kind is _BUILT:
        return _built(state, cast(Built, event))
    return _HANDLERS[kind](state, event)
