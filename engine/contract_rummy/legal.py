"""``legal_commands``: every legal draw, discard, lay-off and joker swap, and a contract when one exists.

For going down (a ``meld``, or a ``dig`` whose card must be placed) one valid layout is
listed whenever one exists (the finder, :mod:`cardgames.engine.contract_rummy.finder`); every
other kind of command is listed in full, one command per distinct move.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from functools import cache
from itertools import combinations, product
from typing import Any, Final

from cardgames.engine.contract_rummy.commands import (
    Command,
    Dig,
    Discard,
    DrawDiscard,
    DrawStock,
    End,
    JokerTo,
    LayOff,
    Meld,
    SwapJoker,
)
from cardgames.engine.contract_rummy.config import CONTRACTS, Config
from cardgames.engine.contract_rummy.finder import (
    RANK_FACES,
    Candidate,
    Counts,
    LeftoverRule,
    Shape,
    Tally,
    count,
    cover,
    feasible_tally,
    find_layout,
    layout_from_counts,
    tally,
    three_runs_cover,
)
from cardgames.engine.contract_rummy.finder import clear_caches as finder_clear_caches
from cardgames.engine.contract_rummy.hands import can_discard_any, discardable, jokers_only_discard
from cardgames.engine.contract_rummy.melds import (
    JOKER_PREFIX,
    POSITION,
    RUN,
    SET,
    enough_naturals,
    extend,
    face,
    face_at,
    fits_set,
    naturals_ok,
    replace_joker,
    run_ends,
    set_suits,
)
from cardgames.engine.contract_rummy.melds import (
    Meld as TableMeld,
)
from cardgames.engine.contract_rummy.state import (
    DRAW,
    PLAY,
    State,
    all_at_once,
    barred,
)
from cardgames.engine.core.cards import JOKER, RANKS, STANDARD_CARDS, SUITS
from cardgames.engine.core.listing import LastListing

PHYSICAL = "physical_card"

#: Lay-offs that end with a dug card on the table: (card as laid off, meld, end).
Chain = list[tuple[str, int, End | None]]


def contract_shape(state: State) -> Shape:
    """The shape the finder searches for this deal's contract (A.6)."""
    return _shape(state.config, state.deal)


@cache
def _shape(config: Config, deal: int) -> Shape:
    sets, runs = CONTRACTS[deal - 1]
    return Shape(
        sets=sets,
        runs=runs,
        exact=config.contract_meld_count == "exact",
        suit_rule=config.same_suit_runs_in_contract,
        distinct_set_ranks=config.same_rank_sets_in_contract == "forbidden",
        min_run=config.min_run_length,
        naturals=config.min_naturals_per_meld,
    )


def going_out_allowed(state: State) -> bool:
    return not state.config.must_discard_to_go_out or all_at_once(state)


def leftover_rule(
    config: Config, barred_code: str | None, original: Sequence[str], going_out_ok: bool
) -> LeftoverRule:
    """Accepts what a play leaves in the hand: a card that may be discarded, or nothing if going out is allowed
    (A.8 no dead ends, A.11). ``original`` is the hand before the play (R1 ``physical_card``)."""
    return _Leftover(config, barred_code, original, going_out_ok)


class _Leftover:
    """:func:`leftover_rule`'s rule: an object rather than nested functions, which would refer to
    each other through their shared closure, a reference cycle only the garbage collector frees
    (one per listing, and with it the collector's passes over a playout's young objects)."""

    def __init__(self, config: Config, barred_code: str | None, original: Sequence[str], going_out_ok: bool) -> None:
        self.discard_jokers = config.discard_jokers
        self.physical = config.top_discard_return_rule == PHYSICAL
        self.barred_code = barred_code
        self.original = original
        self.going_out_ok = going_out_ok

    def free(self, code: str, left: int) -> bool:
        if code != self.barred_code:
            return True
        return self.physical and (left > 1 or left < self.original.count(code))

    def __call__(self, counts: Counts, jokers: int) -> bool:
        if jokers and self.discard_jokers and self.free(JOKER, jokers):
            return True
        held = jokers > 0
        for code, left in counts.items():
            if left > 0:
                if self.free(code, left):
                    return True
                held = True
        return not held and self.going_out_ok


def _after_ok(state: State, hand: Sequence[str], placed: Sequence[str]) -> bool:
    """Would the hand left after a play that put ``placed`` (hand codes) on the table be allowed?"""
    rest = list(hand)
    for placed_code in placed:
        rest.remove(placed_code)
    if not rest:
        return going_out_allowed(state)
    code = barred(state)
    if code is not None and state.config.top_discard_return_rule == PHYSICAL and code in placed:
        code = None
    return can_discard_any(state.config, code, tuple(rest))


# ---------------------------------------------------------------------------
# The draw step.


def _draws(state: State, seat: int) -> list[Command]:
    commands: list[Command] = [DrawStock()]
    pile = state.discard
    hand = state.hands[seat]
    if pile and can_discard_any(state.config, pile[0], (*hand, pile[0])):
        commands.append(DrawDiscard())
    if state.config.discard_dig and len(pile) >= 2:
        # A seat not yet down needs the whole contract from its hand and the dug cards: the
        # quick test skips the depths where even that fails (most of them).
        final = all_at_once(state)
        if final and state.contract_met[seat]:
            return commands
        checked = not (state.contract_met[seat] or final)
        first = _first_feasible_depth(hand, pile, contract_shape(state)) if checked else 2
        # the hand and the cards dug so far, counted once for all depths (a seat down needs no count)
        counts = count((*hand, *pile[: first - 1])) if first <= len(pile) and not state.contract_met[seat] else None
        known: list[list[Candidate]] = []  # the layouts found so far: most depths can reuse most of one
        for depth in range(first, len(pile) + 1):
            if counts is not None:
                card = pile[depth - 1]
                counts[card] = counts.get(card, 0) + 1
                if final and _never_three_runs(counts, state.config.final_deal_mode):
                    break  # more cards cannot help
            dig = dig_command(state, seat, depth, contract_checked=checked, counts=counts, known=known)
            if dig is not None:
                commands.append(dig)
    return commands


def _first_feasible_depth(hand: Sequence[str], pile: Sequence[str], shape: Shape) -> int:
    """The shallowest dig depth (from 2) whose cards and the hand pass the finder's quick test
    (len(pile) + 1 if none). The test only gets easier with more cards: the whole pile first (on
    most turns even that fails), then a binary search."""
    held = tally(hand)
    low, high = 2, len(pile) + 1
    if not _passes(held, pile, len(pile), shape):
        return high
    high = len(pile)
    while low < high:
        middle = (low + high) // 2
        if _passes(held, pile, middle, shape):
            high = middle
        else:
            low = middle + 1
    return low


def _passes(held: Tally, pile: Sequence[str], depth: int, shape: Shape) -> bool:
    """Do the hand (``held``) and the top ``depth`` cards of the pile pass the finder's quick test?"""
    return feasible_tally(tally(pile[:depth], held), shape)


def _never_three_runs(counts: Counts, mode: str) -> bool:
    """Can no hand holding ``counts`` (or more) be three runs of three suits, all cards but at
    most one (``all_at_once_with_discard``) (A.11)? Repeated faces and a fourth suit never go away."""
    suits: Counter[str] = Counter()
    extra = 0
    for code, number in counts.items():
        if code != JOKER and number:
            suits[code[-1]] += number
            extra += max(0, number - (2 if code[:-1] == "A" else 1))
    if mode == "all_at_once_no_discard":
        return extra > 0 or len(suits) > 3
    return extra > 1 or (len(suits) == 4 and (extra == 1 or min(suits.values()) > 1))


#: Per suit the code at each run position 1..14 (a rank's codes: finder.RANK_FACES).
_RUN_CODES: Final = {suit: ("", *(face_at(suit, position) for position in range(1, 15))) for suit in SUITS}


def _could_meld(counts: Counts, jokers: int, card: str, min_run: int) -> bool:
    """A quick necessary test: can ``card`` (natural) be in some meld made from ``counts`` and jokers?
    (Plain loops over precomputed codes: it runs for every dig depth.)"""
    rank, suit = card[:-1], card[-1]
    found = jokers  # the set: the rank's suits held, and the jokers
    for code in RANK_FACES[POSITION[rank] - 1]:
        if counts.get(code, 0) > 0:
            found += 1
    if found >= 3:
        return True
    codes = _RUN_CODES[suit]
    for at in (1, 14) if rank == "A" else (POSITION[rank],):
        for low in range(max(1, at - min_run + 1), min(at, 15 - min_run) + 1):
            gaps = 0
            for position in range(low, low + min_run):
                if counts.get(codes[position], 0) <= 0:
                    gaps += 1
            if gaps <= jokers:
                return True
    return False


def _meldable(counts: Counts, card: str, min_run: int) -> bool:
    """May the dug ``card`` go in a new meld at all (a joker always may)? A quick necessary test."""
    return card == JOKER or _could_meld(counts, counts.get(JOKER, 0), card, min_run)


def _may_go_on_table(state: State, card: str) -> bool:
    """A quick necessary test for a lay-off of ``card``: a natural card goes only on a set of its
    rank or a run of its suit."""
    return card == JOKER or any(
        meld.rank == card[:-1] if meld.kind == SET else meld.suit == card[-1] for meld in state.melds
    )


def _chains(state: State, hand: Sequence[str], target: str) -> Iterator[Chain]:
    """Ways to lay ``target`` off onto a meld on the table, laying off the cards between first
    (each step: the card as laid off, the meld, the end). The hand must hold ``target``."""
    if not _may_go_on_table(state, target):
        return
    config = state.config
    counts = Counter(hand)
    counts[target] -= 1
    jokers = counts.pop(JOKER, 0)
    rule = config.min_naturals_per_meld
    for index, meld in enumerate(state.melds):
        if meld.kind == SET:
            if target == JOKER:
                if config.joker_layoff_targets == "runs_and_sets" and len(meld.cards) < 4:
                    for suit in SUITS:
                        if suit not in set_suits(meld):
                            card = JOKER_PREFIX + meld.rank + suit
                            if naturals_ok((*meld.cards, card), rule):
                                yield [(card, index, None)]
                                break
            elif fits_set(meld, target):
                yield [(target, index, None)]
            continue
        if target == JOKER:
            ends: tuple[tuple[End, int], ...] = (("low", meld.low - 1), ("high", meld.high + 1))
            for end_name, position in ends:
                card = JOKER_PREFIX + face_at(meld.suit, position) if 1 <= position <= 14 else ""
                if card and naturals_ok((*meld.cards, card), rule):
                    yield [(card, index, end_name)]
            continue
        if target[-1] != meld.suit:
            continue
        rank = target[:-1]
        for at in (1, 14) if rank == "A" else (POSITION[rank],):
            end: End
            if at > meld.high:
                between, end = list(range(meld.high + 1, at)), "high"
            elif at < meld.low:
                between, end = list(range(meld.low - 1, at, -1)), "low"
            else:
                continue
            yield from _fillings(meld, index, between, end, counts, jokers, target, rule)


def _fillings(
    meld: TableMeld, index: int, between: list[int], end: End, counts: Counts, jokers: int, target: str, rule: str
) -> Iterator[Chain]:
    """Every way to fill the positions ``between`` (naturals or jokers), then ``target``."""
    naturals = sum(1 for card in meld.cards if not card.startswith(JOKER))
    held = len(meld.cards) - naturals
    fill = _Filling(meld.suit, index, between, end, counts, jokers, target, rule)
    yield from fill.walk(0, [], {}, 0, naturals, held)


class _Filling:
    """What :func:`_fillings` walks over (an object, not a closure: a recursive nested function
    refers to itself through its closure, a reference cycle only the garbage collector frees)."""

    def __init__(
        self, suit: str, index: int, between: list[int], end: End, counts: Counts, jokers: int, target: str, rule: str
    ) -> None:
        self.suit = suit
        self.index = index
        self.between = between
        self.end: End = end
        self.counts = counts
        self.jokers = jokers
        self.target = target
        self.rule = rule

    def walk(self, step: int, chain: Chain, used: Counts, spent: int, nat: int, jok: int) -> Iterator[Chain]:
        index, end = self.index, self.end
        if step == len(self.between):
            yield [*chain, (self.target, index, end)]
            return
        card = face_at(self.suit, self.between[step])
        if self.counts.get(card, 0) - used.get(card, 0) > 0:
            used[card] = used.get(card, 0) + 1
            yield from self.walk(step + 1, [*chain, (card, index, end)], used, spent, nat + 1, jok)
            used[card] -= 1
        if spent < self.jokers and (self.rule == "one" or jok + 1 <= nat):
            yield from self.walk(step + 1, [*chain, (JOKER_PREFIX + card, index, end)], used, spent + 1, nat, jok + 1)


def _without(hand: Sequence[str], cards: Sequence[str]) -> list[str]:
    rest = list(hand)
    for card in cards:
        rest.remove(JOKER if card.startswith(JOKER) else card)
    return rest


def dig_command(
    state: State,
    seat: int,
    depth: int,
    contract_checked: bool = False,
    counts: Counts | None = None,
    known: list[list[Candidate]] | None = None,
) -> Dig | None:
    """A dig to ``depth`` whose card is placed by its ``then`` list, if there is one (A.8 D3).
    ``contract_checked``: the hand and the dug cards are known to pass the finder's quick test;
    ``counts``: they are already counted (read only); ``known``: contract layouts found for
    shallower depths (the finder tries them first and adds what it finds).

    With ``discard_jokers = false`` a dig may also go out by laying off the jokers it would
    otherwise leave in the hand (a hand of jokers only could not end the turn, A.8): where the
    seat may lay off in this command (down before, or ``layoff_same_turn_as_contract``) and may
    go out, the leftover may be jokers that the melds already on the table take."""
    config = state.config
    pile = state.discard
    target = pile[depth - 1]
    met = state.contract_met[seat]
    if all_at_once(state):
        if met:
            return None
        hand = [*state.hands[seat], *pile[:depth]]
        layout = _all_at_once_layout(state, hand, None, target)
        return None if layout is None else Dig(depth=depth, then=(Meld(melds=tuple(layout)),))
    if met and not config.allow_new_melds_after_contract and not _may_go_on_table(state, target):
        return None  # (most depths of a seat that is down: checked before any counting)
    going_out_ok = going_out_allowed(state)
    rule = _dig_rule(config, going_out_ok)
    # Jokers left in the hand that the table takes: only where a hand of jokers is a dead end.
    lay_jokers = going_out_ok and not config.discard_jokers and (met or config.layoff_same_turn_as_contract)
    if counts is None:
        counts = count((*state.hands[seat], *pile[:depth]))
    jokers = counts.get(JOKER, 0) if lay_jokers else 0
    if met:
        hand = [*state.hands[seat], *pile[:depth]]
        for chain in _chains(state, hand, target):
            rest = count(_without(hand, [card for card, _, _ in chain]))
            rest_jokers = rest.pop(JOKER, 0)
            if rule(rest, rest_jokers):
                return Dig(depth=depth, then=_lay_offs_of(chain))
            if rest_jokers and not any(rest.values()) and jokers:
                placed = _joker_lay_offs(state, seat, rest_jokers, chain)
                if placed is not None:
                    return Dig(depth=depth, then=(*_lay_offs_of(chain), *placed))
        if config.allow_new_melds_after_contract and _meldable(counts, target, config.min_run_length):
            for shape in _single_shapes(config):
                dig = _dig_meld(state, seat, depth, dict(counts), shape, rule, target, jokers, None)
                if dig is not None:
                    return dig
        return None
    shape = contract_shape(state)
    if _meldable(counts, target, config.min_run_length):
        dig = _dig_meld(state, seat, depth, dict(counts), shape, rule, target, jokers, known, contract_checked)
        if dig is not None:
            return dig
    if not config.layoff_same_turn_as_contract:
        return None
    hand = [*state.hands[seat], *pile[:depth]]
    for chain in _chains(state, hand, target):
        remaining = _without(hand, [card for card, _, _ in chain])
        rest_counts = count(remaining)
        dig = _dig_meld(state, seat, depth, rest_counts, shape, rule, None, rest_counts.get(JOKER, 0) if jokers else 0,
                        None, chain=chain)
        if dig is not None:
            return dig
    return None


@cache
def _dig_rule(config: Config, going_out_ok: bool) -> LeftoverRule:
    """The leftover rule after a dig (R1 bars nothing after D3, A.8)."""
    return leftover_rule(config, None, (), going_out_ok)


def _single_shapes(config: Config) -> tuple[Shape, Shape]:
    """One set, one run: the smallest new melds (A.8 step 2, ``allow_new_melds_after_contract``)."""
    return (
        Shape(1, 0, naturals=config.min_naturals_per_meld, min_run=config.min_run_length),
        Shape(0, 1, naturals=config.min_naturals_per_meld, min_run=config.min_run_length),
    )


def _lay_offs_of(chain: Chain) -> tuple[LayOff, ...]:
    return tuple(LayOff(card=c, meld=m, end=e) for c, m, e in chain)


def _dig_meld(
    state: State,
    seat: int,
    depth: int,
    counts: Counts,
    shape: Shape,
    rule: LeftoverRule,
    pin: str | None,
    jokers: int,
    known: list[list[Candidate]] | None,
    checked: bool = False,
    chain: Chain | None = None,
) -> Dig | None:
    """A dig whose ``then`` lays down melds of ``shape`` from ``counts`` (holding ``pin``), after
    them the lay-offs of ``chain`` and, when ``jokers`` (the jokers in ``counts`` that may be laid
    off to go out, 0 if none may), the jokers the melds leave over."""
    chain = chain or []
    room = _joker_room(state, seat, jokers, chain) if jokers else 0
    if room:
        rule = _or_jokers_laid_off(rule, room)
    held = counts.get(JOKER, 0)
    cards = sum(counts.values())
    layout = layout_from_counts(counts, shape, rule, pin=pin, checked=checked, known=known)  # (uses counts up)
    if layout is None and room:
        # some of the jokers the melds leave go on the table, the others lengthen the melds
        for laid in range(1, min(room, held) + 1):
            layout = cover(counts, held - laid, shape)
            if layout is not None:
                break
    if layout is None:
        return None
    then: tuple[Meld | LayOff, ...] = (Meld(melds=tuple(layout)), *_lay_offs_of(chain))
    used = sum(len(meld) for meld in layout)
    left = cards - used  # the cards the melds leave in the hand
    left_jokers = held - sum(1 for meld in layout for card in meld if card.startswith(JOKER_PREFIX))
    if room and left_jokers and left == left_jokers:  # only jokers: a dead end unless laid off
        placed = _joker_lay_offs(state, seat, left_jokers, chain)
        if placed is None:  # (the rule admitted only what the table takes)
            return None
        then = (*then, *placed)
    return Dig(depth=depth, then=then)


def _or_jokers_laid_off(rule: LeftoverRule, room: int) -> LeftoverRule:
    """``rule``, or a leftover of at most ``room`` cards that are all jokers (the table takes them)."""

    def extended(counts: Counts, left: int) -> bool:
        return rule(counts, left) or (0 < left <= room and not any(counts.values()))

    return extended


def _joker_room(state: State, seat: int, most: int, chain: Chain) -> int:
    """How many jokers (up to ``most``) the melds on the table take after ``chain``."""
    for number in range(most, 0, -1):
        if _joker_lay_offs(state, seat, number, chain) is not None:
            return number
    return 0


def _joker_lay_offs(state: State, seat: int, number: int, chain: Chain) -> list[LayOff] | None:
    """Lay-offs of ``number`` jokers onto the melds on the table after ``chain``, or None. Each
    meld takes jokers independently of the others, so filling them in order places the most."""
    config = state.config
    melds = list(state.melds)
    for card, index, end in chain:
        meld = melds[index]
        melds[index] = extend(meld, card, end or _end_of(meld, card), seat)
    placed: list[LayOff] = []
    index = 0
    while len(placed) < number and index < len(melds):
        meld = melds[index]
        placement = next(iter(_joker_placements(meld, config.joker_layoff_targets, config.min_naturals_per_meld)), None)
        if placement is None:
            index += 1
            continue
        card, end = placement
        placed.append(LayOff(card=card, meld=index, end=end))
        melds[index] = extend(meld, card, end or _end_of(meld, card), seat)
    return placed if len(placed) == number else None


def _end_of(meld: TableMeld, card: str) -> End | None:
    """The end of a run where ``card`` goes (where only one fits); None for a set."""
    if meld.kind != RUN:
        return None
    ends = run_ends(meld, face(card))
    return "low" if ends and ends[0] == "low" else "high"


# ---------------------------------------------------------------------------
# The play step.


def _all_at_once_layout(
    state: State, hand: Sequence[str], barred_code: str | None, keep: str | None = None
) -> list[tuple[str, ...]] | None:
    """Deal 7: three runs of different suits with every card (or every card but a discardable one)."""
    config = state.config
    if config.final_deal_mode == "all_at_once_no_discard":
        return three_runs_cover(hand, config.min_run_length, config.min_naturals_per_meld)
    held = tuple(hand)
    for code in _removals(held):
        if code == keep and held.count(code) == 1:
            continue  # the dug card must go down
        if not discardable(config, barred_code, held, code):
            continue
        rest = list(held)
        rest.remove(code)
        layout = three_runs_cover(rest, config.min_run_length, config.min_naturals_per_meld)
        if layout is not None:
            return layout
    return None


def _removals(hand: tuple[str, ...]) -> list[str]:
    """The cards whose removal could leave three runs of three suits (a quick filter)."""
    counts = Counter(hand)
    suits = Counter(code[-1] for code in hand if code != JOKER)
    twice = [code for code, number in counts.items() if number > 1 and code != JOKER and code[:-1] != "A"]
    if len(twice) > 1 or any(counts[code] > 2 for code in twice):
        return []
    if twice:
        options = twice
    elif len(suits) == 4:
        options = [code for code in counts if code != JOKER and suits[code[-1]] == 1]
    elif len(suits) == 3:
        options = [code for code in counts if code == JOKER or suits[code[-1]] > 1]
    else:
        return []
    return sorted(options)


def contract_command(state: State, seat: int) -> Meld | None:
    """One valid contract lay-down for ``seat`` now, if any (A.6, A.11)."""
    hand = state.hands[seat]
    code = barred(state)
    if all_at_once(state):
        layout = _all_at_once_layout(state, hand, code)
    else:
        shape = contract_shape(state)
        if not feasible_tally(tally(hand), shape):  # (most hands: no counting, no leftover rule)
            return None
        rule = leftover_rule(state.config, code, hand, going_out_allowed(state))
        layout = find_layout(hand, shape, rule, checked=True)
    return None if layout is None else Meld(melds=tuple(layout))


def _lay_offs(state: State, seat: int, hand: tuple[str, ...]) -> list[Command]:
    config = state.config
    rule = config.min_naturals_per_meld
    commands: list[Command] = []
    held = set(hand)
    checked: dict[str, bool] = {}  # code -> may the hand lay it off (asked only for codes that fit)

    def allowed(code: str) -> bool:
        if code not in checked:
            checked[code] = _after_ok(state, hand, (code,))
        return checked[code]

    for index, meld in enumerate(state.melds):
        for card, end in _openings(meld, held):
            if allowed(card):
                commands.append(LayOff(card=card, meld=index, end=end))
        if JOKER in held and allowed(JOKER):
            for card, end in _joker_placements(meld, config.joker_layoff_targets, rule):
                commands.append(LayOff(card=card, meld=index, end=end))
    return commands


def _openings(meld: TableMeld, held: set[str]) -> Iterator[tuple[str, End | None]]:
    """Each (natural card, end) of ``held`` that goes on ``meld`` (A.9): a set's missing suits,
    the faces just beyond a run's ends (an ace that fits both ends, once per end)."""
    if meld.kind == SET:
        if len(meld.cards) < 4:
            taken = set_suits(meld)
            for suit in SUITS:
                code = meld.rank + suit
                if suit not in taken and code in held:
                    yield code, None
        return
    below = face_at(meld.suit, meld.low - 1) if meld.low > 1 else ""
    above = face_at(meld.suit, meld.high + 1) if meld.high < 14 else ""
    if below and below == above:
        if below in held:
            yield below, "low"
            yield below, "high"
        return
    for code in (below, above):
        if code and code in held:
            yield code, None


def _joker_placements(meld: TableMeld, joker_targets: str, rule: str) -> Iterator[tuple[str, End | None]]:
    """Each (declared joker, end) that goes on ``meld`` (A.9: runs only unless ``runs_and_sets``)."""
    if meld.kind == SET:
        if joker_targets == "runs_and_sets" and len(meld.cards) < 4:
            for suit in SUITS:
                if suit not in set_suits(meld) and naturals_ok((*meld.cards, "JK"), rule):
                    yield JOKER_PREFIX + meld.rank + suit, None
        return
    if not naturals_ok((*meld.cards, JOKER), rule):
        return
    low, high = meld.low - 1, meld.high + 1
    if low == 1 and high == 14:
        yield JOKER_PREFIX + face_at(meld.suit, 1), "low"
        yield JOKER_PREFIX + face_at(meld.suit, 14), "high"
        return
    if low >= 1:
        yield JOKER_PREFIX + face_at(meld.suit, low), None
    if high <= 14:
        yield JOKER_PREFIX + face_at(meld.suit, high), None


def _swaps(state: State, seat: int, hand: tuple[str, ...]) -> list[Command]:
    config = state.config
    commands: list[Command] = []
    for index, meld in enumerate(state.melds):
        if meld.kind != RUN or (meld.owner == seat and not config.joker_swap_from_own_melds):
            continue
        for card in meld.cards:
            if not card.startswith(JOKER_PREFIX) or face(card) not in hand:
                continue
            natural = face(card)
            if not _after_ok(state, hand, (natural,)):
                continue
            swapped = replace_joker(meld, natural, seat)
            table = (*state.melds[:index], swapped, *state.melds[index + 1 :])
            for to, target in enumerate(table):
                for placed, end in _joker_placements(target, config.joker_layoff_targets, config.min_naturals_per_meld):
                    joker_to = JokerTo(meld=to, as_=face(placed), end=end)
                    commands.append(SwapJoker(card=natural, meld=index, joker_to=joker_to))
            if config.allow_new_melds_after_contract:
                commands += _swaps_into_new_melds(state, hand, natural, index)
    return commands


def _swaps_into_new_melds(state: State, hand: tuple[str, ...], natural: str, index: int) -> list[Command]:
    """The swaps of ``natural`` for the joker of run ``index`` that put the joker into a new meld
    (A.10 with ``allow_new_melds_after_contract``): every distinct meld of the swapped joker, the
    hand's other cards and as many of its jokers as it likes, that leaves a hand the turn can go
    on with."""
    counts = count(hand)
    counts[natural] -= 1
    jokers = counts.pop(JOKER, 0) + 1  # the swapped joker, never in the hand
    return [
        SwapJoker(card=natural, meld=index, joker_to=JokerTo(new_meld=meld))
        for meld in _melds_leaving_a_turn(state, hand, counts, jokers, with_joker=True)
    ]


def _new_melds(state: State, seat: int, hand: tuple[str, ...]) -> list[Command]:
    """Every distinct new meld of a player who is down (``allow_new_melds_after_contract``, A.8
    step 2), one ``meld`` command each, that leaves a hand the turn can go on with.

    A command holding several new melds is not listed: laid down one command at a time, the same
    melds end on the same table and hand, and every step is legal whenever the whole command is
    (A.8, no dead ends): if the whole leaves a card that may be discarded, so does every step,
    whose hand holds more; if it goes out, laying last a meld that holds a card that may be
    discarded keeps one in the hand until then. The one exception needs every meld of the
    command to be a natural R1 bars plus jokers, with ``discard_jokers = false`` (two copies of
    the barred face and four jokers or more): such a going out is not listed."""
    counts = count(hand)
    jokers = counts.pop(JOKER, 0)
    return [Meld(melds=(meld,)) for meld in _melds_leaving_a_turn(state, hand, counts, jokers)]


def _melds_leaving_a_turn(
    state: State, hand: tuple[str, ...], counts: Counts, jokers: int, *, with_joker: bool = False
) -> Iterator[tuple[str, ...]]:
    """Every distinct meld of the naturals ``counts`` and ``jokers`` jokers (holding one joker or
    more if ``with_joker``) whose play leaves what is left of them a hand the turn can go on with
    (``hand``: the hand before the play). ``counts`` is used up and restored."""
    config = state.config
    rule = leftover_rule(config, barred(state), hand, going_out_allowed(state))
    for meld in every_meld(counts, jokers, config.min_run_length, config.min_naturals_per_meld):
        naturals = [card for card in meld if not card.startswith(JOKER_PREFIX)]
        used = len(meld) - len(naturals)
        if with_joker and not used:
            continue
        for card in naturals:
            counts[card] -= 1
        fits = rule(counts, jokers - used)
        for card in naturals:
            counts[card] += 1
        if fits:
            yield meld


def every_meld(counts: Counts, jokers: int, min_run: int, rule: str) -> Iterator[tuple[str, ...]]:
    """Every distinct set and run (table forms: a set's naturals then its jokers in suit order, a
    run low to high) that ``counts`` (naturals) and ``jokers`` can make (A.7): every choice of
    the suits a set's jokers claim, every run position a joker may fill (a joker may stand for a
    face the hand holds)."""
    for rank in RANKS:
        suits = [suit for suit in SUITS if counts.get(rank + suit, 0) > 0]
        for size in range(1, len(suits) + 1):
            for chosen in combinations(suits, size):
                free = [suit for suit in SUITS if suit not in chosen]
                for extra in range(max(0, 3 - size), min(jokers, 4 - size) + 1):
                    if not enough_naturals(size, extra, rule):
                        continue
                    naturals = tuple(rank + suit for suit in chosen)
                    for claimed in combinations(free, extra):
                        yield naturals + tuple(JOKER_PREFIX + rank + suit for suit in claimed)
    for suit in SUITS:
        for low in range(1, 15 - min_run + 1):
            for high in range(low + min_run - 1, 15):
                yield from _runs_in(counts, jokers, suit, low, high, rule)


def _runs_in(counts: Counts, jokers: int, suit: str, low: int, high: int, rule: str) -> Iterator[tuple[str, ...]]:
    """The runs of ``suit`` from ``low`` to ``high``: each position a natural (if held) or a joker."""
    ace = "A" + suit
    one_ace = low == 1 and high == 14 and counts.get(ace, 0) < 2  # it cannot stand at both ends
    options: list[tuple[str, ...]] = []
    gaps = 0
    for position in range(low, high + 1):
        card = face_at(suit, position)
        held = counts.get(card, 0) > 0
        options.append((card, JOKER_PREFIX + card) if held else (JOKER_PREFIX + card,))
        gaps += not held
    if gaps > jokers:
        return
    for cards in product(*options):
        used = sum(1 for card in cards if card.startswith(JOKER_PREFIX))
        both_aces = one_ace and cards[0] == ace and cards[-1] == ace
        if used <= jokers and enough_naturals(len(cards) - used, used, rule) and not both_aces:
            yield cards


def _plays(state: State, seat: int) -> list[Command]:
    config = state.config
    hand = state.hands[seat]
    code = barred(state)
    commands: list[Command] = []
    met = state.contract_met[seat]
    turn = state.turn
    went_down = turn is not None and turn.went_down
    if not met:
        meld = contract_command(state, seat)
        if meld is not None:
            commands.append(meld)
    elif not all_at_once(state):
        if config.allow_new_melds_after_contract:
            commands += _new_melds(state, seat, hand)
        if not went_down or config.layoff_same_turn_as_contract:
            commands += _lay_offs(state, seat, hand)
        if config.joker_swap and not went_down:
            commands += _swaps(state, seat, hand)
    # Every code may be discarded but a joker under discard_jokers = false and the code R1 bars
    # (checked once: state.discardable).
    jokers_go = config.discard_jokers or jokers_only_discard(config, hand)
    barred_goes = code is not None and discardable(config, code, hand, code)
    commands += [
        _DISCARDS[card] for card in sorted(set(hand)) if (barred_goes if card == code else card != JOKER or jokers_go)
    ]
    return commands


#: One Discard command per card code (frozen, so shared between calls like any constant).
_DISCARDS: dict[str, Discard] = {card: Discard(card=card) for card in (*STANDARD_CARDS, JOKER)}


#: The last listing, whose commands ``decide`` applies without the checks the listing made
#: (cardgames.engine.core.listing), as the Seep engine does.
LAST_LISTING: Final = LastListing()


def clear_caches() -> None:
    """Empty every cache and memo the listing reads (the finder's, the contracts' shapes, the dig
    rules, the last listing ``decide`` trusts): the cold cost of a position (bench/worst.py)."""
    finder_clear_caches()
    _shape.cache_clear()
    _dig_rule.cache_clear()
    LAST_LISTING.remember(None, -1, [])


def legal_commands(state: State, seat: int) -> list[Any]:
    """Every distinct legal command of ``seat`` now (one layout per contract lay-down)."""
    if state.to_act != seat:
        return []
    if state.phase == DRAW:
        out = _draws(state, seat)
    elif state.phase == PLAY:
        out = _plays(state, seat)
    else:
        return []
    LAST_LISTING.remember(state, seat, out)
    return out


