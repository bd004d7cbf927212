"""The rules-of-thumb Contract Rummy player (the middle bot strength); it reads only its seat's view.

* Draw: dig (A.8 D3) when a dig lays the contract down (the shallowest such dig);
  take the top discard when it makes the hand's melds for this contract grow (or, once
  down, when it can be laid off on the table); otherwise draw from the stock.
* Play: go down as soon as the contract can be laid down (A.6), then lay off every card
  that fits (the highest penalty first, A.9), swap jokers back when possible (A.10).
* Discard: the card with the highest penalty (A.3) that helps the hand's melds least;
  never a joker while another card may go, and preferably not a card the table's melds
  would take (it helps whoever draws it).

"Helps the melds" is measured by a meld potential: for a contract of S sets and R runs,
the cards of the best S ranks (up to 3 each) plus the best window of the minimum run
length in each of the best R suits, plus the jokers.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

from cardgames.engine.contract_rummy.commands import Dig, Discard, DrawDiscard, DrawStock, LayOff, Meld, SwapJoker
from cardgames.engine.contract_rummy.config import Config
from cardgames.engine.contract_rummy.melds import POSITION, RUN, SET, face, penalty, set_suits
from cardgames.engine.contract_rummy.melds import Meld as TableMeld
from cardgames.engine.contract_rummy.view import View
from cardgames.engine.core.cards import JOKER, SUITS

#: How much one point of meld potential is worth against penalty points when discarding.
POTENTIAL_WEIGHT = 8.0


def meld_potential(hand: Sequence[str], sets: int, runs: int, min_run: int) -> int:
    """See the module docstring: how close ``hand`` is to ``sets`` sets and ``runs`` runs."""
    jokers = 0
    suits_by_rank: dict[str, set[str]] = {}
    held_by_suit = dict.fromkeys(SUITS, 0)
    for card in hand:
        if card == JOKER:
            jokers += 1
            continue
        rank, suit = card[:-1], card[-1]
        suits_by_rank.setdefault(rank, set()).add(suit)
        held_by_suit[suit] |= _RUN_BITS[rank]
    total = jokers
    if sets:
        best = sorted((min(3, len(suits)) for suits in suits_by_rank.values()), reverse=True)
        total += sum(best[:sets])
    if runs:
        windows = sorted((_best_window(held, min_run) for held in held_by_suit.values()), reverse=True)
        total += sum(windows[:runs])
    return total


#: The run positions of each rank as bits (1 << position; the ace is both 1 and 14).
_RUN_BITS: dict[str, int] = {
    rank: (1 << number) | ((1 << 14) if number == 1 else 0) for rank, number in POSITION.items()
}
#: Best window counts already worked out: (positions held, run length) -> cards in the best window.
_WINDOWS: dict[tuple[int, int], int] = {}


def _best_window(held: int, min_run: int) -> int:
    """The most positions of ``held`` (bits) inside one window of ``min_run`` consecutive positions."""
    key = (held, min_run)
    best = _WINDOWS.get(key)
    if best is None:
        window = (1 << min_run) - 1
        best = max(((held >> low) & window).bit_count() for low in range(1, 16 - min_run))
        if len(_WINDOWS) < 1 << 16:
            _WINDOWS[key] = best
    return best


def fits_table(card: str, melds: Sequence[TableMeld]) -> bool:
    """Could natural ``card`` be laid off on one of ``melds`` (A.9, ignoring jokers)?"""
    if card == JOKER:
        return any(meld.kind == RUN for meld in melds)
    rank, suit = card[:-1], card[-1]
    for meld in melds:
        if meld.kind == SET:
            if meld.rank == rank and len(meld.cards) < 4 and suit not in set_suits(meld):
                return True
        elif meld.suit == suit:
            positions = (1, 14) if rank == "A" else (POSITION[rank],)
            if any(p in (meld.low - 1, meld.high + 1) for p in positions):
                return True
    return False


class ContractRummyHeuristic:
    """See the module docstring."""

    def __init__(self, config: Config) -> None:
        self.config = config

    def __reduce__(self) -> tuple[Any, tuple[Config]]:
        """Made again from its config in another process (the compiled class has no pickled form of its own)."""
        return (type(self), (self.config,))

    def choose(self, view: View, legal: Sequence[Any], rng: random.Random) -> Any:
        if len(legal) == 1:
            return legal[0]
        return self.rank(view, legal)[0]

    def rank(self, view: View, legal: Sequence[Any]) -> list[Any]:
        """The legal commands from the best to the worst by the rules of thumb (ties keep their order)."""
        seat = view.viewer
        assert seat is not None
        by_kind: dict[type, list[Any]] = {}
        for command in legal:
            by_kind.setdefault(type(command), []).append(command)
        if DrawStock in by_kind:
            first = self._draw(view, by_kind)
            return [first, *(command for command in legal if command is not first)]
        ranked: list[Any] = by_kind.get(Meld, [])
        ranked += sorted(by_kind.get(LayOff, []), key=lambda lay: -self._penalty(lay.card.split("=")[0]))
        ranked += by_kind.get(SwapJoker, [])
        ranked += self._discards(view, by_kind.get(Discard, []))
        return ranked + [command for command in legal if command not in ranked]

    def _penalty(self, card: str) -> int:
        return penalty(card, self.config.ace_value, self.config.joker_value)

    def _potential(self, view: View, hand: Sequence[str]) -> int:
        return meld_potential(hand, view.contract_sets, view.contract_runs, self.config.min_run_length)

    def _draw(self, view: View, by_kind: dict[type, list[Any]]) -> Any:
        seat = view.viewer
        assert seat is not None
        met = view.contract_met[seat]
        if not met and Dig in by_kind:
            return min(by_kind[Dig], key=lambda dig: dig.depth)
        if DrawDiscard in by_kind and view.discard:
            top = view.discard[0]
            if met:
                if fits_table(top, view.melds):
                    return by_kind[DrawDiscard][0]
            elif top == JOKER or self._potential(view, (*view.hand, top)) > self._potential(view, view.hand):
                return by_kind[DrawDiscard][0]
        return by_kind[DrawStock][0]

    def _discards(self, view: View, discards: list[Discard]) -> list[Discard]:
        """The discards from the best to the worst (see the module docstring)."""
        seat = view.viewer
        assert seat is not None
        hand = list(view.hand)
        met = view.contract_met[seat]
        base = 0 if met else self._potential(view, hand)
        counts = Counter(hand)

        def score(card: str) -> float:
            if card == JOKER:
                return -1000.0
            value = float(self._penalty(card))
            if not met:
                rest = list(hand)
                rest.remove(card)
                value -= POTENTIAL_WEIGHT * (base - self._potential(view, rest))
                if counts[card] > 1:
                    value += 1  # a duplicate adds nothing a copy does not
            if fits_table(card, view.melds):
                value -= 6
            return value

        return sorted(discards, key=lambda discard: -score(face(discard.card)))


def heuristic_policy(config: Config) -> ContractRummyHeuristic:
    """The rules-of-thumb player for a match with ``config``."""
    return ContractRummyHeuristic(config)
