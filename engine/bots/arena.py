"""A pure, in-process match runner for bots (no service): paired seeds, rotated seats.

``play_match`` plays one match from a seed with one policy per seat, asking each
policy only with its seat's view and legal commands; a policy with a memory
(``observe``, ``reset``) is also shown its seats' views before every decision, as a
player sees every move at the table. ``run_arena`` plays ``deals``
seeds, each once per rotation of the entrants around the table, so every entrant
meets the same cards from every seat (a duplicate format: the luck of the deal
cancels within a pair). ``compare`` turns the records into wins, losses, ties and the
significance of the difference (``cardgames.engine.bots.stats``).

Everything is deterministic given the base seed: match seeds come from SHA-256 of the
base seed and the deal number, each seat's rng from the match seed and the seat.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

from cardgames.engine.bots.policy import Policy, Remembering
from cardgames.engine.bots.stats import Significance, binomial_test
from cardgames.engine.core.protocol import Rejection, Setup
from cardgames.engine.core.registry import get_game
from cardgames.engine.core.replay import new_match

#: A match longer than this many decisions is a bug (a game or a bot that loops).
MAX_DECISIONS = 200_000


class IllegalChoice(RuntimeError):
    """A policy answered with a command outside the legal commands it was given, or the game refused it."""


class MatchRecord(msgspec.Struct, frozen=True):
    """One finished match: its seed, who sat where, the places per seat (0 = winners) and its length."""

    deal: int
    seed: str
    seating: tuple[str, ...]
    places: tuple[int, ...]
    decisions: int

    def standing(self, entrant: str) -> int:
        """The best place any seat of ``entrant`` reached (partners share theirs)."""
        return min(place for name, place in zip(self.seating, self.places, strict=True) if name == entrant)


def match_seed(base: str, deal: int) -> str:
    """The 32-byte hex seed of deal number ``deal`` of an arena run."""
    return hashlib.sha256(f"{base}/{deal}".encode()).hexdigest()


def seatings(entrants: Sequence[str], players: int) -> list[tuple[str, ...]]:
    """Every rotation of the entrants around the table: seat s gets entrant (s + r) mod k in rotation r."""
    k = len(entrants)
    return [tuple(entrants[(seat + r) % k] for seat in range(players)) for r in range(k)]


def play_match(game_name: str, config: Any, policies: Sequence[Policy], seed: str) -> tuple[tuple[int, ...], int]:
    """Play one match from ``seed``; returns the places per seat and the number of decisions."""
    game = get_game(game_name)
    state, _ = new_match(game, config, Setup(seed=seed))
    rngs = [random.Random(f"{seed}/{seat}") for seat in range(len(policies))]
    observers = [(seat, policy) for seat, policy in enumerate(policies) if isinstance(policy, Remembering)]
    for observer in {id(observer): observer for _, observer in observers}.values():
        observer.reset()
    decisions = 0
    while not game.is_over(state):
        for seat, observer in observers:
            observer.observe(game.view(state, seat))
        if decisions >= MAX_DECISIONS:
            raise IllegalChoice(f"{game_name}: no end after {MAX_DECISIONS} decisions (seed {seed})")
        for seat in game.to_act(state):
            legal = game.legal_commands(state, seat)
            if legal:
                break
        else:
            raise IllegalChoice(f"{game_name}: nobody has a legal command (seed {seed})")
        command = policies[seat].choose(game.view(state, seat), legal, rngs[seat])
        if command not in legal:
            raise IllegalChoice(f"{game_name}: seat {seat} chose {command!r}, not a legal command")
        events = game.decide(state, seat, command)
        if isinstance(events, Rejection):
            raise IllegalChoice(f"{game_name}: the game refused {command!r} from seat {seat}: {events}")
        for event in events:
            state = game.evolve(state, event)
        decisions += 1
    return tuple(game.outcome(state)), decisions


def run_arena(
    game_name: str,
    entrants: Mapping[str, Policy],
    *,
    deals: int,
    base_seed: str = "arena",
    config: Any = None,
    first_deal: int = 0,
) -> list[MatchRecord]:
    """Play deals ``first_deal .. first_deal + deals - 1``, each once per seating rotation of ``entrants``."""
    game = get_game(game_name)
    if config is None:
        config = game.make_config({}, None)
    players = int(config.players)
    names = list(entrants)
    records = []
    for deal in range(first_deal, first_deal + deals):
        seed = match_seed(base_seed, deal)
        for seating in seatings(names, players):
            places, decisions = play_match(game_name, config, [entrants[name] for name in seating], seed)
            records.append(MatchRecord(deal=deal, seed=seed, seating=seating, places=places, decisions=decisions))
    return records


class Comparison(msgspec.Struct, frozen=True):
    """How entrant ``a`` fared against ``b``: per match and per deal pair, with significance."""

    a: str
    b: str
    matches: int
    wins: int
    losses: int
    ties: int
    win_rate: float  #: wins plus half the ties, over all matches
    per_match: Significance  #: two-sided exact binomial test of wins against losses
    pairs: int
    pair_wins: int
    pair_losses: int
    per_pair: Significance  #: the same test on deals (all rotations of a deal summed): a sign test


def compare(records: Sequence[MatchRecord], a: str, b: str) -> Comparison:
    """Wins of ``a`` over ``b`` (a better standing), per match and per deal."""
    wins = losses = ties = 0
    by_deal: dict[int, int] = {}
    for record in records:
        sa, sb = record.standing(a), record.standing(b)
        sign = (sa < sb) - (sa > sb)
        wins += sign > 0
        losses += sign < 0
        ties += sign == 0
        by_deal[record.deal] = by_deal.get(record.deal, 0) + sign
    pair_wins = sum(1 for total in by_deal.values() if total > 0)
    pair_losses = sum(1 for total in by_deal.values() if total < 0)
    matches = len(records)
    return Comparison(
        a=a,
        b=b,
        matches=matches,
        wins=wins,
        losses=losses,
        ties=ties,
        win_rate=(wins + ties / 2) / matches if matches else 0.0,
        per_match=binomial_test(wins, losses),
        pairs=len(by_deal),
        pair_wins=pair_wins,
        pair_losses=pair_losses,
        per_pair=binomial_test(pair_wins, pair_losses),
    )
