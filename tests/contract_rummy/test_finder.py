"""The contract finder against brute force (rules A.6, A.7, A.8 D3, A.11), on small random hands with jokers.

``legal_commands`` must offer a lay-down (a ``meld``, or a ``dig`` per depth) exactly when some
lay-down passes ``decide``; the brute force tries every collection of melds the hand can make.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from cardgames.engine.contract_rummy.commands import Dig, Meld
from cardgames.engine.contract_rummy.config import CONTRACTS
from cardgames.engine.contract_rummy.finder import Shape, find_layout, three_runs_cover
from cardgames.engine.contract_rummy.melds import face_at
from cardgames.engine.core.cards import RANKS, SUITS
from cardgames.engine.core.protocol import ScenarioError
from tests.contract_rummy.brute import every_meld, some_contract, some_dig
from tests.contract_rummy.helpers import game, position
from tests.profiles import examples
from tests.soundness import assert_listed_accepted

#: (deck_policy, players) giving 0-1 jokers with one pack, or 1, 2, 3 jokers with two packs.
DECKS = {
    (1, False): ("baseline", 4),
    (1, True): ("classic", 4),
    (2, True): ("pagat", 3),
    (3, True): ("pagat", 4),
}


@st.composite
def hands(draw: Any, least: int, most: int, max_jokers: int = 2, deal: int | None = None
          ) -> tuple[list[str], str, int]:
    """A hand dense in melds and near-misses: mostly the melds of ``deal``'s contract (some cards
    dropped, some turned into jokers), plus neighbouring cards; runs may reach the high ace."""
    jokers = draw(st.integers(0, max_jokers))
    sets, runs = CONTRACTS[deal - 1] if deal and draw(st.integers(0, 3)) else (draw(st.integers(0, 2)), 1)
    kinds = ["set"] * sets + ["run"] * runs
    cards: list[str] = []
    for kind in kinds:
        if kind == "set":
            rank = draw(st.sampled_from(RANKS))
            suits = draw(st.lists(st.sampled_from(SUITS), min_size=draw(st.sampled_from([2, 3, 3])), max_size=4,
                                  unique=True))
            cards += [rank + suit for suit in suits]
        else:
            suit = draw(st.sampled_from(SUITS))
            low = draw(st.integers(1, 12))
            high = min(14, low + draw(st.sampled_from([1, 2, 2, 3, 4])))
            cards += [face_at(suit, position) for position in range(low, high + 1)]
    noise = draw(st.lists(st.tuples(st.sampled_from(RANKS), st.sampled_from(SUITS)), max_size=3))
    cards += [rank + suit for rank, suit in noise]
    size = draw(st.integers(least, most)) - jokers
    two_packs = jokers >= 2 or draw(st.booleans())
    chosen: list[str] = []
    for card in cards:
        if len(chosen) >= size:
            break
        if (two_packs and chosen.count(card) < 2) or card not in chosen:
            chosen.append(card)
    policy, players = DECKS[(max(jokers, 1), two_packs)]
    return draw(st.permutations(chosen + ["JK"] * jokers)), policy, players


OPTIONS = st.fixed_dictionaries(
    {},
    optional={
        "min_run_length": st.sampled_from([3, 4]),
        "same_suit_runs_in_contract": st.sampled_from(["forbidden", "need_gap", "allowed"]),
        "same_rank_sets_in_contract": st.sampled_from(["allowed", "forbidden"]),
        "contract_meld_count": st.sampled_from(["exact", "at_least"]),
        "min_naturals_per_meld": st.sampled_from(["one", "at_least_jokers"]),
        "top_discard_return_rule": st.sampled_from(["face", "physical_card"]),
        "discard_jokers": st.booleans(),
        "must_discard_to_go_out": st.booleans(),
    },
)


def _state(hand: list[str], policy: str, players: int, options: dict[str, Any], deal: int, taken: int | None
           ) -> Any:
    hands = [hand] + [[] for _ in range(players - 1)]
    turn = {"drew": "stock", "taken": [], "went_down": False}
    if taken is not None and hand:
        turn = {"drew": "discard", "taken": [hand[taken % len(hand)]], "went_down": False}
    return position(
        hands, options={**options, "deck_policy": policy, "allow_six_to_eight": True}, deal=deal, dealer=players - 1,
        phase="play", to_act=0, turn=turn,
    )


def _offered_exactly_when_one_exists(hand: list[str], policy: str, players: int, options: dict[str, Any],
                                     deal: int, taken: int | None) -> None:
    state = _state(hand, policy, players, options, deal, taken)
    offered = [c for c in game.legal_commands(state, 0) if isinstance(c, Meld)]
    sets, runs = CONTRACTS[deal - 1]
    exists = some_contract(state, 0, sets, runs, state.config.contract_meld_count == "exact")
    assert bool(offered) == exists, (hand, options, deal, taken, offered)
    assert_listed_accepted(game, state, 0, offered)


@settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), OPTIONS, st.sampled_from([1, 2, 3]), st.none() | st.integers(0, 20))
def test_finder_offers_a_contract_exactly_when_one_exists_two_melds(data: Any, options: Any, deal: int,
                                                                     taken: int | None) -> None:
    """A.6: deals 1-3 (two melds), every option that shapes a lay-down, R1 and no dead ends (A.8)."""
    hand, policy, players = data.draw(hands(3, 8, deal=deal))
    _offered_exactly_when_one_exists(hand, policy, players, options, deal, taken)


@settings(max_examples=examples(120), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), OPTIONS, st.sampled_from([4, 5, 6, 7]), st.none() | st.integers(0, 20),
       st.sampled_from(["all_at_once_no_discard", "all_at_once_with_discard", "normal"]))
def test_finder_offers_a_contract_exactly_when_one_exists_three_melds(data: Any, options: Any, deal: int,
                                                                       taken: int | None, mode: str) -> None:
    """A.6 deals 4-7 and A.11 deal 7 (all at once, with or without a discard, or normal)."""
    hand, policy, players = data.draw(hands(9, 11, deal=deal))
    options = {**options, "final_deal_mode": mode}
    if deal == 7 and mode != "normal":
        options["contract_meld_count"] = "exact"
    _offered_exactly_when_one_exists(hand, policy, players, options, deal, taken)


DIG_OPTIONS = st.fixed_dictionaries(
    {},
    optional={
        "same_suit_runs_in_contract": st.sampled_from(["forbidden", "allowed"]),
        "contract_meld_count": st.sampled_from(["exact", "at_least"]),
        "min_naturals_per_meld": st.sampled_from(["one", "at_least_jokers"]),
        "layoff_same_turn_as_contract": st.booleans(),
        "must_discard_to_go_out": st.booleans(),
        "joker_layoff_targets": st.sampled_from(["runs_only", "runs_and_sets"]),
        "allow_new_melds_after_contract": st.booleans(),
        "discard_jokers": st.booleans(),
        "final_deal_mode": st.sampled_from(["all_at_once_no_discard", "all_at_once_with_discard", "normal"]),
    },
)

TABLES: list[list[dict[str, Any]]] = [
    [],
    [{"owner": 1, "kind": "run", "cards": ["5H", "6H", "7H"]}],
    [{"owner": 1, "kind": "set", "cards": ["9S", "9H", "9D"]},
     {"owner": 1, "kind": "run", "cards": ["JC", "QC", "KC"]}],
]


#: A deal and a hand (with the cards to be dug first) for it.
DEAL_AND_HAND = st.sampled_from([1, 2, 3, 7]).flatmap(
    lambda deal: st.tuples(st.just(deal), hands(5, 9 if deal < 7 else 11, deal=deal))
)


# "at_least" (A.6 rule 3): in the two-sets deal the dug 2S goes down in an extra run 2S-3S-4S
# beside the sets AS-AH-JK and 5S-5H-JK, and the dig goes out (A.11 (b)).
@example(case=(1, (["AS", "2S", "AH", "3S", "4S", "5S", "5H", "JK", "JK"], "pagat", 3)),
         options={"same_suit_runs_in_contract": "forbidden", "final_deal_mode": "all_at_once_no_discard",
                  "contract_meld_count": "at_least"},
         depth=2, table=0, met=False)
@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=DEAL_AND_HAND, options=DIG_OPTIONS, depth=st.integers(2, 3), table=st.sampled_from(range(len(TABLES))),
       met=st.booleans())
def test_dig_is_offered_exactly_when_the_dug_card_can_be_placed(case: tuple[int, tuple[list[str], str, int]],
                                                                 options: Any, depth: int, table: int, met: bool
                                                                 ) -> None:
    """A.8 D3: a dig per depth whose card the same command can place (contract, lay-offs after it)."""
    deal, (cards, policy, players) = case
    if len(cards) <= depth:
        return
    pile, hand = cards[:depth], cards[depth:]
    melds = TABLES[table]
    if any(card in {c for m in melds for c in m["cards"]} for card in cards) and policy == "baseline":
        return
    if melds and policy == "baseline" and players == 4:
        return  # one pack: the table's cards are drawn from the same pool
    seats = [hand] + [[] for _ in range(players - 1)]
    contract_met = [met] + [True] * (players - 1) if melds else [met] + [False] * (players - 1)
    if met:
        melds = [*melds, {"owner": 0, "kind": "set", "cards": ["KS", "KH", "KD"]}]
    try:
        state = position(
            seats, options={**options, "deck_policy": policy, "allow_six_to_eight": True}, deal=deal,
            dealer=players - 1, phase="draw", to_act=0, discard=[*pile, "2C" if "2C" not in cards else "3C"],
            melds=melds,
            contract_met=contract_met,
        )
    except ScenarioError:
        return  # the random cards clash with the table's (a one-pack position that cannot exist)
    offered = [c for c in game.legal_commands(state, 0) if isinstance(c, Dig) and c.depth == depth]
    sets, runs = CONTRACTS[deal - 1]
    exists = some_dig(state, 0, depth, sets, runs)
    assert bool(offered) == exists, (hand, pile, options, deal, melds, met, offered)
    assert_listed_accepted(game, state, 0, offered)


def test_every_meld_of_the_brute_force_is_legal() -> None:
    """The brute force's own building blocks are legal melds (a check of the checker)."""
    from cardgames.engine.contract_rummy.melds import make_meld

    for meld in every_meld(["5H", "6H", "7H", "7S", "JK", "AH", "2H"], 3, "one"):
        assert not isinstance(make_meld(meld, 0, 3, "one"), str), meld


def test_finder_shapes_directly() -> None:
    """The finder's own API: a layout of the shape, or None."""
    anything = lambda counts, jokers: True  # noqa: E731
    assert find_layout(["5S", "5H", "5D", "9C", "9D", "9H"], Shape(2, 0), anything) is not None
    assert find_layout(["5S", "5H", "5D", "9C", "9D"], Shape(2, 0), anything) is None
    assert find_layout(["5S", "5H", "JK", "9C", "9D", "JK"], Shape(2, 0), anything) is not None
    layout = three_runs_cover(["AS", "2S", "3S", "4H", "5H", "6H", "JK", "QD", "KD"], 3, "one")
    assert layout is not None and sorted(map(len, layout)) == [3, 3, 3]
