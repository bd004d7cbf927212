"""The events of All Fours (the rules file's "Suggested events"), plus the core chance events."""

from __future__ import annotations

from typing import TypeAlias

import msgspec

from cardgames.engine.all_fours.config import Config
from cardgames.engine.core.events import (
    ClockCharged,
    ClockMarked,
    GameAborted,
    MatchSeeded,
    SeatHandedOver,
    SeatResigned,
    SeatTimedOut,
    Shuffled,
    TokenReissued,
)


class Cut(msgspec.Struct, frozen=True):
    """One card cut by ``seat`` in cutting round ``round`` (A4)."""

    round: int
    seat: int
    card: str


class MatchCreated(msgspec.Struct, frozen=True, tag="match_created", tag_field="type"):
    """A new match: its rules, seats, sides, the first dealer when given, the starting scores."""

    config: Config
    players: int
    sides: tuple[tuple[int, ...], ...]
    scores: tuple[int, ...]
    dealer: int | None = None


class DealerChosen(msgspec.Struct, frozen=True, tag="dealer_chosen", tag_field="type"):
    """The first dealer, chosen by cutting (A4). Public, with every cut card."""

    cuts: tuple[Cut, ...]
    dealer: int


class HandStarted(msgspec.Struct, frozen=True, tag="hand_started", tag_field="type"):
    """A deal begins (A5, A9 redeal, A13): every card is gathered and shuffled."""

    hand_no: int
    redeal_no: int
    dealer: int
    eldest: int


class CardsDealt(msgspec.Struct, frozen=True, tag="cards_dealt", tag_field="type"):
    """Cards dealt to ``seat`` (private; the public form keeps ``count``).

    ``held_back``: under ``beg_phase_hand_visibility = dealer_and_eldest_only`` the seat
    does not see these cards until trump is fixed (D); they reach it in ``CardsDelivered``.
    """

    seat: int
    count: int
    cards: tuple[str, ...] = ()
    run_index: int = 0
    held_back: bool = False


class CardsDelivered(msgspec.Struct, frozen=True, tag="cards_delivered", tag_field="type"):
    """Trump is fixed: a seat whose cards were held back now sees its whole hand (D)."""

    seat: int
    count: int
    cards: tuple[str, ...] = ()


class CardTurnedUp(msgspec.Struct, frozen=True, tag="card_turned_up", tag_field="type"):
    """The turn-up (kick) of the deal (``run_index`` 0) or of run k (A6, A9)."""

    card: str
    run_index: int


class TurnUpSetAside(msgspec.Struct, frozen=True, tag="turn_up_set_aside", tag_field="type"):
    """A rejected turn-up is set aside face up (A9)."""

    card: str


class TrumpFixed(msgspec.Struct, frozen=True, tag="trump_fixed", tag_field="type"):
    """Trump is fixed (A8); trick play starts with the eldest's lead."""

    suit: str
    card: str


class Stood(msgspec.Struct, frozen=True, tag="stood", tag_field="type"):
    seat: int


class Begged(msgspec.Struct, frozen=True, tag="begged", tag_field="type"):
    seat: int


class GaveOne(msgspec.Struct, frozen=True, tag="gave_one", tag_field="type"):
    dealer: int


class PackRun(msgspec.Struct, frozen=True, tag="pack_run", tag_field="type"):
    """The dealer deals run ``run_index`` (1, 2, ...) of the pack (A9)."""

    dealer: int
    run_index: int


class PackExhausted(msgspec.Struct, frozen=True, tag="pack_exhausted", tag_field="type"):
    """Too few cards for another run: the same dealer deals again (A9)."""

    dealer: int
    stock_size: int


class CardExposed(msgspec.Struct, frozen=True, tag="card_exposed", tag_field="type"):
    """An out-of-turn play exposes the card; it stays in the hand (A14)."""

    seat: int
    card: str


class ExposedCardCalled(msgspec.Struct, frozen=True, tag="exposed_card_called", tag_field="type"):
    """``caller`` calls ``owner``'s exposed card; a CardPlayed follows (A14)."""

    caller: int
    owner: int
    card: str


class CardPlayed(msgspec.Struct, frozen=True, tag="card_played", tag_field="type"):
    seat: int
    card: str
    trick_no: int


class TrickWon(msgspec.Struct, frozen=True, tag="trick_won", tag_field="type"):
    """Trick ``trick_no`` (from 1) is gathered by ``seat``'s side (A10)."""

    seat: int
    trick_no: int
    cards: tuple[str, ...]


class PointsScored(msgspec.Struct, frozen=True, tag="points_scored", tag_field="type"):
    """An award (A12): ``reason`` kick, give_one, high, low, jack, hang_jack or game; ``totals`` after it."""

    side: int
    amount: int
    reason: str
    totals: tuple[int, ...]
    card: str | None = None


class HandScored(msgspec.Struct, frozen=True, tag="hand_scored", tag_field="type"):
    """End-of-hand scoring ran (A11); the facts behind its awards.

    ``jack_outcome``: ``jack`` (kept by the holder's side), ``hang_jack``, ``captured``
    (capture_only), ``not_in_play``, or ``not_scored`` (jack_scoring none);
    ``jack_holder`` is the seat that held the jack of trumps, ``jack_taker`` the side that won it.
    """

    game_totals: tuple[int, ...]
    high_card: str | None = None
    high_holder: int | None = None
    low_card: str | None = None
    low_holder: int | None = None
    jack_outcome: str = "not_in_play"
    jack_holder: int | None = None
    jack_taker: int | None = None


class MatchWon(msgspec.Struct, frozen=True, tag="match_won", tag_field="type"):
    """``side`` reached the target with an award of ``reason`` (A12)."""

    side: int
    reason: str
    scores: tuple[int, ...]


Event: TypeAlias = (
    MatchCreated
    | MatchSeeded
    | Shuffled
    | DealerChosen
    | HandStarted
    | CardsDealt
    | CardsDelivered
    | CardTurnedUp
    | TurnUpSetAside
    | TrumpFixed
    | Stood
    | Begged
    | GaveOne
    | PackRun
    | PackExhausted
    | CardExposed
    | ExposedCardCalled
    | CardPlayed
    | TrickWon
    | PointsScored
    | HandScored
    | MatchWon
    | SeatTimedOut
    | ClockCharged
    | ClockMarked
    | SeatResigned
    | GameAborted
    | SeatHandedOver
    | TokenReissued
)
