"""Shared helpers for the Seep tests: positions from snapshots, random playouts, invariants."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator, Mapping
from typing import Any

from cardgames.engine import seep
from cardgames.engine.core.cards import STANDARD_PACK
from cardgames.engine.core.commands import parse_command
from cardgames.engine.core.protocol import Rejection, Setup
from cardgames.engine.core.registry import get_game
from cardgames.engine.core.replay import fold
from cardgames.engine.core.shuffle import seed_from_text
from cardgames.engine.seep.cards import VALUE
from cardgames.engine.seep.state import State

SEED = seed_from_text("seep tests").hex()
GAME = get_game("seep")


def config(**options: Any) -> seep.Config:
    return seep.make_config(options, 4)


def new_match(options: Mapping[str, Any] | None = None, *, seed: str = SEED, dealer: int | None = 0,
              decks: tuple[tuple[str, ...], ...] = (), match: Mapping[str, Any] | None = None) -> State:
    cfg = seep.make_config(dict(options or {}), 4)
    events = seep.start(cfg, Setup(seed=seed, decks=decks, dealer=dealer, match=dict(match or {})))
    return fold(GAME, seep.initial(cfg), events)


def position(snap: Mapping[str, Any], **options: Any) -> State:
    return seep.from_snapshot(config(**options), snap, Setup(seed=SEED))


def act(state: State, seat: int, command: Any) -> tuple[State, list[Any]]:
    """Apply a command (typed or FORMAT.md dict) that must be accepted."""
    if isinstance(command, Mapping):
        command = parse_command(GAME, command)
    outcome = seep.decide(state, seat, command)
    assert not isinstance(outcome, Rejection), f"{command} rejected: {outcome}"
    return fold(GAME, state, outcome), list(outcome)


def refuse(state: State, seat: int, command: Any) -> Rejection:
    """Apply a command that must be rejected; returns the rejection."""
    if isinstance(command, Mapping):
        command = parse_command(GAME, command)
    outcome = seep.decide(state, seat, command)
    assert isinstance(outcome, Rejection), f"{command} was accepted: {outcome}"
    return outcome


def canonical(command: Any) -> tuple[Any, ...]:
    """A command with its groups in a fixed order (groupings that differ only in order are one)."""
    if isinstance(command, seep.Capture | seep.Build):
        groups = tuple(sorted(tuple(sorted(group)) for group in command.groups))
        value = command.value if isinstance(command, seep.Build) else None
        return (type(command).__name__, command.card, value, groups)
    return (type(command).__name__, *(getattr(command, field) for field in command.__struct_fields__))


def playout_states(rng: random.Random, options: Mapping[str, Any] | None = None,
                   deals: int = 1) -> Iterator[tuple[State, list[Any]]]:
    """Random legal play from a seeded match: yields (state, events that led to it) after each command."""
    state = new_match(options, seed=seed_from_text(str(rng.random())).hex(), dealer=rng.randrange(4))
    finished = 0
    while not seep.is_over(state) and finished < deals:
        seat = seep.to_act(state)[0]
        command = rng.choice(seep.legal_commands(state, seat))
        outcome = seep.decide(state, seat, command)
        assert not isinstance(outcome, Rejection), f"enumerated {command} rejected: {outcome}"
        for event in outcome:
            state = seep.evolve(state, event)
            if type(event).__name__ == "DealScored":
                finished += 1
        yield state, list(outcome)


def all_cards(state: State) -> Counter[str]:
    cards: Counter[str] = Counter()
    for hand in state.hands:
        cards.update(hand)
    cards.update(state.stock)
    cards.update(state.loose)
    for house in state.houses:
        cards.update(house.cards())
    cards.update(state.piles[0])
    cards.update(state.piles[1])
    return cards


def floor_problems(state: State) -> list[str]:
    """F1-F5 (A6), checked on a state after any event."""
    problems = []
    if all_cards(state) != Counter(STANDARD_PACK):
        problems.append("F5: the 52 cards are not all there exactly once")
    values = [house.value for house in state.houses]
    if len(values) != len(set(values)):
        problems.append("F1: two houses of one value")
    if state.phase == "play":
        for card in state.loose:
            if VALUE[card] in values:
                problems.append(f"F2: loose {card} beside its house")
    for house in state.houses:
        if not 9 <= house.value <= 13:
            problems.append(f"F3: house value {house.value}")
        if sum(len(part) for part in house.components) < 2:
            problems.append(f"F3: {house.value}-house has fewer than two cards")
        for part in house.components:
            if not part or sum(VALUE[card] for card in part) != house.value:
                problems.append(f"F3: component {part} of the {house.value}-house")
        if not house.owners or (len(house.components) == 1 and len(house.owners) != 1):
            problems.append(f"F3: owners {house.owners} of the {house.value}-house")
        for owner in house.owners:
            if not any(VALUE[card] == house.value for card in state.hands[owner]):
                problems.append(f"F4: seat {owner} owns the {house.value}-house without a key")
    return problems


def table(
    hands: Mapping[int, list[str]],
    loose: list[str] | tuple[str, ...] = (),
    houses: list[dict[str, Any]] | tuple[dict[str, Any], ...] = (),
    *,
    seat: int = 1,
    dealer: int = 0,
    extra: Mapping[str, Any] | None = None,
    **options: Any,
) -> State:
    """A position in phase play with ``seat`` to act holding ``hands[seat]``.

    The number of plays follows from the size of that hand; the other seats get the
    hands given for them, padded with low cards (values 1..8 first, then other values
    than the houses', so that no seat holds an unexpected key); every other card lies in
    team 0's pile.
    """
    from cardgames.engine.seep.snapshot import plays_made

    own = len(hands[seat])
    plays = 4 * (12 - own) + (seat - dealer - 1) % 4
    sizes = [12 - plays_made(dealer, plays, s) for s in range(4)]
    placed = set(loose) | {c for house in houses for part in house["components"] for c in part}
    placed |= {card for cards in hands.values() for card in cards}
    rest = [card for card in STANDARD_PACK if card not in placed]
    house_values = {house["value"] for house in houses}
    fillers = sorted(rest, key=lambda card: (VALUE[card] in house_values, VALUE[card] > 8), reverse=True)
    full: list[list[str]] = []
    for s in range(4):
        cards = list(hands.get(s, []))
        while len(cards) < sizes[s]:
            cards.append(fillers.pop())
        full.append(cards)
    used = placed | {card for cards in full for card in cards}
    snap: dict[str, Any] = {
        "dealer": dealer, "phase": "play", "bid": 9, "plays": plays, "hands": full, "stock": [],
        "floor": {"loose": list(loose), "houses": list(houses)},
        "piles": [[card for card in STANDARD_PACK if card not in used], []], "last_capture_team": 0,
    }  # fmt: skip
    snap.update(extra or {})
    return position(snap, **options)


def deck(bidder: list[str], floor: list[str], *then: str) -> tuple[str, ...]:
    """A stacked pack: the bidder's 4 cards, the 4 floor cards, then ``then``, then the rest in pack order."""
    front = [*bidder, *floor, *then]
    return (*front, *(card for card in STANDARD_PACK if card not in front))


def events_of(events: list[Any], kind: type) -> list[Any]:
    return [event for event in events if isinstance(event, kind)]
