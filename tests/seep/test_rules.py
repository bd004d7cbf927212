"""One test per rule of rules/seep.md (section A), named after it; options where a rule has them."""

from __future__ import annotations

from collections import Counter

import msgspec
import pytest

from cardgames.engine import seep
from cardgames.engine.core.cards import STANDARD_PACK
from cardgames.engine.core.events import Shuffled
from cardgames.engine.core.protocol import OptionsError, ScenarioError, Setup
from cardgames.engine.seep.cards import BASE_POINTS, VALUE, card_points
from cardgames.engine.seep.deal import end_of_deal
from cardgames.engine.seep.events import (
    BaaziWon,
    CardsDealt,
    DealerChosen,
    DealScored,
    DealStarted,
    FloorDealt,
    LeftoverAwarded,
    MatchEnded,
    Redealt,
    SweepScored,
)
from cardgames.engine.seep.state import House, State
from cardgames.engine.seep.turn import house_of
from tests.seep.helpers import SEED, act, config, deck, events_of, new_match, position, refuse, table


def the_house(state: State, value: int) -> House:
    found = house_of(state, value)
    assert found is not None, f"no {value}-house"
    return found


def house(value: int, *components: list[str], owners: list[int]) -> dict:
    return {"value": value, "components": list(components), "owners": owners}


# --------------------------------------------------------------------------- A1, A2, A3, A4


def test_A1_seats_teams_and_direction() -> None:
    """Play goes seat s -> s+1; teams are s % 2; the bidder is d+1 and play #2 is d+2's."""
    state = new_match(dealer=2)
    assert seep.to_act(state) == (3,)  # the bidder, on the dealer's right
    bid = max(VALUE[c] for c in state.hands[3] if VALUE[c] >= 9)
    state, _ = act(state, 3, seep.Bid(value=bid))
    state, _ = act(state, 3, seep.legal_commands(state, 3)[0])
    assert seep.to_act(state) == (0,)  # d+2, the dealer's partner
    assert seep.outcome(state.__class__(config=state.config, baazis=(0, 1))) == [1, 0, 1, 0]
    with pytest.raises(OptionsError):
        seep.make_config({}, 2)


def test_A2_card_values_and_points() -> None:
    assert [VALUE[c] for c in ("AS", "10D", "JH", "QC", "KS")] == [1, 10, 11, 12, 13]
    assert card_points(STANDARD_PACK, 6) == 100
    assert card_points(STANDARD_PACK, 2) == 96
    assert sum(1 for c in STANDARD_PACK if BASE_POINTS[c]) + 1 == 17  # 17 point cards with 10D
    assert card_points(("KS", "AH", "10D", "KH"), 6) == 20


def test_A3_only_the_bid_and_the_plays_wait_for_commands() -> None:
    """Everything else (deal, reveal, rest of the deal, scoring, next deal) happens by itself."""
    state = new_match()
    assert state.phase == "bid" and seep.to_act(state) == (1,)
    for seat in (0, 2, 3):
        assert seep.legal_commands(state, seat) == []
    assert all(isinstance(c, seep.Bid) for c in seep.legal_commands(state, 1))


def test_A4_first_dealer_random_option_or_setup() -> None:
    cfg = config()
    events = seep.start(cfg, Setup(seed=SEED))
    chosen = events_of(events, DealerChosen)
    assert len(chosen) == 1 and 0 <= chosen[0].dealer < 4
    assert events_of(events, DealStarted)[0].dealer == chosen[0].dealer
    assert not events_of(seep.start(config(first_dealer=3), Setup(seed=SEED)), DealerChosen)
    assert events_of(seep.start(config(first_dealer=3), Setup(seed=SEED)), DealStarted)[0].dealer == 3
    assert events_of(seep.start(config(first_dealer=3), Setup(seed=SEED, dealer=1)), DealStarted)[0].dealer == 1
    with pytest.raises(OptionsError):
        config(first_dealer=4)


# --------------------------------------------------------------------------- A5


def test_A5_staged_deal_bidder_four_cards_floor_face_down() -> None:
    pack = deck(["KH", "2C", "3D", "4S"], ["5H", "6C", "7D", "8S"])
    state = new_match(decks=(pack,))
    assert state.hands[1] == ("KH", "2C", "3D", "4S") and state.hands[0] == state.hands[2] == ()
    assert state.loose == ("5H", "6C", "7D", "8S") and len(state.stock) == 44
    assert seep.view(state, 1).loose == () and seep.view(state, 1).face_down == 4
    assert seep.view(state, None).face_down == 4


def test_A5_1_pack_positions_to_hands() -> None:
    for dealer in range(4):
        state = new_match(dealer=dealer, decks=(deck(["KS", "2S", "3S", "4S"], ["5S", "6S", "7S", "8S"]),))
        order = deck(["KS", "2S", "3S", "4S"], ["5S", "6S", "7S", "8S"])
        assert state.stock == order[8:]
        state, _ = act(state, (dealer + 1) % 4, seep.Bid(value=13))
        state, _ = act(state, (dealer + 1) % 4, seep.Capture(card="KS", groups=(("5S", "8S"), ("6S", "7S"))))
        d = dealer
        expected = {
            (d + 1) % 4: [*order[1:4], *order[8:12], *order[24:28]],
            (d + 2) % 4: [*order[12:16], *order[28:32], *order[40:44]],
            (d + 3) % 4: [*order[16:20], *order[32:36], *order[44:48]],
            d: [*order[20:24], *order[36:40], *order[48:52]],
        }
        for seat, cards in expected.items():
            assert Counter(state.hands[seat]) == Counter(cards), (dealer, seat)
        assert state.stock == ()


def test_A5_3_redeal_when_the_bidder_holds_nothing_above_8() -> None:
    void = deck(["8H", "7C", "2D", "AS"], ["KD", "QD", "JD", "10D"])
    good = deck(["9H", "2C", "3D", "4S"], ["5H", "6C", "7D", "8S"])
    events = seep.start(config(), Setup(seed=SEED, decks=(void, good), dealer=0))
    redeals = events_of(events, Redealt)
    assert len(redeals) == 1 and redeals[0].seat == 1 and redeals[0].cards == ("8H", "7C", "2D", "AS")
    starts = events_of(events, DealStarted)
    assert [(s.dealer, s.attempt) for s in starts] == [(0, 1), (0, 2)]
    shuffles = events_of(events, Shuffled)
    assert [s.order for s in shuffles] == [void, good]
    assert seep.audience(redeals[0]) == "public"
    assert all(seep.audience(f) == "hidden" for f in events_of(events, FloorDealt))  # the void floor stays hidden
    state = new_match(decks=(void, good))
    assert state.redeals == 1 and state.dealer == 0 and state.hands[1] == ("9H", "2C", "3D", "4S")
    assert seep.snapshot(state)["redeals"] == 1


def test_A5_4_bid_is_a_held_value_9_to_13() -> None:
    state = new_match(decks=(deck(["9H", "QC", "2D", "3S"], ["5C", "6D", "KH", "2S"]),))
    assert [c.value for c in seep.legal_commands(state, 1)] == [9, 12]
    for value in (8, 10, 13, 14):
        assert refuse(state, 1, seep.Bid(value=value)).code == "illegal_move"
    state, events = act(state, 1, seep.Bid(value=12))
    assert state.bid == 12 and state.phase == "play" and seep.to_act(state) == (1,)
    assert [type(e).__name__ for e in events] == ["BidMade", "FloorRevealed"]
    assert refuse(state, 1, seep.Bid(value=9)).code == "illegal_move"  # no second bid


def test_A5_6_rest_of_the_deal_after_the_opening() -> None:
    state = new_match(decks=(deck(["9H", "QC", "2D", "3S"], ["5C", "4D", "KH", "2S"]),))
    state, _ = act(state, 1, seep.Bid(value=9))
    state, events = act(state, 1, seep.Capture(card="9H", groups=(("5C", "4D"),)))
    dealt = events_of(events, CardsDealt)
    assert [d.seat for d in dealt] == [1, 2, 3, 0] and [d.count for d in dealt] == [8, 12, 12, 12]
    assert [len(h) for h in state.hands] == [12, 11, 12, 12] and state.stock == ()


def test_A5_7_play_order_and_the_dealer_plays_last() -> None:
    state = table({0: ["2H"]}, ["KS", "9C"], seat=0)
    assert state.plays == 47 and seep.to_act(state) == (0,)
    state = table({3: ["2H", "3H"]}, ["KS"], seat=3, dealer=1)
    assert seep.to_act(state) == (3,) and (state.dealer + state.plays + 1) % 4 == 3


# --------------------------------------------------------------------------- A6, A7


def test_A6_floor_model_invariants_checked_on_positions() -> None:
    base = {"components": [["6H", "3S"]], "owners": [1]}
    with pytest.raises(ScenarioError, match="F2"):
        table({1: ["9D", "2C"]}, ["9C"], [{"value": 9, **base}])
    with pytest.raises(ScenarioError, match="add up"):
        table({1: ["9D", "2C"]}, [], [{"value": 10, **base}])
    with pytest.raises(ScenarioError, match="F4"):
        table({1: ["2D", "2C"]}, [], [{"value": 9, **base}])
    with pytest.raises(ScenarioError, match="owner"):
        table({1: ["9D", "2C"], 3: ["9H"]}, [], [{"value": 9, "components": [["6H", "3S"]], "owners": [1, 3]}])
    state = table({1: ["9D", "2C"], 3: ["9H"]}, [], [house(9, ["6H", "3S"], ["9S"], owners=[1, 3])])
    assert house_of(state, 9) is not None and the_house(state, 9).cemented


def test_A7_rule_R_keeps_a_key_for_every_owned_house() -> None:
    """p may not spend his last 9 in an 11-house while he owns a 9-house."""
    state = table({1: ["9D", "5C", "JC"]}, ["2H"], [house(9, ["6H", "3S"], owners=[1])])
    rejection = refuse(state, 1, seep.Build(card="9D", value=11, groups=(("9D", "2H"),)))
    assert rejection.rule == "A7" and "rule R" in rejection.message
    assert seep.Build(card="9D", value=11, groups=(("9D", "2H"),)) not in seep.legal_commands(state, 1)
    act(state, 1, seep.Capture(card="9D", groups=()))  # capturing with the last key is fine


# --------------------------------------------------------------------------- A8.1 capture


def test_A8_1_capture_must_be_maximal_and_takes_the_house() -> None:
    houses = [house(9, ["6C", "3D"], owners=[1])]
    state = table({0: ["9H", "2C", "6D"], 1: ["9D"]}, ["4H", "5C", "7S", "2D"], houses, seat=0)
    assert refuse(state, 0, seep.Capture(card="9H", groups=())).rule == "A8.1"
    assert refuse(state, 0, seep.Capture(card="9H", groups=(("4H", "5C"),))).rule == "A8.1"
    state, events = act(state, 0, seep.Capture(card="9H", groups=(("4H", "5C"), ("7S", "2D"))))
    assert state.houses == () and state.loose == ()
    assert events_of(events, SweepScored)[0].points == 50


def test_A8_1_several_maximal_selections_each_legal() -> None:
    state = table({1: ["JH", "2C"]}, ["2S", "3H", "5D", "6C"])
    act(state, 1, seep.Capture(card="JH", groups=(("2S", "3H", "6C"),)))
    act(state, 1, seep.Capture(card="JH", groups=(("5D", "6C"),)))
    assert refuse(state, 1, seep.Capture(card="JH", groups=(("2S", "3H"),))).code == "illegal_move"


def test_A8_1_free_capture_extent_option() -> None:
    state = table({1: ["JH", "2C"]}, ["2S", "9H", "5D", "6C"], capture_extent="free")
    act(state, 1, seep.Capture(card="JH", groups=(("2S", "9H"),)))
    assert refuse(state, 1, seep.Capture(card="JH", groups=(("2S", "5D"),))).code == "illegal_move"
    houses = [house(11, ["5H", "6H"], owners=[3])]
    state = table({1: ["JH", "2C"], 3: ["JS"]}, ["2S", "9H"], houses, capture_extent="free")
    _, events = act(state, 1, seep.Capture(card="JH", groups=()))  # the house is taken even alone
    assert events[0].house is not None


def test_A8_1_houses_never_count_in_a_sum() -> None:
    state = table({1: ["KH", "2C"], 3: ["9S"]}, ["4D"], [house(9, ["6H", "3S"], owners=[3])])
    assert refuse(state, 1, seep.Capture(card="KH", groups=(("6H", "3S", "4D"),))).code == "illegal_move"
    assert not any(isinstance(c, seep.Capture) and c.card == "KH" for c in seep.legal_commands(state, 1))


# --------------------------------------------------------------------------- A8.2 throw


def test_A8_2_throw_only_when_nothing_to_capture_and_no_house() -> None:
    state = table({1: ["8C", "KH", "2C"], 3: ["KS"]}, ["3S", "5S"], [house(13, ["6H", "7S"], owners=[3])])
    assert refuse(state, 1, seep.Throw(card="8C")).rule == "A8.2"
    assert refuse(state, 1, seep.Throw(card="KH")).rule == "A8.2"
    state, _ = act(state, 1, seep.Throw(card="2C"))
    assert state.loose == ("3S", "5S", "2C")


def test_A8_2_throw_when_capture_available_option() -> None:
    state = table({1: ["8C", "KH", "3C"], 3: ["KS"]}, ["3S", "5S"], [house(13, ["6H", "7S"], owners=[3])],
                  throw_when_capture_available=True)
    act(state, 1, seep.Throw(card="8C"))
    assert refuse(state, 1, seep.Throw(card="KH")).rule == "A8.2"  # never beside its house
    state, _ = act(state, 1, seep.Throw(card="3C"))  # beside its twin
    assert state.loose == ("3S", "5S", "3C")


# --------------------------------------------------------------------------- A8.3 house


def test_A8_3_build_needs_the_builders_own_key() -> None:
    state = table({1: ["5H", "8C"], 3: ["JD"]}, ["6S", "2C"])
    assert refuse(state, 1, seep.Build(card="5H", value=11, groups=(("5H", "6S"),))).rule == "A8.3"
    state = table({1: ["5H", "JC"]}, ["6S", "2C"])
    state, events = act(state, 1, seep.Build(card="5H", value=11, groups=(("5H", "6S"),)))
    assert events[0].action == "new" and the_house(state, 11).owners == (1,)


def test_A8_3_value_range_and_group_sums() -> None:
    state = table({1: ["5H", "JC", "8D"]}, ["6S", "2C", "3D"])
    assert refuse(state, 1, seep.Build(card="5H", value=8, groups=(("5H", "3D"),))).rule == "A8.3"
    assert refuse(state, 1, seep.Build(card="5H", value=11, groups=(("5H", "3D"),))).rule == "A8.3"
    assert refuse(state, 1, seep.Build(card="5H", value=11, groups=(("6S",),))).rule == "A8.3"
    assert refuse(state, 1, seep.Build(card="5H", value=11, groups=(("5H", "6S"), ()))).rule == "A8.3"


def test_A8_3_played_card_need_not_have_the_house_value() -> None:
    state = table({1: ["8D", "JC"]}, ["3S", "5S"])
    state, _ = act(state, 1, seep.Build(card="8D", value=11, groups=(("8D", "3S"),)))
    assert the_house(state, 11).components == (("8D", "3S"),)


def test_A8_3_cement_own_and_add_to_cemented() -> None:
    houses = [house(12, ["7D", "5C"], owners=[1])]
    state = table({1: ["QH", "QS", "4C"], 3: ["QC"]}, ["8S", "3D"], houses)
    state, events = act(state, 1, seep.Build(card="4C", value=12, groups=(("4C", "8S"),)))
    assert events[0].action == "cement" and the_house(state, 12).cemented
    state = table({1: ["QH", "4C"], 3: ["QS"]}, ["8S"], [house(12, ["7D", "5C"], ["QC"], owners=[1, 3])])
    state, events = act(state, 1, seep.Build(card="4C", value=12, groups=(("4C", "8S"),)))
    assert events[0].action == "add" and len(the_house(state, 12).components) == 3


def test_A8_3_owner_needs_a_key_after_adding() -> None:
    state = table({1: ["QH", "4C"]}, ["8S"], [house(12, ["7D", "5C"], owners=[1])])
    assert refuse(state, 1, seep.Build(card="QH", value=12, groups=(("QH",),))).rule == "A8.3"


def test_A8_3_partner_adds_without_key_option() -> None:
    houses = [house(11, ["5H", "6S"], owners=[1])]
    state = table({3: ["JD", "7C", "2C"], 1: ["JS"]}, ["4S"], houses, seat=3)
    _state2, events = act(state, 3, seep.Build(card="7C", value=11, groups=(("7C", "4S"),)))
    assert events[0].owners == (1,)
    state = table({3: ["JD", "7C", "2C"], 1: ["JS"]}, ["4S"], houses, seat=3, partner_adds_without_key=False)
    assert refuse(state, 3, seep.Build(card="JD", value=11, groups=(("JD",),))).rule == "A8.3"
    state, events = act(state, 3, seep.Build(card="7C", value=11, groups=(("7C", "4S"),)))
    assert events[0].owners == (1, 3)  # a partner who adds with a key becomes an owner


def test_A8_3_opponent_who_cements_becomes_owner() -> None:
    houses = [house(11, ["5H", "6S"], owners=[1])]
    state = table({0: ["7D", "JC", "2H"], 1: ["JS"]}, ["4S"], houses, seat=0)
    state, events = act(state, 0, seep.Build(card="7D", value=11, groups=(("7D", "4S"),)))
    assert events[0].owners == (0, 1)
    state = table({0: ["7D", "3H", "2H"], 1: ["JS"]}, ["4S"], houses, seat=0)
    assert refuse(state, 0, seep.Build(card="7D", value=11, groups=(("7D", "4S"),))).rule == "A8.3"


def test_A8_3_direct_cemented_build_and_its_option() -> None:
    state = table({2: ["KH", "KC", "4C"]}, ["KS", "3D"], seat=2)
    state2, _ = act(state, 2, seep.Build(card="KH", value=13, groups=(("KH",), ("KS",))))
    assert the_house(state2, 13).components == (("KH",), ("KS",))
    state2, events = act(state, 2, seep.Build(card="KH", value=13, groups=(("KH",),)))  # KS merges anyway
    assert events[0].merged == ("KS",) and the_house(state2, 13).cemented
    off = table({2: ["KH", "KC", "4C"]}, ["KS", "3D", "9S"], seat=2, allow_direct_cemented_build=False)
    assert refuse(off, 2, seep.Build(card="KH", value=13, groups=(("KH",), ("KS",)))).rule == "A8.3"
    voluntary = seep.Build(card="4C", value=13, groups=(("4C", "9S"), ("KS", "3D")))
    assert refuse(off, 2, voluntary).code == "illegal_move"
    state3, events = act(off, 2, seep.Build(card="4C", value=13, groups=(("4C", "9S"), ("KS",))))
    assert the_house(state3, 13).components == (("4C", "9S"), ("KS",))


def test_A8_3_auto_merge_of_loose_singles() -> None:
    state = table({1: ["6H", "10H", "2C"]}, ["10S", "4C", "8D"])
    state, events = act(state, 1, seep.Build(card="6H", value=10, groups=(("6H", "4C"),)))
    assert events[0].merged == ("10S",) and the_house(state, 10).components == (("6H", "4C"), ("10S",))
    assert state.loose == ("8D",)


def test_A8_3_auto_merge_loose_sets_option() -> None:
    state = table({1: ["6H", "10H", "2C"]}, ["4C", "3D", "7S", "8D"], auto_merge_loose_sets=True)
    assert refuse(state, 1, seep.Build(card="6H", value=10, groups=(("6H", "4C"),))).rule == "A8.3"
    state, _ = act(state, 1, seep.Build(card="6H", value=10, groups=(("6H", "4C"), ("3D", "7S"))))
    assert state.loose == ("8D",)
    plain = table({1: ["6H", "10H", "2C"]}, ["4C", "3D", "7S", "8D"])
    state, _ = act(plain, 1, seep.Build(card="6H", value=10, groups=(("6H", "4C"),)))
    assert state.loose == ("3D", "7S", "8D")  # sets are never merged by themselves


def test_A8_3_max_houses_on_floor_option() -> None:
    houses = [house(9, ["6H", "3S"], owners=[3])]
    state = table({1: ["5H", "JC", "2D"], 3: ["9H"]}, ["6S"], houses, max_houses_on_floor=1)
    assert refuse(state, 1, seep.Build(card="5H", value=11, groups=(("5H", "6S"),))).rule == "A8.3"
    state = table({1: ["5H", "9C", "2D"], 3: ["9H"]}, ["4S"], houses, max_houses_on_floor=1)
    act(state, 1, seep.Build(card="5H", value=9, groups=(("5H", "4S"),)))  # cementing is not limited


def test_A8_3_any_build_of_a_value_goes_into_its_house() -> None:
    houses = [house(10, ["6H", "4C"], owners=[1])]
    state = table({1: ["3D", "10H", "2C"]}, ["7S"], houses)
    state, events = act(state, 1, seep.Build(card="3D", value=10, groups=(("3D", "7S"),)))
    assert len(state.houses) == 1 and events[0].action == "cement"


# --------------------------------------------------------------------------- A8.4 break


def test_A8_4_break_an_opponents_house_needs_the_new_value() -> None:
    houses = [house(9, ["6H", "3S"], owners=[1])]
    state = table({2: ["2C", "AD", "JD", "5H"], 1: ["9D"]}, ["8D"], houses, seat=2)
    assert refuse(state, 2, seep.Break(card="5H", house=9)).rule == "A8.4"  # 14 > 13
    assert refuse(state, 2, seep.Break(card="AD", house=9)).rule == "A8.4"  # no 10 in hand
    state, _events = act(state, 2, seep.Break(card="2C", house=9))
    assert the_house(state, 11).owners == (2,) and house_of(state, 9) is None  # the old owner is released


def test_A8_4_no_break_of_own_or_cemented_house() -> None:
    state = table({1: ["2C", "9D", "JD"]}, [], [house(9, ["6H", "3S"], owners=[1])])
    assert "own" in refuse(state, 1, seep.Break(card="2C", house=9)).message
    state = table({2: ["2C", "JD"], 1: ["9D"]}, [], [house(9, ["6H", "3S"], ["9C"], owners=[1])], seat=2)
    assert "cemented" in refuse(state, 2, seep.Break(card="2C", house=9)).message


def test_A8_4_break_partner_house_and_its_option() -> None:
    houses = [house(9, ["6H", "3S"], owners=[0])]
    state = table({2: ["2C", "JD"], 0: ["9D"]}, [], houses, seat=2)
    act(state, 2, seep.Break(card="2C", house=9))
    state = table({2: ["2C", "JD"], 0: ["9D"]}, [], houses, seat=2, allow_break_partner_house=False)
    assert refuse(state, 2, seep.Break(card="2C", house=9)).rule == "A8.4"


def test_A8_4_break_into_an_existing_house_cements_it() -> None:
    houses = [house(9, ["6H", "3S"], owners=[1]), house(12, ["7D", "5C"], owners=[2])]
    state = table({2: ["3C", "QH", "8D"], 1: ["9C"]}, ["KH"], houses, seat=2)
    state, events = act(state, 2, seep.Break(card="3C", house=9))
    assert events[0].joined and the_house(state, 12).components == (("7D", "5C"), ("6H", "3S", "3C"))
    assert the_house(state, 12).owners == (2,)


def test_A8_4_break_into_partner_house_without_key_option() -> None:
    houses = [house(9, ["6H", "3S"], owners=[1]), house(12, ["7D", "5C"], owners=[0])]
    hands = {2: ["3C", "8D"], 0: ["QH"], 1: ["9C"]}
    state = table(hands, ["KH"], houses, seat=2)
    assert refuse(state, 2, seep.Break(card="3C", house=9)).rule == "A8.4"
    state = table(hands, ["KH"], houses, seat=2, break_into_partner_house_without_key=True)
    state, events = act(state, 2, seep.Break(card="3C", house=9))
    assert events[0].owners == (0,)


def test_A8_4_break_merges_loose_singles_of_the_new_value() -> None:
    houses = [house(9, ["6H", "3S"], owners=[1])]
    state = table({2: ["2C", "JD"], 1: ["9D"]}, ["JH", "4D"], houses, seat=2)
    assert state.loose == ("JH", "4D")
    state, events = act(state, 2, seep.Break(card="2C", house=9))
    assert events[0].merged == ("JH",) and the_house(state, 11).components == (("6H", "3S", "2C"), ("JH",))


def test_A8_5_ownership_transitions() -> None:
    """The table of A8.5, end to end: build, cement by an opponent, break, capture."""
    state = table({1: ["5H", "JC", "JS"], 2: ["7D", "JD", "2C"], 3: ["AH", "KS"], 0: ["2D", "KD", "3H"]},
                  ["6S", "4S", "9C"])
    state, _ = act(state, 1, seep.Build(card="5H", value=11, groups=(("5H", "6S"),)))
    assert the_house(state, 11).owners == (1,)
    state, _ = act(state, 2, seep.Build(card="7D", value=11, groups=(("7D", "4S"),)))
    assert the_house(state, 11).owners == (1, 2)
    state, _ = act(state, 3, seep.Throw(card="AH"))
    state, _ = act(state, 0, seep.Throw(card="2D"))
    state, _ = act(state, 1, seep.Capture(card="JC", groups=(("9C", "2D"),)))
    assert house_of(state, 11) is None


def test_A8_6_there_is_always_a_legal_move() -> None:
    state = table({1: ["KH"]}, ["2S", "3S"], [house(13, ["6H", "7S"], owners=[1])])
    assert seep.legal_commands(state, 1) == [seep.Capture(card="KH", groups=())]


# --------------------------------------------------------------------------- A9


def _opening(bidder: list[str], floor: list[str], bid: int):
    state = new_match(decks=(deck(bidder, floor),))
    state, _ = act(state, 1, seep.Bid(value=bid))
    return state


def test_A9_opening_play_restricted_by_the_bid() -> None:
    state = _opening(["JH", "7H", "8H", "8D"], ["2S", "9S", "JC", "KD"], 11)
    assert seep.legal_commands(state, 1) == [seep.Capture(card="JH", groups=(("2S", "9S"), ("JC",)))]
    state = _opening(["KH", "9D", "4C", "8S"], ["5S", "7H", "2D", "QC"], 13)
    assert refuse(state, 1, seep.Capture(card="9D", groups=(("7H", "2D"),))).rule == "A9"
    assert refuse(state, 1, seep.Build(card="4C", value=9, groups=(("4C", "5S"),))).rule == "A9"
    act(state, 1, seep.Build(card="8S", value=13, groups=(("8S", "5S"),)))
    act(state, 1, seep.Throw(card="KH"))


def test_A9_opening_direct_cemented_build() -> None:
    state = _opening(["10H", "10C", "2C", "3D"], ["10S", "4H", "5H", "6H"], 10)
    state, _events = act(state, 1, seep.Build(card="10H", value=10, groups=(("10H",), ("10S",))))
    assert the_house(state, 10).cemented


# --------------------------------------------------------------------------- A10, A11


def test_A10_leftovers_go_to_the_last_capturing_team() -> None:
    state = table({0: ["2H"]}, ["KS", "9C"], seat=0, extra={"last_capture_team": 1})
    state, events = act(state, 0, seep.Throw(card="2H"))
    leftover = events_of(events, LeftoverAwarded)[0]
    assert leftover.team == 1 and leftover.cards == ("KS", "9C", "2H")
    assert not events_of(events, SweepScored)


def test_A10_no_capture_in_the_deal_leaves_leftovers_unscored() -> None:
    # no reachable position lacks a capture for a whole deal: the end of the deal is checked directly
    base = table({0: ["2H"]}, ["KS", "9C"], seat=0)
    blank = msgspec.structs.replace(base, plays=48, hands=((), (), (), ()), loose=("KS",), piles=((), ()),
                                    last_capture_team=None)
    events = end_of_deal(blank)
    assert events_of(events, LeftoverAwarded)[0].team is None
    assert events_of(events, DealScored)[0].card_points == (0, 0)


def test_A11_1_card_points_of_the_piles() -> None:
    state = table({0: ["5C"], 1: ["2H"], 2: ["3C"], 3: ["4D"]}, ["KC"], seat=1)
    for seat, command in ((1, seep.Throw(card="2H")), (2, seep.Throw(card="3C")), (3, seep.Throw(card="4D"))):
        state, _ = act(state, seat, command)
    state, events = act(state, 0, seep.Capture(card="5C", groups=(("2H", "3C"),)))
    scored = events_of(events, DealScored)[0]
    assert sum(scored.card_points) == 100 and scored.scores == scored.card_points


def test_A11_2_sweep_values() -> None:
    state = _opening(["QH", "3H", "5D", "4D"], ["4S", "4C", "QC", "4H"], 12)
    _, events = act(state, 1, seep.Capture(card="QH", groups=(("QC",), ("4S", "4C", "4H"))))
    assert events_of(events, SweepScored)[0].points == 25
    state = _opening(["QH", "3H", "5D", "4D"], ["4S", "4C", "QC", "4H"], 12)
    state = position(seep.snapshot(state), opening_sweep_at="play2")
    _, events = act(state, 1, seep.Capture(card="QH", groups=(("QC",), ("4S", "4C", "4H"))))
    assert events_of(events, SweepScored)[0].points == 50
    state = table({0: ["9S"]}, ["9C"], seat=0)
    _, events = act(state, 0, seep.Capture(card="9S", groups=(("9C",),)))
    assert events_of(events, SweepScored)[0].points == 0  # the last play
    state = table({0: ["9S"]}, ["9C"], seat=0, last_play_sweep_points=10)
    _, events = act(state, 0, seep.Capture(card="9S", groups=(("9C",),)))
    assert events_of(events, SweepScored)[0].points == 10
    state = table({1: ["9S", "2C"]}, ["9C"], sweeps_enabled=False)
    _, events = act(state, 1, seep.Capture(card="9S", groups=(("9C",),)))
    assert not events_of(events, SweepScored)
    state = table({1: ["9S", "2C"]}, ["9C"], sweep_points=30)
    state, events = act(state, 1, seep.Capture(card="9S", groups=(("9C",),)))
    assert events_of(events, SweepScored)[0].points == 30 and state.sweeps == (0, 30)


def test_A11_2_build_throw_and_break_never_sweep() -> None:
    state = table({1: ["5H", "JC"]}, ["6S"])
    _, events = act(state, 1, seep.Build(card="5H", value=11, groups=(("5H", "6S"),)))
    assert not events_of(events, SweepScored)


def test_A11_3_deal_score_and_majority_bonus() -> None:
    def finish(**options):
        state = table({0: ["5C"], 1: ["2H"], 2: ["3C"], 3: ["4D"]}, ["KC"], seat=1, **options)
        for seat, command in ((1, seep.Throw(card="2H")), (2, seep.Throw(card="3C")), (3, seep.Throw(card="4D"))):
            state, _ = act(state, seat, command)
        return events_of(act(state, 0, seep.Capture(card="5C", groups=(("2H", "3C"),)))[1], DealScored)[0]

    plain = finish()
    variant = finish(ten_of_diamonds_points=2, majority_cards_bonus=4)
    assert variant.bonus == (4, 0) and sum(variant.card_points) == 96
    assert variant.scores == (variant.card_points[0] + 4, variant.card_points[1])
    assert plain.bonus == (0, 0)


# --------------------------------------------------------------------------- A12, A13


def _last_round(difference: int = 0, dealer: int = 0, pile1: list[str] | None = None, **options):
    """Dealer 0: plays #45..#48 left, the dealer's 5C will take 2H+3C; team 0 holds the rest."""
    extra = {"difference": difference}
    state = table({0: ["5C"], 1: ["2H"], 2: ["3C"], 3: ["4D"]}, ["KC"], seat=1, dealer=0, extra=extra, **options)
    if pile1 is not None:
        snap = seep.snapshot(state)
        snap["piles"] = [[c for c in snap["piles"][0] if c not in pile1], pile1]
        state = position(snap, **options)
    for seat, command in ((1, seep.Throw(card="2H")), (2, seep.Throw(card="3C")), (3, seep.Throw(card="4D"))):
        state, _ = act(state, seat, command)
    return act(state, 0, seep.Capture(card="5C", groups=(("2H", "3C"),)))


def test_A12_difference_accumulates() -> None:
    spades = ["KS", "QS", "JS", "10S"]  # 46 points to team 1
    state, events = _last_round(difference=-10, pile1=spades)
    scored = events_of(events, DealScored)[0]
    assert scored.scores == (54, 46) and state.difference == -2 and state.baazis == (0, 0)


def test_A12_baazi_won_by_a_lead_resets_the_difference() -> None:
    state, events = _last_round(difference=95, pile1=["KS", "QS", "JS", "10S"], baazis_to_play=3)
    assert events_of(events, BaaziWon)[0].reason == "lead" and state.difference == 0 and state.baazis == (1, 0)
    assert state.phase == "bid"


def test_A12_nine_point_rule() -> None:
    state, events = _last_round(difference=-95, pile1=["7S", "5H"])
    won = events_of(events, BaaziWon)[0]
    assert won.team == 0 and won.reason == "minimum" and state.difference == 0
    assert events_of(events, MatchEnded)[0].winner == 0 and state.phase == "over"


def test_A12_nine_point_rule_with_or_without_sweeps() -> None:
    snap_sweeps = {"sweeps": [0, 50]}
    state = table({0: ["5C"], 1: ["2H"], 2: ["3C"], 3: ["4D"]}, ["KC"], seat=1, extra=snap_sweeps)
    for seat, command in ((1, seep.Throw(card="2H")), (2, seep.Throw(card="3C")), (3, seep.Throw(card="4D"))):
        state, _ = act(state, seat, command)
    _, events = act(state, 0, seep.Capture(card="5C", groups=(("2H", "3C"),)))
    assert not events_of(events, BaaziWon)  # 0 + 50 >= 9
    state = table({0: ["5C"], 1: ["2H"], 2: ["3C"], 3: ["4D"]}, ["KC"], seat=1, extra=snap_sweeps,
                  minimum_includes_sweeps=False)
    for seat, command in ((1, seep.Throw(card="2H")), (2, seep.Throw(card="3C")), (3, seep.Throw(card="4D"))):
        state, _ = act(state, seat, command)
    _, events = act(state, 0, seep.Capture(card="5C", groups=(("2H", "3C"),)))
    assert events_of(events, BaaziWon)[0].reason == "minimum"


def test_A12_match_of_several_baazis() -> None:
    state, events = _last_round(difference=95, pile1=["KS", "QS", "JS", "10S"], baazis_to_play=2)
    assert not events_of(events, MatchEnded) and state.baazis == (1, 0)


SEVENTY = ["KS", "QS", "JS", "10S", "9S", "8S", "7S"]  # 70 points to team 1, 30 to team 0


@pytest.mark.parametrize(
    ("difference", "pile1", "dealer_after"),
    [
        (40, SEVENTY, 0),  # level after the deal (40 + 30 - 70 = 0): the same dealer
        (0, ["KS", "QS"], 1),  # the dealer's team ahead: the player on his right
        (-80, ["KS", "QS"], 0),  # behind: the same dealer
        (95, ["KS", "QS"], 3),  # the dealer's team wins the baazi: X = 1, partner(X) = 3
        (-95, ["7S", "5H"], 3),  # it wins by the 9-point rule: the same
        (-95, SEVENTY, 2),  # the other team wins the baazi: X = 0, partner(X) = 2
    ],
)
def test_A13_who_deals_next(difference: int, pile1: list[str], dealer_after: int) -> None:
    state, _ = _last_round(difference=difference, pile1=pile1, baazis_to_play=5)
    assert state.dealer == dealer_after and state.phase == "bid"


def test_A13_rotate_option() -> None:
    state, _ = _last_round(difference=-80, pile1=["KS", "QS"], dealer_rule="rotate")
    assert state.dealer == 1


def test_A14_derived_facts_of_a_deal() -> None:
    state = new_match(dealer=3)
    state, _ = act(state, 0, seep.Bid(value=max(VALUE[c] for c in state.hands[0] if VALUE[c] >= 9)))
    seen = []
    while state.plays < 48 and state.phase == "play":
        seat = seep.to_act(state)[0]
        assert seat == (state.dealer + state.plays + 1) % 4
        seen.append(seat)
        state, events = act(state, seat, seep.legal_commands(state, seat)[-1])
        if events_of(events, DealScored):
            break
    assert Counter(seen) == {0: 12, 1: 12, 2: 12, 3: 12} and seen[-1] == 3
