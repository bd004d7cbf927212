"""Shuffles, the first dealer, the deal, and the end of a deal (A.4, A.5, A.11, A.12).

These build the automatic events that ``start`` and ``decide`` emit; the orders come from
the match's chance source (engine/core/chance.py) and are recorded in ``Shuffled`` events.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any, Final

from msgspec.structs import replace

from cardgames.engine.contract_rummy.config import CONTRACTS, DEALS, Config
from cardgames.engine.contract_rummy.events import (
    CardsDealt,
    DealBlocked,
    DealerCardDrawn,
    DealerChosen,
    DealScored,
    DealStarted,
    GameEnded,
    MatchCreated,
    PlayerWentOut,
    UpcardTurned,
)
from cardgames.engine.contract_rummy.evolve import evolve
from cardgames.engine.contract_rummy.melds import penalty
from cardgames.engine.contract_rummy.state import State, initial, winners_of
from cardgames.engine.core.cards import JOKER, rank_number
from cardgames.engine.core.chance import Chance, advance
from cardgames.engine.core.events import Shuffled, match_seeded
from cardgames.engine.core.events import shuffle as shuffle_pack
from cardgames.engine.core.protocol import ScenarioError, Setup

#: The seed of shuffles that neither a stacked deck nor the match's seed covers (FORMAT.md:
#: "the engine shuffles by its own means"); fixed so that such a match stays reproducible.
FALLBACK_SEED: Final = hashlib.sha256(b"cardgames contract_rummy fallback").hexdigest()


def shuffle(chance: Chance, cards: Sequence[str]) -> Shuffled:
    """The next shuffle of ``cards`` as an event (a stacked order first, else the seed)."""
    if chance.seed is None and chance.used >= len(chance.decks):
        chance = replace(chance, seed=FALLBACK_SEED)
    return shuffle_pack(chance, cards)


def fold(state: State, events: Sequence[Any]) -> State:
    for event in events:
        state = evolve(state, event)
    return state


def deal_events(state: State, deal: int, dealer: int) -> list[Any]:
    """Shuffle and deal deal ``deal`` by ``dealer`` (A.5's deterministic mapping)."""
    players = state.players
    size = state.config.hand_sizes[deal - 1]
    shuffled = shuffle(state.chance, state.deck)
    order = shuffled.order
    sets, runs = CONTRACTS[deal - 1]
    events: list[Any] = [DealStarted(deal=deal, dealer=dealer, hand_size=size, sets=sets, runs=runs), shuffled]
    dealt = players * size
    for seat in range(players):
        cards = order[(seat - dealer - 1) % players : dealt : players]
        events.append(CardsDealt(seat=seat, cards=cards, count=len(cards)))
    events.append(UpcardTurned(card=order[dealt], stock_size=len(order) - dealt - 1))
    return events


def _draw_lowest(state: State) -> tuple[list[Any], int]:
    """A.4: each player draws a card, the lowest rank deals (ace low); ties redraw, a joker redraws."""
    chance = state.chance
    events: list[Any] = []
    order: tuple[str, ...] = ()
    position = 0
    contenders = list(range(state.players))
    round_no = 0
    while True:
        drawn: dict[int, int] = {}
        for seat in contenders:
            while True:
                if position >= len(order):
                    shuffled = shuffle(chance, state.deck)
                    events.append(shuffled)
                    chance = advance(chance)
                    order, position = shuffled.order, 0
                card = order[position]
                position += 1
                events.append(DealerCardDrawn(seat=seat, card=card, round=round_no))
                if card != JOKER:
                    drawn[seat] = rank_number(card)
                    break
        lowest = min(drawn.values())
        contenders = [seat for seat in contenders if drawn[seat] == lowest]
        if len(contenders) == 1:
            return events, contenders[0]
        round_no += 1


def _random_dealer(state: State) -> tuple[list[Any], int]:
    """A.4 ``random``: a shuffle of the seat numbers; the first one deals."""
    shuffled = shuffle(state.chance, [str(seat) for seat in range(state.players)])
    return [shuffled], int(shuffled.order[0])


def start(config: Config, setup: Setup) -> list[Any]:
    """A new match up to the first decision: creation, the first dealer (A.4), deal 1 (A.5)."""
    players = config.players
    match = dict(setup.match)
    unknown = set(match) - {"deal", "scores"}
    if unknown:
        raise ScenarioError(f"unknown Contract Rummy match keys {sorted(unknown)} (deal, scores)")
    deal = match.get("deal", 1)
    if not isinstance(deal, int) or not 1 <= deal <= DEALS:
        raise ScenarioError(f"match.deal must be 1..{DEALS}, got {deal!r}")
    scores = tuple(match.get("scores", (0,) * players))
    if len(scores) != players or not all(isinstance(score, int) for score in scores):
        raise ScenarioError(f"match.scores must hold {players} integers, got {list(scores)}")
    if setup.dealer is not None and not 0 <= setup.dealer < players:
        raise ScenarioError(f"dealer {setup.dealer} is not a seat of {players}")
    events: list[Any] = [
        MatchCreated(config=config, players=players, dealer=setup.dealer, deal=deal, scores=scores),
        match_seeded(setup.seed, setup.decks),
    ]
    state = fold(initial(config), events)
    dealer = setup.dealer
    if dealer is None:
        if config.first_dealer == "draw_lowest":
            drawn, dealer = _draw_lowest(state)
        elif config.first_dealer == "random":
            drawn, dealer = _random_dealer(state)
        else:
            drawn, dealer = [], int(config.first_dealer)
        drawn.append(DealerChosen(dealer=dealer))
        events += drawn
        state = fold(state, drawn)
    return events + deal_events(state, deal, dealer)


def deal_penalties(state: State, out: int | None) -> tuple[int, ...]:
    """A.11 scoring (and A.12 for a blocked deal, ``out`` None)."""
    config = state.config
    if out is None and config.blocked_deal == "void":
        return (0,) * state.players
    return tuple(
        0 if seat == out else sum(penalty(card, config.ace_value, config.joker_value) for card in hand)
        for seat, hand in enumerate(state.hands)
    )


def end_deal(state: State, out: int | None) -> list[Any]:
    """Score the deal; then deal the next one, or end the game after deal 7 (A.11)."""
    penalties = deal_penalties(state, out)
    totals = tuple(score + points for score, points in zip(state.scores, penalties, strict=True))
    scored = DealScored(deal=state.deal, hands=state.hands, penalties=penalties, totals=totals, out=out)
    if state.deal >= DEALS:
        return [scored, GameEnded(winners=winners_of(totals), totals=totals)]
    dealer = ((state.dealer or 0) + 1) % state.players
    return [scored, *deal_events(evolve(state, scored), state.deal + 1, dealer)]


def went_out(state: State, seat: int) -> list[Any]:
    event = PlayerWentOut(seat=seat)
    return [event, *end_deal(evolve(state, event), seat)]


def blocked_reason(state: State) -> str | None:
    """Why the draw step about to begin ends the deal (A.12), or None."""
    if state.stock:
        return None
    if len(state.discard) <= 1:
        return "the stock is empty and the discard pile holds too few cards to refill it"
    limit = state.config.max_stock_refills
    if limit is not None and state.refills >= limit:
        return f"the stock is empty and was already refilled {limit} times in this deal"
    return None


def turn_start(state: State) -> list[Any]:
    """Nothing, or the blocked deal and what follows it, as the next draw step begins (A.12)."""
    reason = blocked_reason(state)
    if reason is None:
        return []
    event = DealBlocked(deal=state.deal, reason=reason)
    return [event, *end_deal(evolve(state, event), None)]
