"""The schedule of a tournament: round robin, seat rotation, duplicate deals, partnerships.

A match is played by *sides*: a partnership (seats played by one entrant, as the game's
traits declare them: in Seep and four-player All Fours, seats 0 and 2 against 1 and 3) or a
single seat (free-for-all, Contract Rummy; two-player All Fours). A
*table* is a choice of entrants, one per side: every combination of ``sides`` entrants
when there are at least that many (a round robin), else all of them, around again.

Every table plays ``matches`` matches in rounds, rotating its entrants around the sides
(round i: side s is played by ``table[(s + i) % len(table)]``), so each entrant plays each
side equally often. Without ``duplicate`` every match has a deal of its own. With it, each
deal (the same seed, so the same shuffles) is played once in every rotation, by one of
three schemes:

* ``disjoint`` (the default whenever an entrant is remote): a deal's ``k`` rotations are
  played at ``k`` tables that share no entrant, so **no entrant ever plays a deal twice**
  (it never holds, in one match, the cards its opponent held in another). That needs
  ``k * k`` entrants at least (:func:`disjoint_possible`). Each table still plays every
  rotation once per ``k`` rounds, with another deal each time;
* ``table`` (built-in entrants only, or a tournament created ``trusted``): a table plays
  each of its deals in all ``k`` rotations itself, so every entrant of the table holds every
  hand of the deal once, which cancels the luck of the deal inside the table; deals are
  never shared between tables;
* ``shared``: tournaments stored before the other two: as ``table``, but deal d was the
  same at every table (kept so that their schedules read back as they were played).

Matches are interleaved table by table, round by round, so standings fill in evenly.
Everything is a pure function of the tournament's settings and seed: a restarted runner
computes the same schedule. Deal d's seed is ``sha256("<tournament seed>:<d>")`` in hex
(:func:`deal_seed`), so one deal's seed, once revealed, tells nothing of another's.
"""

from __future__ import annotations

import hashlib
import itertools
from collections import Counter, deque
from collections.abc import Sequence
from functools import lru_cache
from math import comb
from typing import Final

import msgspec

from cardgames.engine.core.registry import get_game

DISJOINT: Final = "disjoint"
TABLE: Final = "table"
SHARED: Final = "shared"
SCHEMES: Final = (DISJOINT, TABLE, SHARED)
#: The largest round robin (in tables) that disjoint duplicate deals are built for.
MAX_DISJOINT_TABLES: Final = 5_000


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
    """The seats of each side: the game's partnerships for ``players`` seats, else one seat each."""
    return get_game(game).TRAITS.sides(players)


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


def disjoint_possible(entrants: int, sides: int) -> bool:
    """Whether a deal's rotations can go to entrants that are all different (``sides ** 2`` of them)."""
    return entrants >= sides * sides


@lru_cache(maxsize=32)
def deal_groups(entrants: int, sides: int) -> tuple[tuple[int, ...], ...]:
    """For the round robin of ``entrants`` (numbered) by ``sides``: groups of ``sides`` tables that
    share no entrant, table ``groups[g][r]`` playing group g's deal in rotation r; for each r,
    ``groups[g][r]`` runs over every table (numbered as :func:`tables` lists them) once.

    The tables are first split into classes of pairwise disjoint tables, ``sides`` to
    ``entrants // sides`` of them each (:func:`baranyai`); a class of tables ``t_0 .. t_{a-1}``
    then makes ``a`` groups, group j playing at ``t_{(j + r) % a}`` in rotation r.
    """
    if not disjoint_possible(entrants, sides):
        raise ValueError(f"a deal's {sides} rotations need {sides * sides} different entrants, not {entrants}")
    total, widest = comb(entrants, sides), entrants // sides
    if total > MAX_DISJOINT_TABLES:
        raise ValueError(f"{total:,} tables: disjoint duplicate deals are built for {MAX_DISJOINT_TABLES:,} at most")
    count = -(-total // widest)
    if count * sides > total:
        raise ValueError(f"the {total:,} tables of {entrants} entrants do not split into classes of {sides} to "
                         f"{widest} disjoint tables")
    sizes = [total // count + (index < total % count) for index in range(count)]
    number = {sum(1 << member for member in table): index
              for index, table in enumerate(itertools.combinations(range(entrants), sides))}
    groups: list[tuple[int, ...]] = []
    for members in baranyai(entrants, sides, sizes):
        ring = [number[mask] for mask in members]
        groups.extend(tuple(ring[(j + rotation) % len(ring)] for rotation in range(sides)) for j in range(len(ring)))
    return tuple(groups)


class _Flow:
    """A maximum flow (Dinic's algorithm) on a small graph of integer capacities."""

    def __init__(self, nodes: int) -> None:
        self.edges: list[list[int]] = [[] for _ in range(nodes)]
        self.to: list[int] = []
        self.capacity: list[int] = []

    def add(self, tail: int, head: int, capacity: int) -> int:
        """An arc (and its reverse, at ``id ^ 1``); returns its id."""
        for a, b, c in ((tail, head, capacity), (head, tail, 0)):
            self.edges[a].append(len(self.to))
            self.to.append(b)
            self.capacity.append(c)
        return len(self.to) - 2

    def run(self, source: int, sink: int) -> int:
        total = 0
        while True:
            level = [-1] * len(self.edges)
            level[source] = 0
            queue = deque([source])
            while queue:
                node = queue.popleft()
                for edge in self.edges[node]:
                    if self.capacity[edge] > 0 and level[self.to[edge]] < 0:
                        level[self.to[edge]] = level[node] + 1
                        queue.append(self.to[edge])
            if level[sink] < 0:
                return total
            cursor = [0] * len(self.edges)
            while pushed := self._augment(source, sink, level, cursor):
                total += pushed

    def _augment(self, source: int, sink: int, level: list[int], cursor: list[int]) -> int:
        """Push along one path of the level graph (an iterative depth-first search); 0 when none is left."""
        path: list[int] = []
        node = source
        while node != sink:
            edges = self.edges[node]
            while cursor[node] < len(edges):
                edge = edges[cursor[node]]
                if self.capacity[edge] > 0 and level[self.to[edge]] == level[node] + 1:
                    break
                cursor[node] += 1
            else:
                if not path:
                    return 0
                level[node] = -1  # a dead end for the rest of this phase
                node = self.to[path.pop() ^ 1]
                cursor[node] += 1
                continue
            path.append(edge)
            node = self.to[edge]
        amount = min(self.capacity[edge] for edge in path)
        for edge in path:
            self.capacity[edge] -= amount
            self.capacity[edge ^ 1] += amount
        return amount


def _bounded_flow(nodes: int, arcs: Sequence[tuple[int, int, int, int]]) -> list[int]:
    """An integral circulation on ``nodes`` nodes whose flow on each arc ``(tail, head, low, high)`` is
    within its bounds: those flows, arc by arc (the usual reduction to one maximum flow)."""
    source, sink = nodes, nodes + 1
    flow = _Flow(nodes + 2)
    excess = [0] * nodes
    ids = []
    for tail, head, low, high in arcs:
        ids.append(flow.add(tail, head, high - low))
        excess[head] += low
        excess[tail] -= low
    for node, amount in enumerate(excess):
        if amount > 0:
            flow.add(source, node, amount)
        elif amount < 0:
            flow.add(node, sink, -amount)
    if flow.run(source, sink) != sum(amount for amount in excess if amount > 0):
        raise ValueError("no integral flow within the bounds")
    return [high - flow.capacity[edge] for (_, _, _, high), edge in zip(arcs, ids, strict=True)]


def baranyai(n: int, k: int, sizes: Sequence[int]) -> list[list[int]]:
    """The k-subsets of ``range(n)`` (as bitmasks) split into classes of pairwise disjoint subsets,
    class i holding ``sizes[i]`` of them (Baranyai's theorem: possible when each ``size * k <= n``).

    Built as Brouwer and Schrijver prove it: every class starts as ``size`` empty sets and the
    elements are added one at a time. Spreading element v evenly over the partial sets of every
    class is a fractional flow (partial set X of a class gets ``copies * (k - |X|) / (n - v)`` of
    it, every X in all ``C(n - v - 1, k - |X| - 1)`` times); an integral flow within the floor and
    ceiling of each of its arcs says which partial set of each class takes v.
    """
    if sum(sizes) != comb(n, k) or any(size * k > n for size in sizes):
        raise ValueError(f"the {k}-subsets of {n} elements make no classes of sizes {list(sizes)}")
    classes = [[0] * size for size in sizes]
    for v in range(n):
        left = n - v
        counts = [Counter(partial for partial in members if partial.bit_count() < k) for members in classes]
        partials = sorted(set().union(*counts))
        node = {partial: len(classes) + index for index, partial in enumerate(partials)}
        start, end = len(classes) + len(partials), len(classes) + len(partials) + 1
        arcs = [(end, start, 0, len(classes))]
        takers: list[tuple[int, int]] = []  # the (class, partial set) of each arc from a class
        for index, count in enumerate(counts):
            total = 0
            for partial, copies in count.items():
                share = copies * (k - partial.bit_count())  # its fractional flow, times ``left``
                total += share
                arcs.append((index, node[partial], share // left, -(-share // left)))
                takers.append((index, partial))
            arcs.append((start, index, total // left, -(-total // left)))
        arcs.extend((node[partial], end, need, need)
                    for partial in partials for need in [comb(left - 1, k - partial.bit_count() - 1)])
        flows = iter(_bounded_flow(end + 1, arcs)[1:])
        taken: list[int] = []
        for count in counts:
            taken.extend(next(flows) for _ in count)
            if next(flows) > 1:  # a class's arc: it takes v once at most (it stays pairwise disjoint)
                raise ValueError("a class took an element twice")
        for (index, partial), amount in zip(takers, taken, strict=True):
            members = classes[index]
            for _ in range(amount):
                members[members.index(partial)] = partial | (1 << v)
    return classes


def schedule(
    game: str,
    players: int,
    entrants: Sequence[str],
    *,
    matches: int | None = None,
    duplicate: bool = False,
    seed: str,
    scheme: str = TABLE,
) -> list[MatchSpec]:
    """Every match of the tournament, in the order it is played (see the module's docstring)."""
    if len(entrants) < 2:
        raise ValueError("a tournament needs at least two entrants")
    if len(set(entrants)) != len(entrants):
        raise ValueError("entrant names must be distinct")
    if scheme not in SCHEMES:
        raise ValueError(f"unknown duplicate scheme {scheme!r}; schemes: {', '.join(SCHEMES)}")
    side_seats = sides_of(game, players)
    count = len(side_seats)
    per_table = matches_per_table(matches, count, duplicate)
    all_tables = tables(entrants, count)
    deals = _deals(len(entrants), count, len(all_tables), per_table, duplicate, scheme)
    specs: list[MatchSpec] = []
    for round_no in range(per_table):
        rotation = round_no % count
        for table_no, table in enumerate(all_tables):
            match_no = len(specs)
            deal_no = match_no if deals is None else deals[round_no][table_no]
            sides = tuple(table[(side + rotation) % len(table)] for side in range(count))
            seats = [""] * players
            for side, seat_numbers in enumerate(side_seats):
                for seat in seat_numbers:
                    seats[seat] = sides[side]
            specs.append(
                MatchSpec(match_no, deal_no, table_no, rotation, sides, tuple(seats), deal_seed(seed, deal_no))
            )
    return specs


def _deals(
    entrants: int, sides: int, table_count: int, rounds: int, duplicate: bool, scheme: str
) -> list[list[int]] | None:
    """The deal of each (round, table) with duplicate deals; None without (a deal per match)."""
    if not duplicate:
        return None
    if scheme == SHARED:
        return [[round_no // sides] * table_count for round_no in range(rounds)]
    if scheme == TABLE:
        return [[(round_no // sides) * table_count + table for table in range(table_count)]
                for round_no in range(rounds)]
    groups = deal_groups(entrants, sides)
    group_of = [[0] * table_count for _ in range(sides)]  # rotation -> table -> group
    for group, members in enumerate(groups):
        for rotation, table in enumerate(members):
            group_of[rotation][table] = group
    return [[(round_no // sides) * table_count + group_of[round_no % sides][table] for table in range(table_count)]
            for round_no in range(rounds)]
