"""What happens by itself: the staged deal and redeals (A5), the rest of the deal after the
opening (A5.6), and the end of a deal: leftovers, scoring, baazis, the next dealer (A10-A13)."""

from __future__ import annotations

from typing import Any

from cardgames.engine.core.cards import STANDARD_PACK
from cardgames.engine.core.chance import Chance, advance
from cardgames.engine.core.events import shuffle
from cardgames.engine.seep.cards import VALUE, card_points, partner
from cardgames.engine.seep.events import (
    BaaziWon,
    CardsDealt,
    DealScored,
    DealStarted,
    FloorDealt,
    LeftoverAwarded,
    MatchEnded,
    Redealt,
)
from cardgames.engine.seep.state import State

#: Stage 5 (A5.1): the 11 packets of 4 after the opening, as offsets from the dealer.
PACKET_OFFSETS = (1, 2, 3, 0, 1, 2, 3, 0, 2, 3, 0)


def deal_events(dealer: int, deal_no: int, chance: Chance) -> list[Any]:
    """Shuffle and deal stage 1 until the bidder can bid (A5.2, A5.3): redeals are automatic."""
    bidder = (dealer + 1) % 4
    events: list[Any] = []
    attempt = 1
    while True:
        shuffled = shuffle(chance, STANDARD_PACK)
        order = shuffled.order
        hand = order[:4]
        events += [
            DealStarted(dealer=dealer, deal=deal_no, attempt=attempt),
            shuffled,
            CardsDealt(seat=bidder, cards=hand, count=4),
            FloorDealt(cards=order[4:8], count=4),
        ]
        chance = advance(chance)
        if any(VALUE[card] > 8 for card in hand):
            return events
        events.append(Redealt(seat=bidder, cards=hand))
        attempt += 1


def rest_of_deal(state: State) -> list[CardsDealt]:
    """Stage 5 (A5.6): the 44 stock cards in packets of 4, one event per seat in dealing order."""
    stock = state.stock
    dealt: dict[int, list[str]] = {}
    for packet, offset in enumerate(PACKET_OFFSETS):
        seat = (state.dealer + offset) % 4
        dealt.setdefault(seat, []).extend(stock[packet * 4 : packet * 4 + 4])
    return [CardsDealt(seat=seat, cards=tuple(cards), count=len(cards)) for seat, cards in dealt.items()]


def _pair(first: int, second: int) -> tuple[int, int]:
    return (first, second)


def next_dealer(state: State, difference: int, baazi_winner: int | None) -> int:
    """A13 (or the rotation of ``dealer_rule = rotate``)."""
    dealer = state.dealer
    if state.config.dealer_rule == "rotate":
        return (dealer + 1) % 4
    side = dealer % 2
    # the dealer's team is ahead: it won the baazi, or (no baazi) it leads in the difference
    leads = difference > 0 if side == 0 else difference < 0
    ahead = leads if baazi_winner is None else baazi_winner == side
    would_be = (dealer + 1) % 4 if ahead else dealer
    return would_be if baazi_winner is None else partner(would_be)


def end_of_deal(state: State) -> list[Any]:
    """After play #48: leftovers (A10), the deal score (A11), the baazi check (A12), then the
    next deal (A13) or the end of the match."""
    config = state.config
    leftover = state.loose
    to = state.last_capture_team
    piles = list(state.piles)
    if to is not None:
        piles[to] = piles[to] + leftover
    events: list[Any] = [LeftoverAwarded(team=to, cards=leftover)]

    points = _pair(*(card_points(pile, config.ten_of_diamonds_points) for pile in piles))
    sizes = (len(piles[0]), len(piles[1]))
    bonus = _pair(
        config.majority_cards_bonus if sizes[0] > sizes[1] else 0,
        config.majority_cards_bonus if sizes[1] > sizes[0] else 0,
    )
    sweeps = state.sweeps
    scores = _pair(*(points[t] + sweeps[t] + bonus[t] for t in (0, 1)))

    # A12.1: the 9-point rule, on the deal score (less sweeps unless they count)
    tested = scores if config.minimum_includes_sweeps else _pair(*(scores[t] - sweeps[t] for t in (0, 1)))
    short = [tested[t] < config.minimum_deal_points for t in (0, 1)]
    winner: int | None = None
    reason = ""
    difference = state.difference
    if short[0] != short[1]:
        winner, reason, difference = (1 if short[0] else 0), "minimum", 0
    else:
        difference += scores[0] - scores[1]
        if difference >= config.baazi_lead:
            winner, reason, difference = 0, "lead", 0
        elif difference <= -config.baazi_lead:
            winner, reason, difference = 1, "lead", 0
    events.append(
        DealScored(
            card_points=points,
            sweeps=sweeps,
            bonus=bonus,
            scores=scores,
            leftover=leftover,
            leftover_to=to,
            difference=difference,
            baazi_winner=winner,
        )
    )
    baazis = state.baazis
    if winner is not None:
        baazis = _pair(baazis[0] + (winner == 0), baazis[1] + (winner == 1))
        events.append(BaaziWon(team=winner, reason=reason, baazis=baazis))
        if sum(baazis) >= config.baazis_to_play:
            match_winner = None if baazis[0] == baazis[1] else (0 if baazis[0] > baazis[1] else 1)
            events.append(MatchEnded(baazis=baazis, winner=match_winner))
            return events
    dealer = next_dealer(state, difference, winner)
    events += deal_events(dealer, state.deal_no + 1, state.chance)
    return events
