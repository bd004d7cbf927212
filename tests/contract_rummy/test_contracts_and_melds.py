"""A.6 contracts and A.7 melds: what may go down, and how sets, runs and jokers are read."""

from __future__ import annotations

from typing import Any

import pytest

from cardgames.engine.contract_rummy.melds import make_meld
from tests.contract_rummy.helpers import act, position, refused

OTHERS: list[list[str]] = [[], [], []]


def down(hand: list[str], deal: int, options: dict[str, Any] | None = None, **snapshot: Any) -> Any:
    """Seat 0, not yet down, has drawn (phase play) in ``deal``."""
    return position([hand, *OTHERS], deal=deal, dealer=3, phase="play", to_act=0, options=options, **snapshot)


def meld(*melds: list[str]) -> dict[str, Any]:
    return {"type": "meld", "melds": [list(m) for m in melds]}


def test_A6_rule1_nothing_on_the_table_before_the_contract() -> None:
    state = down(["8C", "JK", "5H"], 1, melds=[{"owner": 1, "kind": "set", "cards": ["8S", "8H", "8D"]},
                                           {"owner": 1, "kind": "run", "cards": ["2C", "3C", "4C"]}])
    refused(state, 0, {"type": "lay_off", "card": "8C", "meld": 0}, "illegal_move")
    refused(state, 0, {"type": "lay_off", "card": "JK=5C", "meld": 1}, "illegal_move")


def test_A6_rule2_the_contract_goes_down_in_one_action_after_the_draw() -> None:
    hand = ["5S", "5H", "5D", "9C", "9D", "9H", "KS"]
    state = position([hand, *OTHERS], deal=1, dealer=3, to_act=0)
    refused(state, 0, meld(["5S", "5H", "5D"], ["9C", "9D", "9H"]), "illegal_move")  # before the draw
    state, _ = act(state, 0, {"type": "draw_stock"})
    refused(state, 0, meld(["5S", "5H", "5D"]), "illegal_move")  # half of the contract
    state, _ = act(state, 0, meld(["5S", "5H", "5D"], ["9C", "9D", "9H"]))
    assert state.contract_met[0] and state.turn is not None and state.turn.went_down


def test_A6_rule3_exactly_the_contracts_melds_of_any_size() -> None:
    hand = ["4C", "4D", "4H", "4S", "6S", "7S", "8S", "9S", "QH", "QD", "QC"]
    state = down(hand, 2)
    refused(state, 0, meld(["4C", "4D", "4H"], ["QH", "QD", "QC"]), "illegal_move")
    refused(state, 0, meld(["4C", "4D", "4H"], ["6S", "7S", "8S"], ["QH", "QD", "QC"]), "illegal_move")
    state, _ = act(state, 0, meld(["4C", "4D", "4H", "4S"], ["6S", "7S", "8S", "9S"]))
    assert [m.kind for m in state.melds] == ["set", "run"]


def test_A6_rule3_at_least_lets_extra_melds_go_down() -> None:
    hand = ["4C", "4D", "4H", "6S", "7S", "8S", "QH", "QD", "QC", "2C"]
    state = down(hand, 2, {"contract_meld_count": "at_least"})
    refused(state, 0, meld(["4C", "4D", "4H"], ["QH", "QD", "QC"]), "illegal_move")  # the run is missing
    state, _ = act(state, 0, meld(["4C", "4D", "4H"], ["6S", "7S", "8S"], ["QH", "QD", "QC"]))
    assert len(state.melds) == 3


@pytest.mark.parametrize(
    "rule, apart, touching",
    [("forbidden", "illegal_move", "illegal_move"), ("need_gap", None, "illegal_move"), ("allowed", None, None)],
)
def test_A6_rule4_runs_of_one_contract_and_their_suits(rule: str, apart: str | None, touching: str | None) -> None:
    hand = ["3S", "4S", "5S", "6S", "7S", "8S", "9S", "10S", "JS", "KC"]
    far = meld(["3S", "4S", "5S"], ["9S", "10S", "JS"])
    near = meld(["3S", "4S", "5S"], ["6S", "7S", "8S"])
    for command, expected in ((far, apart), (near, touching)):
        state = down(hand, 3, {"same_suit_runs_in_contract": rule})
        if expected:
            message = refused(state, 0, command, expected).message
            assert "suit" in message
        else:
            act(state, 0, command)


def test_A6_rule5_two_sets_of_one_rank_allowed_or_forbidden() -> None:
    hand = ["7S", "7H", "7D", "7S", "7H", "7C", "KD"]
    act(down(hand, 1, {"deck_policy": "classic"}), 0, meld(["7S", "7H", "7D"], ["7S", "7H", "7C"]))
    state = down(hand, 1, {"deck_policy": "classic", "same_rank_sets_in_contract": "forbidden"})
    refused(state, 0, meld(["7S", "7H", "7D"], ["7S", "7H", "7C"]), "illegal_move")


def test_A6_rule6_contract_met_stays_and_the_turn_remembers_going_down() -> None:
    state = down(["5S", "5H", "5D", "9C", "9D", "9H", "KS", "2H"], 1)
    state, _ = act(state, 0, meld(["5S", "5H", "5D"], ["9C", "9D", "9H"]))
    assert state.contract_met[0] and state.met_turn[0] == state.turn_no
    state, _ = act(state, 0, {"type": "discard", "card": "KS"})
    assert state.contract_met[0] and state.turn is None


def check(cards: list[str], min_run: int = 3, rule: str = "one") -> str | None:
    made = make_meld(cards, 0, min_run, rule)
    return made if isinstance(made, str) else None


def test_A7_sets_three_or_four_cards_of_one_rank_in_different_suits() -> None:
    assert check(["7S", "7H", "7D"]) is None
    assert check(["7S", "7H", "7D", "7C"]) is None
    assert check(["7S", "7H"]) is not None
    assert check(["7S", "7H", "7D", "7C", "JK=7D"]) is not None
    assert check(["5D", "5D", "5H"]) is not None  # two packs: no repeated suit
    assert check(["9S", "9H", "JK=9H"]) is not None  # a joker counts by its declared suit


def test_A7_runs_consecutive_one_suit_aces_low_or_high_no_wrap() -> None:
    assert check(["AS", "2S", "3S"]) is None
    assert check(["QS", "KS", "AS"]) is None
    assert check(["KS", "AS", "2S"]) is not None
    assert check(["KH", "AH", "JK=2H"]) is not None
    assert check(["JK=KH", "AH", "2H"]) is not None
    assert check(["3S", "4S", "5H"]) is not None
    assert check(["3S", "5S", "6S"]) is not None
    assert check(["3S", "4S", "JK=4S", "5S"]) is not None
    assert check(["3S", "JK=4H", "5S"]) is not None


def test_A7_minimum_run_length_option() -> None:
    assert check(["3S", "4S", "5S"], min_run=4) is not None
    assert check(["3S", "4S", "5S", "6S"], min_run=4) is None
    assert check(["3S", "3H", "3D"], min_run=4) is None  # sets stay 3 or 4 cards


def test_A7_a_run_holds_both_aces_only_over_all_fourteen_positions() -> None:
    full = ["AS", *[r + "S" for r in ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")], "AS"]
    assert check(full) is None
    assert check(["AS", "2S", "3S", "JK=AS"]) is not None


def test_A7_an_ace_in_a_thirteen_card_run_is_low_listed_first_and_high_listed_last() -> None:
    middle = [r + "H" for r in ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")]
    first = make_meld(["AH", *middle], 0, 3, "one")
    last = make_meld([*middle, "AH"], 0, 3, "one")
    assert not isinstance(first, str) and (first.low, first.high) == (1, 13)
    assert not isinstance(last, str) and (last.low, last.high) == (2, 14)


def test_A7_a_run_given_out_of_order_is_read_by_positions() -> None:
    made = make_meld(["9D", "JK=7D", "8D"], 0, 3, "one")
    assert not isinstance(made, str) and made.cards == ("JK=7D", "8D", "9D")


def test_A7_every_meld_needs_a_natural_card_or_with_the_option_no_more_jokers_than_naturals() -> None:
    assert check(["5H", "JK=6H", "JK=7H"]) is None
    assert check(["JK=5H", "JK=6H", "JK=7H"]) is not None
    assert check(["5H", "JK=6H", "JK=7H"], rule="at_least_jokers") is not None
    assert check(["5H", "JK=6H", "7H", "JK=8H"], rule="at_least_jokers") is None


def test_A7_a_joker_may_claim_a_face_that_exists_elsewhere_and_must_be_declared() -> None:
    hand = ["7S", "7H", "JK", "9C", "9D", "9H", "2S"]
    state = down(hand, 1)
    refused(state, 0, meld(["7S", "7H", "JK"], ["9C", "9D", "9H"]), "invalid_command")
    state, _ = act(state, 0, meld(["7S", "7H", "JK=7C"], ["9C", "9D", "9H"]))
    assert state.melds[0].cards == ("7S", "7H", "JK=7C")  # 7C is in the stock: no matter
