"""``legal_commands``: every distinct command the seat may send now, groupings included.

The conditions are those of :mod:`cardgames.engine.seep.moves` (which ``decide`` applies), worked
out once per call for the whole hand instead of once per command (the enumeration runs
at every step of a playout, so it is written for speed):

* the card values (as bits) with more on offer than a throw (a capture, a build, a
  break) are found first from the loose cards' reachable sums and the houses; most
  cards of a hand are not among them and cost one bit test;
* the conditions of a HOUSE move that do not involve the played card (range, opening,
  house limit, key and ownership for the hand as a whole) are settled once per house
  value (:func:`_build_targets`);
* rule R depends on the played card only when it is the *last* key of a house the seat
  owns, so the seat's houses are summed up as two bitmasks over values (``missing``: no
  key, which F4 excludes in play; ``last``: exactly one key) and each card value is
  checked with bit tests;
* the rest depends on the card only through its value, so the moves are worked out once
  per value held and then stamped with each card of that value.

Card by card: captures, throw, builds, breaks. Groups are listed in floor order, the
played card first in its group. Tuples of groups
are shared between the commands that can share them (the cards of one value, the builds
of one shape).

Where a floor has more than :data:`cardgames.engine.seep.groups.EAGER_GROUPS` groups of a value (a
crowded floor), its groupings are counted, not made, and the answer is a lazy
:class:`cardgames.engine.core.lazy_listing.Listing` with the same commands in the same order
(:mod:`cardgames.engine.seep.families`): picking one of 70,000 builds costs a count of the
groupings and one walk, not 70,000 command objects.
"""

from __future__ import annotations

from typing import Any, Final, cast

from librt.vecs import vec
from mypy_extensions import i64

from cardgames.engine.core.lazy_listing import Family, Listing
from cardgames.engine.core.listing import LastListing
from cardgames.engine.seep.cards import HOUSE_VALUES, MAX_HOUSE, MIN_HOUSE, VALUE
from cardgames.engine.seep.commands import Bid, Break, Build, Capture, Throw
from cardgames.engine.seep.config import Config
from cardgames.engine.seep.families import Builds, BuildShape, Captures, Groupings, Run, Shapes
from cardgames.engine.seep.groups import EAGER_GROUPS, SUMS_MASK, Floor, Grouping
from cardgames.engine.seep.state import BID, PLAY, House, State

# Module constants are ``Final``: the compiled build keeps them in C statics, where a plain
# module name is a dictionary lookup at every use (the command classes too, for that reason).
_BIDS: Final = {value: Bid(value) for value in HOUSE_VALUES}
#: One Throw per card, made once (most commands listed are throws).
_THROWS: Final = {card: Throw(card) for card in VALUE}
_CAPTURE: Final = Capture
_BUILD: Final = Build
_BREAK: Final = Break

#: The moves open to a card of one value: capture groupings, throw, build shapes (Shapes when some
#: are counted, not made), houses to break.
Moves = tuple[Groupings, bool, list[BuildShape] | Shapes, list[int]]

#: Card values 1..13 as bits.
_VALUES: Final = (1 << 14) - 2
#: A value's moves when it has none of a kind (shared, read-only: no list made for nothing).
_NO_CAPTURES: Final[list[Grouping]] = []
_NO_BUILDS: Final[list[BuildShape]] = []
_NO_BREAKS: Final[list[int]] = []
#: House values 9..13 as bits, and no house value at all (shared, read-only).
_HOUSE_VALUE_BITS: Final = sum(1 << value for value in HOUSE_VALUES)
_NO_TARGETS: Final[list[int]] = []
#: The houses by value of a floor without houses, and its breakable houses (shared, read-only).
_NO_HOUSES: Final[list[House | None]] = [None] * 14
_NONE_BREAKABLE: Final[list[House]] = []
#: The played card alone as its own group: no loose card joins it (a native array, like Floor.adding_to's).
_ALONE: Final = vec[i64]([0])
#: Bit reversal of 7 bits: two lookups reverse the 14 bits of a set of sums.
_REV7: Final = tuple(int(f"{bits:07b}"[::-1], 2) for bits in range(128))


#: The last listing of plays, which ``decide`` applies without a second check (cardgames.engine.core.listing).
LAST_LISTING: Final = LastListing()


class Options:
    """The options a listing reads, as attributes of a compiled class: a config's own fields are
    generic attribute lookups in the compiled build, and a listing reads up to eight of them."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.throw_when_capture_available = config.throw_when_capture_available
        self.maximal = config.capture_extent == "maximal"
        self.auto_merge_loose_sets = config.auto_merge_loose_sets
        self.allow_direct_cemented_build = config.allow_direct_cemented_build
        self.max_houses_on_floor = config.max_houses_on_floor
        self.partner_adds_without_key = config.partner_adds_without_key
        self.allow_break_partner_house = config.allow_break_partner_house
        self.break_into_partner_house_without_key = config.break_into_partner_house_without_key


class _LastOptions:
    """The options of the last config listed for (a match lists with one config object throughout)."""

    def __init__(self) -> None:
        self.last: Options | None = None

    def of(self, config: Config) -> Options:
        last = self.last
        if last is None or last.config is not config:
            last = self.last = Options(config)
        return last


_OPTIONS: Final = _LastOptions()


def clear_caches() -> None:
    """Forget what the listing keeps between calls (the last config's options, the last listing
    ``decide`` trusts): the cold cost of a position (bench/worst.py). Seep's listing has no other cache."""
    _OPTIONS.last = None
    LAST_LISTING.remember(None, -1, [])


def legal_commands(state: State, seat: int) -> list[Any] | Listing:
    phase = state.phase
    if phase == PLAY:
        plays = state.plays
        if seat != (state.dealer + plays + 1) % 4:
            return []
        out = _plays(state, seat, plays)
        LAST_LISTING.remember(state, seat, out)
        return out
    if phase == BID and seat == (state.dealer + 1) % 4:
        return [_BIDS[value] for value in sorted({VALUE[card] for card in state.hands[seat] if VALUE[card] >= 9})]
    return []


def _plays(state: State, seat: int, plays: int) -> list[Any] | Listing:
    """The plays of the seat to act (A7-A9) after ``plays`` plays. (Struct fields and options
    are read once per call: each read is a generic attribute lookup in the compiled build.)"""
    hand = state.hands[seat]
    # the hand's values, and as bits: ``held`` (one card or more of a value), ``twice`` (two or more)
    values: list[int] = []
    held = twice = 0
    for card in hand:
        value = VALUE[card]
        values.append(value)
        bit = 1 << value
        twice |= held & bit
        held |= bit
    on_floor = state.houses
    houses: list[House | None] = [None] * 14 if on_floor else _NO_HOUSES  # (read-only when shared)
    house_bits = missing = last = 0
    breakable: list[House] = _NONE_BREAKABLE
    for house in on_floor:
        value = house.value
        houses[value] = house
        bit = 1 << value
        house_bits |= bit
        if seat in house.owners:
            if not held & bit:
                missing |= bit
            elif not twice & bit:
                last |= bit
        elif len(house.components) == 1:
            breakable = [*breakable, house]
    options = _OPTIONS.of(state.config)
    loose = state.loose
    loose_values: list[int] = []
    loose_held = 0
    sums = 1  # groups.reachable_sums, inline
    for card in loose:
        value = VALUE[card]
        loose_values.append(value)
        loose_held |= 1 << value
        sums |= (sums << value) & SUMS_MASK
    targets, needs_key = _build_targets(state, seat, held, houses, plays, options, len(on_floor))

    # The card values (bits) that may capture, be thrown, build or break. A card of
    # value v builds a house of value t when the loose cards reach t - v: that is bit
    # 13 - (t - v) of the reversed sums, i.e. the reversed sums shifted down by 13 - t.
    if plays:
        playable = _VALUES
        breaking = 0b11110 if breakable else 0  # values 1..4 raise a house of 9..12
    else:  # A9: at the opening only the bid value captures or throws, and nothing breaks
        playable = 1 << (state.bid or 0)
        breaking = 0
    capturing = (sums | house_bits) & playable
    throwing = ~house_bits & playable if options.throw_when_capture_available else ~(house_bits | sums) & playable
    if missing:  # rule R for the seat's houses it holds no key for (F4 excludes them in play)
        targets = [target for target in targets if not missing & ~(1 << target)]
    reversed_sums = _REV7[sums & 127] << 7 | _REV7[sums >> 7]
    building = 0
    for target in targets:
        completing = reversed_sums >> (13 - target)
        bit = 1 << target
        if not (house_bits | sums) & bit or (needs_key & bit and not twice & bit):
            completing &= ~bit
        building |= completing
    building &= _VALUES & ~last
    special = capturing | building | breaking

    floor: Floor | None = None
    by_value: list[Moves | None] | None = None  # the moves of each card value met so far (made when needed)
    out: list[Any] = []
    parts: list[list[Any] | Family] | None = None  # with counted families: the listing so far, out the rest
    for index in range(len(hand)):
        value = values[index]
        bit = 1 << value
        if not special & bit:  # most cards of a hand: nothing more on offer than a throw
            if throwing & bit:
                out.append(_THROWS[hand[index]])
            continue
        card = hand[index]
        if by_value is None:
            by_value = [None] * 14
        moves = by_value[value]
        if moves is None:
            if floor is None:
                floor = Floor(loose, loose_values, sums)
            captures: Groupings = _NO_CAPTURES
            if capturing & bit:
                captures = floor.selections(value, floor.full, options.maximal)
                if houses[value] is None:
                    captures = _without_empty(captures)
            builds: list[BuildShape] | Shapes = _NO_BUILDS
            if building & bit:
                # the card alone into its own value's house, when it is the seat's only key: no
                excluded = bit if needs_key & bit and not twice & bit else 0
                builds = _build_shapes(floor, options, houses, value, targets, excluded, loose_held)
            breaks = _NO_BREAKS
            if breaking & bit:
                breaks = _breaks(seat, options, value, held, houses, breakable, missing)
            moves = by_value[value] = (captures, bool(throwing & bit), builds, breaks)
        captures, throw, builds, breaks = moves
        if isinstance(captures, list):
            for groups in captures:
                out.append(_CAPTURE(card, groups))
        else:
            parts = _with_family(parts, out, Captures(card, captures))
            out = []
        if throw:
            out.append(_THROWS[card])
        if isinstance(builds, list):
            for target, own, rests in builds:
                # the card's own group, then each choice of further groups ((card,) + own: one
                # tuple, where the compiled (card, *own) builds a list and converts it)
                head = ((card,) + own,)  # noqa: RUF005
                assert isinstance(rests, list)  # (a counted shape makes the value's builds Shapes)
                for rest in rests:
                    out.append(_BUILD(card, target, head + rest))
        else:
            parts = _with_family(parts, out, Builds(card, builds))
            out = []
        for house_value in breaks:
            out.append(_BREAK(card, house_value))
    if parts is not None:
        parts.append(out)
        return Listing(parts)
    return out


def _without_empty(groupings: Groupings) -> Groupings:
    """The groupings but the empty one (a capture or a new house must take a loose card)."""
    if isinstance(groupings, list):
        return [groups for groups in groupings if groups]
    return groupings.without_empty()


def _with_family(parts: list[list[Any] | Family] | None, out: list[Any], family: Family) -> list[list[Any] | Family]:
    """The parts of a lazy listing so far, then the commands listed since (``out``; the caller
    starts a new list), then ``family`` (empty parts are dropped by the Listing)."""
    if parts is None:
        parts = []
    parts.append(out)
    parts.append(family)
    return parts


def _build_targets(
    state: State, seat: int, held: int, houses: list[House | None], plays: int, options: Options, count: int
) -> tuple[list[int], int]:
    """The house values a HOUSE move may have whatever card is played (A8.3 conditions 1, 4, 6
    and A9); and, as bits, those for which the seat must keep a key (``held``: the values in
    hand, as bits; ``count``: the houses on the floor)."""
    if not count and not held & _HOUSE_VALUE_BITS:
        return _NO_TARGETS, 0  # no house to join, no key for a new one
    partner = (seat + 2) % 4
    limit = options.max_houses_on_floor
    full = limit is not None and count >= limit
    targets: list[int] = []
    needs_key = 0
    # A9: at the opening only the bid value (a range: the compiled loop needs no iterator object)
    first, stop = (MIN_HOUSE, MAX_HOUSE + 1) if plays else (state.bid or 0, (state.bid or 0) + 1)
    for target in range(first, stop):
        house = houses[target]
        if house is None:
            if full:
                continue
            key = True
        else:
            owners = house.owners
            key = not (seat not in owners and partner in owners and options.partner_adds_without_key)
        if key:
            if not held >> target & 1:
                continue
            needs_key |= 1 << target
        targets.append(target)
    return targets, needs_key


def _build_shapes(
    floor: Floor, options: Options, houses: list[House | None], value: int, targets: list[int],
    excluded: int, loose_held: int,
) -> list[BuildShape] | Shapes:
    """Every HOUSE move with a card of ``value`` (A8.3) to one of ``targets`` but those whose
    bits are in ``excluded``: each set of loose cards joining the card, each choice of
    further groups (``loose_held``: the loose cards' values, as bits)."""
    sums = floor.sums
    sets = options.auto_merge_loose_sets
    direct = options.allow_direct_cemented_build
    shapes: list[BuildShape | Run] = []
    counted = False  # some shape's choices counted, not made: the value's builds are listed lazily
    for target in targets:
        if target < value or not sums >> (target - value) & 1 or excluded >> target & 1:
            continue  # nothing on the floor completes the card to this value, or rule R
        new = houses[target] is None
        singles = new and bool(loose_held >> target & 1)
        strict = new and not direct
        joining = _ALONE if target == value else floor.adding_to(target - value)
        if len(joining) > EAGER_GROUPS and not (strict and not sets):
            run = Run(floor, target, target - value, sets, new)  # counted, not one shape per set
            if run.total:
                shapes.append(run)
                counted = True
            continue
        for with_card in joining:
            if strict and not with_card:
                continue
            rests = floor.selections(target, floor.full & ~with_card, sets, merged_singles=new)
            if new and not (with_card or singles):
                rests = _without_empty(rests)  # a new house takes a loose card
            if strict and not sets:  # (B-option: made in full, then sifted)
                made = rests if isinstance(rests, list) else rests.all()
                rests = [groups for groups in made if all(len(group) == 1 for group in groups)]
            if rests:
                counted = counted or not isinstance(rests, list)
                shapes.append((target, floor.cards_of(with_card) if with_card else (), rests))
    return Shapes(shapes) if counted else cast(list[BuildShape], shapes)  # (no Run when nothing is counted)


def _breaks(
    seat: int, options: Options, value: int, held: int, houses: list[House | None], breakable: list[House],
    missing: int,
) -> list[int]:
    """The houses a card of ``value`` (1..4) may break (A8.4; ``breakable``: ordinary, not the seat's;
    ``held``: the values in hand, as bits)."""
    partner = (seat + 2) % 4
    out: list[int] = []
    for house in breakable:
        if partner in house.owners and not options.allow_break_partner_house:
            continue
        raised = house.value + value
        if raised > 13:
            continue
        into = houses[raised]
        if into is not None and partner in into.owners and options.break_into_partner_house_without_key:
            owns = seat in into.owners  # B-14: the breaker does not join the owners
        else:
            owns = True
        # the owner of the raised house keeps a key for it (a card of value <= 4 is none)
        if owns and not held >> raised & 1:
            continue
        if missing & ~(1 << raised):
            continue  # rule R
        out.append(house.value)
    return out
