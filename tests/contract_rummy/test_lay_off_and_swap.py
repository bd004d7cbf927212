"""A.9 laying off and A.10 the joker swap."""

from __future__ import annotations

import copy
from typing import Any

from cardgames.engine.contract_rummy.commands import JokerTo, LayOff, SwapJoker
from tests.contract_rummy.helpers import act, game, position, refused

TABLE = [
    {"owner": 1, "kind": "set", "cards": ["5S", "5H", "5C"]},
    {"owner": 1, "kind": "run", "cards": ["9D", "10D", "JD"]},
    {"owner": 0, "kind": "set", "cards": ["4S", "4H", "4C"]},
    {"owner": 0, "kind": "run", "cards": ["6C", "7C", "8C"]},
]


def down(hand: list[str], options: dict[str, Any] | None = None, melds: list[dict[str, Any]] | None = None,
         **snapshot: Any) -> Any:
    """Seat 0, down since an earlier turn, has drawn from the stock (phase play), deal 2."""
    snapshot.setdefault("contract_met", [True, True, False, False])
    return position([hand, [], [], []], deal=2, dealer=3, phase="play", to_act=0, options=options,
                    melds=TABLE if melds is None else melds, **snapshot)


def lay(card: str, meld: int, end: str | None = None) -> dict[str, Any]:
    command: dict[str, Any] = {"type": "lay_off", "card": card, "meld": meld}
    if end:
        command["end"] = end
    return command


def test_A9_a_set_takes_a_card_of_its_rank_in_a_missing_suit_up_to_four() -> None:
    state = down(["5D", "5D", "6D", "KS"], {"deck_policy": "classic"})
    refused(state, 0, lay("6D", 0), "illegal_move")
    state, _ = act(state, 0, lay("5D", 0))
    assert state.melds[0].cards == ("5S", "5H", "5C", "5D")
    refused(state, 0, lay("5D", 0), "illegal_move")  # full


def test_A9_a_run_grows_at_either_end_never_in_the_middle_and_not_past_the_ace() -> None:
    state = down(["8D", "QD", "KD", "AD", "2D", "10D", "KS"], {"deck_policy": "classic"})
    refused(state, 0, lay("10D", 1), "illegal_move")
    for card in ("8D", "QD", "KD", "AD"):
        state, _ = act(state, 0, lay(card, 1))
    refused(state, 0, lay("2D", 1), "illegal_move")
    assert state.melds[1].cards == ("8D", "9D", "10D", "JD", "QD", "KD", "AD")
    assert (state.melds[1].low, state.melds[1].high) == (8, 14)


def test_A9_an_ace_that_fits_both_ends_needs_an_end() -> None:
    run = ["2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "10H", "JH", "QH", "KH"]
    melds = [{"owner": 0, "kind": "run", "cards": run}]
    state = down(["AH", "KS"], melds=melds, contract_met=[True, False, False, False])
    refused(state, 0, lay("AH", 0), "invalid_command")
    refused(state, 0, lay("AH", 0, "middle"), "invalid_command")
    assert {c.end for c in game.legal_commands(state, 0) if isinstance(c, LayOff)} == {"low", "high"}
    high, _ = act(state, 0, lay("AH", 0, "high"))
    assert high.melds[0].cards[-1] == "AH" and high.melds[0].high == 14
    low, _ = act(state, 0, lay("AH", 0, "low"))
    assert low.melds[0].cards[0] == "AH" and low.melds[0].low == 1
    refused(down(["QD", "KS"]), 0, lay("QD", 1, "low"), "illegal_move")  # fits only high


def test_A9_any_meld_on_the_table_and_the_owner_stays() -> None:
    state = down(["5D", "KS"])
    state, _ = act(state, 0, lay("5D", 0))
    assert state.melds[0].owner == 1 and state.melds[0].placed_by == (1, 1, 1, 0)


def test_A9_jokers_extend_runs_only_by_default() -> None:
    state = down(["JK", "KS"])
    refused(state, 0, lay("JK=5D", 0), "illegal_move")
    refused(state, 0, lay("JK=10D", 1), "illegal_move")
    refused(state, 0, lay("JK", 1), "invalid_command")
    act(state, 0, lay("JK=8D", 1))
    act(state, 0, lay("JK=QD", 1))
    with_sets = down(["JK", "KS"], {"joker_layoff_targets": "runs_and_sets"})
    state, _ = act(with_sets, 0, lay("JK=5D", 0))
    assert state.melds[0].cards[-1] == "JK=5D"


def test_A9_lay_offs_in_the_turn_of_going_down_follow_the_option() -> None:
    hand = ["JS", "JH", "JC", "3D", "3C", "3S", "8C", "KS"]
    melds = [{"owner": 1, "kind": "run", "cards": ["5C", "6C", "7C"]}]
    for same_turn in (True, False):
        state = position([hand, [], [], []], deal=1, dealer=3, phase="play", to_act=0, melds=melds,
                         options={"layoff_same_turn_as_contract": same_turn})
        state, _ = act(state, 0, {"type": "meld", "melds": [["JS", "JH", "JC"], ["3D", "3C", "3S"]]})
        if same_turn:
            act(state, 0, lay("8C", 0))
        else:
            refused(state, 0, lay("8C", 0), "illegal_move")


SWAP_TABLE = [
    {"owner": 2, "kind": "run", "cards": ["4C", "JK=5C", "6C", "7C"]},
    {"owner": 2, "kind": "set", "cards": ["QS", "QH", "JK=QD"]},
    {"owner": 0, "kind": "set", "cards": ["8S", "8H", "8D"]},
    {"owner": 0, "kind": "run", "cards": ["2S", "JK=3S", "4S"]},
]


def swapping(hand: list[str], options: dict[str, Any] | None = None, **snapshot: Any) -> Any:
    opts = {"deck_policy": "pagat", **(options or {})}
    snapshot.setdefault("contract_met", [True, False, True, False])
    return down(hand, opts, melds=SWAP_TABLE, **snapshot)


def swap(card: str, run: int, **joker_to: Any) -> dict[str, Any]:
    return {"type": "swap_joker", "card": card, "meld": run, "joker_to": joker_to}


def test_A10_a_natural_card_takes_the_jokers_place_and_the_joker_goes_back_on_the_table() -> None:
    state = swapping(["5C", "10H"])
    state, _ = act(state, 0, swap("5C", 0, meld=0, **{"as": "8C"}))
    assert state.melds[0].cards == ("4C", "5C", "6C", "7C", "JK=8C")
    assert state.melds[0].placed_by == (2, 0, 2, 2, 0)
    assert state.hands[0] == ("10H",)
    swaps = [c for c in game.legal_commands(swapping(["5C", "10H"]), 0) if isinstance(c, SwapJoker)]
    assert SwapJoker(card="5C", meld=0, joker_to=JokerTo(meld=0, as_="8C")) in swaps
    assert SwapJoker(card="5C", meld=0, joker_to=JokerTo(meld=3, as_="AS")) in swaps


def test_A10_rule1_the_contract_must_have_been_met_on_an_earlier_turn() -> None:
    turn = {"drew": "stock", "taken": [], "went_down": True}
    state = swapping(["5C", "10H"], turn=turn)
    refused(state, 0, swap("5C", 0, meld=0, **{"as": "8C"}), "illegal_move")
    off = swapping(["5C", "10H"], {"joker_swap": False})
    refused(off, 0, swap("5C", 0, meld=0, **{"as": "8C"}), "illegal_move")


def test_A10_rule2_own_runs_follow_the_option_and_a_joker_in_a_set_is_dead() -> None:
    state = swapping(["3S", "QD", "10H"])
    act(state, 0, swap("3S", 3, meld=3, **{"as": "5S"}))
    refused(swapping(["3S", "10H"], {"joker_swap_from_own_melds": False}), 0, swap("3S", 3, meld=3, **{"as": "5S"}),
            "illegal_move")
    refused(state, 0, swap("QD", 1, meld=0, **{"as": "8C"}), "illegal_move")
    refused(state, 0, lay("QD", 1), "illegal_move")  # the joker's suit is claimed


def test_A10_rule3_the_natural_card_must_match_and_be_held() -> None:
    state = swapping(["6C", "10H"])
    refused(state, 0, swap("5C", 0, meld=0, **{"as": "8C"}), "invalid_command")  # not held
    refused(state, 0, swap("6C", 0, meld=0, **{"as": "8C"}), "illegal_move")  # the joker is not 6C
    melds = [SWAP_TABLE[0], {"owner": 2, "kind": "set", "cards": ["QS", "QH", "QD"]}]
    holding = down(["JK", "10H"], {"deck_policy": "pagat"}, melds=melds, contract_met=[True, False, True, False])
    refused(holding, 0, swap("JK", 0, meld=0, **{"as": "8C"}), "illegal_move")  # a joker is no natural card


def test_A10_the_joker_must_be_placed_legally_in_the_same_command() -> None:
    state = swapping(["5C", "10H", "10D"])
    refused(state, 0, {"type": "swap_joker", "card": "5C", "meld": 0}, "invalid_command")
    refused(state, 0, swap("5C", 0), "invalid_command")
    refused(state, 0, swap("5C", 0, meld=0), "invalid_command")
    refused(state, 0, swap("5C", 0, meld=0, **{"as": "9C"}), "illegal_move")
    refused(state, 0, swap("5C", 0, meld=2, **{"as": "8C"}), "illegal_move")  # a set, runs only
    refused(state, 0, swap("5C", 0, new_meld=["JK=10S", "10H", "10D"]), "illegal_move")  # no new melds


def test_A10_a_new_meld_for_the_joker_with_allow_new_melds_after_contract() -> None:
    state = swapping(["5C", "10H", "10D", "KS"], {"allow_new_melds_after_contract": True})
    state, _ = act(state, 0, swap("5C", 0, new_meld=["JK=10S", "10H", "10D"]))
    assert state.melds[-1].cards == ("JK=10S", "10H", "10D") and state.hands[0] == ("KS",)


def test_A10_every_swap_into_a_new_meld_is_listed_and_accepted() -> None:
    state = swapping(["5C", "10H", "10D", "JH", "QH", "KS"], {"allow_new_melds_after_contract": True})
    listed = [c for c in game.legal_commands(state, 0) if isinstance(c, SwapJoker) and c.joker_to.new_meld]
    new_melds = {c.joker_to.new_meld for c in listed if c.joker_to.new_meld is not None}
    assert ("10H", "10D", "JK=10S") in new_melds  # a set of the joker and two tens (table form)
    assert ("10H", "JH", "QH", "JK=KH") in new_melds and ("JK=9H", "10H", "JH", "QH") in new_melds  # runs
    assert all(sum(card.startswith("JK") for card in meld) == 1 for meld in new_melds)  # no joker in hand
    for command in listed:
        act(copy.copy(state), 0, command)  # every one is accepted (a copy: decide checks it in full)
    off = swapping(["5C", "10H", "10D", "JH", "QH", "KS"])
    assert not [c for c in game.legal_commands(off, 0) if isinstance(c, SwapJoker) and c.joker_to.new_meld]
