"""The legality of each move apart from its grouping, as ``decide`` checks a command, and how a
legal move takes effect.

The ``*_terms`` and ``*_error`` functions answer for one played card (and a house value
where the move names one): a :class:`Rejection` naming the rule, or the terms the move
takes effect with. The groupings themselves are checked by :mod:`cardgames.engine.seep.rules`.
``house_effect`` and ``break_effect`` say how a HOUSE or BREAK move takes effect; they
check nothing, so that ``decide`` can apply a command ``legal_commands`` listed without
checking it again. :mod:`cardgames.engine.seep.legal` enumerates the same conditions for a whole
hand at once (tests/seep/test_legal.py holds the two to exactly the same moves).
"""

from __future__ import annotations

import msgspec

from cardgames.engine.core.protocol import Rejection, RejectionCode
from cardgames.engine.core.wording import a_number
from cardgames.engine.seep.cards import MAX_HOUSE, MIN_HOUSE, VALUE, partner
from cardgames.engine.seep.groups import reachable_sums
from cardgames.engine.seep.state import House, State
from cardgames.engine.seep.turn import house_of


def illegal(message: str, rule: str) -> Rejection:
    return Rejection(RejectionCode.ILLEGAL_MOVE, message, rule)


def key_counts(hand: tuple[str, ...]) -> list[int]:
    """How many cards of each value 0..13 ``hand`` holds."""
    counts = [0] * 14
    for held in hand:
        counts[VALUE[held]] += 1
    return counts


def keys_after(hand: tuple[str, ...], card: str) -> list[int]:
    """How many cards of each value 0..13 the hand holds once ``card`` has left it."""
    counts = key_counts(hand)
    counts[VALUE[card]] -= 1
    return counts


def retention(state: State, seat: int, counts: list[int], skip: tuple[int, ...]) -> Rejection | None:
    """Rule R (A7, F4): ``seat`` keeps a key for every house it owns, except the values in ``skip``."""
    for house in state.houses:
        if seat in house.owners and house.value not in skip and not counts[house.value]:
            return illegal(
                f"rule R: you own the {house.value}-house and would keep no card of value {house.value}",
                "A7",
            )
    return None


#: The most frequent refusal, made once per value (legal_commands meets it for most house values).
_NO_KEY_TO_BUILD = {
    value: illegal(f"to build {a_number(value)}-house you must keep a card of value {value} yourself", "A8.3")
    for value in range(MIN_HOUSE, MAX_HOUSE + 1)
}


class BuildTerms(msgspec.Struct, frozen=True):
    """How a HOUSE move of value ``value`` takes effect (A8.3): the house it joins, owners, action."""

    value: int
    existing: House | None
    owners: tuple[int, ...]
    action: str


def house_effect(state: State, seat: int, value: int) -> tuple[House | None, tuple[int, ...], str, bool]:
    """How a HOUSE move of ``value`` by ``seat`` takes effect (A8.3, B-12): the house it joins
    (None: a new house), the owners afterwards, the action, and whether the seat adds to
    its partner's house without a key (and without becoming an owner)."""
    existing = house_of(state, value)
    if existing is None:
        return None, (seat,), "new", False
    owners = existing.owners
    keyless = seat not in owners and partner(seat) in owners and state.config.partner_adds_without_key
    if not keyless and seat not in owners:
        owners = tuple(sorted((*owners, seat)))
    return existing, owners, "add" if len(existing.components) > 1 else "cement", keyless  # House.cemented, uncompiled


def build_terms(state: State, seat: int, counts: list[int], value: int) -> BuildTerms | Rejection:
    """A8.3 conditions 1 (range), 4 (key and ownership), 5 (rule R), 6 (house limit) and 8 (opening).

    ``counts``: the seat's keys once the played card has left the hand (:func:`keys_after`)."""
    if not MIN_HOUSE <= value <= MAX_HOUSE:
        return illegal(f"a house's value is 9..13, not {value}", "A8.3")
    if state.plays == 0 and value != state.bid:
        return illegal(f"the opening house must have the bid value {state.bid}, not {value}", "A9")
    existing, owners, action, keyless = house_effect(state, seat, value)
    if existing is None:
        if not counts[value]:
            return _NO_KEY_TO_BUILD[value]
        limit = state.config.max_houses_on_floor
        if limit is not None and len(state.houses) + 1 > limit:
            return illegal(f"at most {limit} houses may be on the floor", "A8.3")
    elif not keyless and not counts[value]:
        return illegal(f"to add to the {value}-house you must keep a card of value {value}", "A8.3")
    return retention(state, seat, counts, (value,)) or BuildTerms(value, existing, owners, action)


class BreakTerms(msgspec.Struct, frozen=True):
    """How a BREAK takes effect (A8.4): the new value, whether it joins a house, merged cards, owners."""

    value: int
    joined: bool
    merged: tuple[str, ...]
    owners: tuple[int, ...]


def break_effect(state: State, seat: int, card_value: int, value: int) -> BreakTerms:
    """How raising the house of ``value`` by a card of ``card_value`` takes effect (A8.4, B-14, B-20)."""
    raised = value + card_value
    target = house_of(state, raised)
    if target is not None and partner(seat) in target.owners and state.config.break_into_partner_house_without_key:
        owners = target.owners  # B-14: the breaker does not join the owners
    else:
        owners = (seat,) if target is None else tuple(sorted({*target.owners, seat}))
    merged: tuple[str, ...] = ()
    if target is None:
        merged = tuple([loose for loose in state.loose if VALUE[loose] == raised])
    return BreakTerms(raised, target is not None, merged, owners)


def break_terms(state: State, seat: int, card_value: int, counts: list[int], value: int) -> BreakTerms | Rejection:
    """A8.4 conditions 1..7 for a card of ``card_value``; ``counts`` as for :func:`build_terms`."""
    if state.plays == 0:
        return illegal("the opening play cannot be a break", "A9")
    house = house_of(state, value)
    if house is None:
        return illegal(f"there is no {value}-house on the floor to break", "A8.4")
    if house.cemented:
        return illegal(f"the {value}-house is cemented and cannot be broken", "A8.4")
    if seat in house.owners:
        return illegal(f"you may not break your own {value}-house", "A8.4")
    if partner(seat) in house.owners and not state.config.allow_break_partner_house:
        return illegal(f"you may not break your partner's {value}-house", "A8.4")
    raised = value + card_value
    if raised > MAX_HOUSE:
        return illegal(f"breaking the {value}-house by {card_value} would make {raised}, above 13", "A8.4")
    terms = break_effect(state, seat, card_value, value)
    if seat in terms.owners and not counts[raised]:
        return illegal(
            f"to break the {value}-house up to {raised} you must keep a card of value {raised}", "A8.4"
        )
    return retention(state, seat, counts, (raised,)) or terms


def opening_value_error(state: State, card: str, move: str) -> Rejection | None:
    """A9: at the opening a capture or a throw uses a card of the bid value."""
    if state.plays == 0 and VALUE[card] != state.bid:
        return illegal(f"the opening {move} must use a card of the bid value {state.bid}, not {card}", "A9")
    return None


def throw_error(state: State, card: str, sums: int | None = None) -> Rejection | None:
    """A8.2 conditions 1..3; ``sums``: the loose cards' :func:`reachable_sums`, when known."""
    value = VALUE[card]
    if house_of(state, value) is not None:
        return illegal(f"{card} cannot be thrown while the {value}-house is on the floor", "A8.2")
    if sums is None:
        sums = reachable_sums(VALUE[loose] for loose in state.loose)
    if not state.config.throw_when_capture_available and sums >> value & 1:
        return illegal(f"{card} can capture, so it may not be thrown", "A8.2")
    return opening_value_error(state, card, "throw")
