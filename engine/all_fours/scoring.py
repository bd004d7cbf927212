"""Awards and end-of-hand scoring (A6 kick, A7 give one, A11 High/Low/Jack/Game, A12 order and the win)."""

from __future__ import annotations

from typing import Any

from cardgames.engine.all_fours.cards import POWER, count_points, side_of
from cardgames.engine.all_fours.config import Config
from cardgames.engine.all_fours.events import HandScored, MatchWon, PointsScored


def award(
    events: list[Any],
    config: Config,
    scores: tuple[int, ...],
    side: int,
    points: int,
    reason: str,
    card: str | None = None,
) -> tuple[tuple[int, ...], bool]:
    """Apply one award (A12): emit PointsScored when worth more than 0; True when it wins the match."""
    if points <= 0:
        return scores, False
    totals = list(scores)
    totals[side] += points
    new = tuple(totals)
    events.append(PointsScored(side=side, amount=points, reason=reason, totals=new, card=card))
    return new, new[side] >= config.target_score


def win(events: list[Any], scores: tuple[int, ...], side: int, reason: str) -> None:
    events.append(MatchWon(side=side, reason=reason, scores=scores))


def kick(
    events: list[Any], config: Config, scores: tuple[int, ...], dealer: int, card: str
) -> tuple[tuple[int, ...], bool]:
    """Kick points for a turn-up to the dealer's side, checked for the match at once (A6)."""
    points = config.kick_values.get(card[:-1], 0)
    scores, won = award(events, config, scores, side_of(dealer), points, "kick", card)
    if won:
        win(events, scores, side_of(dealer), "kick")
    return scores, won


def score_hand(
    events: list[Any],
    config: Config,
    scores: tuple[int, ...],
    dealer: int,
    trump: str,
    in_play: tuple[tuple[str, ...], ...],
    tricks_won: tuple[tuple[str, ...], ...],
) -> tuple[tuple[int, ...], bool]:
    """End-of-hand scoring (A11) in the order of A12, stopping at the award that wins.

    ``in_play`` are the hands as trick play began (the holders); ``tricks_won`` the
    cards each side took, the last trick included. Emits the awards, then HandScored,
    then MatchWon when one award won.
    """
    trumps = [(POWER[card], card, seat) for seat, hand in enumerate(in_play) for card in hand if card[-1] == trump]
    high = max(trumps) if trumps else None
    low = min(trumps) if trumps else None
    jack = "J" + trump
    jack_holder = next((seat for seat, hand in enumerate(in_play) if jack in hand), None)
    jack_taker = None
    if jack_holder is not None:
        jack_taker = 0 if jack in tricks_won[0] else 1
    totals = tuple(count_points(cards) for cards in tricks_won)

    plan: list[tuple[int, int, str, str | None]] = []  # (side, points, reason, card)
    if high is not None and low is not None:
        plan.append((side_of(high[2]), 1, "high", high[1]))
        plan.append((side_of(low[2]), 1, "low", low[1]))
    outcome = "not_in_play"
    if config.jack_scoring == "none":
        outcome = "not_scored"
    elif jack_holder is not None and jack_taker is not None:
        if config.jack_scoring == "capture_only":
            outcome = "captured"
            plan.append((jack_taker, 1, "jack", jack))
        elif jack_taker == side_of(jack_holder):
            outcome = "jack"
            plan.append((jack_taker, 1, "jack", jack))
        else:
            outcome = "hang_jack"
            plan.append((jack_taker, config.hang_jack_points, "hang_jack", jack))
    game_side: int | None = None
    if totals[0] != totals[1]:
        game_side = 0 if totals[0] > totals[1] else 1
    elif config.game_tie == "dealer_side":
        game_side = side_of(dealer)
    elif config.game_tie == "non_dealer_side":
        game_side = 1 - side_of(dealer)
    if game_side is not None:
        plan.append((game_side, config.game_point_value, "game", None))

    winner: tuple[int, str] | None = None
    for side, points, reason, card in plan:
        scores, won = award(events, config, scores, side, points, reason, card)
        if won:
            winner = (side, reason)
            break
    events.append(
        HandScored(
            game_totals=totals,
            high_card=high[1] if high else None,
            high_holder=high[2] if high else None,
            low_card=low[1] if low else None,
            low_holder=low[2] if low else None,
            jack_outcome=outcome,
            jack_holder=jack_holder,
            jack_taker=jack_taker,
        )
    )
    if winner is not None:
        win(events, scores, *winner)
    return scores, winner is not None
