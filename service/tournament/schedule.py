"""The schedule of a tournament: round robin, seat rotation, duplicate deals, partnerships.

A match is played by *sides*: a partnership (two seats of one entrant, Seep and four-player
All Fours) or a single seat (free-for-all, Contract Rummy; two-player All Fours). A
*table* is a choice of entrants, one per side: every combination of ``sides`` entrants
when there are at least that many (a round robin), else all of them, around again.

Every table plays ``matches`` matches, rotating its entrants around the sides (match i:
side s is played by ``table[(s + i) % len(table)]``), so each entrant plays each side
equally often. With ``duplicate`` the same deal (the same seed, so the same shuffles) is
replayed once per rotation: the same cards go to every entrant in turn, which cancels
the luck of the deal; and deal d is the same on every table. Without it every match has
a deal of its own. Matches are interleaved table by table, so standings fill in evenly.

Everything is a pure function of the tournament's settings and seed: a restarted runner
computes the same schedule.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Sequence
from typing import Final

import msgspec

#: Seats played together as one side, per game and player count (other counts: one seat per side).
PARTNERSHIPS: Final[dict[str, dict[int, tuple[tuple[int, ...], ...]]]] = {
    "seep": {4: ((0, 2), (1, 3))},
    "all_fours": {4: ((0, 2), (1, 3))},
}


class MatchSpec(msgspec.Struct, frozen=True):
    """One match of the schedule: its number (from 0), deal, rotation, and who plays each side and seat."""

    match_no: int
    deal_no: int
    table_no: int
    rotation: int
    sides: tuple[str, ...]
    seats: tuple[str, ...]
    seed: str


def sides_of(game: str, players: int) -> tuple[tuple[int, ...], ...]:
    """The seats of each side: partnerships where the game has them, else one seat each."""
    return PARTNERSHIPS.get(game, {}).get(players, tuple((seat,) for seat in range(players)))


def deal_seed(tournament_seed: str, deal_no: int) -> str:
    """The seed (64 hex digits) of deal ``deal_no``: SHA-256 of the tournament's seed and the number."""
    return hashlib.sha256(f"{tournament_seed}:{deal_no}".encode()).hexdigest()


def tables(entrants: Sequence[str], sides: int) -> list[tuple[str, ...]]:
    """Every choice of ``sides`` entrants (a round robin), or all entrants when there are fewer."""
    if len(entrants) >= sides:
        return list(itertools.combinations(entrants, sides))
    return [tuple(entrants)]


def matches_per_table(matches: int | None, sides: int, duplicate: bool) -> int:
    """``matches`` (default: one full rotation), rounded up to whole rotations with duplicate deals."""
    count = sides if matches is None else matches
    if count < 1:
        raise ValueError("a tournament plays at least one match per table")
    if duplicate:
        count = -(-count // sides) * sides
    return count


def schedule(
    game: str,
    players: int,
    entrants: Sequence[str],
    *,
    matches: int | None = None,
    duplicate: bool = False,
    seed: str,
) -> list[MatchSpec]:
    """Every match of the tournament, in the order it is played (see the module's docstring)."""
    if len(entrants) < 2:
        raise ValueError("a tournament needs at least two entrants")
    if len(set(entrants)) != len(entrants):
        raise ValueError("entrant names must be distinct")
    side_seats = sides_of(game, players)
    count = len(side_seats)
    per_table = matches_per_table(matches, count, duplicate)
    specs: list[MatchSpec] = []
    all_tables = tables(entrants, count)
    for round_no in range(per_table):
        rotation = round_no % count
        for table_no, table in enumerate(all_tables):
            match_no = len(specs)
            deal_no = round_no // count if duplicate else match_no
            sides = tuple(table[(side + rotation) % len(table)] for side in range(count))
            seats = [""] * players
            for side, seat_numbers in enumerate(side_seats):
                for seat in seat_numbers:
                    seats[seat] = sides[side]
            specs.append(
                MatchSpec(match_no, deal_no, table_no, rotation, sides, tuple(seats), deal_seed(seed, deal_no))
            )
    return specs
