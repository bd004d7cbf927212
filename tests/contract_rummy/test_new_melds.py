"""With ``allow_new_melds_after_contract`` a player who is down may lay down new melds (A.8 step 2):
``legal_commands`` lists every distinct legal new meld, one ``meld`` command each."""

from __future__ import annotations

from itertools import combinations
from typing import Any

import pytest

from cardgames.engine.contract_rummy.commands import Meld
from cardgames.engine.contract_rummy.melds import JOKER_PREFIX
from cardgames.engine.core.cards import SUITS
from tests.contract_rummy.brute import accepted, every_meld
from tests.contract_rummy.helpers import game, position


def _normal(meld: tuple[str, ...]) -> tuple[str, ...]:
    """A set in any order is the same meld; a run is read low to high."""
    ranks = {card.split("=")[-1][:-1] for card in meld}
    return tuple(sorted(meld)) if len(ranks) == 1 else meld


def _candidates(hand: list[str], min_run: int, rule: str) -> set[tuple[str, ...]]:
    """The brute force's melds, with every choice of the suits a set's jokers claim."""
    out = set()
    for meld in every_meld(hand, min_run, rule):
        out.add(_normal(meld))
        jokers = [card for card in meld if card.startswith(JOKER_PREFIX)]
        naturals = [card for card in meld if not card.startswith(JOKER_PREFIX)]
        if jokers and len({card.split("=")[-1][:-1] for card in meld}) == 1:
            rank = naturals[0][:-1]
            free = [suit for suit in SUITS if rank + suit not in naturals]
            for claimed in combinations(free, len(jokers)):
                out.add(_normal((*naturals, *(JOKER_PREFIX + rank + suit for suit in claimed))))
    return out


HANDS = [
    ["7H", "7S", "7D", "8H", "9H", "JK", "2C"],
    ["5C", "6C", "7C", "8C", "JK", "JK", "KD", "KS", "QS"],
    ["AS", "2S", "3S", "KS", "QS", "AH", "AD", "JK"],
]


@pytest.mark.parametrize("hand", HANDS)
@pytest.mark.parametrize("options", [{}, {"min_naturals_per_meld": "at_least_jokers"}, {"min_run_length": 4},
                                     {"discard_jokers": False, "must_discard_to_go_out": True}])
def test_every_distinct_new_meld_is_listed(hand: list[str], options: dict[str, Any]) -> None:
    melds = [{"owner": 0, "kind": "set", "cards": ["10S", "10H", "10D"]}]
    state = position([hand, [], []], deal=1, dealer=2, phase="play", to_act=0, melds=melds,
                     contract_met=[True, False, False],
                     options={"deck_policy": "pagat", "allow_new_melds_after_contract": True, **options})
    listed = [c for c in game.legal_commands(state, 0) if isinstance(c, Meld)]
    assert all(len(command.melds) == 1 for command in listed)
    normal = [_normal(command.melds[0]) for command in listed]
    assert len(normal) == len(set(normal)), "a meld listed twice"
    for command in listed:
        assert accepted(state, 0, command), command
    cfg = state.config
    expected = {meld for meld in _candidates(hand, cfg.min_run_length, cfg.min_naturals_per_meld)
                if accepted(state, 0, Meld(melds=(meld,)))}
    assert set(normal) == expected
    assert len(expected) > 2  # more than one set and one run


def test_no_new_melds_without_the_option() -> None:
    melds = [{"owner": 0, "kind": "set", "cards": ["10S", "10H", "10D"]}]
    state = position([HANDS[0], [], []], deal=1, dealer=2, phase="play", to_act=0, melds=melds,
                     contract_met=[True, False, False], options={"deck_policy": "pagat"})
    assert not [c for c in game.legal_commands(state, 0) if isinstance(c, Meld)]
