"""Stand, beg, give one and the house flags (A7), trump (A8), running the pack and exhaustion (A9)."""

from __future__ import annotations

from cardgames.engine.all_fours.events import PackExhausted
from cardgames.engine.core.events import Shuffled
from tests.all_fours.helpers import GAME, act, act_events, make_deck, rejection, snap, start, tags

HEARTS_UP = make_deck({0: ["2S", "3S", "4S", "5S", "7S", "8S"], 3: ["2D", "3D", "4D", "5D", "7D", "8D"]}, "4H")


# --- A7 ---------------------------------------------------------------------------------


def test_a7_stand_fixes_the_turn_up_suit_and_the_eldest_leads() -> None:
    state, events = act_events(start(HEARTS_UP), 0, {"type": "stand"})
    assert tags(events) == ["stood", "trump_fixed"]
    assert (state.trump, state.turn_up, snap(state)["to_act"], state.phase) == ("H", "4H", 0, "play")


def test_a7_beg_then_give_one_scores_for_the_beggars_side() -> None:
    state = act(start(HEARTS_UP), 0, {"type": "beg"})
    assert (state.phase, state.turn, state.trump) == ("dealer_choice", 3, None)
    state, events = act_events(state, 3, {"type": "give_one"})
    assert tags(events) == ["gave_one", "trump_fixed", "points_scored"]
    assert list(state.scores) == [1, 0] and state.trump == "H" and state.turn == 0


def test_a7_give_one_points_option_and_zero() -> None:
    state = act(act(start(HEARTS_UP, options={"give_one_points": 2}), 0, {"type": "beg"}), 3, {"type": "give_one"})
    assert list(state.scores) == [2, 0]
    state, events = act_events(act(start(HEARTS_UP, options={"give_one_points": 0}), 0, {"type": "beg"}), 3,
                               {"type": "give_one"})  # fmt: skip
    assert list(state.scores) == [0, 0] and "points_scored" not in tags(events)


def test_a7_give_one_that_wins_fixes_trump_first() -> None:
    state = start(HEARTS_UP, scores=[13, 0])
    state = act(act(state, 0, {"type": "beg"}), 3, {"type": "give_one"})
    assert state.phase == "over" and state.trump == "H" and state.winner == 0 and list(state.scores) == [14, 0]
    assert state.last_hand is None  # a match won before trick play leaves last_hand unchanged


def test_a7_only_the_eldest_then_only_the_dealer_decide_once() -> None:
    state = start(HEARTS_UP)
    for seat in (1, 2, 3):
        assert rejection(state, seat, {"type": "stand"}) == "not_your_turn"
        assert rejection(state, seat, {"type": "beg"}) == "not_your_turn"
    assert rejection(state, 3, {"type": "give_one"}) == "not_your_turn"
    assert rejection(state, 0, {"type": "give_one"}) == "illegal_move"
    assert rejection(state, 0, {"type": "run_pack"}) == "illegal_move"
    state = act(state, 0, {"type": "beg"})
    assert rejection(state, 0, {"type": "beg"}) == "not_your_turn"
    assert rejection(state, 1, {"type": "give_one"}) == "not_your_turn"
    assert rejection(state, 3, {"type": "beg"}) == "illegal_move"
    state = act(state, 3, {"type": "give_one"})
    assert rejection(state, 0, {"type": "beg"}) == "illegal_move"  # no second beg once trump is fixed
    assert rejection(state, 0, {"type": "stand"}) == "illegal_move"


def test_a7_legal_commands_of_the_decisions() -> None:
    state = start(HEARTS_UP)
    assert tags(GAME.legal_commands(state, 0)) == ["stand", "beg"]
    assert all(GAME.legal_commands(state, seat) == [] for seat in (1, 2, 3))
    state = act(state, 0, {"type": "beg"})
    assert tags(GAME.legal_commands(state, 3)) == ["give_one", "run_pack"]
    assert GAME.legal_commands(state, 0) == []


def test_a7_stand_requires_trump() -> None:
    options = {"stand_requires_trump": True}
    state = start(HEARTS_UP, options=options)  # seat 0 holds no heart
    assert rejection(state, 0, {"type": "stand"}) == "illegal_move"
    assert tags(GAME.legal_commands(state, 0)) == ["beg"]
    act(state, 0, {"type": "beg"})
    with_heart = make_deck({0: ["2H", "3S", "4S", "5S", "7S", "8S"]}, "4H")
    act(start(with_heart, options=options), 0, {"type": "stand"})


def test_a7_give_one_requires_trump() -> None:
    options = {"give_one_requires_trump": True}
    state = act(start(HEARTS_UP, options=options), 0, {"type": "beg"})  # dealer 3 holds no heart
    assert rejection(state, 3, {"type": "give_one"}) == "illegal_move"
    assert tags(GAME.legal_commands(state, 3)) == ["run_pack"]
    with_heart = make_deck({3: ["2H", "3S", "4S", "5S", "7S", "8S"]}, "4H")
    act(act(start(with_heart, options=options), 0, {"type": "beg"}), 3, {"type": "give_one"})


def test_a7_no_give_one_for_match() -> None:
    options = {"no_give_one_for_match": True}
    state = act(start(HEARTS_UP, options=options, scores=[13, 0]), 0, {"type": "beg"})
    assert rejection(state, 3, {"type": "give_one"}) == "illegal_move"
    assert tags(GAME.legal_commands(state, 3)) == ["run_pack"]
    state = act(start(HEARTS_UP, options=options, scores=[12, 13]), 0, {"type": "beg"})
    assert list(act(state, 3, {"type": "give_one"}).scores) == [13, 13]


# --- A8 / A9 ----------------------------------------------------------------------------


def test_a8_a9_run_until_a_new_suit() -> None:
    deck = make_deck({}, "4H", runs=[({}, "9H"), ({}, "7C")])
    state, events = act_events(act(start(deck), 0, {"type": "beg"}), 3, {"type": "run_pack"})
    assert tags(events).count("pack_run") == 2
    assert tags(events)[0] == "turn_up_set_aside"
    assert list(state.set_aside) == ["4H", "9H"] and state.turn_up == "7C" and state.trump == "C"
    assert state.hand_size == 12 and len(state.stock) == 1 and state.turn == 0
    assert rejection(state, 0, {"type": "beg"}) == "illegal_move"


def test_a9_kicks_during_the_run_score_and_stay() -> None:
    deck = make_deck({}, "6H", runs=[({}, "JH"), ({}, "AC")])
    state = act(act(start(deck), 0, {"type": "beg"}), 3, {"type": "run_pack"})
    assert list(state.scores) == [0, 2 + 3 + 1] and state.trump == "C"
    assert [(a.reason, a.card) for a in state.hand_awards] == [("kick", "6H"), ("kick", "JH"), ("kick", "AC")]


def test_a8_a9_a_winning_run_kick_fixes_no_trump() -> None:
    deck = make_deck({}, "4H", runs=[({}, "JC")])
    state = act(act(start(deck, scores=[0, 12]), 0, {"type": "beg"}), 3, {"type": "run_pack"})
    s = snap(state)
    assert s["phase"] == "over" and s["trump"] is None and s["turn_up"] == "JC" and s["to_act"] is None
    assert s["hand_size"] == 9 and s["set_aside"] == ["4H"] and s["scores"] == [0, 15]


def test_a9_pack_exhausted_four_players_same_dealer_deals_again() -> None:
    deck = make_deck({}, "4H", runs=[({}, "9H"), ({}, "5H")])
    second = make_deck({}, "JS", dealer=3)
    state = start(deck, decks=[second])
    state = act(state, 2, {"type": "play", "card": state.hands[2][0]})  # exposed before the beg
    assert state.exposed[2]
    state, events = act_events(act(state, 0, {"type": "beg"}), 3, {"type": "run_pack"})
    names = tags(events)
    assert names.count("pack_run") == 2
    exhausted = next(e for e in events if isinstance(e, PackExhausted))
    assert (exhausted.dealer, exhausted.stock_size) == (3, 1)
    assert names[names.index("pack_exhausted") + 1 :][:2] == ["hand_started", "shuffled"]
    assert next(e for e in events if isinstance(e, Shuffled)).order == tuple(second)
    s = snap(state)
    assert s["dealer"] == 3 and s["hand_no"] == 1 and s["redeal_no"] == 1 and s["phase"] == "beg"
    assert s["to_act"] == 0 and s["set_aside"] == [] and s["exposed"] == [[], [], [], []] and s["trump"] is None
    assert s["turn_up"] == "JS" and s["scores"] == [0, 3] and s["hand_size"] == 6
    assert s["hands"][0] == second[0:3] + second[12:15]
    state = act(state, 0, {"type": "beg"})  # a fresh beg after the redeal
    assert state.phase == "dealer_choice"


def test_a9_pack_exhausted_two_players_after_five_runs() -> None:
    runs: list[tuple[dict[int, list[str]], str]] = [({}, card) for card in ("5H", "7H", "8H", "9H", "10H")]
    deck = make_deck({}, "4H", dealer=1, players=2, runs=runs)
    second = make_deck({}, "9C", dealer=1, players=2)
    state = act(start(deck, dealer=1, players=2, decks=[second]), 0, {"type": "beg"})
    state, events = act_events(state, 1, {"type": "run_pack"})
    assert tags(events).count("pack_run") == 5 and "pack_exhausted" in tags(events)
    assert state.redeal_no == 1 and state.dealer == 1 and state.turn_up == "9C"


def test_a9_two_player_hand_can_grow_to_21() -> None:
    runs: list[tuple[dict[int, list[str]], str]] = [({}, card) for card in ("5H", "7H", "8H", "9H", "10C")]
    deck = make_deck({}, "4H", dealer=1, players=2, runs=runs)
    state = act(act(start(deck, dealer=1, players=2), 0, {"type": "beg"}), 1, {"type": "run_pack"})
    assert state.hand_size == 21 and state.trump == "C" and len(state.stock) == 4
    assert list(state.set_aside) == ["4H", "5H", "7H", "8H", "9H"]
