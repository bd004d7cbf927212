"""A.11 going out, deal 7, scoring and the end of the game; A.12 the empty stock and blocked deals."""

from __future__ import annotations

from typing import Any

from cardgames.engine.contract_rummy.commands import LayOff, Meld
from cardgames.engine.contract_rummy.events import DealBlocked, DealScored, GameEnded, PlayerWentOut, StockRefilled
from cardgames.engine.contract_rummy.melds import penalty
from cardgames.engine.core.events import Shuffled
from tests.contract_rummy.helpers import act, game, position, refused

RUN_TABLE = [{"owner": 0, "kind": "run", "cards": ["10D", "JD", "QD"]},
             {"owner": 0, "kind": "set", "cards": ["7S", "7H", "7C"]}]


def last_card(options: dict[str, Any] | None = None, **snapshot: Any) -> Any:
    snapshot.setdefault("deal", 2)
    return position([["KD"], ["2S", "3S", "AS"], ["KS", "9H"], ["AH", "JK"]], dealer=3, to_act=0,
                    melds=RUN_TABLE, options=options, scores=[12, 30, 5, 44], **snapshot)


def test_A11_going_out_by_a_discard_scores_the_others_hands() -> None:
    state = last_card()
    drawn = state.stock[0]
    state, _ = act(state, 0, {"type": "draw_stock"})
    state, _ = act(state, 0, {"type": "lay_off", "card": "KD", "meld": 0})
    state, events = act(state, 0, {"type": "discard", "card": drawn})
    scored = next(e for e in events if isinstance(e, DealScored))
    assert scored.out == 0 and scored.penalties == (0, 2 + 3 + 15, 10 + 9, 15 + 15)
    assert state.scores == (12, 50, 24, 74) and state.last_deal_scores == scored.penalties
    assert state.deal == 3 and state.dealer == 0 and state.melds == () and state.contract_met == (False,) * 4


def test_A11_going_out_by_a_play_without_a_discard() -> None:
    state = position([["KD"], ["2S"], ["KS"], ["AH"]], deal=2, dealer=3, to_act=0, phase="play", melds=RUN_TABLE)
    state, events = act(state, 0, {"type": "lay_off", "card": "KD", "meld": 0})
    assert any(isinstance(e, PlayerWentOut) and e.seat == 0 for e in events)
    assert state.deal == 3


def test_A11_must_discard_to_go_out() -> None:
    state = position([["KD"], ["2S"], ["KS"], ["AH"]], deal=2, dealer=3, to_act=0, phase="play", melds=RUN_TABLE,
                     options={"must_discard_to_go_out": True})
    refused(state, 0, {"type": "lay_off", "card": "KD", "meld": 0}, "illegal_move")
    assert not [c for c in game.legal_commands(state, 0) if isinstance(c, LayOff)]
    state, events = act(state, 0, {"type": "discard", "card": "KD"})
    assert any(isinstance(e, PlayerWentOut) for e in events)


def test_A11_a_player_who_is_not_down_cannot_go_out() -> None:
    state = position([["KD"], ["2S"], ["KS"], ["AH"]], deal=2, dealer=3, to_act=0, phase="play")
    assert [type(c).__name__ for c in game.legal_commands(state, 0)] == ["Discard"]


DEAL7 = [
    ["AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "2H", "7H", "8H", "9H"],
    ["3H", "4H", "5H", "6H", "9S", "10S", "JS", "QS", "5D", "6D", "7D", "8D"],
    ["KC", "QC", "JC", "10C", "9C", "8C", "AH", "KH", "QH", "JH", "JK", "2D"],
]


def deal7(mode: str, stock: list[str] | None = None) -> Any:
    rest = ["9D", "AD", "KD", "KS", "4D", "4C", "7C", "10D", "JD", "5C", "2C", "10H", "3C", "3D", "6C", "QD"]
    return position(DEAL7, deal=7, dealer=0, to_act=1, discard=["AC"], stock=stock or rest,
                    scores=[150, 88, 120], options={"final_deal_mode": mode})


def test_A11_deal_7_all_at_once_with_every_card_and_no_discard_ends_the_game() -> None:
    state, _ = act(deal7("all_at_once_no_discard"), 1, {"type": "draw_stock"})
    refused(state, 1, {"type": "meld", "melds": [["3H", "4H", "5H", "6H"], ["9S", "10S", "JS", "QS"],
                                                 ["5D", "6D", "7D", "8D"]]}, "illegal_move")
    offered = [c for c in game.legal_commands(state, 1) if isinstance(c, Meld)]
    assert len(offered) == 1 and sum(len(m) for m in offered[0].melds) == 13
    state, events = act(state, 1, offered[0])
    assert state.phase == "over" and state.scores == (226, 88, 239) and state.winners == (1,)
    assert isinstance(events[-1], GameEnded) and game.outcome(state) == [1, 0, 2]
    refused(state, 1, {"type": "draw_stock"}, "game_over")
    assert game.legal_commands(state, 1) == [] and game.to_act(state) == ()


def test_A11_deal_7_nobody_lays_off_and_a_stray_card_is_refused() -> None:
    state, _ = act(deal7("all_at_once_no_discard"), 1, {"type": "draw_stock"})
    assert not [c for c in game.legal_commands(state, 0) if isinstance(c, LayOff)]
    with_discard, _ = act(deal7("all_at_once_with_discard"), 1, {"type": "draw_stock"})
    three = [["3H", "4H", "5H", "6H"], ["9S", "10S", "JS", "QS"], ["5D", "6D", "7D", "8D"]]
    refused(with_discard, 1, {"type": "meld", "melds": [*three[:2], [*three[2], "9D"]]}, "illegal_move")
    with_discard, _ = act(with_discard, 1, {"type": "meld", "melds": three})
    assert with_discard.hands[1] == ("9D",) and with_discard.phase == "play"
    refused(with_discard, 1, {"type": "lay_off", "card": "9D", "meld": 2}, "illegal_move")
    done, events = act(with_discard, 1, {"type": "discard", "card": "9D"})
    assert done.phase == "over" and any(isinstance(e, PlayerWentOut) for e in events)


def test_A11_deal_7_normal_is_played_like_the_others() -> None:
    state, _ = act(deal7("normal"), 1, {"type": "draw_stock"})
    state, _ = act(state, 1, {"type": "meld", "melds": [["3H", "4H", "5H"], ["9S", "10S", "JS"], ["5D", "6D", "7D"]]})
    assert state.phase == "play" and state.contract_met[1]
    state, _ = act(state, 1, {"type": "lay_off", "card": "6H", "meld": 0})


def test_A11_a_tie_for_the_lowest_total_gives_co_winners() -> None:
    state = position([["KD"], ["2S"], ["2H"]], deal=7, dealer=2, to_act=0, phase="play", scores=[10, 8, 8],
                     melds=[{"owner": 0, "kind": "run", "cards": ["10D", "JD", "QD"]}],
                     options={"final_deal_mode": "normal"})
    state, _ = act(state, 0, {"type": "lay_off", "card": "KD", "meld": 0})
    assert state.scores == (10, 10, 10) and state.winners == (0, 1, 2) and game.outcome(state) == [0, 0, 0]


def empty_stock(options: dict[str, Any] | None = None, discard: tuple[str, ...] = ("5S", "4C", "9D"),
                **snapshot: Any) -> Any:
    hands = [["10D", "8C"], ["2C", "3C", "6C"], ["4S", "8S"], ["JK", "9H"]]
    return position(hands, deal=5, dealer=0, to_act=1, stock=[], discard=list(discard), options=options, rest_to=3,
                    **snapshot)


def test_A12_reshuffle_except_top_takes_the_next_stacked_order() -> None:
    state = empty_stock(decks=[["9D", "4C"]])
    state, events = act(state, 1, {"type": "draw_stock"})
    assert [type(e) for e in events] == [StockRefilled, Shuffled, type(events[-1])]
    assert sorted(events[0].cards) == ["4C", "9D"] and events[1].order == ("9D", "4C")
    assert state.discard == ("5S",) and state.stock == ("4C",) and state.hands[1][-1] == "9D"
    assert state.refills == 1


def test_A12_turn_over_no_shuffle_puts_the_bottom_card_on_top() -> None:
    state = empty_stock({"stock_exhaustion": "turn_over_no_shuffle"})
    state, events = act(state, 1, {"type": "draw_stock"})
    assert not any(isinstance(e, Shuffled) for e in events)
    assert state.hands[1][-1] == "9D" and state.stock == ("4C",) and state.discard == ("5S",)


def test_A12_other_draws_do_not_refill() -> None:
    state, _ = act(empty_stock(), 1, {"type": "draw_discard"})
    assert state.stock == () and state.refills == 0


def test_A12_the_deal_is_blocked_when_the_pile_cannot_refill_the_stock() -> None:
    for rule in ("score_hands", "void"):
        # Seat 1 dug the whole pile; after its discard the pile holds one card and the stock none.
        state = position([["10D", "8C"], ["2C", "3C", "JK"], ["4S", "8S"], []], deal=5, dealer=0, to_act=1,
                         phase="play", turn={"drew": "dig", "taken": ["JK", "3C"], "went_down": False}, stock=[],
                         discard=[], rest_to=3, options={"blocked_deal": rule})
        state, events = act(state, 1, {"type": "discard", "card": "JK"})
        blocked = next(e for e in events if isinstance(e, DealBlocked))
        assert "stock" in blocked.reason
        scored = next(e for e in events if isinstance(e, DealScored))
        assert scored.hands[1] == ("2C", "3C")
        values = tuple(sum(penalty(card, 15, 15) for card in hand) for hand in scored.hands)
        assert scored.out is None and scored.penalties == ((0,) * 4 if rule == "void" else values)
        assert values[:3] == (18, 5, 12)
        assert state.deal == 6 and state.dealer == 1


def test_A12_max_stock_refills_ends_an_endless_deal() -> None:
    options = {"stock_exhaustion": "turn_over_no_shuffle", "max_stock_refills": 1}
    state = position([["10D", "8C"], ["2C", "3C"], ["4S", "8S"], []], deal=5, dealer=0, to_act=1, stock=[],
                     discard=["5S", "9D"], rest_to=3, options=options)
    state, events = act(state, 1, {"type": "draw_stock"})  # refill 1: the stock is 9D alone
    assert state.refills == 1 and state.stock == ()
    state, events = act(state, 1, {"type": "discard", "card": "2C"})
    assert any(isinstance(e, DealBlocked) for e in events) and state.deal == 6
    zero = position([["10D", "8C"], ["2C", "3C"], ["4S", "8S"], []], deal=5, dealer=0, to_act=1, phase="play",
                    stock=[], discard=["5S", "9D"], rest_to=3, options={"max_stock_refills": 0})
    zero, events = act(zero, 1, {"type": "discard", "card": "2C"})
    assert any(isinstance(e, DealBlocked) for e in events)
