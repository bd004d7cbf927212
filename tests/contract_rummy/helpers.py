"""Shared helpers for the Contract Rummy tests: positions from short descriptions, acting, checking."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from cardgames.engine.contract_rummy.config import deck_for
from cardgames.engine.contract_rummy.melds import hand_code, make_meld
from cardgames.engine.contract_rummy.state import State
from cardgames.engine.core.chance import canonical_order
from cardgames.engine.core.commands import parse_command
from cardgames.engine.core.protocol import Rejection, Setup
from cardgames.engine.core.registry import get_game
from cardgames.engine.core.replay import new_match

game: Any = get_game("contract_rummy")

SEED = "ab" * 32


def config(options: Mapping[str, Any] | None = None, players: int = 4) -> Any:
    return game.make_config(dict(options or {}), players)


def position(
    hands: Sequence[Sequence[str]],
    *,
    options: Mapping[str, Any] | None = None,
    discard: Sequence[str] | None = None,
    melds: Sequence[Mapping[str, Any]] = (),
    stock: Sequence[str] | None = None,
    decks: Sequence[Sequence[str]] = (),
    seed: str | None = SEED,
    rest_to: int | None = None,
    **snapshot: Any,
) -> State:
    """A state from a short description: the stock is every other card of the deck unless given.

    ``hands`` lists every seat's hand; ``snapshot`` holds other snapshot keys (deal, dealer,
    phase, to_act, contract_met, scores, turn, ...). Cards named twice come from two packs.
    With ``rest_to`` the cards nobody was given go to that seat's hand (the stock stays as given).
    """
    players = len(hands)
    cfg = config(options, players)
    deck = Counter(deck_for(cfg.deck_policy, players))
    used = Counter(card for hand in hands for card in hand)
    used += Counter(hand_code(card) for meld in melds for card in meld["cards"])
    if discard is None:  # a card nobody holds, so that the pile is not empty
        discard = [canonical_order(list((deck - used).elements()))[0]]
    used += Counter(discard)
    dealt = [list(hand) for hand in hands]
    if rest_to is not None:
        dealt[rest_to] += canonical_order(list((deck - used - Counter(stock or ())).elements()))
    elif stock is None:
        stock = canonical_order(list((deck - used).elements()))
    if "contract_met" not in snapshot:
        owners = {meld["owner"] for meld in melds}
        snapshot["contract_met"] = [seat in owners for seat in range(players)]
    snap = {
        "hands": dealt,
        "stock": list(stock or ()),
        "discard": list(discard),
        "melds": [dict(meld) for meld in melds],
        **snapshot,
    }
    return game.from_snapshot(cfg, snap, Setup(seed=seed, decks=tuple(tuple(d) for d in decks)))


def new(options: Mapping[str, Any] | None = None, players: int = 4, seed: str = SEED, **setup: Any
        ) -> tuple[State, list[Any]]:
    state, events = new_match(game, config(options, players), Setup(seed=seed, **setup))
    return state, list(events)


def command(raw: Mapping[str, Any] | Any) -> Any:
    return parse_command(game, raw) if isinstance(raw, Mapping) else raw


def act(state: State, seat: int, raw: Mapping[str, Any] | Any) -> tuple[State, list[Any]]:
    """Apply a command that must be accepted; the new state and its events."""
    outcome = game.decide(state, seat, command(raw))
    assert not isinstance(outcome, Rejection), f"{raw} was rejected: {outcome}"
    for event in outcome:
        state = game.evolve(state, event)
    return state, list(outcome)


def refused(state: State, seat: int, raw: Mapping[str, Any] | Any, code: str) -> Rejection:
    """A command that must be rejected with ``code``; the state is checked unchanged (it is immutable)."""
    before = game.snapshot(state)
    outcome = game.decide(state, seat, command(raw))
    assert isinstance(outcome, Rejection), f"{raw} was accepted: {outcome}"
    assert outcome.code.value == code, f"{raw}: {outcome}"
    assert outcome.message and outcome.rule, outcome
    assert game.snapshot(state) == before
    return outcome


def conserved(state: State) -> bool:
    """Hands + stock + discard pile + melds (+ the pack while a deal is dealt) make up the deck,
    card by physical card (a multiset)."""
    cards = [*state.stock, *state.discard, *(card for card in state.pack if card)]
    for hand in state.hands:
        cards += hand
    for meld in state.melds:
        cards += [hand_code(card) for card in meld.cards]
    return Counter(cards) == _deck(state.deck)


@cache
def _deck(deck: tuple[str, ...]) -> Counter[str]:
    return Counter(deck)


def melds_valid(state: State) -> bool:
    """Every meld on the table is still a legal set or run, listed as the state keeps it."""
    cfg = state.config
    for meld in state.melds:
        again = make_meld(meld.cards, meld.owner, cfg.min_run_length, cfg.min_naturals_per_meld)
        if isinstance(again, str) or again.kind != meld.kind or again.cards != meld.cards:
            return False
        if meld.kind == "run" and (again.low, again.high, again.suit) != (meld.low, meld.high, meld.suit):
            return False
        if len(meld.placed_by) != len(meld.cards):
            return False
    return True
