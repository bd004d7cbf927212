"""``legal_commands``: every legal draw, discard, lay-off and joker swap, and a contract when one exists.

For going down (a ``meld``, or a ``dig`` whose card must be placed) one valid layout is
listed whenever one exists (the finder, :mod:`engine.contract_rummy.finder`); every
other kind of command is listed in full, one command per distinct move.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from functools import cache
from typing import Any

from engine.contract_rummy.commands import (
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
from engine.contract_rummy.config import CONTRACTS, Config
from engine.contract_rummy.finder import (
    Counts,
    LeftoverRule,
    Shape,
    count,
    feasible,
    find_layout,
    layout_from_counts,
    three_runs_cover,
)
from engine.contract_rummy.melds import (
    JOKER_PREFIX,
    POSITION,
    RUN,
    SET,
    face,
    face_at,
    fits_set,
    naturals_ok,
    replace_joker,
    set_suits,
)
from engine.contract_rummy.melds import (
    Meld as TableMeld,
)
from engine.contract_rummy.state import (
    DRAW,
    PLAY,
    State,
    all_at_once,
    barred,
    can_discard_any,
    discardable,
)
from engine.core.cards import JOKER, STANDARD_CARDS, SUITS

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
    physical = config.top_discard_return_rule == PHYSICAL

    def free(code: str, left: int) -> bool:
        if code != barred_code:
            return True
        return physical and (left > 1 or left < original.count(code))

    def ok(counts: Counts, jokers: int) -> bool:
        if jokers and config.discard_jokers and free(JOKER, jokers):
            return True
        held = jokers > 0
        for code, left in counts.items():
            if left > 0:
                if free(code, left):
                    return True
                held = True
        return not held and going_out_ok

    return ok


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
        for depth in range(first, len(pile) + 1):
            if counts is not None:
                card = pile[depth - 1]
                counts[card] = counts.get(card, 0) + 1
                if final and _never_three_runs(counts, state.config.final_deal_mode):
                    break  # more cards cannot help
            dig = dig_command(state, seat, depth, contract_checked=checked, counts=counts)
            if dig is not None:
                commands.append(dig)
    return commands


def _first_feasible_depth(hand: Sequence[str], pile: Sequence[str], shape: Shape) -> int:
    """The shallowest dig depth (from 2) whose cards and the hand pass the finder's quick test
    (len(pile) + 1 if none). The test only gets easier with more cards: the whole pile first (on
    most turns even that fails), then a binary search."""
    held = count(hand)

    def passes(depth: int) -> bool:
        counts = dict(held)
        for card in pile[:depth]:
            counts[card] = counts.get(card, 0) + 1
        jokers = counts.pop(JOKER, 0)
        return feasible(counts, jokers, shape)

    low, high = 2, len(pile) + 1
    if not passes(len(pile)):
        return high
    high = len(pile)
    while low < high:
        middle = (low + high) // 2
        if passes(middle):
            high = middle
        else:
            low = middle + 1
    return low


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


def _could_meld(counts: Counts, jokers: int, card: str, min_run: int) -> bool:
    """A quick necessary test: can ``card`` (natural) be in some meld made from ``counts`` and jokers?"""
    rank, suit = card[:-1], card[-1]
    if sum(1 for s in SUITS if counts.get(rank + s, 0) > 0) + jokers >= 3:
        return True
    for at in (1, 14) if rank == "A" else (POSITION[rank],):
        for low in range(max(1, at - min_run + 1), min(at, 15 - min_run) + 1):
            gaps = sum(1 for p in range(low, low + min_run) if counts.get(face_at(suit, p), 0) <= 0)
            if gaps <= jokers:
                return True
    return False


def _meldable(counts: Counts, card: str, min_run: int) -> bool:
    """May the dug ``card`` go in a new meld at all (a joker always may)? A quick necessary test."""
    return card == JOKER or _could_meld(counts, counts.get(JOKER, 0), card, min_run)


def _chains(state: State, hand: Sequence[str], target: str) -> Iterator[Chain]:
    """Ways to lay ``target`` off onto a meld on the table, laying off the cards between first
    (each step: the card as laid off, the meld, the end). The hand must hold ``target``."""
    if target != JOKER and not any(
        meld.rank == target[:-1] if meld.kind == SET else meld.suit == target[-1] for meld in state.melds
    ):
        return  # a natural card goes only on a set of its rank or a run of its suit: none on the table
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

    def walk(step: int, chain: Chain, used: Counts, spent: int, nat: int, jok: int) -> Iterator[Chain]:
        if step == len(between):
            yield [*chain, (target, index, end)]
            return
        card = face_at(meld.suit, between[step])
        if counts.get(card, 0) - used.get(card, 0) > 0:
            used[card] = used.get(card, 0) + 1
            yield from walk(step + 1, [*chain, (card, index, end)], used, spent, nat + 1, jok)
            used[card] -= 1
        if spent < jokers and (rule == "one" or jok + 1 <= nat):
            yield from walk(step + 1, [*chain, (JOKER_PREFIX + card, index, end)], used, spent + 1, nat, jok + 1)

    yield from walk(0, [], {}, 0, naturals, held)


def _without(hand: Sequence[str], cards: Sequence[str]) -> list[str]:
    rest = list(hand)
    for card in cards:
        rest.remove(JOKER if card.startswith(JOKER) else card)
    return rest


def dig_command(
    state: State, seat: int, depth: int, contract_checked: bool = False, counts: Counts | None = None
) -> Dig | None:
    """A dig to ``depth`` whose card is placed by its ``then`` list, if there is one (A.8 D3).
    ``contract_checked``: the hand and the dug cards are known to pass the finder's quick test;
    ``counts``: they are already counted (read only)."""
    config = state.config
    pile = state.discard
    target = pile[depth - 1]
    hand = [*state.hands[seat], *pile[:depth]]
    met = state.contract_met[seat]
    if all_at_once(state):
        if met:
            return None
        layout = _all_at_once_layout(state, hand, None, target)
        return None if layout is None else Dig(depth=depth, then=(Meld(melds=tuple(layout)),))
    going_out_ok = going_out_allowed(state)
    rule = leftover_rule(config, None, hand, going_out_ok)
    if counts is None:
        counts = count(hand)
    if met:
        for chain in _chains(state, hand, target):
            rest = Counter(_without(hand, [card for card, _, _ in chain]))
            rest_jokers = rest.pop(JOKER, 0)
            if rule(rest, rest_jokers):
                return Dig(depth=depth, then=tuple(LayOff(card=c, meld=m, end=e) for c, m, e in chain))
        if config.allow_new_melds_after_contract and _meldable(counts, target, config.min_run_length):
            for shape in (
                Shape(1, 0, naturals=config.min_naturals_per_meld, min_run=config.min_run_length),
                Shape(0, 1, naturals=config.min_naturals_per_meld, min_run=config.min_run_length),
            ):
                layout = find_layout(hand, shape, rule, pin=target)
                if layout is not None:
                    return Dig(depth=depth, then=(Meld(melds=tuple(layout)),))
        return None
    shape = contract_shape(state)
    if _meldable(counts, target, config.min_run_length):
        layout = layout_from_counts(dict(counts), shape, rule, pin=target, checked=contract_checked)
        if layout is not None:
            return Dig(depth=depth, then=(Meld(melds=tuple(layout)),))
    if not config.layoff_same_turn_as_contract:
        return None
    for chain in _chains(state, hand, target):
        remaining = _without(hand, [card for card, _, _ in chain])
        layout = find_layout(remaining, shape, rule)
        if layout is not None:
            lay_offs = tuple(LayOff(card=c, meld=m, end=e) for c, m, e in chain)
            return Dig(depth=depth, then=(Meld(melds=tuple(layout)), *lay_offs))
    return None


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
        rule = leftover_rule(state.config, code, hand, going_out_allowed(state))
        layout = find_layout(hand, contract_shape(state), rule)
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
    return commands


def _new_melds(state: State, seat: int, hand: tuple[str, ...]) -> list[Command]:
    """Some new melds for a player who is down (allow_new_melds_after_contract): one per small meld."""
    config = state.config
    commands: list[Command] = []
    rule = leftover_rule(config, barred(state), hand, going_out_allowed(state))
    for shape in (
        Shape(1, 0, naturals=config.min_naturals_per_meld, min_run=config.min_run_length),
        Shape(0, 1, naturals=config.min_naturals_per_meld, min_run=config.min_run_length),
    ):
        layout = find_layout(hand, shape, rule)
        if layout is not None:
            commands.append(Meld(melds=tuple(layout)))
    return commands


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
    jokers_go = config.discard_jokers
    barred_goes = code is not None and discardable(config, code, hand, code)
    commands += [
        _DISCARDS[card] for card in sorted(set(hand)) if (barred_goes if card == code else card != JOKER or jokers_go)
    ]
    return commands


#: One Discard command per card code (frozen, so shared between calls like any constant).
_DISCARDS: dict[str, Discard] = {card: Discard(card=card) for card in (*STANDARD_CARDS, JOKER)}


#: The last enumeration: (state, seat, commands). A tuple replaced whole, so that a reader sees
#: one enumeration's parts together.
_LISTED: tuple[State | None, int, list[Any]] = (None, -1, [])


def legal_commands(state: State, seat: int) -> list[Any]:
    """Every distinct legal command of ``seat`` now (one layout per contract lay-down)."""
    global _LISTED
    if state.to_act != seat:
        return []
    if state.phase == DRAW:
        out = _draws(state, seat)
    elif state.phase == PLAY:
        out = _plays(state, seat)
    else:
        return []
    _LISTED = (state, seat, out)
    return out


def listed(state: State, seat: int, command: Any) -> bool:
    """Whether ``command`` is among the commands the last ``legal_commands`` call returned for
    this very state object and seat.

    ``decide`` then skips the checks of its form and of the rules that the listing already
    made (``legal_commands`` lists only commands ``decide`` accepts: tests/contract_rummy), as
    the Seep engine does. States and commands are immutable values, so an equal command is
    just as legal. The search is ``list.__contains__`` (in C; the listed object itself, what a
    playout sends back, is recognised by identity before any field is compared). Any other
    command goes through every check."""
    last_state, last_seat, commands = _LISTED
    return last_state is state and last_seat == seat and command in commands
