"""The contract finder with duplicate cards (several packs, A.2) in runs of one suit (A.6 rule 4).

With ``same_suit_runs_in_contract = "allowed"`` two runs of a contract may be the same cards
twice over (A-2-3 of spades from each pack): the finder's quick test must not count a run
window once only. The property is biased to such hands: contracts with runs, each run's cards
often doubled, runs often sharing a suit.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardgames.engine.contract_rummy.commands import Meld
from cardgames.engine.contract_rummy.config import CONTRACTS
from cardgames.engine.contract_rummy.finder import Shape, feasible, find_layout
from cardgames.engine.contract_rummy.melds import face_at
from cardgames.engine.core.cards import RANKS, SUITS
from tests.contract_rummy.test_finder import DECKS, OPTIONS, _offered_exactly_when_one_exists, _state
from tests.profiles import examples

#: The hand Hypothesis found: both packs' A-2-3 of spades, deal 3 (two runs).
TWICE_OVER = ["AS", "2S", "3S", "AS", "2S", "3S"]
SAME_SUIT_ALLOWED = {"same_suit_runs_in_contract": "allowed", "discard_jokers": False,
                     "must_discard_to_go_out": False}


def anything(counts: Any, jokers: int) -> bool:
    return True


def test_two_runs_of_the_same_cards_are_a_contract() -> None:
    """A.6 rule 4 ("allowed"), A.11 (b): the two runs A-2-3 of spades go down and the hand goes out."""
    state = _state(TWICE_OVER, "classic", 4, SAME_SUIT_ALLOWED, 3, None)
    offered = [c for c in _legal(state) if isinstance(c, Meld)]
    assert offered, "two runs of one suit from two packs are a contract when same-suit runs are allowed"
    assert sorted(offered[0].melds) == [("AS", "2S", "3S"), ("AS", "2S", "3S")]
    _offered_exactly_when_one_exists(TWICE_OVER, "classic", 4, SAME_SUIT_ALLOWED, 3, None)


def test_the_quick_test_counts_a_window_once_per_copy() -> None:
    """The finder's own API: the same window twice is a layout only when its cards are doubled."""
    shape = Shape(0, 2, suit_rule="allowed")
    assert feasible({"AS": 2, "2S": 2, "3S": 2}, 0, shape)
    assert find_layout(TWICE_OVER, shape, anything) == [("AS", "2S", "3S"), ("AS", "2S", "3S")]
    # one copy of 3S: the second run needs a joker
    assert find_layout(["AS", "2S", "3S", "AS", "2S"], shape, anything) is None
    assert find_layout(["AS", "2S", "3S", "AS", "2S", "JK"], shape, anything) is not None
    # runs of one suit still need a gap under need_gap, and different suits under forbidden
    for rule in ("need_gap", "forbidden"):
        assert not feasible({"AS": 2, "2S": 2, "3S": 2}, 0, Shape(0, 2, suit_rule=rule))
    # three runs, three copies (three packs); the set of deal 6 beside two doubled runs
    assert find_layout(["7H", "8H", "9H"] * 3, Shape(0, 3, suit_rule="allowed"), anything) is not None
    hand = ["7H", "8H", "9H"] * 2 + ["KS", "KD", "KC"]
    assert find_layout(hand, Shape(1, 2, suit_rule="allowed"), anything) is not None
    assert find_layout(hand, Shape(1, 2, suit_rule="allowed", min_run=4), anything) is None


def _legal(state: Any) -> list[Any]:
    from tests.contract_rummy.helpers import game

    return list(game.legal_commands(state, 0))


@st.composite
def doubled_hands(draw: Any, deal: int, least: int, most: int) -> tuple[list[str], str, int]:
    """A hand for ``deal`` (a contract with runs) whose run cards are often held twice (two packs)."""
    jokers = draw(st.sampled_from([0, 0, 1, 2]))  # (a joker fills the gap a wrong bound would see)
    sets, runs = CONTRACTS[deal - 1]
    cards: list[str] = []
    suit = draw(st.sampled_from(SUITS))
    for _ in range(runs):
        if draw(st.booleans()):
            suit = draw(st.sampled_from(SUITS))  # (else the previous run's suit)
        low = draw(st.integers(1, 12))
        high = min(14, low + draw(st.sampled_from([1, 2, 2, 3])))
        run = [face_at(suit, position) for position in range(low, high + 1)]
        cards += run
        if draw(st.integers(0, 3)):  # the run again from the second pack, whole or in part
            cards += draw(st.just(run) | st.lists(st.sampled_from(run), min_size=1, max_size=len(run), unique=True))
    for _ in range(sets):
        rank = draw(st.sampled_from(RANKS))
        cards += [rank + s for s in draw(st.lists(st.sampled_from(SUITS), min_size=2, max_size=3, unique=True))]
    cards += [rank + s for rank, s in draw(st.lists(st.tuples(st.sampled_from(RANKS), st.sampled_from(SUITS)),
                                                    max_size=2))]
    size = draw(st.integers(least, most)) - jokers
    chosen: list[str] = []
    for card in cards:
        if len(chosen) < size and chosen.count(card) < 2:
            chosen.append(card)
    policy, players = DECKS[(max(jokers, 1), True)]
    return draw(st.permutations(chosen + ["JK"] * jokers)), policy, players


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), OPTIONS, st.sampled_from([2, 3, 3, 5, 6, 6]), st.none() | st.integers(0, 20),
       st.sampled_from(["allowed", "allowed", "need_gap", "forbidden"]))
def test_finder_with_doubled_runs_offers_a_contract_exactly_when_one_exists(
    data: Any, options: Any, deal: int, taken: int | None, suit_rule: str
) -> None:
    """A.6: deals with runs, run cards from two packs; same-suit runs mostly allowed."""
    least, most = (4, 8) if deal <= 3 else (8, 10)
    hand, policy, players = data.draw(doubled_hands(deal, least, most))
    options = {**options, "same_suit_runs_in_contract": suit_rule}
    _offered_exactly_when_one_exists(hand, policy, players, options, deal, taken)
