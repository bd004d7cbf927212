"""The contract finder: given a hand, a valid lay-down whenever one exists (A.6, A.7, A.11).

A *layout* is a list of melds (table forms, runs low to high) made from the hand. The
finder answers "is there a layout of this shape whose leftover the turn can live with?"
(``leftover_ok``: the no-dead-ends and going-out rules), optionally one that places a
*pin* card (a dug card, A.8 D3).

Why searching small melds is enough. Any valid layout can be shrunk, meld by meld, to
*minimal* melds by dropping cards: 3-card sets, runs of the minimum length, and under
``at_least_jokers`` also the longer runs that no single dropped end card leaves legal
(naturals at both ends, as many jokers as naturals). Shrinking keeps every contract rule
(and the pin, which a minimal meld can always keep) and only adds cards to the leftover,
and a leftover with a card that may be discarded keeps one. Under ``contract_meld_count =
"at_least"`` the melds beyond the contract's are dropped whole, but for the pin's meld: when
the pin's meld is of a kind the contract does not name (a run holding a dug card in the
two-sets deal), the layout searched is the contract's melds plus that one extra meld. So:

1. search minimal melds whose jokers only stand for faces the hand lacks;
2. if that fails and the hand holds jokers, search minimal melds where jokers may also
   stand for faces the hand holds (two melds may want the same face);
3. if layouts exist but every leftover was refused, only going out can help: an exact
   cover of the whole hand by melds of any size.

The searches fill one meld slot after another (the pin's meld first), and cut the nodes
before the last slot with :func:`feasible`, a lower bound on the jokers the melds still to
find need (a cut only skips subtrees without a layout, so it never changes the answer).
Deal 7's all-at-once lay-down (three runs of different suits using every card) has its
own direct test (:func:`three_runs_cover`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import cache, lru_cache
from itertools import combinations
from typing import Final, NamedTuple, final

from cardgames.engine.contract_rummy.melds import JOKER_PREFIX, POSITION, RUN, SET, enough_naturals, face_at, runs_apart
from cardgames.engine.core.cards import JOKER, RANKS, SUITS

Counts = dict[str, int]
LeftoverRule = Callable[[Counts, int], bool]
Layout = list[tuple[str, ...]]


class Shape(NamedTuple):
    """What the lay-down must be (A.6): its melds and the contract's rules."""

    sets: int
    runs: int
    exact: bool = True
    suit_rule: str = "forbidden"
    distinct_set_ranks: bool = False
    min_run: int = 3
    naturals: str = "one"


@final
class Candidate:
    """One meld the hand can make: its cards (table forms), the naturals and jokers it uses.

    A plain class (compiled: native attributes), not a NamedTuple, whose constructor is Python
    code: a search of a new hand makes hundreds. Never changed once made (the pools that hold
    candidates are cached and shared)."""

    def __init__(
        self, kind: str, cards: tuple[str, ...], naturals: tuple[str, ...], jokers: int, suit: str, rank: str,
        low: int, high: int,
    ) -> None:
        self.kind = kind
        self.cards = cards
        self.naturals = naturals
        self.jokers = jokers
        self.suit = suit
        self.rank = rank
        self.low = low
        self.high = high


#: Run positions 1 and 14 (an ace stands at either).
_ACE_BITS: Final = 1 << 1 | 1 << 14

#: Each natural code: the index of its rank in RANKS, of its suit in SUITS, and its run positions
#: as bits (bit p for position p).
_FACTS: Final[dict[str, tuple[int, int, int]]] = {
    rank + suit: (rank_index, suit_index, _ACE_BITS if rank == "A" else 1 << POSITION[rank])
    for rank_index, rank in enumerate(RANKS)
    for suit_index, suit in enumerate(SUITS)
}


def _held(counts: Counts) -> tuple[list[int], list[int]]:
    """Of the codes with a card left: per rank (index in RANKS) the suits held as bits (bit i for
    ``SUITS[i]``), per suit (index in SUITS) the run positions held as bits."""
    suits_of = [0] * len(RANKS)
    masks = [0] * len(SUITS)
    for code, number in counts.items():
        if number > 0:
            rank, suit, bits = _FACTS[code]
            suits_of[rank] |= 1 << suit
            masks[suit] |= bits
    return suits_of, masks


def _set_pool(suits_of: tuple[int, ...], jokers: int, rule: str, substitute: bool) -> tuple[Candidate, ...]:
    """The 3-card sets of a hand holding, of each rank, the suits of ``suits_of`` (bits), ranks in
    order. Without ``substitute`` a joker only claims a suit of which the hand holds no card of that
    rank (a joker standing for a card the hand holds can trade places with it). Not cached itself
    (a whole hand's suits rarely come back; one rank's do: :func:`_rank_sets` is)."""
    out: list[Candidate] = []
    for rank, held in zip(RANKS, suits_of, strict=True):
        if held:
            out += _rank_sets(rank, held, jokers, rule, substitute)
    return tuple(out)


@lru_cache(maxsize=4096)
def _rank_sets(rank: str, held: int, jokers: int, rule: str, substitute: bool) -> tuple[Candidate, ...]:
    """The sets of one rank whose suits held are the bits of ``held``. Cached: between one search and
    the next (another dig depth, the next turn) most ranks of the hand have not changed."""
    suits = [suit for index, suit in enumerate(SUITS) if held >> index & 1]
    absent = [suit for suit in SUITS if suit not in suits]
    out = []
    for k in range(min(len(suits), 3), 0, -1):
        need = 3 - k
        if need > jokers or not enough_naturals(k, need, rule):
            continue
        if not substitute and need > len(absent):
            continue
        for chosen in combinations(suits, k):
            missing = absent + [suit for suit in suits if suit not in chosen]
            naturals = tuple(rank + suit for suit in chosen)
            cards = naturals + tuple(JOKER_PREFIX + rank + suit for suit in missing[:need])
            out.append(Candidate(SET, cards, naturals, need, "", rank, 0, 0))
    return tuple(out)


def _two_aces(counts: Counts) -> tuple[bool, ...]:
    """Per suit: does the hand hold two aces of it (one for each end of a 14-card run)?"""
    return tuple([counts.get(ace, 0) >= 2 for ace in _ACES])


_ACES: Final = tuple("A" + suit for suit in SUITS)


def _run_pool(masks: tuple[int, ...], two_aces: tuple[bool, ...], jokers: int, min_run: int, rule: str,
              substitute: bool, all_lengths: bool) -> tuple[Candidate, ...]:
    """The runs of a hand holding the positions of ``masks`` (bits) in each suit, suits in order
    (not cached itself, like :func:`_set_pool`; :func:`_suit_runs` is)."""
    out: list[Candidate] = []
    for suit, mask, both in zip(SUITS, masks, two_aces, strict=True):
        if mask:
            out += _suit_runs(suit, mask, both, jokers, min_run, rule, substitute, all_lengths)
    return tuple(out)


@lru_cache(maxsize=8192)
def _suit_runs(
    suit: str, mask: int, two_aces: bool, jokers: int, min_run: int, rule: str, substitute: bool, all_lengths: bool
) -> tuple[Candidate, ...]:
    """The runs of one suit whose positions held are the bits of ``mask`` (cached like :func:`_rank_sets`)."""
    out: list[Candidate] = []
    # Longer runs only matter under at_least_jokers, and then only with as many jokers as
    # naturals and naturals at both ends (any other longer run holds a shorter legal one).
    lengths = range(min_run, min(14, max(min_run, 2 * jokers)) + 1) if all_lengths else (min_run,)
    for length in lengths:
        window = (1 << length) - 1
        for low in range(1, 16 - length):
            held = mask >> low & window  # bit i: position low + i
            if low == 1 and length == 14 and not two_aces:
                held &= ~(1 << 13)  # one ace cannot stand at both ends
            if not held or length - held.bit_count() > jokers:
                continue  # (most windows: counted on the bits before any list is built)
            out += _window_runs(suit, low, length, held, jokers if substitute else 0, min_run, rule)
    return tuple(out)


@lru_cache(maxsize=1 << 15)
def _window_runs(suit: str, low: int, length: int, held: int, spare_jokers: int, min_run: int, rule: str
                 ) -> tuple[Candidate, ...]:
    """The runs of ``suit`` from ``low`` over ``length`` positions whose naturals held are the
    bits of ``held`` (bit i: position low + i). ``spare_jokers``: the jokers (0 without
    substitution) that may also stand for faces held. Cached: a hand's suit masks change with
    every card, but a window's bits repeat (a suit's runs are these windows' runs in order)."""
    high = low + length - 1
    natural_positions = [p for p in range(low, high + 1) if held >> (p - low) & 1]
    gaps = length - len(natural_positions)
    subsets: Iterable[tuple[int, ...]] = [()]
    if spare_jokers:
        spare = spare_jokers - gaps
        subsets = (
            chosen
            for r in range(0, min(spare, len(natural_positions)) + 1)
            for chosen in combinations(natural_positions, r)
        )
    out = []
    for as_jokers in subsets:
        used = len(natural_positions) - len(as_jokers)
        joker_count = gaps + len(as_jokers)
        if not enough_naturals(used, joker_count, rule):
            continue
        if length > min_run and not (
            joker_count == used and _is_natural(low, natural_positions, as_jokers)
            and _is_natural(high, natural_positions, as_jokers)
        ):
            continue
        cards = []
        naturals = []
        for position in range(low, high + 1):
            card = face_at(suit, position)
            if position not in as_jokers and position in natural_positions:
                cards.append(card)
                naturals.append(card)
            else:
                cards.append(JOKER_PREFIX + card)
        out.append(Candidate(RUN, tuple(cards), tuple(naturals), joker_count, suit, "", low, high))
    return tuple(out)


def _is_natural(position: int, natural_positions: Sequence[int], as_jokers: Sequence[int]) -> bool:
    return position in natural_positions and position not in as_jokers


def _take(counts: Counts, naturals: tuple[str, ...]) -> bool:
    """Remove ``naturals`` from ``counts`` if all are there (else change nothing). (A tuple, not
    any sequence: the compiled build then loops over it without an iterator object.)"""
    for index in range(len(naturals)):
        code = naturals[index]
        left = counts.get(code, 0)
        if left <= 0:
            for back in range(index):
                counts[naturals[back]] += 1
            return False
        counts[code] = left - 1
    return True


def _give(counts: Counts, naturals: tuple[str, ...]) -> None:
    for index in range(len(naturals)):
        counts[naturals[index]] += 1


def _search(
    counts: Counts,
    jokers: int,
    shape: Shape,
    leftover_ok: LeftoverRule,
    pin: str | None,
    substitute: bool,
    refused: list[bool],
    held: tuple[list[int], list[int], tuple[bool, ...]],
) -> list[Candidate] | None:
    """The first layout of the search order (``held``: the hand's suits per rank, positions per
    suit and aces, as :func:`_held` and :func:`_two_aces` give them)."""
    rule = shape.naturals
    all_lengths = rule != "one"
    suits_of, masks, two_aces = held
    # With a pin and "at_least" the pin's meld may be an extra meld of a kind the contract does
    # not name (A.6 rule 3): that kind's pool is needed too.
    extra = pin is not None and not shape.exact
    sets = _set_pool(tuple(suits_of), jokers, rule, substitute) if shape.sets or extra else ()
    runs = (_run_pool(tuple(masks), two_aces, jokers, shape.min_run, rule, substitute, all_lengths)
            if shape.runs or extra else ())
    if (shape.sets and not sets) or (shape.runs and not runs):
        return None
    if shape.runs > 1 and shape.suit_rule == "forbidden" and len({c.suit for c in runs}) < shape.runs:
        return None
    plans: list[Sequence[tuple[str, Sequence[Candidate]]]] = []
    if pin is None:
        plans.append([(SET, sets)] * shape.sets + [(RUN, runs)] * shape.runs)
    else:
        # The pin goes in the first meld: one plan per kind of meld that can hold it. A natural
        # pin is only in the melds of its own rank (sets) or suit (runs): those parts of the pools.
        # A kind the contract does not name holds the pin only as an extra meld ("at_least").
        if pin == JOKER:
            set_part, run_part = sets, runs
        else:
            rank, suit = _FACTS[pin][:2]
            set_part = _rank_sets(RANKS[rank], suits_of[rank], jokers, rule, substitute) if sets else ()
            run_part = _suit_runs(SUITS[suit], masks[suit], two_aces[suit], jokers, shape.min_run, rule,
                                  substitute, all_lengths) if runs else ()
        for kind, part in ((SET, set_part), (RUN, run_part)):
            holding = [c for c in part if (c.jokers if pin == JOKER else pin in c.naturals)]
            if holding:
                rest_sets = max(0, shape.sets - (kind == SET))  # (0 from 0: the pin's meld is extra)
                rest_runs = max(0, shape.runs - (kind == RUN))
                plans.append([(kind, holding)] + [(SET, sets)] * rest_sets + [(RUN, runs)] * rest_runs)
    for plan in plans:
        found = _walk(plan, counts, jokers, shape, leftover_ok, refused)
        if found is not None:
            return found
    return None


def _repair(
    counts: Counts,
    jokers: int,
    shape: Shape,
    leftover_ok: LeftoverRule,
    pin: str,
    refused: list[bool],
    known: Sequence[list[Candidate]],
) -> list[Candidate] | None:
    """A layout made of the melds of a ``known`` layout but one, and a meld that holds the
    (natural) pin in its place, checked as the walk checks a layout (cards left, jokers, the
    contract's rules, the leftover): a layout it returns is one the full search could return
    too; when none is found the full search runs. Only the pin's rank and suit are looked at."""
    rank, suit = _FACTS[pin][:2]
    suit_code = SUITS[suit]
    rank_code = RANKS[rank]
    held = 0
    for index, code in enumerate(RANK_FACES[rank]):
        if counts.get(code, 0) > 0:
            held |= 1 << index
    mask = 0
    for bits, code in _SUIT_FACES[suit]:
        if counts.get(code, 0) > 0:
            mask |= bits
    two_aces = counts.get("A" + suit_code, 0) >= 2
    rule = shape.naturals
    parts: dict[str, list[Candidate]] = {}
    for substitute in (False, True) if jokers else (False,):
        if shape.sets:
            sets = _rank_sets(rank_code, held, jokers, rule, substitute)
            parts[SET] = [c for c in sets if pin in c.naturals]
        if shape.runs:
            runs = _suit_runs(suit_code, mask, two_aces, jokers, shape.min_run, rule, substitute, rule != "one")
            parts[RUN] = [c for c in runs if pin in c.naturals]
        for layout in known[:-4:-1]:  # the latest three: the likeliest to hold the cards still
            for index, replaced in enumerate(layout):
                holding = parts.get(replaced.kind)
                if not holding:
                    continue
                kept = [c for at, c in enumerate(layout) if at != index]
                spare = jokers - sum(c.jokers for c in kept)
                taken: list[Candidate] = []
                for c in kept:
                    if not _take(counts, c.naturals):
                        break
                    taken.append(c)
                if len(taken) == len(kept):
                    for candidate in holding:
                        if candidate.jokers > spare or not _compatible(candidate, kept, shape):
                            continue
                        if _take(counts, candidate.naturals):
                            ok = leftover_ok(counts, spare - candidate.jokers)
                            _give(counts, candidate.naturals)
                            if ok:
                                for c in taken:
                                    _give(counts, c.naturals)
                                return [*kept, candidate]
                            refused[0] = True
                for c in taken:
                    _give(counts, c.naturals)
    return None


#: Per rank (index in RANKS): its codes, suits in SUITS order. Per suit: (position bits, code) of
#: its codes (an ace at both 1 and 14).
RANK_FACES: Final = tuple(tuple(rank + suit for suit in SUITS) for rank in RANKS)
_SUIT_FACES: Final = tuple(tuple((_FACTS[rank + suit][2], rank + suit) for rank in RANKS) for suit in SUITS)


def _compatible(candidate: Candidate, chosen: Sequence[Candidate], shape: Shape) -> bool:
    """May ``candidate`` join the melds ``chosen`` in one contract (distinct set ranks, runs apart)?"""
    if candidate.kind == SET:
        return not (shape.distinct_set_ranks and any(c.rank == candidate.rank for c in chosen))
    return all(runs_apart(c, candidate, shape.suit_rule) for c in chosen if c.kind == RUN)


def _walk(
    plan: Sequence[tuple[str, Sequence[Candidate]]],
    counts: Counts,
    jokers: int,
    shape: Shape,
    leftover_ok: LeftoverRule,
    refused: list[bool],
) -> list[Candidate] | None:
    """Fill the plan's slots in order, each from its pool; melds of one pool in pool order (no
    permutations), nodes cut by the feasibility bound of what is left to find."""
    walker = _Walker(plan, counts, jokers, shape, leftover_ok, refused)
    return list(walker.chosen) if walker.walk(0, 0) else None


class _Walker:
    """:func:`_walk`'s search state (an object, not a closure: a recursive nested function refers
    to itself through its closure, a reference cycle only the garbage collector frees)."""

    def __init__(
        self,
        plan: Sequence[tuple[str, Sequence[Candidate]]],
        counts: Counts,
        jokers: int,
        shape: Shape,
        leftover_ok: LeftoverRule,
        refused: list[bool],
    ) -> None:
        self.plan = plan
        self.counts = counts
        self.shape = shape
        self.leftover_ok = leftover_ok
        self.refused = refused
        self.remaining = _remaining(shape, tuple(kind for kind, _ in plan))
        self.chosen: list[Candidate] = []
        self.budget = jokers

    def walk(self, slot: int, start: int) -> bool:
        plan, counts, chosen, shape = self.plan, self.counts, self.chosen, self.shape
        if slot == len(plan):
            if self.leftover_ok(counts, self.budget):
                return True
            self.refused[0] = True
            return False
        # Cut a middle node whose remaining melds cannot exist; the last meld is found faster by
        # trying its pool than by bounding it (a cut never changes which layout comes first).
        if 0 < slot < len(plan) - 1 and not feasible(
            counts, self.budget, self.remaining[slot], _used_suits(chosen, shape.suit_rule)
        ):
            return False
        pool = plan[slot][1]
        if slot > 0 and plan[slot - 1][1] is not pool:
            start = 0
        for index in range(start, len(pool)):
            candidate = pool[index]
            if candidate.jokers > self.budget:
                continue
            if not _compatible(candidate, chosen, shape) or not _take(counts, candidate.naturals):
                continue
            self.budget -= candidate.jokers
            chosen.append(candidate)
            if self.walk(slot + 1, index):
                return True
            chosen.pop()
            self.budget += candidate.jokers
            _give(counts, candidate.naturals)
        return False


@lru_cache(maxsize=256)
def _remaining(shape: Shape, kinds: tuple[str, ...]) -> tuple[Shape, ...]:
    """For each slot of a plan, the shape of the melds still to find from that slot on."""
    return tuple(shape._replace(sets=kinds[i:].count(SET), runs=kinds[i:].count(RUN)) for i in range(len(kinds)))


@cache
def _window_costs(mask: int, length: int) -> tuple[int, ...]:
    """The three smallest joker costs of a run window of ``length`` in a suit whose naturals
    occupy the positions of ``mask`` (bit p for position p), windows with a natural only."""
    window = (1 << length) - 1
    held = [(mask >> low & window).bit_count() for low in range(1, 16 - length)]
    return tuple(sorted(length - count for count in held if count))[:3]


def _used_suits(chosen: Sequence[Candidate], suit_rule: str) -> str:
    """The suits the runs still to come may not take (A.6 rule 4, ``forbidden``)."""
    if suit_rule != "forbidden":
        return ""
    return "".join(candidate.suit for candidate in chosen if candidate.kind == RUN)


#: Per rank: the suits held as bits (bit i for ``SUITS[i]``), the cards held; per suit: the run
#: positions held as bits; the naturals and the jokers; per suit: the run positions held at least
#: twice (several packs). Built card by card (bits only ever get set, so adding cards needs no
#: per-code count: a card whose positions are already held is a second copy).
Tally = tuple[list[int], list[int], list[int], int, int, list[int]]

#: How many suits each 4-bit suit set holds.
_SUIT_COUNT: Final = tuple(bin(bits).count("1") for bits in range(16))


def tally(cards: Iterable[str], base: Tally | None = None) -> Tally:
    """The :data:`Tally` of ``cards`` (added to a copy of ``base``)."""
    if base is None:
        suits_of, copies_of, masks, naturals, jokers = [0] * len(RANKS), [0] * len(RANKS), [0] * len(SUITS), 0, 0
        doubles = [0] * len(SUITS)
    else:
        suits_of, copies_of, masks, naturals, jokers = base[0][:], base[1][:], base[2][:], base[3], base[4]
        doubles = base[5][:]
    packed = _PACKED
    for card in cards:
        fact = packed.get(card, -1)
        if fact < 0:
            jokers += 1
            continue
        rank = fact & 15
        suit = fact >> 4 & 3
        bits = fact >> 6
        suits_of[rank] |= 1 << suit
        copies_of[rank] += 1
        doubles[suit] |= masks[suit] & bits
        masks[suit] |= bits
        naturals += 1
    return suits_of, copies_of, masks, naturals, jokers, doubles


#: :data:`_FACTS` packed in one int per code (rank index in bits 0-3, suit index in bits 4-5, the
#: run positions from bit 6): :func:`tally` reads one int per card, not a tuple to unpack.
_PACKED: Final[dict[str, int]] = {code: rank | suit << 4 | bits << 6 for code, (rank, suit, bits) in _FACTS.items()}


def feasible(counts: Counts, jokers: int, shape: Shape, taken_suits: str = "") -> bool:
    """A quick necessary test: could the hand hold the shape's melds at all (jokers counted)?

    ``k`` sets of a rank with ``s`` suits and ``c`` cards in the hand need at least
    ``max(k * (3 - s), 3k - c)`` jokers; a run needs at least as many jokers as the best window of
    the minimum length in its suit lacks (runs may not take ``taken_suits``). The cheapest
    choices together may not need more jokers than the hand holds.
    """
    suits_of, copies_of, masks, doubles = [0] * len(RANKS), [0] * len(RANKS), [0] * len(SUITS), [0] * len(SUITS)
    naturals = 0
    facts = _FACTS
    for code, number in counts.items():
        if number > 0:
            rank, suit, bits = facts[code]
            suits_of[rank] |= 1 << suit
            copies_of[rank] += number
            masks[suit] |= bits
            if number > 1:
                doubles[suit] |= bits
            naturals += number
    return feasible_tally((suits_of, copies_of, masks, naturals, jokers, doubles), shape, taken_suits)


def feasible_tally(held: Tally, shape: Shape, taken_suits: str = "") -> bool:
    """:func:`feasible` for a hand already tallied (:func:`tally`)."""
    suits_of, copies_of, masks, naturals, jokers, doubles = held
    sets, runs = shape.sets, shape.runs
    if naturals < sets + runs or naturals + jokers < 3 * sets + shape.min_run * runs:
        return False
    need = 0
    if sets:
        set_costs = _set_costs(suits_of, copies_of, jokers, shape)
        if len(set_costs) < sets:
            return False
        need += sum(set_costs[:sets])
        if need > jokers:
            return False  # (costs are never negative: the runs cannot help)
    if runs:
        run_costs = _run_costs(masks, doubles, shape, taken_suits)
        if len(run_costs) < runs:
            return False
        need += sum(run_costs[:runs])
    return need <= jokers


def _set_costs(suits_of: Sequence[int], copies_of: Sequence[int], jokers: int, shape: Shape) -> list[int]:
    """The joker costs of the sets the hand could make, cheapest first: for ``k`` sets of one rank
    the cost of the k-th is ``max(k * (3 - s), 3k - c) - max((k - 1) * (3 - s), 3(k - 1) - c)``."""
    least = 1 if shape.naturals == "one" else 2  # under at_least_jokers a set holds two naturals
    most = 1 if shape.distinct_set_ranks else shape.sets
    suit_count = _SUIT_COUNT
    costs = []
    for held, copies in zip(suits_of, copies_of, strict=True):
        if not held:
            continue
        suits = suit_count[held]
        if suits < least:
            continue
        each = 3 - suits if suits < 3 else 0
        if most == 1 or copies + jokers < 6:
            # at most one set of this rank: it costs ``each`` (copies >= suits, so 3 - c <= each)
            if copies + jokers >= 3:
                costs.append(each)
            continue
        spent = 0
        for k in range(1, most + 1):
            if 3 * k > copies + jokers:
                break
            # k sets of one rank need at least k * each jokers, and 3k cards from c naturals
            total = max(k * each, 3 * k - copies)
            costs.append(total - spent)
            spent = total
    costs.sort()
    return costs


def _run_costs(masks: Sequence[int], doubles: Sequence[int], shape: Shape, taken_suits: str) -> list[int]:
    """The joker costs of the runs the hand could make, cheapest first: the best windows of the
    minimum length per suit (one per suit when runs may not share a suit).

    Runs of one suit that may overlap (``allowed``) may also share a window, each taking one copy
    of its cards: m runs in one window hold at most its positions held plus, m - 1 times over, its
    positions held twice (``doubles``; a third copy is counted as a second, so the bound stays a
    lower one). So a suit also offers, runs - 1 times, the costs of its windows over ``doubles``,
    and runs - 1 windows of no natural at all (cost ``min_run``: two runs in one window may take
    different positions each) keep a short list from ruling the runs out."""
    if taken_suits:
        masks = [0 if suit in taken_suits else mask for suit, mask in zip(SUITS, masks, strict=True)]
    if shape.naturals != "one":
        # no more jokers than naturals: a run needs at least half its minimum length in naturals
        least = (shape.min_run + 1) // 2
        masks = [mask if (mask & ~(1 << 14)).bit_count() >= least else 0 for mask in masks]
    costs: list[int] = []
    forbidden = shape.suit_rule == "forbidden"
    again = shape.runs - 1 if shape.suit_rule == "allowed" else 0
    for mask, double in zip(masks, doubles, strict=True):
        if mask:
            cheapest = _window_costs(mask, shape.min_run)
            if forbidden:
                costs.append(cheapest[0])
            else:
                costs += cheapest
                if again > 0:
                    costs += (_window_costs(double, shape.min_run) if double else ()) * again
                    costs += [shape.min_run] * again
    costs.sort()
    return costs


def count(cards: Iterable[str]) -> Counts:
    """How many of each code: a plain dict, built without ``Counter``'s per-call overhead (hot path)."""
    counts: Counts = {}
    for card in cards:
        counts[card] = counts.get(card, 0) + 1
    return counts


def find_layout(
    hand: Iterable[str], shape: Shape, leftover_ok: LeftoverRule, pin: str | None = None, checked: bool = False
) -> Layout | None:
    """A layout of ``shape`` from ``hand`` whose leftover ``leftover_ok`` accepts, or None.
    ``checked``: the caller knows ``feasible`` passes for this hand and shape (it is not run again)."""
    return layout_from_counts(count(hand), shape, leftover_ok, pin, checked)


def layout_from_counts(
    counts: Counts,
    shape: Shape,
    leftover_ok: LeftoverRule,
    pin: str | None = None,
    checked: bool = False,
    known: list[list[Candidate]] | None = None,
) -> Layout | None:
    """:func:`find_layout` for a hand already counted (jokers included); ``counts`` is used up.
    ``known`` (with a pin): layouts found before for a part of this hand, tried first (see
    :func:`_search`); a layout found by a search is added to it."""
    jokers = counts.pop(JOKER, 0)
    if not checked and not feasible(counts, jokers, shape):
        return None
    refused = [False]
    found = None
    if known and pin is not None and pin != JOKER:
        found = _repair(counts, jokers, shape, leftover_ok, pin, refused, known)
    if found is None:
        held = (*_held(counts), _two_aces(counts))
        found = _search(counts, jokers, shape, leftover_ok, pin, False, refused, held)
        if found is None and jokers:
            found = _search(counts, jokers, shape, leftover_ok, pin, True, refused, held)
    if found is not None:
        if known is not None:
            known.append(found)
        return [candidate.cards for candidate in found]
    if refused[0] and leftover_ok({}, 0):
        return cover(counts, jokers, shape)
    return None


# ---------------------------------------------------------------------------
# Going out: every card of the hand in melds of any size.


def _melds_with(counts: Counts, jokers: int, pivot: str, rule: str, min_run: int) -> Iterator[Candidate]:
    """Every meld that holds natural ``pivot`` and fits the hand (jokers anywhere)."""
    rank, suit = pivot[:-1], pivot[-1]
    others = [s for s in SUITS if s != suit and counts.get(rank + s, 0) > 0]
    for size in (3, 4):
        for k in range(0, min(len(others), size - 1) + 1):
            need = size - 1 - k
            if need > jokers or not enough_naturals(k + 1, need, rule):
                continue
            for chosen in combinations(others, k):
                used = (suit, *chosen)
                missing = [s for s in SUITS if s not in used][:need]
                naturals = tuple(rank + s for s in used)
                cards = naturals + tuple(JOKER_PREFIX + rank + s for s in missing)
                yield Candidate(SET, cards, naturals, need, "", rank, 0, 0)
    positions = (1, 14) if rank == "A" else (POSITION[rank],)
    for at in positions:
        for low in range(1, at + 1):
            for high in range(max(at, low + min_run - 1), 15):
                if low == 1 and high == 14 and at == 14:
                    continue  # the 1..14 run is found from the ace at 1
                yield from _run_fillings(counts, jokers, suit, low, high, at, rule)


def _run_fillings(
    counts: Counts, jokers: int, suit: str, low: int, high: int, at: int, rule: str
) -> Iterator[Candidate]:
    """Runs low..high of ``suit`` with the pivot at ``at``; every other position natural or joker."""
    options: list[tuple[str, ...]] = []
    for position in range(low, high + 1):
        card = face_at(suit, position)
        if position == at:
            options.append((card,))
        elif counts.get(card, 0) > (1 if card[:-1] == "A" and position == 14 and low == 1 and at == 1 else 0):
            options.append((card, JOKER_PREFIX + card))
        else:
            options.append((JOKER_PREFIX + card,))

    def fill(index: int, cards: list[str], used_jokers: int) -> Iterator[Candidate]:
        if used_jokers > jokers:
            return
        if index == len(options):
            naturals = tuple(card for card in cards if not card.startswith(JOKER))
            if enough_naturals(len(naturals), used_jokers, rule):
                yield Candidate(RUN, tuple(cards), naturals, used_jokers, suit, "", low, high)
            return
        for card in options[index]:
            cards.append(card)
            yield from fill(index + 1, cards, used_jokers + card.startswith(JOKER))
            cards.pop()

    yield from fill(0, [], 0)


def cover(counts: Counts, jokers: int, shape: Shape) -> Layout | None:
    """A layout of ``shape`` (extra melds allowed unless exact) using every card, or None."""
    chosen: list[Candidate] = []
    budget = [jokers]
    most = shape.sets + shape.runs if shape.exact else None

    def done() -> bool:
        sets = sum(1 for c in chosen if c.kind == SET)
        runs = len(chosen) - sets
        if shape.exact and (sets != shape.sets or runs != shape.runs):
            return False
        if sets < shape.sets or runs < shape.runs:
            return False
        run_list = [c for c in chosen if c.kind == RUN]
        if shape.runs >= 2:
            for i, first in enumerate(run_list):
                if not all(runs_apart(first, second, shape.suit_rule) for second in run_list[i + 1 :]):
                    return False
        if shape.distinct_set_ranks:
            ranks = [c.rank for c in chosen if c.kind == SET]
            if len(set(ranks)) != len(ranks):
                return False
        return True

    def walk() -> bool:
        pivot = next((code for code in sorted(counts) if counts[code] > 0), None)
        if pivot is None:
            return budget[0] == 0 and done()
        if most is not None and len(chosen) >= most:
            return False
        for candidate in _melds_with(counts, budget[0], pivot, shape.naturals, shape.min_run):
            if not _take(counts, candidate.naturals):
                continue
            budget[0] -= candidate.jokers
            chosen.append(candidate)
            if walk():
                return True
            chosen.pop()
            budget[0] += candidate.jokers
            _give(counts, candidate.naturals)
        return False

    work = dict(counts)
    counts = work
    return [candidate.cards for candidate in chosen] if walk() else None


# ---------------------------------------------------------------------------
# Deal 7, all at once: three runs of three different suits using every card (A.11).


def three_runs_cover(hand: Iterable[str], min_run: int, rule: str) -> Layout | None:
    """Three runs of different suits holding exactly the cards of ``hand``, or None."""
    counts = Counter(hand)
    jokers = counts.pop(JOKER, 0)
    by_suit: dict[str, list[str]] = {}
    for code, number in counts.items():
        by_suit.setdefault(code[-1], []).extend([code] * number)
    if len(by_suit) != 3:
        return None
    options: list[list[tuple[int, int, list[int], str]]] = []
    for suit, codes in by_suit.items():
        fixed = [POSITION[code[:-1]] for code in codes if code[:-1] != "A"]
        aces = len(codes) - len(fixed)
        if len(set(fixed)) != len(fixed) or aces > 2:
            return None
        placements = [[]] if aces == 0 else [[1], [14]] if aces == 1 else [[1, 14]]
        per_suit = []
        for extra in placements:
            positions = sorted(fixed + extra)
            low, high = positions[0], positions[-1]
            per_suit.append((low, high, positions, suit))
        options.append(per_suit)
    for first in options[0]:
        for second in options[1]:
            for third in options[2]:
                layout = _spread_jokers((first, second, third), jokers, min_run, rule)
                if layout is not None:
                    return layout
    return None


def _spread_jokers(
    runs: Sequence[tuple[int, int, list[int], str]], jokers: int, min_run: int, rule: str
) -> Layout | None:
    """Fill each run's gaps with jokers and spread the rest at the ends, within the rules."""
    gaps = [high - low + 1 - len(positions) for low, high, positions, _ in runs]
    spare = jokers - sum(gaps)
    if spare < 0:
        return None
    least = []
    most = []
    for (low, high, positions, _), gap in zip(runs, gaps, strict=True):
        span = high - low + 1
        cap = 14 - span
        if rule != "one":
            cap = min(cap, len(positions) - gap)
        need = max(0, min_run - span)
        if need > cap:
            return None
        least.append(need)
        most.append(cap)
    if not sum(least) <= spare <= sum(most):
        return None
    extra = list(least)
    left = spare - sum(least)
    for index in range(3):
        more = min(left, most[index] - extra[index])
        extra[index] += more
        left -= more
    layout = []
    for (low, high, positions, suit), add in zip(runs, extra, strict=True):
        up = min(add, 14 - high)
        high += up
        low -= add - up
        naturals = set(positions)
        layout.append(
            tuple(face_at(suit, p) if p in naturals else JOKER_PREFIX + face_at(suit, p) for p in range(low, high + 1))
        )
    return layout


def clear_caches() -> None:
    """Empty every cache of the finder (its candidate pools of ranks, suits and run windows, the
    plans' remaining shapes, the windows' joker costs): what a first search of a hand pays."""
    for cached in (_rank_sets, _suit_runs, _window_runs, _remaining, _window_costs):
        cached.cache_clear()
