"""Standings of a tournament: results, crosstable, openskill ratings and, for two entrants, the SPRT.

Results are counted pairwise: in a match, each two sides played by different entrants
make one game between them, won by the side with the better rank (draw when equal). A
two-sided match is thus one win, draw or loss; a four-handed free-for-all gives each
entrant three results. ``points`` are wins plus half the draws.

The SPRT of a two-entrant tournament counts each match ONCE (the results of one match are
not independent trials): the entrant whose best-placed side ranks better wins the match,
equal best ranks are a draw. In a two-sided match that is the pairwise result itself.

A match's result counts once every match of its deal is over (:func:`counted`): until then
a duplicate deal's result would tell the entrants still to play it something of its cards.

Ratings are openskill's Plackett-Luce model, updated match by match in schedule order
(so the same results always give the same ratings, whatever order the matches finished
in): each entrant in a match is one team ranked by its side's rank (an entrant that
plays several sides of one match is ranked by their mean). ``ordinal`` is
``mu - 3 sigma``, the conservative estimate the table sorts ties by.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec
from openskill.models import PlackettLuce

from cardgames.service.tournament.log import MatchFinished, TournamentState
from cardgames.service.tournament.schedule import MatchSpec, schedule, sides_of
from cardgames.service.tournament.sprt import SprtResult, sprt


class Record(msgspec.Struct):
    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def points(self) -> float:
        return self.wins + self.draws / 2


class Row(msgspec.Struct, frozen=True):
    rank: int
    name: str
    bot: str | None
    matches: int
    wins: int
    draws: int
    losses: int
    points: float
    score: float  #: points per game, 0..1
    mu: float
    sigma: float
    ordinal: float
    forfeits: int
    timeouts: int


class Standings(msgspec.Struct, frozen=True):
    tournament_id: str
    game: str
    played: int  #: matches whose results count (every match of their deal is over)
    total: int
    finished: bool
    rows: tuple[Row, ...]
    #: crosstable[a][b]: a's wins, draws and losses against b
    crosstable: dict[str, dict[str, tuple[int, int, int]]]
    sprt: SprtResult | None = None
    #: SHA-256 of the tournament's seed, from its creation; the seed itself once the tournament is over
    seed_commitment: str = ""
    seed: str = ""


def tournament_schedule(state: TournamentState) -> list[MatchSpec]:
    created = state.created
    return schedule(
        created.game,
        created.players,
        [entrant.name for entrant in created.entrants],
        matches=created.matches,
        duplicate=created.duplicate,
        seed=created.seed,
        scheme=created.scheme,
    )


def counted(state: TournamentState, specs: Sequence[MatchSpec]) -> list[int]:
    """The finished matches whose deal is over (every finished match once the tournament is), in order."""
    if state.over:
        return sorted(state.finished)
    unfinished = {spec.deal_no for spec in specs if spec.match_no not in state.finished}
    return sorted(match_no for match_no in state.finished if specs[match_no].deal_no not in unfinished)


def side_ranks(game: str, players: int, ranks: Sequence[int]) -> list[int]:
    """Each side's rank: the worst of its seats' (a side with a forfeiting seat loses)."""
    return [max(ranks[seat] for seat in seats) for seats in sides_of(game, players)]


def standings(state: TournamentState, *, elo0: float = 0.0, elo1: float = 10.0) -> Standings:
    created = state.created
    names = [entrant.name for entrant in created.entrants]
    bots = {entrant.name: entrant.bot for entrant in created.entrants}
    specs = tournament_schedule(state)
    records = {name: Record() for name in names}
    cross = {a: {b: Record() for b in names if b != a} for a in names}
    matches = dict.fromkeys(names, 0)
    forfeits = dict.fromkeys(names, 0)
    timeouts = dict.fromkeys(names, 0)
    model = PlackettLuce()
    ratings = {name: model.rating(name=name) for name in names}
    head_to_head = Record()  #: per match, the first entrant against the second (the SPRT's trials)
    done = counted(state, specs)
    for match_no in done:
        finished = state.finished[match_no]
        spec = specs[match_no]
        ranks = side_ranks(created.game, created.players, finished.ranks)
        _count_pairs(spec.sides, ranks, records, cross)
        if len(names) == 2:
            _count_match(names, spec.sides, ranks, head_to_head)
        for name in set(spec.sides):
            matches[name] += 1
        if finished.forfeited is not None:
            forfeits[spec.seats[finished.forfeited]] += 1
        timeouts_by = _timeouts(finished, spec)
        for name, count in timeouts_by.items():
            timeouts[name] += count
        _rate(model, ratings, spec.sides, ranks)
    rows = []
    for name in names:
        record, rating = records[name], ratings[name]
        rows.append(
            Row(0, name, bots[name], matches[name], record.wins, record.draws, record.losses, record.points,
                record.points / record.games if record.games else 0.0, rating.mu, rating.sigma, rating.ordinal(),
                forfeits[name], timeouts[name])
        )
    rows.sort(key=lambda row: (-row.points, -row.ordinal, row.name))
    rows = [msgspec.structs.replace(row, rank=index) for index, row in enumerate(rows, start=1)]
    table = {a: {b: (r.wins, r.draws, r.losses) for b, r in against.items()} for a, against in cross.items()}
    test = None
    if len(names) == 2:
        test = sprt(head_to_head.wins, head_to_head.draws, head_to_head.losses, elo0=elo0, elo1=elo1)
    return Standings(state.tournament_id, created.game, len(done), len(specs), state.over, tuple(rows),
                     table, test, created.seed_commitment, created.seed if state.over else "")


def _count_pairs(sides: Sequence[str], ranks: Sequence[int], records: dict[str, Record],
                 cross: dict[str, dict[str, Record]]) -> None:
    for i, a in enumerate(sides):
        for j in range(i + 1, len(sides)):
            b = sides[j]
            if a == b:
                continue
            if ranks[i] < ranks[j]:
                _add(records[a], cross[a][b], "wins")
                _add(records[b], cross[b][a], "losses")
            elif ranks[i] > ranks[j]:
                _add(records[a], cross[a][b], "losses")
                _add(records[b], cross[b][a], "wins")
            else:
                _add(records[a], cross[a][b], "draws")
                _add(records[b], cross[b][a], "draws")


def _count_match(names: Sequence[str], sides: Sequence[str], ranks: Sequence[int], record: Record) -> None:
    """One result for the match: ``names[0]`` against ``names[1]`` by their best-placed sides."""
    best = [min(rank for side, rank in zip(sides, ranks, strict=True) if side == name) for name in names]
    field = "wins" if best[0] < best[1] else "losses" if best[0] > best[1] else "draws"
    setattr(record, field, getattr(record, field) + 1)


def _add(total: Record, against: Record, field: str) -> None:
    setattr(total, field, getattr(total, field) + 1)
    setattr(against, field, getattr(against, field) + 1)


def _timeouts(finished: MatchFinished, spec: MatchSpec) -> dict[str, int]:
    counts: dict[str, int] = {}
    for seat, count in enumerate(finished.timeouts):
        counts[spec.seats[seat]] = counts.get(spec.seats[seat], 0) + count
    return counts


def _rate(model: Any, ratings: dict[str, Any], sides: Sequence[str], ranks: Sequence[int]) -> None:
    entrants = list(dict.fromkeys(sides))
    if len(entrants) < 2:
        return
    mean_rank = [
        sum(rank for side, rank in zip(sides, ranks, strict=True) if side == name)
        / sum(1 for side in sides if side == name)
        for name in entrants
    ]
    rated = model.rate([[ratings[name]] for name in entrants], ranks=mean_rank)
    for name, team in zip(entrants, rated, strict=True):
        ratings[name] = team[0]
