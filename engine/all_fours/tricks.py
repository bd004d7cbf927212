"""Trick play (A10): the legal set of the player to act, and the winner of a trick."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cardgames.engine.all_fours.cards import POWER
from cardgames.engine.all_fours.config import Config
from cardgames.engine.all_fours.state import Played

#: The last answer for a trick in progress: (hand, trick, trump, config, legal cards).
_last: tuple[Any, ...] = ((), (), None, None, ())


def legal_cards(hand: tuple[str, ...], trick: Sequence[Played], trump: str | None, config: Config) -> tuple[str, ...]:
    """The cards of ``hand`` that may be played to ``trick`` (A10 steps 1-5, in order).

    ``legal_commands`` lists the plays, then ``decide`` checks the chosen one against the same
    state's hand and trick: the last answer is kept for the same objects (compared by identity;
    the kept references stop their ids from being reused), so the second call is free.
    """
    if not trick:
        return hand  # 1. any lead
    global _last
    last = _last
    if hand is last[0] and trick is last[1] and trump == last[2] and config is last[3]:
        return last[4]
    legal = _to_follow(hand, trick, trump, config)
    _last = (hand, trick, trump, config, legal)
    return legal


def _to_follow(hand: tuple[str, ...], trick: Sequence[Played], trump: str | None, config: Config) -> tuple[str, ...]:
    """Steps 2-5: the legal set once a card has been led (one pass sorts the hand)."""
    led = trick[0].card[-1]
    follow: list[str] = []
    trumps: list[str] = []
    for card in hand:
        suit = card[-1]
        if suit == trump:
            trumps.append(card)
        elif suit == led:
            follow.append(card)
    if led == trump:  # 2. trump led: a trump if held
        return tuple(trumps) if trumps else hand
    legal = (*follow, *trumps) if follow else hand  # 3. follow suit or trump; void: anything
    if config.no_undertrump and trumps and len(trumps) < len(hand):  # 4. no under-trumping
        top = max((POWER[p.card] for p in trick if p.card[-1] == trump), default=-1)
        if top >= 0:
            legal = tuple(card for card in legal if card[-1] != trump or POWER[card] > top)
    if config.void_must_trump and not follow:  # 5. a void player must trump if it can
        must = tuple(card for card in legal if card[-1] == trump)
        if must:
            legal = must
    return legal


def trick_winner(trick: Sequence[Played], trump: str | None) -> int:
    """The seat whose card wins: the highest trump, else the highest card of the suit led."""
    led = trick[0].card[-1]
    best_seat = trick[0].seat
    best = -1
    for played in trick:
        suit = played.card[-1]
        if suit == trump:
            key = 100 + POWER[played.card]
        elif suit == led:
            key = POWER[played.card]
        else:
            continue
        if key > best:
            best, best_seat = key, played.seat
    return best_seat
