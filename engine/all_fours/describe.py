"""One readable line per event, for ``cardgames play`` and logs, and the match's score sheet."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

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
from cardgames.engine.core.score_sheet import Row, ScoreSheet, team_side

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
    parts.append(_jack(e))
    return "Hand scored: " + ", ".join(parts)


def _jack(e: HandScored) -> str:
    """What became of the jack of trumps (A12: Jack, Hang Jack)."""
    if e.jack_outcome == "jack":
        return f"Jack kept by side {e.jack_taker} (seat {e.jack_holder})"
    if e.jack_outcome == "hang_jack":
        return f"Jack of seat {e.jack_holder} hanged by side {e.jack_taker}"
    if e.jack_outcome == "captured":
        return f"Jack won by side {e.jack_taker}"
    if e.jack_outcome == "not_scored":
        return "Jack not scored"
    return "no Jack (the jack of trumps was not dealt)"


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


def _award(e: PointsScored, game_totals: tuple[int, ...]) -> str:
    card = f" {e.card}" if e.card else ""
    if e.reason == "game" and game_totals:
        card = f" {_score(game_totals)}"
    amount = f" +{e.amount}" if e.amount != 1 else ""
    return f"{REASONS.get(e.reason, e.reason)}{card}{amount}: side {e.side}"


def score_sheet(events: Iterable[Any]) -> ScoreSheet:
    """Each hand's points per side (the awards, with the cards and the game count, in the notes), then
    the match score."""
    sides: tuple[tuple[int, ...], ...] = ((0,), (1,))
    scores: tuple[int, ...] = (0, 0)
    target = 0
    rows: list[Row] = []
    hand, awards, game_totals = 0, list[PointsScored](), tuple[int, ...]()

    def close() -> None:
        if awards:
            gained = [sum(award.amount for award in awards if award.side == side) for side in range(len(sides))]
            notes = ", ".join(_award(award, game_totals) for award in awards)
            rows.append(Row(str(hand), tuple(f"+{points}" if points else "-" for points in gained), notes))

    for event in events:
        if isinstance(event, MatchCreated):
            sides, scores, target = event.sides, event.scores, event.config.target_score
            if any(scores):
                rows.append(Row("start", tuple(map(str, scores)), "the score the match started from"))
        elif isinstance(event, HandStarted) and event.hand_no != hand:
            close()
            hand, awards, game_totals = event.hand_no, [], ()
        elif isinstance(event, PointsScored):
            awards.append(event)
            scores = event.totals
        elif isinstance(event, HandScored):
            game_totals = event.game_totals
    close()
    return ScoreSheet(
        title=f"Points per hand (the first side to {target} wins)",
        unit="hand",
        sides=tuple(team_side(f"side {number}", seats) for number, seats in enumerate(sides)),
        rows=tuple(rows),
        total_label="score",
        totals=tuple(map(str, scores)),
        note="awards",
    )
