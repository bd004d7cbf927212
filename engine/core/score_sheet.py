"""A match's score sheet: what a player writes down after each deal, as data a tool can print.

A game exports ``score_sheet(events) -> ScoreSheet`` (reached through the registry, as
``describe``): from the match's events (its whole log, every one public once the match is
over) it gives one column per side that scores (a seat, or a partnership), one row per
deal, and the line under them (totals, or what decides the match). ``cardgames play``
prints it as a table, with each side's place (``outcome``) below.
"""

from __future__ import annotations

import msgspec


class Side(msgspec.Struct, frozen=True):
    """A column: its header (``seat 2``, ``team 0 (seats 0+2)``) and the seats that share it."""

    name: str
    seats: tuple[int, ...]


class Row(msgspec.Struct, frozen=True):
    """One deal: its label, one cell per side, and a note (who went out, who took what)."""

    label: str
    cells: tuple[str, ...]
    note: str = ""


class ScoreSheet(msgspec.Struct, frozen=True):
    """``title`` says what the numbers are (and which way wins); ``unit`` names a row (``deal``,
    ``hand``); ``total_label`` and ``totals`` make the line under the rows; ``note`` heads the
    notes column ("" when no row has a note)."""

    title: str
    unit: str
    sides: tuple[Side, ...]
    rows: tuple[Row, ...]
    total_label: str
    totals: tuple[str, ...]
    note: str = ""


def seat_sides(players: int) -> tuple[Side, ...]:
    """One side per seat: ``seat 0``, ``seat 1``..."""
    return tuple(Side(f"seat {seat}", (seat,)) for seat in range(players))


def team_side(name: str, seats: tuple[int, ...]) -> Side:
    """A partnership: ``team 0 (seats 0+2)``."""
    label = "seat" if len(seats) == 1 else "seats"
    return Side(f"{name} ({label} {'+'.join(map(str, seats))})", seats)
