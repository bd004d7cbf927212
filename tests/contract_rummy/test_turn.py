"""A.8 the turn: the draw (stock, top discard, digging), R1, jokers in the discard, no dead ends."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from cardgames.engine.contract_rummy.commands import Dig, DrawDiscard, Meld
from cardgames.engine.contract_rummy.events import DiscardDrawn, DiscardDug, PlayerWentOut, StockDrawn
from cardgames.engine.contract_rummy.melds import make_meld
from tests.contract_rummy.helpers import act, game, position, refused

TABLE = [
    {"owner": 1, "kind": "set", "cards": ["6S", "6D", "6C"]},
    {"owner": 1, "kind": "run", "cards": ["5H", "6H", "7H"]},
]


def at_draw(hand: list[str], discard: list[str], options: dict[str, Any] | None = None, **snapshot: Any) -> Any:
    snapshot.setdefault("deal", 1)
    return position([hand, [], [], []], discard=discard, dealer=3, to_act=0, options=options, **snapshot)


def test_A8_the_draw_comes_first_and_is_mandatory() -> None:
    state = at_draw(["5S", "5H", "5D", "9C", "9D", "9H", "KS"], ["2D"])
    refused(state, 0, {"type": "discard", "card": "KS"}, "illegal_move")
    refused(state, 0, {"type": "meld", "melds": [["5S", "5H", "5D"], ["9C", "9D", "9H"]]}, "illegal_move")
    state, _ = act(state, 0, {"type": "draw_stock"})
    refused(state, 0, {"type": "draw_stock"}, "illegal_move")
    refused(state, 0, {"type": "draw_discard"}, "illegal_move")


def test_A8_D1_draw_stock_takes_the_top_stock_card() -> None:
    state = at_draw(["KS"], ["2D"])
    top = state.stock[0]
    state, events = act(state, 0, {"type": "draw_stock"})
    assert events == [StockDrawn(seat=0, card=top)] and state.hands[0] == ("KS", top)


def test_A8_D2_draw_discard_takes_the_top_discard() -> None:
    state = at_draw(["KS"], ["2D", "3D"])
    state, events = act(state, 0, {"type": "draw_discard"})
    assert events == [DiscardDrawn(seat=0, card="2D")] and state.discard == ("3D",)
    assert state.known[0] == ("2D",)


def test_A8_D3_dig_takes_the_card_at_depth_and_every_card_above_and_places_it() -> None:
    hand = ["8S", "8H", "2C", "2D", "2S", "4H"]
    state = at_draw(hand, ["4S", "JC", "8D", "3H"])
    command = {"type": "dig", "depth": 3, "then": [{"type": "meld", "melds": [["8S", "8H", "8D"], ["2C", "2D", "2S"]]}]}
    state, events = act(state, 0, command)
    assert events[0] == DiscardDug(seat=0, depth=3, cards=("4S", "JC", "8D"))
    assert sorted(state.hands[0]) == sorted(["4H", "4S", "JC"]) and state.discard == ("3H",)
    state, _ = act(state, 0, {"type": "discard", "card": "JC"})  # R1 does not apply after a dig


def test_A8_D3_a_dig_whose_card_stays_in_the_hand_is_refused_whole() -> None:
    hand = ["8S", "8H", "2C", "2D", "2S", "4H", "4C"]
    state = at_draw(hand, ["4S", "JC", "8D", "3H"])
    no_place = {"type": "dig", "depth": 2, "then": [{"type": "meld", "melds": [["8S", "8H", "JK=8C"]]}]}
    refused(state, 0, no_place, "invalid_command")  # no joker held
    keeps = {"type": "dig", "depth": 3, "then": [{"type": "meld", "melds": [["4S", "4H", "4C"], ["2C", "2D", "2S"]]}]}
    message = refused(state, 0, keeps, "illegal_move").message
    assert "8D" in message
    refused(state, 0, {"type": "dig", "depth": 3, "then": []}, "illegal_move")


def test_A8_D3_depth_and_pile_checks() -> None:
    state = at_draw(["8S", "8H", "2C", "2D", "2S", "JK"], ["4S", "8D"])
    refused(state, 0, {"type": "dig", "depth": 1, "then": []}, "invalid_command")
    refused(state, 0, {"type": "dig", "depth": "2", "then": []}, "invalid_command")
    refused(state, 0, {"type": "dig", "depth": 2}, "invalid_command")
    refused(state, 0, {"type": "dig", "depth": 2, "then": [{"type": "discard", "card": "4S"}]}, "invalid_command")
    refused(state, 0, {"type": "dig", "depth": 3, "then": [{"type": "lay_off", "card": "8S", "meld": 0}]},
            "invalid_command")
    from_hand = {"type": "meld", "melds": [["8S", "8H", "JK=8C"], ["2C", "2D", "2S"]]}
    refused(state, 0, {"type": "dig", "depth": 3, "then": [from_hand]}, "illegal_move")  # deeper than the pile
    down = {"type": "meld", "melds": [["8S", "8H", "8D"], ["2C", "2D", "2S"]]}
    refused(state, 0, {"type": "dig", "depth": 3, "then": [down]}, "invalid_command")  # 8D is not held then
    state, _ = act(state, 0, {"type": "dig", "depth": 2, "then": [down]})  # the whole pile
    assert state.discard == ()
    off = at_draw(["8S", "8H", "2C", "2D", "2S", "JK"], ["4S", "8D"], {"discard_dig": False})
    refused(off, 0, {"type": "dig", "depth": 2, "then": [down]}, "illegal_move")
    assert not any(isinstance(c, Dig) for c in game.legal_commands(off, 0))


def test_A8_D3_a_player_who_is_down_lays_the_dug_card_off() -> None:
    state = at_draw(["QC", "3D"], ["3S", "QD", "8H", "2C"], melds=TABLE, deal=2,
                    contract_met=[True, True, False, False])
    state, _ = act(state, 0, {"type": "dig", "depth": 3, "then": [{"type": "lay_off", "card": "8H", "meld": 1}]})
    assert state.melds[1].cards == ("5H", "6H", "7H", "8H") and state.melds[1].placed_by == (1, 1, 1, 0)
    digs = [c for c in game.legal_commands(at_draw(["QC", "3D"], ["3S", "QD", "8H", "2C"], melds=TABLE, deal=2,
                                                   contract_met=[True, True, False, False]), 0) if isinstance(c, Dig)]
    assert [d.depth for d in digs] == [3]


def test_A8_D3_the_dug_card_may_be_laid_off_after_the_contract_in_the_same_dig() -> None:
    hand = ["KS", "KH", "KD", "4S", "4H", "4D", "9C"]
    state = at_draw(hand, ["2D", "8H", "3C"], melds=TABLE, deal=1, contract_met=[False, True, False, False])
    then = [{"type": "meld", "melds": [["KS", "KH", "KD"], ["4S", "4H", "4D"]]},
            {"type": "lay_off", "card": "8H", "meld": 1}]
    state, _ = act(state, 0, {"type": "dig", "depth": 2, "then": then})
    assert state.contract_met[0] and state.melds[1].cards[-1] == "8H"
    later = at_draw(hand, ["2D", "8H", "3C"], {"layoff_same_turn_as_contract": False}, melds=TABLE, deal=1,
                    contract_met=[False, True, False, False])
    refused(later, 0, {"type": "dig", "depth": 2, "then": then}, "illegal_move")


#: (deal, hand, pile, players, deck policy): under "at_least" the dug card (depth 2) fits only an
#: extra meld, of a kind the deal's contract does not name (A.6 rule 3); whether the dig goes out.
EXTRA_MELD_DIGS = {
    "a run beside two sets, going out": (1, ["AH", "3S", "4S", "5S", "5H", "JK", "JK"], ["AS", "2S", "2C"], 3, "pagat",
                                         True),
    "a run beside two sets": (1, ["5S", "5H", "5D", "9C", "9D", "9H", "3H", "4H", "KC"], ["QD", "2H", "8C"], 4,
                              "baseline", False),
    "a set beside two runs": (3, ["3H", "4H", "5H", "9S", "10S", "JS", "7C", "7D", "KC"], ["QD", "7S", "8C"], 4,
                              "baseline", False),
}


def _kind(cards: tuple[str, ...]) -> str:
    meld = make_meld(cards, 0, 3, "one")
    assert not isinstance(meld, str), meld
    return meld.kind


@pytest.mark.parametrize("case", EXTRA_MELD_DIGS.values(), ids=EXTRA_MELD_DIGS.keys())
def test_A8_D3_under_at_least_the_dug_card_may_go_down_in_an_extra_meld(
    case: tuple[int, list[str], list[str], int, str, bool]
) -> None:
    deal, hand, pile, players, policy, out = case
    target = pile[1]

    def state(count: str) -> Any:
        options = {"deck_policy": policy, "contract_meld_count": count}
        return position([hand] + [[] for _ in range(players - 1)], discard=pile, dealer=players - 1, to_act=0,
                        deal=deal, options=options)

    at_least = state("at_least")
    [dig] = [c for c in game.legal_commands(at_least, 0) if isinstance(c, Dig) and c.depth == 2]
    [down] = dig.then
    assert isinstance(down, Meld) and len(down.melds) == 3
    [holding] = [meld for meld in down.melds if target in meld]
    assert Counter(map(_kind, down.melds)) == Counter({"set": 2, "run": 1} if deal == 1 else {"run": 2, "set": 1})
    assert _kind(holding) == ("run" if deal == 1 else "set")
    _, events = act(at_least, 0, dig)
    assert any(isinstance(event, PlayerWentOut) for event in events) == out
    # "exact": the extra meld is refused, and without it the dug card stays in the hand
    exact = state("exact")
    assert not [c for c in game.legal_commands(exact, 0) if isinstance(c, Dig) and c.depth == 2]
    refused(exact, 0, dig, "illegal_move")
    contract_only = Dig(depth=2, then=(Meld(melds=tuple(meld for meld in down.melds if meld is not holding)),))
    assert target in refused(at_least, 0, contract_only, "illegal_move").message


def test_A8_R1_the_top_discard_may_not_go_back_nor_a_copy_of_it_by_default() -> None:
    state = at_draw(["7H", "KS", "QD"], ["7H", "3D"], {"deck_policy": "classic"})
    state, _ = act(state, 0, {"type": "draw_discard"})
    rejection = refused(state, 0, {"type": "discard", "card": "7H"}, "illegal_move")
    assert "R1" in rejection.rule
    act(state, 0, {"type": "discard", "card": "KS"})


def test_A8_R1_physical_card_bars_only_the_copy_just_taken() -> None:
    state = at_draw(["7H", "KS"], ["7H", "3D"], {"deck_policy": "classic", "top_discard_return_rule": "physical_card"})
    state, _ = act(state, 0, {"type": "draw_discard"})
    state, _ = act(state, 0, {"type": "discard", "card": "7H"})  # the other copy goes
    assert state.hands[0] == ("KS", "7H") or sorted(state.hands[0]) == ["7H", "KS"]
    single = at_draw(["KS"], ["7H", "3D"], {"top_discard_return_rule": "physical_card"})
    single, _ = act(single, 0, {"type": "draw_discard"})
    refused(single, 0, {"type": "discard", "card": "7H"}, "illegal_move")


def test_A8_no_restriction_after_a_stock_draw() -> None:
    state = at_draw(["KS"], ["3D"])
    top = state.stock[0]
    state, _ = act(state, 0, {"type": "draw_stock"})
    act(state, 0, {"type": "discard", "card": top})


def test_A8_jokers_may_be_discarded_and_taken_again_unless_the_option_forbids() -> None:
    state = at_draw(["JK", "KS"], ["3D"])
    state, _ = act(state, 0, {"type": "draw_stock"})
    state, _ = act(state, 0, {"type": "discard", "card": "JK"})
    assert state.discard[0] == "JK"
    off = at_draw(["JK", "KS"], ["3D"], {"discard_jokers": False})
    off, _ = act(off, 0, {"type": "draw_stock"})
    refused(off, 0, {"type": "discard", "card": "JK"}, "illegal_move")


def test_A8_no_dead_ends_a_draw_discard_that_leaves_nothing_to_discard_is_refused() -> None:
    state = at_draw(["7H"], ["7H", "3D"], {"deck_policy": "classic"})
    refused(state, 0, {"type": "draw_discard"}, "illegal_move")
    assert not any(isinstance(c, DrawDiscard) for c in game.legal_commands(state, 0))


def test_A8_no_dead_ends_a_play_that_leaves_only_barred_cards_is_refused() -> None:
    melds = [{"owner": 1, "kind": "run", "cards": ["2H", "3H", "4H"]},
             {"owner": 0, "kind": "set", "cards": ["8S", "8D", "8C"]},
             {"owner": 0, "kind": "run", "cards": ["9C", "10C", "JC"]}]
    state = at_draw(["5H"], ["QS", "7D"], melds=melds, deal=2, contract_met=[True, True, False, False])
    state, _ = act(state, 0, {"type": "draw_discard"})
    refused(state, 0, {"type": "lay_off", "card": "5H", "meld": 0}, "illegal_move")
    act(state, 0, {"type": "discard", "card": "5H"})


def test_A8_nobody_acts_outside_their_own_turn() -> None:
    state = at_draw(["KS"], ["3D"])
    refused(state, 1, {"type": "draw_stock"}, "not_your_turn")
    refused(state, 2, {"type": "meld", "melds": [["QQ"]]}, "not_your_turn")
