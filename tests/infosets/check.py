"""The information-set check of one position, for every viewer (the engine's side; test_engine.py runs it)."""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from typing import Any

from cardgames.engine.core.protocol import Rejection, Viewer
from cardgames.engine.core.registry import get_game
from tests.infosets.batteries import all_fours as all_fours_battery
from tests.infosets.batteries import battery
from tests.infosets.worlds import (
    Position,
    Stats,
    World,
    difference,
    disclosed,
    listing_indices,
    parsed,
    plausible,
    redeal,
    replay,
    tell,
)

#: Redeals per viewer and position, by game, and the attempts at each (a redeal under which
#: the history is no longer legal is discarded). All Fours' replays are the cheapest.
REDEALS = {"all_fours": 2, "seep": 1, "contract_rummy": 1}
ATTEMPTS = 4
#: One position in this many redeals every deal of the match so far (from the match's start),
#: the others the deal in progress only (from the step that dealt it).
WHOLE_EVERY = 8


@dataclass
class Case:
    """A world a viewer cannot tell from the position's, and the first thing it is told differently."""

    position: Position
    viewer: Viewer
    channel: str
    detail: str

    def __str__(self) -> str:
        who = "a spectator" if self.viewer is None else f"seat {self.viewer}"
        return (
            f"{who} is told something that depends on a card it cannot see ({self.channel}): {self.detail}\n"
            f"position: {self.position.describe()}"
        )


def viewers(players: int) -> list[Viewer]:
    return [*range(players), None]


def baseline(position: Position, whole: bool) -> tuple[World, int]:
    """The position's own world, replayed the way its redeals are (from the deal, or the start)."""
    shuffles = position.shuffles
    first = -1 if whole else shuffles[position.deal_of(len(shuffles) - 1)].step
    world = replay(position, [s.order for s in shuffles], first)
    assert not isinstance(world, Rejection), world
    rules = position.match.rules
    assert rules.snapshot(world.state) == rules.snapshot(position.state)
    return world, first


def check_position(position: Position, rng: random.Random, stats: Stats, whole: bool) -> Case | None:
    """Every viewer, ``REDEALS`` redeals each: the first thing it is told differently, or None."""
    match = position.match
    rules = match.rules
    base, first = baseline(position, whole)
    stats.positions += 1
    for viewer in viewers(match.config.players):
        view = rules.view(base.state, viewer)
        indices = listing_indices(rules, base.state, viewer, rng)
        listing = [] if viewer is None else rules.legal_commands(base.state, viewer)
        if len(listing) > len(indices) and indices:
            listing = [len(listing), *(listing[i] for i in indices)]
        if viewer is None:
            commands = []
        elif match.game_name == "all_fours":  # the same every time: parsed once
            commands = _all_fours_battery(match.config.players)
        else:
            commands = parsed(rules, battery(match.game_name, match.config, view, listing, rng))
        told = tell(rules, base, viewer, commands, indices)
        exempt = disclosed(match.game_name, base.state, viewer, commands)
        stats.commands += len(commands)
        stats.disclosed += len(exempt)
        for _ in range(REDEALS[match.game_name]):
            redealt = redeal_world(position, viewer, rng, whole, first, stats)
            if redealt is None:
                continue
            _, world = redealt
            found = difference(told, tell(rules, world, viewer, commands, indices), commands, exempt)
            if found is not None:
                return Case(position, viewer, found.channel, found.detail)
    return None


@cache
def _all_fours_battery(players: int) -> list[Any]:
    rules = get_game("all_fours")
    return parsed(rules, all_fours_battery(players))


def redeal_world(
    position: Position, viewer: Viewer, rng: random.Random, whole: bool, first: int, stats: Stats
) -> tuple[list[tuple[str, ...]], World] | None:
    """A redeal for the viewer under which the position's history stays legal: its orders and
    its world (None after ``ATTEMPTS`` discarded ones)."""
    for _ in range(ATTEMPTS):
        orders = redeal(position, viewer, rng, whole, stats)
        if not plausible(position, orders):
            stats.implausible += 1
            continue
        world = replay(position, orders, first)
        if isinstance(world, Rejection):
            stats.discarded += 1
            continue
        stats.redeals += 1
        if orders == [s.order for s in position.shuffles]:
            stats.unchanged += 1
        return orders, world
    return None


def check(positions: Iterable[Position], seed: str, stats: Stats) -> Case | None:
    """The check over ``positions``; the first case found, or None."""
    rng = random.Random(seed)
    for number, position in enumerate(positions):
        case = check_position(position, rng, stats, whole=number % WHOLE_EVERY == 0)
        if case is not None:
            return case
    return None
