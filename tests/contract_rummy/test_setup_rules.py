"""A.1 to A.5: players and seats, the cards, ranks and penalty values, the first dealer, the deal."""

from __future__ import annotations

import pytest

from cardgames.engine.contract_rummy.config import CONTRACTS, deck_for
from cardgames.engine.contract_rummy.events import CardsDealt, DealerCardDrawn, DealerChosen, DealStarted, UpcardTurned
from cardgames.engine.contract_rummy.melds import make_meld, penalty
from cardgames.engine.core.cards import pack
from cardgames.engine.core.chance import canonical_order
from cardgames.engine.core.protocol import OptionsError, ScenarioError
from tests.contract_rummy.helpers import act, config, game, new, position


def test_A1_three_to_five_players_by_default() -> None:
    for players in (3, 4, 5):
        assert config(players=players).players == players
    for players in (2, 6, 8):
        with pytest.raises(OptionsError, match=r"A\.1"):
            config(players=players)


def test_A1_six_to_eight_players_with_allow_six_to_eight() -> None:
    for players in (6, 7, 8):
        assert config({"allow_six_to_eight": True}, players).players == players
    with pytest.raises(OptionsError):
        config({"allow_six_to_eight": True}, 9)


def test_A1_options_are_checked() -> None:
    with pytest.raises(OptionsError, match="unknown"):
        config({"buying": True})
    with pytest.raises(OptionsError):
        config({"deck_policy": "huge"})
    with pytest.raises(OptionsError):
        config({"hand_sizes": [10, 10, 10]})
    with pytest.raises(OptionsError):
        config({"max_stock_refills": -2})
    assert config({"max_stock_refills": None}).max_stock_refills is None
    assert config({"first_dealer": 2}).first_dealer == "2"


def test_A2_baseline_deck_one_pack_and_a_joker_for_three_or_four_two_packs_and_two_jokers_from_five() -> None:
    assert len(deck_for("baseline", 3)) == len(deck_for("baseline", 4)) == 53
    assert deck_for("baseline", 4).count("JK") == 1
    assert len(deck_for("baseline", 5)) == len(deck_for("baseline", 8)) == 106
    assert deck_for("baseline", 5).count("JK") == 2


def test_A2_classic_and_pagat_decks() -> None:
    assert len(deck_for("classic", 4)) == 105 and deck_for("classic", 4).count("JK") == 1
    assert len(deck_for("classic", 5)) == 158 and deck_for("classic", 6).count("JK") == 2
    assert deck_for("pagat", 6) == pack(2, 5)


def test_A2_a_game_whose_deals_do_not_fit_the_deck_is_refused() -> None:
    with pytest.raises(OptionsError, match=r"A\.2"):
        config({"hand_sizes": [10, 10, 10, 10, 13, 12, 12]}, 4)  # 4 x 13 + 2 > 53
    assert config({"hand_sizes": [10, 10, 10, 10, 12, 12, 12]}, 4)


@pytest.mark.parametrize(
    "policy, players, first, later",
    [("baseline", 3, 22, 16), ("baseline", 4, 12, 4), ("baseline", 5, 55, 45), ("baseline", 6, 45, 33),
     ("baseline", 8, 25, 9)],
)
def test_A2_stock_size_right_after_the_deal(policy: str, players: int, first: int, later: int) -> None:
    state, _ = new({"deck_policy": policy, "allow_six_to_eight": True}, players, dealer=0)
    assert len(state.stock) == first
    state, _ = new({"deck_policy": policy, "allow_six_to_eight": True}, players, dealer=0, match={"deal": 5})
    assert len(state.stock) == later


def test_A3_penalty_values() -> None:
    values = {"2S": 2, "9H": 9, "10D": 10, "JC": 10, "QS": 10, "KH": 10, "AS": 15, "JK": 15}
    for card, value in values.items():
        assert penalty(card, 15, 15) == value
    assert penalty("AD", 20, 50) == 20 and penalty("JK", 20, 50) == 50


def test_A3_positions_ace_low_or_high() -> None:
    low = make_meld(["AS", "2S", "3S"], 0, 3, "one")
    high = make_meld(["QS", "KS", "AS"], 0, 3, "one")
    assert not isinstance(low, str) and (low.low, low.high) == (1, 3)
    assert not isinstance(high, str) and (high.low, high.high) == (12, 14)


def _draw_deck(first_cards: list[str]) -> tuple[str, ...]:
    rest = [card for card in canonical_order(deck_for("baseline", 4)) if card not in first_cards]
    return (*first_cards, *rest)


def test_A4_draw_lowest_the_ace_is_lowest() -> None:
    state, events = new({}, 4, decks=(_draw_deck(["5S", "AH", "2C", "KD"]),))
    drawn = [(e.seat, e.card) for e in events if isinstance(e, DealerCardDrawn)]
    assert drawn == [(0, "5S"), (1, "AH"), (2, "2C"), (3, "KD")]
    assert [e.dealer for e in events if isinstance(e, DealerChosen)] == [1]
    assert state.dealer == 1 and state.to_act == 2


def test_A4_tied_players_draw_again_among_themselves_and_a_joker_draws_again() -> None:
    state, events = new({}, 4, decks=(_draw_deck(["3S", "3H", "JK", "9C", "3D", "KD", "4C", "2S"]),))
    drawn = [(e.seat, e.card, e.round) for e in events if isinstance(e, DealerCardDrawn)]
    # seat 2 draws the joker and again (9C); seats 0, 1 and 3 tie with threes; suits never break ties
    assert drawn == [(0, "3S", 0), (1, "3H", 0), (2, "JK", 0), (2, "9C", 0), (3, "3D", 0),
                     (0, "KD", 1), (1, "4C", 1), (3, "2S", 1)]
    assert state.dealer == 3


def test_A4_random_first_dealer_and_a_given_seat() -> None:
    dealers = {new({"first_dealer": "random"}, 4, seed=f"{n:064x}")[0].dealer for n in range(12)}
    assert len(dealers) > 1
    state, events = new({"first_dealer": 2}, 4)
    assert state.dealer == 2 and not any(isinstance(e, DealerCardDrawn) for e in events)


def test_A4_a_deck_start_dealer_replaces_the_draw() -> None:
    state, events = new({}, 4, dealer=3)
    assert state.dealer == 3 and not any(isinstance(e, DealerCardDrawn | DealerChosen) for e in events)


def test_A4_the_deal_passes_to_the_left() -> None:
    state = position([["KD"], ["2S", "3S"], ["4H", "5H"], ["6D", "7D"]], deal=2, dealer=3, to_act=0,
                     melds=[{"owner": 0, "kind": "run", "cards": ["10D", "JD", "QD"]}])
    state, _ = act(state, 0, {"type": "draw_stock"})
    state, _ = act(state, 0, {"type": "lay_off", "card": "KD", "meld": 0})
    state, _ = act(state, 0, {"type": "discard", "card": state.hands[0][0]})
    assert state.deal == 3 and state.dealer == 0 and state.to_act == 1


def test_A5_deal_mapping_one_card_at_a_time_from_the_dealers_left() -> None:
    order = tuple(canonical_order(deck_for("baseline", 4)))
    state, events = new({}, 4, decks=(order,), dealer=0)
    assert state.hands[1] == order[0:40:4] and state.hands[0] == order[3:40:4]
    assert state.discard == (order[40],) and state.stock == order[41:]
    assert state.phase == "draw" and state.to_act == 1 and state.contract_met == (False,) * 4
    assert [e.seat for e in events if isinstance(e, CardsDealt)] == [0, 1, 2, 3]
    assert [e.card for e in events if isinstance(e, UpcardTurned)] == [order[40]]


def test_A5_seven_deals_with_their_hand_sizes_and_contracts() -> None:
    for deal in range(1, 8):
        state, events = new({}, 3, dealer=0, match={"deal": deal})
        started = next(e for e in events if isinstance(e, DealStarted))
        assert (started.sets, started.runs) == CONTRACTS[deal - 1]
        assert all(len(hand) == (10 if deal <= 4 else 12) for hand in state.hands)


def test_A5_the_next_deal_takes_the_next_stacked_order() -> None:
    order = tuple(canonical_order(deck_for("baseline", 3)))
    second = order[::-1]
    state = position([["KD"], ["2S"], ["3S"]], deal=1, dealer=2, to_act=0, decks=[second],
                     melds=[{"owner": 0, "kind": "run", "cards": ["10D", "JD", "QD"]}])
    state, _ = act(state, 0, {"type": "draw_stock"})
    state, _ = act(state, 0, {"type": "lay_off", "card": "KD", "meld": 0})
    state, _ = act(state, 0, {"type": "discard", "card": state.hands[0][0]})
    assert state.deal == 2 and state.dealer == 0
    assert state.hands[1] == second[0:30:3] and state.discard == (second[30],) and state.stock == second[31:]


def test_A5_match_keys_set_the_deal_and_the_scores() -> None:
    state, _ = new({}, 3, dealer=1, match={"deal": 6, "scores": [5, 10, 15]})
    assert state.deal == 6 and state.scores == (5, 10, 15) and len(state.hands[0]) == 12
    with pytest.raises(ScenarioError):
        new({}, 3, dealer=1, match={"deal": 8})
    with pytest.raises(ScenarioError):
        new({}, 3, dealer=1, match={"round": 2})


def test_A5_a_fresh_snapshot_deals_when_no_position_is_given() -> None:
    state = game.from_snapshot(config(), {"deal": 3, "dealer": 1, "scores": [1, 2, 3, 4]},
                               __import__("cardgames.engine.core.protocol", fromlist=["Setup"]).Setup(seed="cd" * 32))
    assert state.deal == 3 and state.to_act == 2 and state.scores == (1, 2, 3, 4)
    assert all(len(hand) == 10 for hand in state.hands)
