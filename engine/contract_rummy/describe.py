"""One readable line per event, for ``cardgames play`` and logs (None for events not worth a line), and
the match's score sheet."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from cardgames.engine.contract_rummy.events import (
    CardLaidOff,
    CardsDealt,
    ContractMelded,
    DealBlocked,
    DealerCardDrawn,
    DealerChosen,
    DealScored,
    DealStarted,
    DiscardDrawn,
    DiscardDug,
    Discarded,
    GameEnded,
    JokerSwapped,
    MatchCreated,
    MeldsAdded,
    PlayerWentOut,
    StockDrawn,
    StockRefilled,
    UpcardTurned,
)
from cardgames.engine.core.score_sheet import Row, ScoreSheet, seat_sides


def _cards(cards: Sequence[str]) -> str:
    return " ".join(cards) if cards else "-"


def _melds(melds: Sequence[Sequence[str]]) -> str:
    return "  ".join(f"[{_cards(cards)}]" for cards in melds)


def _contract(sets: int, runs: int) -> str:
    parts = []
    if sets:
        parts.append(f"{sets} set{'s' if sets > 1 else ''}")
    if runs:
        parts.append(f"{runs} run{'s' if runs > 1 else ''}")
    return " + ".join(parts)


def _seats(seats: Sequence[int]) -> str:
    return ", ".join(f"seat {seat}" for seat in seats)


_LINES: dict[type, Callable[[Any], str]] = {
    MatchCreated: lambda e: (
        f"Contract Rummy for {e.players} players" + (f", seat {e.dealer} deals first" if e.dealer is not None else "")
    ),
    DealerCardDrawn: lambda e: (
        f"seat {e.seat} draws {e.card} for the deal" + (f" (redraw {e.round})" if e.round else "")
    ),
    DealerChosen: lambda e: f"seat {e.dealer} deals first",
    DealStarted: lambda e: (
        f"Deal {e.deal}: seat {e.dealer} deals {e.hand_size} cards each; contract {_contract(e.sets, e.runs)}"
    ),
    CardsDealt: lambda e: f"seat {e.seat} is dealt {_cards(e.cards) if e.cards else f'{e.count} cards'}",
    UpcardTurned: lambda e: f"upcard {e.card}; {e.stock_size} cards in the stock",
    StockRefilled: lambda e: (
        f"the stock is refilled with {len(e.cards)} cards from the discard pile"
        + (" (shuffled)" if e.shuffled else " (turned over)")
    ),
    StockDrawn: lambda e: f"seat {e.seat} draws {e.card or 'a card'} from the stock",
    DiscardDrawn: lambda e: f"seat {e.seat} takes {e.card} from the discard pile",
    DiscardDug: lambda e: (
        f"seat {e.seat} digs {e.depth} deep in the discard pile for {e.cards[-1]}, taking {_cards(e.cards)}"
    ),
    ContractMelded: lambda e: f"seat {e.seat} goes down: {_melds(e.melds)}",
    MeldsAdded: lambda e: f"seat {e.seat} lays down {_melds(e.melds)}",
    CardLaidOff: lambda e: f"seat {e.seat} lays {e.card} off on meld {e.meld}" + (f" ({e.end} end)" if e.end else ""),
    JokerSwapped: lambda e: (
        f"seat {e.seat} puts {e.card} in place of the joker in meld {e.meld} and lays "
        + (
            f"it off on meld {e.to_meld} as {e.joker_as[3:]}"
            if e.new_meld is None
            else f"it down in a new meld [{_cards(e.new_meld)}]"
        )
    ),
    Discarded: lambda e: f"seat {e.seat} discards {e.card}",
    PlayerWentOut: lambda e: f"seat {e.seat} goes out",
    DealBlocked: lambda e: f"deal {e.deal} is blocked: {e.reason}",
    DealScored: lambda e: f"deal {e.deal} scored: penalties {list(e.penalties)}, totals {list(e.totals)}",
    GameEnded: lambda e: (
        f"game over: {'winner' if len(e.winners) == 1 else 'co-winners'} "
        f"{_seats(e.winners)} with {min(e.totals)}; totals {list(e.totals)}"
    ),
}


def describe(event: Any) -> str | None:
    line = _LINES.get(type(event))
    return None if line is None else line(event)


def score_sheet(events: Iterable[Any]) -> ScoreSheet:
    """Each deal's penalty points per seat (with its contract and who went out), then the totals."""
    players, totals = 0, tuple[int, ...]()
    starting: tuple[int, ...] = ()
    rows: list[Row] = []
    contract = ""
    for event in events:
        if isinstance(event, MatchCreated):
            players, starting = event.players, event.scores
        elif isinstance(event, DealStarted):
            contract = _contract(event.sets, event.runs)
        elif isinstance(event, DealScored):
            ending = f"seat {event.out} went out" if event.out is not None else "blocked: nobody went out"
            rows.append(Row(str(event.deal), tuple(map(str, event.penalties)), f"{contract}; {ending}"))
            totals = event.totals
    if any(starting):
        rows.insert(0, Row("start", tuple(map(str, starting)), "the totals the match started from"))
    return ScoreSheet(
        title="Penalty points (the lowest total wins)",
        unit="deal",
        sides=seat_sides(players),
        rows=tuple(rows),
        total_label="total",
        totals=tuple(map(str, totals or starting or (0,) * players)),
        note="contract; how it ended",
    )
