"""One readable line per event, for ``cardgames play`` and logs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.all_fours.events import (
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

REASONS = {
    "kick": "Kick",
    "give_one": "Give One",
    "high": "High",
    "low": "Low",
    "jack": "Jack",
    "hang_jack": "Hang Jack",
    "game": "Game",
}
SUITS = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}


def _cards(cards: tuple[str, ...], count: int) -> str:
    return " ".join(cards) if cards else f"{count} cards"


def _created(e: MatchCreated) -> str:
    return f"All Fours, {e.players} players, to {e.config.target_score} points, scores {_score(e.scores)}"


def _score(scores: tuple[int, ...]) -> str:
    return "-".join(map(str, scores))


def _dealer_chosen(e: DealerChosen) -> str:
    cuts = ", ".join(f"seat {cut.seat} {cut.card}" for cut in e.cuts)
    return f"Cut for dealer: {cuts}; seat {e.dealer} deals"


def _hand_started(e: HandStarted) -> str:
    again = f" (redeal {e.redeal_no})" if e.redeal_no else ""
    return f"Hand {e.hand_no}{again}: seat {e.dealer} deals, seat {e.eldest} is eldest"


def _dealt(e: CardsDealt) -> str:
    return f"Seat {e.seat} is dealt {_cards(e.cards, e.count)}"


def _delivered(e: CardsDelivered) -> str:
    return f"Seat {e.seat} picks up {_cards(e.cards, e.count)}"


def _turned_up(e: CardTurnedUp) -> str:
    where = f" (run {e.run_index})" if e.run_index else ""
    return f"Turn-up{where}: {e.card}"


def _points(e: PointsScored) -> str:
    card = f" ({e.card})" if e.card else ""
    return f"Side {e.side} scores {REASONS.get(e.reason, e.reason)}{card}: {e.amount} ({_score(e.totals)})"


def _hand_scored(e: HandScored) -> str:
    parts = [f"Game {_score(e.game_totals)}"]
    if e.high_card:
        parts.append(f"High {e.high_card} (seat {e.high_holder})")
        parts.append(f"Low {e.low_card} (seat {e.low_holder})")
    parts.append(f"jack: {e.jack_outcome.replace('_', ' ')}")
    return "Hand scored: " + ", ".join(parts)


_LINES: dict[type, Callable[[Any], str]] = {
    MatchCreated: _created,
    DealerChosen: _dealer_chosen,
    HandStarted: _hand_started,
    CardsDealt: _dealt,
    CardsDelivered: _delivered,
    CardTurnedUp: _turned_up,
    TurnUpSetAside: lambda e: f"{e.card} is set aside",
    TrumpFixed: lambda e: f"Trump: {SUITS[e.suit]} ({e.card})",
    Stood: lambda e: f"Seat {e.seat} stands",
    Begged: lambda e: f"Seat {e.seat} begs",
    GaveOne: lambda e: f"Seat {e.dealer} gives one",
    PackRun: lambda e: f"Seat {e.dealer} runs the pack (run {e.run_index})",
    PackExhausted: lambda e: f"The pack is exhausted ({e.stock_size} left): seat {e.dealer} deals again",
    CardExposed: lambda e: f"Seat {e.seat} plays {e.card} out of turn: it is exposed",
    ExposedCardCalled: lambda e: f"Seat {e.caller} calls {e.card} of seat {e.owner}",
    CardPlayed: lambda e: f"Seat {e.seat} plays {e.card}",
    TrickWon: lambda e: f"Seat {e.seat} wins trick {e.trick_no} ({' '.join(e.cards)})",
    PointsScored: _points,
    HandScored: _hand_scored,
    MatchWon: lambda e: f"Side {e.side} wins the match {_score(e.scores)} ({REASONS.get(e.reason, e.reason)})",
}


def describe(event: Any) -> str | None:
    """A line for ``event``, or None for the hidden chance events."""
    line = _LINES.get(type(event))
    return line(event) if line else None
