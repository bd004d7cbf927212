"""The rules-of-thumb Seep player (the middle bot strength); it reads only its seat's view.

* Bid (A5.4): the highest value held.
* Play: every legal command (on a crowded floor: 2,000 spread among them) is scored by
  what it does to the floor, greedily:
  - a capture is worth the points it takes (A2), plus the sweep's points when it clears
    the floor (A11.2), plus a little per card (cards are what later captures build on);
  - a build or a break is worth about half the points of the house it makes (the
    builder keeps a key, so the house is likely, not sure, to come home), plus a little;
  - a throw costs half the points of the card left on the floor.
  Then every play pays for the floor it leaves: the chance that the next player (an
  opponent) can sweep it, times the sweep's points, and a quarter of the points left
  loose for anyone to take. The best score wins; ties go to the first command.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import lru_cache
from math import comb
from typing import Any

from cardgames.engine.core.cards import STANDARD_PACK
from cardgames.engine.core.lazy_listing import spread
from cardgames.engine.seep.cards import PLAYS_PER_DEAL, VALUE, card_points
from cardgames.engine.seep.commands import Bid, Break, Build, Capture, Throw
from cardgames.engine.seep.config import Config
from cardgames.engine.seep.state import House
from cardgames.engine.seep.view import View

#: Shares of the heuristic (see the module docstring).
HOUSE_SHARE = 0.5
THROW_SHARE = 0.5
LOOSE_SHARE = 0.25
PER_CARD = 0.2
#: The most commands of one position that are scored (:meth:`SeepHeuristic.rank`).
SCORED_AT_MOST = 2_000


@lru_cache(maxsize=4096)
def _partitions(values: tuple[int, ...], target: int) -> bool:
    """True when ``values`` (sorted, descending) split into groups that each add up to ``target``."""
    if not values:
        return True
    first, rest = values[0], values[1:]
    need = target - first
    if need == 0:
        return _partitions(rest, target)
    return _fill(rest, need, target, 0)


def _fill(values: tuple[int, ...], need: int, target: int, start: int) -> bool:
    """Complete the current group (``need`` still missing) from ``values[start:]``, then the rest."""
    for i in range(start, len(values)):
        value = values[i]
        if value > need or (i > start and values[i - 1] == value):
            continue
        rest = values[:i] + values[i + 1 :]
        if value == need:
            if _partitions(rest, target):
                return True
        elif _fill(rest, need - value, target, i):
            return True
    return False


def sweep_values(loose: Sequence[str], houses: Sequence[House]) -> list[int]:
    """The card values 1..13 whose capture would leave the floor empty (A8.1, A11.2)."""
    if not loose and not houses:
        return []
    house_values = {house.value for house in houses}
    if len(house_values) > 1:
        return []
    values = tuple(sorted((VALUE[card] for card in loose), reverse=True))
    total = sum(values)
    if len(values) > 12:
        return []
    candidates = house_values or set(range(max(values), 14))
    return [v for v in candidates if total % v == 0 and _partitions(values, v)]


class SeepHeuristic:
    """See the module docstring."""

    def __init__(self, config: Config) -> None:
        self.config = config

    def __reduce__(self) -> tuple[Any, tuple[Config]]:
        """Made again from its config in another process (the compiled class has no pickled form of its own)."""
        return (type(self), (self.config,))

    def choose(self, view: View, legal: Sequence[Any], rng: random.Random) -> Any:
        if len(legal) == 1:
            return legal[0]
        if type(legal[0]) is Bid:
            return max(legal, key=lambda bid: bid.value)
        return self.rank(view, legal)[0]

    def rank(self, view: View, legal: Sequence[Any]) -> list[Any]:
        """The legal commands from the best to the worst by the heuristic's score (ties keep their order).

        Of more than :data:`SCORED_AT_MOST` commands, only that many are scored and ranked: evenly
        spaced ones, every card's captures and builds among them (:func:`spread`). A crowded floor
        lists up to 72,529 groupings under the default rules and more than 10^17 when a card that
        could capture may be thrown; the groupings of one card mostly differ little in score.
        """
        if type(legal[0]) is Bid:
            return sorted(legal, key=lambda bid: -bid.value)
        legal = spread(legal, SCORED_AT_MOST)
        seat = view.viewer
        assert seat is not None
        unseen = self._unseen(view)
        next_hand = view.hand_sizes[(seat + 1) % 4]
        play = view.plays + 1
        scores = [self._score(view, command, unseen, next_hand, play) for command in legal]
        order = sorted(range(len(legal)), key=lambda i: -scores[i])
        return [legal[i] for i in order]

    def _points(self, cards: Sequence[str]) -> int:
        return card_points(tuple(cards), self.config.ten_of_diamonds_points)

    def _sweep_value(self, play: int) -> int:
        config = self.config
        if not config.sweeps_enabled:
            return 0
        if play == PLAYS_PER_DEAL:
            return config.last_play_sweep_points
        if play == (1 if config.opening_sweep_at == "play1" else 2):
            return config.opening_sweep_points
        return config.sweep_points

    @staticmethod
    def _unseen(view: View) -> list[int]:
        """How many cards of each value the seat has not seen (in other hands, the stock or closed piles)."""
        seen = set(view.hand) | set(view.loose) | set(view.last_capture) | set(view.piles[0]) | set(view.piles[1])
        for house in view.houses:
            seen.update(house.cards())
        counts = [0] * 14
        for card in STANDARD_PACK:
            if card not in seen:
                counts[VALUE[card]] += 1
        return counts

    def _score(self, view: View, command: Any, unseen: list[int], next_hand: int, play: int) -> float:
        loose = list(view.loose)
        houses = list(view.houses)
        kind = type(command)
        if kind is Capture:
            value = VALUE[command.card]
            taken = [command.card, *(card for group in command.groups for card in group)]
            gone = set(taken)
            house = next((h for h in houses if h.value == value), None)
            if house is not None:
                taken.extend(house.cards())
                houses.remove(house)
            loose = [card for card in loose if card not in gone]
            score = self._points(taken) + PER_CARD * len(taken)
            if not loose and not houses:
                return score + self._sweep_value(play)  # an empty floor: nothing left to sweep
        elif kind is Throw:
            loose.append(command.card)
            score = -THROW_SHARE * self._points([command.card])
        elif kind is Build:
            used = {card for group in command.groups for card in group}
            merged = [card for card in loose if VALUE[card] == command.value and card not in used]
            old = next((h for h in houses if h.value == command.value), None)
            cards = [*used, *merged, *(old.cards() if old is not None else ())]
            loose = [card for card in loose if card not in used and card not in merged]
            houses = [h for h in houses if h.value != command.value]
            houses.append(House(value=command.value, components=(tuple(cards),), owners=(view.viewer or 0,)))
            score = HOUSE_SHARE * self._points(cards) + PER_CARD * len(cards)
        elif kind is Break:
            old = next(h for h in houses if h.value == command.house)
            new_value = command.house + VALUE[command.card]
            joined = next((h for h in houses if h.value == new_value), None)
            cards = [*old.cards(), command.card, *(joined.cards() if joined is not None else ())]
            houses = [h for h in houses if h.value not in (command.house, new_value)]
            houses.append(House(value=new_value, components=(tuple(cards),), owners=(view.viewer or 0,)))
            score = HOUSE_SHARE * self._points(cards) + PER_CARD * len(cards)
        else:
            return 0.0
        return score - self._danger(loose, houses, unseen, next_hand, play + 1)

    def _danger(self, loose: list[str], houses: list[House], unseen: list[int], hand: int, play: int) -> float:
        """What the floor left behind may cost: the next player's sweep chance, and loose points."""
        risk = LOOSE_SHARE * self._points(loose)
        sweep = self._sweep_value(play)
        if not sweep or not hand:
            return risk
        total = sum(unseen)
        if not total:
            return risk
        chance = 0.0
        for value in sweep_values(loose, houses):
            k = unseen[value]
            if k:
                drawn = min(hand, total)
                held = 1.0 - comb(total - k, drawn) / comb(total, drawn)
                chance = max(chance, held)
        return risk + chance * (sweep + self._points(loose))


def heuristic_policy(config: Config) -> SeepHeuristic:
    """The rules-of-thumb player for a match with ``config``."""
    return SeepHeuristic(config)
