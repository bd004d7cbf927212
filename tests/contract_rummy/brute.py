"""Brute force for the finder's property tests: every meld a hand can make, every layout, every dig."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from itertools import combinations, product
from typing import Any, Literal

from cardgames.engine.contract_rummy.commands import Dig, LayOff, Meld
from cardgames.engine.contract_rummy.melds import JOKER_PREFIX, face_at, hand_code
from cardgames.engine.core.cards import JOKER, RANKS, SUITS
from cardgames.engine.core.protocol import Rejection
from tests.contract_rummy.helpers import game

#: Where a lay-off goes on a run: as the rules choose (None), or at one end.
ENDS: tuple[Literal["low", "high"] | None, ...] = (None, "low", "high")


def every_meld(hand: Sequence[str], min_run: int, rule: str) -> list[tuple[str, ...]]:
    """Every meld (table forms) the cards of ``hand`` can make, one per distinct use of the cards
    (sets: jokers declare the first missing suits, which is all a set's jokers can matter for)."""
    counts = Counter(hand)
    jokers = counts.pop(JOKER, 0)

    def ok(naturals: int, jokers_in: int) -> bool:
        return naturals >= 1 and (rule == "one" or jokers_in <= naturals)

    melds: list[tuple[str, ...]] = []
    for rank in RANKS:
        suits = [suit for suit in SUITS if counts[rank + suit]]
        for k in range(1, len(suits) + 1):
            for chosen in combinations(suits, k):
                for extra in range(0, min(jokers, 4 - k) + 1):
                    if 3 <= k + extra <= 4 and ok(k, extra):
                        missing = [suit for suit in SUITS if suit not in chosen][:extra]
                        melds.append(tuple(rank + s for s in chosen) + tuple(JOKER_PREFIX + rank + s for s in missing))
    for suit in SUITS:
        for low in range(1, 15):
            for high in range(low + min_run - 1, 15):
                options = []
                for position in range(low, high + 1):
                    card = face_at(suit, position)
                    options.append((card, JOKER_PREFIX + card) if counts[card] else (JOKER_PREFIX + card,))
                for cards in product(*options):
                    naturals = [card for card in cards if not card.startswith(JOKER)]
                    used_jokers = len(cards) - len(naturals)
                    if used_jokers > jokers or not ok(len(naturals), used_jokers):
                        continue
                    if Counter(naturals) - counts:
                        continue
                    melds.append(tuple(cards))
    return melds


def layouts(hand: Sequence[str], melds: Sequence[tuple[str, ...]], most: int) -> Iterator[list[tuple[str, ...]]]:
    """Every collection of 1..``most`` melds the hand can hold at once (as multisets of melds)."""
    available = Counter(hand)

    def walk(start: int, chosen: list[tuple[str, ...]], left: Counter[str]) -> Iterator[list[tuple[str, ...]]]:
        if chosen:
            yield list(chosen)
        if len(chosen) == most:
            return
        for index in range(start, len(melds)):
            need = Counter(hand_code(card) for card in melds[index])
            if need - left:
                continue
            chosen.append(melds[index])
            yield from walk(index, chosen, left - need)
            chosen.pop()

    yield from walk(0, [], available)


def accepted(state: Any, seat: int, command: Any) -> bool:
    return not isinstance(game.decide(state, seat, command), Rejection)


def some_contract(state: Any, seat: int, sets: int, runs: int, exact: bool) -> bool:
    """Does any lay-down of the hand pass ``decide``?"""
    cfg = state.config
    hand = state.hands[seat]
    melds = every_meld(hand, cfg.min_run_length, cfg.min_naturals_per_meld)
    most = sets + runs if exact else len(hand) // 3
    for layout in layouts(hand, melds, most):
        have_sets = sum(1 for meld in layout if _is_set(meld))
        have_runs = len(layout) - have_sets
        if have_sets < sets or have_runs < runs or (exact and (have_sets, have_runs) != (sets, runs)):
            continue
        if accepted(state, seat, Meld(melds=tuple(layout))):
            return True
    return False


def _is_set(meld: Sequence[str]) -> bool:
    return len({card.split("=")[-1][:-1] for card in meld}) == 1


def _lay_offs(state: Any, seat: int) -> Iterator[LayOff]:
    """Every lay-off worth trying now: each hand card on each meld at each end; jokers declared as the
    faces just beyond a run's ends or a set's missing suits (``decide`` judges them all)."""
    hand = set(state.hands[seat])
    for index, meld in enumerate(state.melds):
        for code in sorted(hand):
            if code != JOKER:
                for end in (None, "low", "high"):
                    yield LayOff(card=code, meld=index, end=end)
                continue
            if meld.kind == "run":
                faces = [face_at(meld.suit, p) for p in (meld.low - 1, meld.high + 1) if 1 <= p <= 14]
            else:
                faces = [meld.rank + suit for suit in SUITS]
            for card_face in faces:
                for end in ENDS:
                    yield LayOff(card=JOKER_PREFIX + card_face, meld=index, end=end)


def _after(state: Any, seat: int, command: Any) -> Any | None:
    """The state after ``command`` as a standalone command, or None if ``decide`` refuses it."""
    outcome = game.decide(state, seat, command)
    if isinstance(outcome, Rejection):
        return None
    for event in outcome:
        state = game.evolve(state, event)
    return state


def _then_lists(state: Any, seat: int, steps: int, seen: set[Any]) -> Iterator[list[Any]]:
    """Lists of up to ``steps`` lay-offs that ``decide`` accepts one by one from ``state`` (a table
    and hand reached before by another list is not explored again)."""
    key = (tuple(sorted(state.hands[seat])), tuple(meld.cards for meld in state.melds))
    if key in seen:
        return
    seen.add(key)
    yield []
    if steps == 0 or game.is_over(state) or state.phase != "play":
        return
    for lay_off in _lay_offs(state, seat):
        after = _after(state, seat, lay_off)
        if after is None:
            continue
        for rest in _then_lists(after, seat, steps - 1, seen):
            yield [lay_off, *rest]


def some_dig(state: Any, seat: int, depth: int, sets: int, runs: int, chain: int = 12) -> bool:
    """Does any dig to ``depth`` pass ``decide``: the lay-down if the seat is not down (or, where new
    melds are allowed, one new meld), then up to ``chain`` lay-offs (every card on every meld)?"""
    from cardgames.engine.contract_rummy.events import DiscardDug

    cfg = state.config
    taken = tuple(state.discard[:depth])
    dug = game.evolve(state, DiscardDug(seat=seat, depth=depth, cards=taken))
    hand = dug.hands[seat]
    starts: list[tuple[list[Any], Any]] = []
    melds = every_meld(hand, cfg.min_run_length, cfg.min_naturals_per_meld)
    if state.contract_met[seat]:
        starts.append(([], dug))
        if cfg.allow_new_melds_after_contract:
            for meld in melds:
                down = Meld(melds=(meld,))
                after = _after(dug, seat, down)
                if after is not None:
                    starts.append(([down], after))
    else:
        exact = cfg.contract_meld_count == "exact"
        for layout in layouts(hand, melds, sets + runs if exact else len(hand) // 3):
            if len(layout) < sets + runs:
                continue
            down = Meld(melds=tuple(layout))
            if accepted(state, seat, Dig(depth=depth, then=(down,))):
                return True
            after = _after(dug, seat, down)
            if after is not None:
                starts.append(([down], after))
    for first, after in starts:
        for steps in _then_lists(after, seat, chain, set()):
            if (first or steps) and accepted(state, seat, Dig(depth=depth, then=(*first, *steps))):
                return True
    return False
