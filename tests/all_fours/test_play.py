"""Trick play (A10), exposed cards and calling (A14), rejection codes (A17)."""

from __future__ import annotations

from typing import Any

import pytest

from cardgames.engine.all_fours import make_config
from cardgames.engine.all_fours.state import Played
from cardgames.engine.all_fours.tricks import legal_cards, trick_winner
from cardgames.engine.core.commands import parse_command
from cardgames.engine.core.protocol import Rejection
from tests.all_fours.helpers import GAME, act, act_events, legal_plays, make_deck, play, rejection, snap, start, tags

# Dealer 3, eldest 0, turn-up 4H: after a stand hearts are trump.
HANDS = {
    0: ["5S", "KS", "2C", "2D", "3D", "9D"],
    1: ["QS", "3H", "9C", "4D", "7C", "8D"],
    2: ["9S", "QH", "KH", "4C", "7D", "2S"],
    3: ["AS", "JH", "10D", "QC", "AD", "5C"],
}


def dealt(options: dict[str, Any] | None = None, hands: dict[int, list[str]] | None = None) -> Any:
    return act(start(make_deck(hands or HANDS, "4H"), options=options), 0, {"type": "stand"})


def legal(hand: str, trick: str, trump: str = "H", **options: Any) -> set[str]:
    plays = tuple(Played(seat, card) for seat, card in enumerate(trick.split()))
    return set(legal_cards(tuple(hand.split()), plays, trump, make_config(options, None)))


# --- A10: the legal set -----------------------------------------------------------------


def test_a10_1_the_leader_may_lead_anything_trumps_included() -> None:
    state = dealt()
    assert legal_plays(state, 0) == set(HANDS[0])
    assert legal("2H 5S 9C", "") == {"2H", "5S", "9C"}


def test_a10_2_trump_led_trump_if_held_else_anything() -> None:
    assert legal("2H 5S 9C", "7H") == {"2H"}
    assert legal("5S 9C", "7H") == {"5S", "9C"}


def test_a10_3_follow_suit_or_trump_never_a_third_suit() -> None:
    assert legal("KS 3H 9D 7C", "5S") == {"KS", "3H"}
    state = play(dealt(), "5S")
    assert legal_plays(state, 1) == {"QS", "3H"}
    assert rejection(state, 1, {"type": "play", "card": "9C"}) == "illegal_move"
    play(state, "3H")  # trumping while able to follow (B-2)


def test_a10_3_void_in_the_suit_led_any_card_no_duty_to_trump() -> None:
    assert legal("3H 9D 4C", "5S") == {"3H", "9D", "4C"}


def test_a10_4_no_undertrump() -> None:
    # a trump in the trick: under-trumps go, over-trumps stay, following stays
    assert legal("9S 3H KH 4C", "5S QH", no_undertrump=True) == {"9S", "KH"}
    assert legal("3H KH 4C", "5S QH", no_undertrump=True) == {"KH", "3H", "4C"} - {"3H"}
    # only trumps in hand: any of them
    assert legal("3H 2H", "5S QH", no_undertrump=True) == {"3H", "2H"}
    # no trump in the trick yet: nothing removed
    assert legal("9S 3H 4C", "5S 7S", no_undertrump=True) == {"9S", "3H"}
    # trump led: step 4 does not apply
    assert legal("3H 4C", "7H QH", no_undertrump=True) == {"3H"}
    # off by default (C07, B-3)
    assert legal("9S 3H KH 4C", "5S QH") == {"9S", "3H", "KH"}


def test_a10_5_void_must_trump() -> None:
    assert legal("3H 9D 4C", "5S", void_must_trump=True) == {"3H"}
    assert legal("9D 4C", "5S", void_must_trump=True) == {"9D", "4C"}
    assert legal("9S 3H 4C", "5S", void_must_trump=True) == {"9S", "3H"}  # not void: step 3 only


def test_a10_b33_no_undertrump_then_void_must_trump() -> None:
    options: dict[str, Any] = {"no_undertrump": True, "void_must_trump": True}
    assert legal("3H 9D 4C", "5S QH", **options) == {"9D", "4C"}
    assert legal("3H KH 9D", "5S QH", **options) == {"KH"}
    assert legal("3H 2H", "5S QH", **options) == {"3H", "2H"}


def test_a10_trick_winner_highest_trump_else_highest_of_suit_led() -> None:
    def winner(cards: str, trump: str = "H") -> int:
        return trick_winner(tuple(Played(seat, card) for seat, card in enumerate(cards.split())), trump)

    assert winner("5S KS 3H AS") == 2
    assert winner("5S KS 2H 3H") == 3
    assert winner("5S KS AD AS") == 3
    assert winner("5S 9D AD AC") == 0  # other suits never win
    assert winner("7H AS 2H KS") == 0


def test_a10_the_trick_is_gathered_by_the_winners_side_and_the_winner_leads() -> None:
    state, events = act_events(play(dealt(), "5S", "QS", "9S"), 3, {"type": "play", "card": "AS"})
    assert tags(events) == ["card_played", "trick_won"]
    assert events[-1].seat == 3 and events[-1].trick_no == 1
    s = snap(state)
    assert s["trick"] == [] and s["tricks_won"] == [[], ["5S", "QS", "9S", "AS"]] and s["to_act"] == 3


def test_a10_the_hand_ends_after_hand_size_tricks() -> None:
    state = dealt()
    tricks = 0
    while state.hand_no == 1:
        before = state.trick_no
        state = play(state, sorted(legal_plays(state, state.turn))[0])
        tricks += state.trick_no != before
    assert tricks == 6 and state.last_hand is not None


# --- A14: exposure and calling ----------------------------------------------------------


def test_a14_out_of_turn_play_exposes_the_card_and_keeps_the_turn() -> None:
    state, events = act_events(dealt(), 2, {"type": "play", "card": "KH"})
    assert tags(events) == ["card_exposed"]
    assert state.exposed[2] == ("KH",) and "KH" in state.hands[2] and state.turn == 0 and state.trick == ()
    assert rejection(state, 2, {"type": "play", "card": "KH"}) == "not_your_turn"


@pytest.mark.parametrize("seat", [0, 1, 2, 3])
def test_a14_any_play_before_trick_play_is_out_of_turn(seat: int) -> None:
    state = start(make_deck(HANDS, "4H"))
    state = act(state, seat, {"type": "play", "card": HANDS[seat][0]})
    assert state.exposed[seat] == (HANDS[seat][0],) and state.phase == "beg"
    state = act(act(start(make_deck(HANDS, "4H")), 0, {"type": "beg"}), 3, {"type": "play", "card": "AS"})
    assert state.exposed[3] == ("AS",) and state.phase == "dealer_choice"


def test_a14_out_of_turn_play_reject_option() -> None:
    state = dealt({"out_of_turn_play": "reject"})
    assert rejection(state, 2, {"type": "play", "card": "KH"}) == "not_your_turn"
    state = start(make_deck(HANDS, "4H"), options={"out_of_turn_play": "reject"})
    assert rejection(state, 0, {"type": "play", "card": "5S"}) == "not_your_turn"


def test_a14_the_owner_may_play_an_exposed_card_or_another() -> None:
    state = act(dealt(), 1, {"type": "play", "card": "QS"})
    state = act(state, 1, {"type": "play", "card": "3H"})
    state = play(state, "5S")
    state = play(state, "QS")  # played voluntarily: no longer exposed; 3H stays exposed
    assert state.exposed[1] == ("3H",)
    state = act(dealt(), 1, {"type": "play", "card": "QS"})
    state = play(state, "5S", "3H")
    assert state.exposed[1] == ("QS",)


def test_a14_an_opponent_calls_an_exposed_card_on_the_owners_turn() -> None:
    state = play(act(dealt(), 1, {"type": "play", "card": "QS"}), "5S")
    assert [(c.owner, c.card) for c in GAME.legal_commands(state, 0)] == [(1, "QS")]
    assert GAME.legal_commands(state, 2) == GAME.legal_commands(state, 0)
    assert GAME.legal_commands(state, 3) == []  # the partner may not call (callers = opponents)
    state, events = act_events(state, 2, {"type": "call", "owner": 1, "card": "QS"})
    assert tags(events) == ["exposed_card_called", "card_played"]
    assert state.trick[-1] == Played(1, "QS") and state.turn == 2 and state.exposed[1] == ()


def test_a14_invalid_calls_are_illegal_moves_and_the_card_stays_callable() -> None:
    state = act(dealt(), 1, {"type": "play", "card": "QS"})
    assert rejection(state, 0, {"type": "call", "owner": 1, "card": "QS"}) == "illegal_move"  # not its turn
    state = play(state, "2D")  # diamonds led: QS is not legal for seat 1 now
    assert rejection(state, 0, {"type": "call", "owner": 1, "card": "QS"}) == "illegal_move"
    assert rejection(state, 3, {"type": "call", "owner": 1, "card": "QS"}) == "illegal_move"  # partner
    assert rejection(state, 1, {"type": "call", "owner": 1, "card": "QS"}) == "illegal_move"  # owner
    assert rejection(state, 0, {"type": "call", "owner": 1, "card": "4D"}) == "illegal_move"  # not exposed
    assert rejection(state, 0, {"type": "call", "owner": 1, "card": "AH"}) == "illegal_move"  # not held either
    assert rejection(state, 0, {"type": "call", "owner": 7, "card": "QS"}) == "invalid_command"
    assert rejection(state, 0, {"type": "call", "owner": 1, "card": "1S"}) == "invalid_command"
    state = play(state, "4D", "7D", "AD")  # seat 3 wins and leads
    assert state.exposed[1] == ("QS",)
    state = play(state, "AS", "KS")
    state = act(state, 2, {"type": "call", "owner": 1, "card": "QS"})  # legal now: called later
    assert state.trick[-1] == Played(1, "QS") and state.exposed[1] == ()


def test_a14_a17_a_call_of_an_unexposed_card_gets_one_answer_whoever_holds_it() -> None:
    """A caller learns nothing of a hand it cannot see: the owner's own face-down card, another
    seat's card, a stock card and a played card get the same code, rule and message."""
    state = play(act(dealt(), 1, {"type": "play", "card": "QS"}), "5S")
    assert state.turn == 1
    for caller in (0, 2):
        answers = {}
        for card, where in (("3H", "owner"), ("AS", "seat 3"), ("KH", "seat 2"), ("AC", "stock"), ("5S", "trick")):
            outcome = GAME.decide(state, caller, parse_command(GAME, {"type": "call", "owner": 1, "card": card}))
            assert isinstance(outcome, Rejection), where
            answers[where] = (outcome.code.value, outcome.rule, outcome.message.replace(card, "<card>"))
        assert len(set(answers.values())) == 1, answers
        assert next(iter(answers.values()))[0] == "illegal_move"


def test_a14_callers_any_other_lets_a_partner_call() -> None:
    state = play(act(dealt({"callers": "any_other"}), 1, {"type": "play", "card": "QS"}), "5S")
    assert [c.card for c in GAME.legal_commands(state, 3)] == ["QS"]
    state = act(state, 3, {"type": "call", "owner": 1, "card": "QS"})
    assert state.trick[-1] == Played(1, "QS")


# --- A17: rejection codes and their precedence ------------------------------------------


def test_a17_invalid_command_for_unknown_or_unheld_cards_from_every_seat_and_phase() -> None:
    for options in ({}, {"out_of_turn_play": "reject"}):
        for state in (start(make_deck(HANDS, "4H"), options=options), dealt(options)):
            for seat in range(4):
                assert rejection(state, seat, {"type": "play", "card": "ZZ"}) == "invalid_command"
                other = HANDS[(seat + 1) % 4][0]
                assert rejection(state, seat, {"type": "play", "card": other}) == "invalid_command"


def test_a17_a_seat_without_its_cards_may_not_play_whatever_card_it_names() -> None:
    """dealer_and_eldest_only (B-28): before trumps are fixed seats 1 and 2 see no card of theirs, so
    every well-formed play of theirs is not_your_turn with one message, held card or not (A17 rule 3
    before "does not hold"); an unknown code is still invalid_command. The dealer and the eldest see
    their cards: a card they do not hold is invalid_command."""
    for out_of_turn in ("expose", "reject"):
        options = {"beg_phase_hand_visibility": "dealer_and_eldest_only", "out_of_turn_play": out_of_turn}
        state = start(make_deck(HANDS, "4H"), options=options)
        for phase_state in (state, act(state, 0, {"type": "beg"})):
            for seat in (1, 2):
                answers = set()
                for card in ("AS", "QS", "9S", "4H"):  # seat 3's, seat 1's, seat 2's, the turn-up
                    outcome = GAME.decide(phase_state, seat, parse_command(GAME, {"type": "play", "card": card}))
                    assert isinstance(outcome, Rejection)
                    answers.add((outcome.code.value, outcome.rule, outcome.message))
                assert len(answers) == 1 and answers.pop()[0] == "not_your_turn"
                assert rejection(phase_state, seat, {"type": "play", "card": "ZZ"}) == "invalid_command"
            for seat in (0, 3):
                assert rejection(phase_state, seat, {"type": "play", "card": HANDS[1][0]}) == "invalid_command"
        delivered = act(state, 0, {"type": "stand"})
        assert rejection(delivered, 1, {"type": "play", "card": "AS"}) == "invalid_command"


def test_a17_malformed_commands_are_invalid() -> None:
    state = dealt()
    for raw in ({"type": "resign"}, {"type": "play"}, {"type": "play", "card": 5}, {"type": "call", "card": "QS"}):
        assert rejection(state, 2, raw) == "invalid_command"
    outcome = GAME.decide(state, 0, parse_command(GAME, {"card": "5S"}))
    assert isinstance(outcome, Rejection) and outcome.code.value == "invalid_command"


def test_a17_game_over_comes_first() -> None:
    state = start(make_deck(HANDS, "JC"), options={"target_score": 2})
    assert state.phase == "over"
    for raw in ({"type": "resign"}, {"type": "play", "card": "ZZ"}, {"type": "stand"}, {"type": "call"}):
        for seat in range(4):
            assert rejection(state, seat, raw) == "game_over"


def test_a17_decisions_outside_their_phase_from_the_seat_to_act() -> None:
    state = dealt()
    assert rejection(state, 0, {"type": "stand"}) == "illegal_move"
    assert rejection(state, 0, {"type": "give_one"}) == "illegal_move"
    assert rejection(state, 3, {"type": "run_pack"}) == "not_your_turn"
    state = play(state, "5S")
    assert rejection(state, 1, {"type": "play", "card": "9C"}) == "illegal_move"
    assert rejection(state, 1, {"type": "beg"}) == "illegal_move"  # the seat to act, outside phase beg
    assert rejection(state, 2, {"type": "beg"}) == "not_your_turn"


def test_a17_snapshot_of_the_trick_in_play_order() -> None:
    state = play(dealt(), "5S", "QS")
    assert snap(state)["trick"] == [{"seat": 0, "card": "5S"}, {"seat": 1, "card": "QS"}]


def test_a15_no_revoke_can_happen_illegal_plays_are_refused_and_change_nothing() -> None:
    state = play(dealt(), "5S")
    for card in ("9C", "4D", "7C", "8D"):  # third suits while holding a spade
        assert rejection(state, 1, {"type": "play", "card": card}) == "illegal_move"
    assert state.hands[1] == tuple(HANDS[1]) and state.trick == (Played(0, "5S"),)
