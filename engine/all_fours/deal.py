"""Cutting for the first dealer (A4), dealing (A5), turn-ups (A6), fixing trump (A8), running the pack (A9)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cardgames.engine.all_fours.cards import POWER
from cardgames.engine.all_fours.config import Config
from cardgames.engine.all_fours.events import (
    CardsDealt,
    CardsDelivered,
    CardTurnedUp,
    Cut,
    DealerChosen,
    HandStarted,
    PackExhausted,
    PackRun,
    TrumpFixed,
    TurnUpSetAside,
)
from cardgames.engine.all_fours.scoring import kick
from cardgames.engine.all_fours.state import State
from cardgames.engine.core.cards import STANDARD_PACK
from cardgames.engine.core.chance import Chance, advance
from cardgames.engine.core.events import shuffle as shuffle_pack


def shuffle(events: list[Any], chance: Chance) -> tuple[tuple[str, ...], Chance]:
    """A new shuffle of the whole pack, recorded in a Shuffled event."""
    shuffled = shuffle_pack(chance, STANDARD_PACK)
    events.append(shuffled)
    return shuffled.order, advance(chance)


def cut_for_dealer(events: list[Any], players: int, chance: Chance) -> tuple[int, Chance]:
    """Each player cuts a card from a shuffled pack; the highest rank deals (A4).

    Players tied for highest cut again, from a new shuffle, in seat order from the top.
    """
    cutters = list(range(players))
    cuts: list[Cut] = []
    round_no = 0
    while True:
        round_no += 1
        order, chance = shuffle(events, chance)
        drawn = list(zip(cutters, order, strict=False))
        cuts.extend(Cut(round=round_no, seat=seat, card=card) for seat, card in drawn)
        best = max(POWER[card] for _, card in drawn)
        cutters = [seat for seat, card in drawn if POWER[card] == best]
        if len(cutters) == 1:
            events.append(DealerChosen(cuts=tuple(cuts), dealer=cutters[0]))
            return cutters[0], chance


def split(cards: Sequence[str], players: int, style: str, eldest: int) -> list[tuple[str, ...]]:
    """The A5 mapping: position i goes to (e + i) mod N (ones) or (e + i // 3) mod N (threes)."""
    hands: list[list[str]] = [[] for _ in range(players)]
    if style == "ones":
        for i, card in enumerate(cards):
            hands[(eldest + i) % players].append(card)
    else:
        for i, card in enumerate(cards):
            hands[(eldest + i // 3) % players].append(card)
    return [tuple(hand) for hand in hands]


def held_back(config: Config, seat: int, dealer: int) -> bool:
    """True when the seat may not see its cards until trump is fixed (D, B-28)."""
    return config.beg_phase_hand_visibility == "dealer_and_eldest_only" and seat not in (
        dealer,
        (dealer + 1) % config.players,
    )


def deal_round(
    events: list[Any], config: Config, cards: Sequence[str], dealer: int, run_index: int
) -> list[tuple[str, ...]]:
    """Deal ``cards`` (the initial deal or a run) with CardsDealt events, eldest first."""
    players = config.players
    eldest = (dealer + 1) % players
    hands = split(cards, players, config.deal_style, eldest)
    for offset in range(players):
        seat = (eldest + offset) % players
        events.append(
            CardsDealt(
                seat=seat,
                count=len(hands[seat]),
                cards=hands[seat],
                run_index=run_index,
                held_back=held_back(config, seat, dealer),
            )
        )
    return hands


def deal(
    events: list[Any],
    config: Config,
    chance: Chance,
    scores: tuple[int, ...],
    dealer: int,
    hand_no: int,
    redeal_no: int,
) -> None:
    """A fresh deal (A5): gather, shuffle, six cards each, the turn-up and its kick (A6)."""
    players = config.players
    events.append(HandStarted(hand_no=hand_no, redeal_no=redeal_no, dealer=dealer, eldest=(dealer + 1) % players))
    order, chance = shuffle(events, chance)
    dealt = 6 * players
    deal_round(events, config, order[:dealt], dealer, 0)
    events.append(CardTurnedUp(card=order[dealt], run_index=0))
    kick(events, config, scores, dealer, order[dealt])


def fix_trump(events: list[Any], config: Config, dealer: int, card: str, hands: Sequence[tuple[str, ...]]) -> None:
    """Trump is the turn-up's suit (A8); held-back hands are delivered to their seats (D)."""
    events.append(TrumpFixed(suit=card[-1], card=card))
    for seat, hand in enumerate(hands):
        if held_back(config, seat, dealer):
            events.append(CardsDelivered(seat=seat, count=len(hand), cards=hand))


def run_pack(events: list[Any], state: State) -> None:
    """The dealer runs the pack (A9): runs until a new suit, a winning kick, or exhaustion."""
    config = state.config
    players = state.players
    dealer = state.dealer
    turn_up = state.turn_up
    assert dealer is not None and turn_up is not None
    rejected = turn_up[-1]
    events.append(TurnUpSetAside(card=turn_up))
    stock = state.stock
    hands = list(state.hands)
    scores = state.scores
    run_index = state.run_no
    batch = 3 * players
    while len(stock) >= batch + 1:
        run_index += 1
        events.append(PackRun(dealer=dealer, run_index=run_index))
        dealt = deal_round(events, config, stock[:batch], dealer, run_index)
        hands = [hand + extra for hand, extra in zip(hands, dealt, strict=True)]
        card = stock[batch]
        stock = stock[batch + 1 :]
        events.append(CardTurnedUp(card=card, run_index=run_index))
        scores, won = kick(events, config, scores, dealer, card)
        if won:
            return
        if card[-1] != rejected:
            fix_trump(events, config, dealer, card, hands)
            return
        events.append(TurnUpSetAside(card=card))
    events.append(PackExhausted(dealer=dealer, stock_size=len(stock)))
    deal(events, config, state.chance, scores, dealer, state.hand_no, state.redeal_no + 1)
