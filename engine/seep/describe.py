"""A readable account of a match: one line per event, the floor after each play, the table as text
and the score sheet, for ``cardgames play``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from cardgames.engine.core.events import MatchSeeded, Shuffled
from cardgames.engine.core.score_sheet import Row, ScoreSheet, team_side
from cardgames.engine.core.wording import a_number, plural
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
    FloorDealt,
    FloorRevealed,
    LeftoverAwarded,
    MatchCreated,
    MatchEnded,
    Redealt,
    SweepScored,
    Thrown,
)
from cardgames.engine.seep.state import PLAY, House
from cardgames.engine.seep.view import View

TEAMS = ("team 0 (seats 0+2)", "team 1 (seats 1+3)")


def _cards(cards: tuple[str, ...]) -> str:
    return " ".join(cards) if cards else "-"


def _groups(groups: tuple[tuple[str, ...], ...]) -> str:
    return ", ".join("{" + " ".join(group) + "}" for group in groups)


def house_text(house: House) -> str:
    """``11-house [5D 6H | JS] cemented, owners 1 3``."""
    parts = " | ".join(" ".join(component) for component in house.components)
    kind = "cemented" if house.cemented else "ordinary"
    owners = " ".join(str(owner) for owner in house.owners)
    return f"{house.value}-house [{parts}] {kind}, owner{'s' if len(house.owners) > 1 else ''} {owners}"


def _owners(owners: tuple[int, ...]) -> str:
    return "seat" + ("s " if len(owners) > 1 else " ") + " ".join(str(owner) for owner in owners)


def describe(event: Any) -> str | None:
    """One line for the events worth telling; None for the hidden chance events."""
    if isinstance(event, MatchSeeded | Shuffled):
        return None
    if isinstance(event, MatchCreated):
        dealer = "drawn" if event.dealer is None else f"seat {event.dealer}"
        return f"Seep match: {plural(event.config.baazis_to_play, 'baazi')} to play, first dealer {dealer}"
    if isinstance(event, DealerChosen):
        return f"{event.card} is drawn: seat {event.dealer} deals first"
    if isinstance(event, DealStarted):
        again = f" (attempt {event.attempt})" if event.attempt > 1 else ""
        return f"Deal {event.deal}{again}: seat {event.dealer} deals, seat {(event.dealer + 1) % 4} bids"
    if isinstance(event, CardsDealt):
        shown = f": {_cards(event.cards)}" if event.cards else ""
        return f"seat {event.seat} is dealt {event.count} cards{shown}"
    if isinstance(event, FloorDealt):
        return f"{event.count} cards are dealt face down to the floor"
    if isinstance(event, Redealt):
        return f"seat {event.seat} holds nothing above 8 ({_cards(event.cards)}): the deal is void"
    if isinstance(event, BidMade):
        return f"seat {event.seat} bids {event.value}"
    if isinstance(event, FloorRevealed):
        return f"the floor is turned up: {_cards(event.cards)}"
    if isinstance(event, Captured):
        taken = []
        if event.groups:
            taken.append(_groups(event.groups))
        if event.house is not None:
            taken.append(f"the {house_text(event.house)}")
        return f"#{event.play} seat {event.seat} captures with {event.card}: {' and '.join(taken)}"
    if isinstance(event, Thrown):
        return f"#{event.play} seat {event.seat} throws {event.card}"
    if isinstance(event, Built):
        house = {"new": a_number(event.value), "cement": f"cements the {event.value}",
                 "add": f"adds to the {event.value}"}[event.action]
        verb = "builds " if event.action == "new" else ""
        merged = f", loose {_cards(event.merged)} merged in" if event.merged else ""
        return (
            f"#{event.play} seat {event.seat} {verb}{house}-house with {event.card}: "
            f"{_groups(event.groups)}{merged}; owners {_owners(event.owners)}"
        )
    if isinstance(event, Broken):
        into = f", joining the {event.value}-house" if event.joined else ""
        merged = f", loose {_cards(event.merged)} merged in" if event.merged else ""
        return (
            f"#{event.play} seat {event.seat} breaks the {event.house}-house with {event.card} "
            f"up to {event.value}{into}{merged}; owners {_owners(event.owners)}"
        )
    if isinstance(event, SweepScored):
        return f"SWEEP! seat {event.seat} clears the floor on play #{event.play}: {event.points} for team {event.team}"
    if isinstance(event, LeftoverAwarded):
        if not event.cards:
            return "no loose cards are left over"
        to = "nobody (no capture this deal)" if event.team is None else f"team {event.team}"
        return f"leftover {_cards(event.cards)} goes to {to}"
    if isinstance(event, DealScored):
        parts = []
        for side in (0, 1):
            extra = f" + {event.sweeps[side]} sweeps" if event.sweeps[side] else ""
            bonus = f" + {event.bonus[side]} bonus" if event.bonus[side] else ""
            parts.append(f"team {side} {event.card_points[side]}{extra}{bonus} = {event.scores[side]}")
        if event.baazi_winner is not None:
            return f"deal scored: {'; '.join(parts)}; team {event.baazi_winner} takes the baazi, difference reset to 0"
        return f"deal scored: {'; '.join(parts)}; difference {event.difference:+d}"
    if isinstance(event, BaaziWon):
        why = "the 9-point rule" if event.reason == "minimum" else "a 100-point lead"
        return f"{TEAMS[event.team]} wins a baazi by {why}; baazis {event.baazis[0]}-{event.baazis[1]}"
    if isinstance(event, MatchEnded):
        winner = "a draw" if event.winner is None else f"{TEAMS[event.winner]} wins"
        return f"match over: {winner}, baazis {event.baazis[0]}-{event.baazis[1]}"
    return None


def floor_text(view: View) -> str | None:
    """The floor on one line, for the account after each play: loose cards, houses with their
    owners, the deal's sweeps so far; None outside play (the floor is face down during the bid)."""
    if view.phase != PLAY:
        return None
    parts = [f"floor: {_cards(view.loose)}", *(house_text(house) for house in view.houses)]
    if any(view.sweeps):
        parts.append(f"sweeps {view.sweeps[0]}-{view.sweeps[1]}")
    return " | ".join(parts)


def table_text(view: View) -> str:
    """The floor, houses with owners, piles, sweeps and the match account, as a few lines of text."""
    lines = []
    if view.face_down:
        lines.append(f"floor: {view.face_down} cards face down (bid pending)")
    else:
        lines.append(f"floor: {_cards(view.loose)}")
    lines.extend(f"  {house_text(house)}" for house in view.houses)
    bid = "-" if view.bid is None else str(view.bid)
    turn = "-" if view.to_act is None else f"seat {view.to_act}"
    lines.append(f"dealer {view.dealer}, bid {bid}, play {view.plays}/48, to act: {turn}")
    if view.viewer is not None:
        lines.append(f"your hand: {_cards(view.hand)}")
    lines.append("hands: " + ", ".join(f"seat {seat} {size}" for seat, size in enumerate(view.hand_sizes)))
    if view.last_capture:
        lines.append(f"last capture (team {view.last_capture_team}): {_cards(view.last_capture)}")
    lines.append(
        f"piles {view.pile_sizes[0]}-{view.pile_sizes[1]} cards, sweeps {view.sweeps[0]}-{view.sweeps[1]}, "
        f"difference {view.difference:+d}, baazis {view.baazis[0]}-{view.baazis[1]}"
    )
    if view.last_deal_points is not None:
        lines.append(f"last deal: {view.last_deal_points[0]}-{view.last_deal_points[1]}")
    return "\n".join(lines)


def score_sheet(events: Iterable[Any]) -> ScoreSheet:
    """Each deal's points per team (card points, sweeps and bonus) and the running difference or the
    baazi it decided, then the baazis won."""
    rows: list[Row] = []
    baazis: tuple[int, int] = (0, 0)
    deal, lead = 0, 0
    for event in events:
        if isinstance(event, MatchCreated):
            baazis, lead = event.baazis, event.config.baazi_lead
            if any(baazis) or event.difference:
                rows.append(Row("start", ("", ""), f"baazis {baazis[0]}-{baazis[1]}, difference {event.difference:+d}"))
        elif isinstance(event, DealStarted):
            deal = event.deal
        elif isinstance(event, DealScored):
            note = f"difference {event.difference:+d}"
            rows.append(Row(str(deal), tuple(map(str, event.scores)), note))
        elif isinstance(event, BaaziWon):
            baazis = event.baazis
            why = "the 9-point rule" if event.reason == "minimum" else f"a lead of {lead} or more"
            rows[-1] = Row(rows[-1].label, rows[-1].cells, f"baazi to team {event.team} ({why})")
    return ScoreSheet(
        title="Deal points and baazis (the most baazis wins)",
        unit="deal",
        sides=(team_side("team 0", (0, 2)), team_side("team 1", (1, 3))),
        rows=tuple(rows),
        total_label="baazis",
        totals=tuple(map(str, baazis)),
        note="difference (team 0 - team 1) or baazi",
    )
