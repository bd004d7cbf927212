"""The engine's speed tricks give exactly the answers of the plain code (A10), order included."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from cardgames.engine.all_fours import make_config
from cardgames.engine.all_fours.cards import POWER
from cardgames.engine.all_fours.config import Config
from cardgames.engine.all_fours.state import Played
from cardgames.engine.all_fours.tricks import legal_cards
from cardgames.engine.core.cards import STANDARD_PACK


def plain_legal_cards(hand: tuple[str, ...], trick: tuple[Played, ...], trump: str, config: Config) -> tuple[str, ...]:
    """A10 steps 1-5 written the obvious way (the engine's code before it was made faster)."""
    if not trick:
        return hand
    led = trick[0].card[-1]
    trumps = tuple(card for card in hand if card[-1] == trump)
    if led == trump:
        return trumps or hand
    follow = tuple(card for card in hand if card[-1] == led)
    legal = follow + trumps if follow else hand
    if config.no_undertrump and trumps and len(trumps) < len(hand):
        top = max((POWER[p.card] for p in trick if p.card[-1] == trump), default=-1)
        if top >= 0:
            legal = tuple(card for card in legal if card[-1] != trump or POWER[card] > top)
    if config.void_must_trump and not follow:
        must = tuple(card for card in legal if card[-1] == trump)
        if must:
            legal = must
    return legal


@given(
    st.permutations(STANDARD_PACK),
    st.integers(1, 9),
    st.integers(0, 3),
    st.sampled_from("SHDC"),
    st.booleans(),
    st.booleans(),
)
def test_legal_cards_match_the_plain_rules_in_order(
    pack: list[str], size: int, played: int, trump: str, no_undertrump: bool, void_must_trump: bool
) -> None:
    options: dict[str, Any] = {"no_undertrump": no_undertrump, "void_must_trump": void_must_trump}
    config = make_config(options, None)
    hand = tuple(pack[:size])
    trick = tuple(Played(seat, card) for seat, card in enumerate(pack[size : size + played]))
    expected = plain_legal_cards(hand, trick, trump, config)
    assert legal_cards(hand, trick, trump, config) == expected
    # asked again (the memo) and with equal but new objects: the same answer
    assert legal_cards(hand, trick, trump, config) == expected
    assert legal_cards(tuple(list(hand)), tuple(list(trick)), trump, config) == expected
