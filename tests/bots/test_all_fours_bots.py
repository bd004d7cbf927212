"""The All Fours rules-of-thumb player and determinization on hand-made views."""

from __future__ import annotations

import random
from typing import Any

from cardgames.engine.all_fours import View
from cardgames.engine.all_fours.commands import BEG, GIVE_ONE, PLAYS, RUN_PACK, STAND
from cardgames.engine.all_fours.state import Played
from cardgames.engine.core.registry import get_game

GAME = get_game("all_fours")
CONFIG = GAME.make_config({}, None)
HEURISTIC = GAME.heuristic_policy(CONFIG)  # type: ignore[attr-defined]


def make_view(**fields: Any) -> View:
    base: dict[str, Any] = {
        "viewer": 1,
        "players": 4,
        "target_score": 14,
        "phase": "play",
        "dealer": 0,
        "eldest": 1,
        "to_act": 1,
        "hand": (),
        "hand_hidden": False,
        "hand_sizes": (6, 6, 6, 6),
        "stock_size": 27,
        "hand_size": 6,
        "turn_up": "5H",
        "trump": "H",
        "set_aside": (),
        "trick": (),
        "trick_no": 1,
        "tricks_won": ((), ()),
        "exposed": ((), (), (), ()),
        "scores": (0, 0),
        "hand_no": 1,
        "redeal_no": 0,
        "last_hand": None,
        "winner": None,
    }
    base.update(fields)
    return View(**base)


def choose(view: View, legal: list[Any]) -> Any:
    return HEURISTIC.choose(view, legal, random.Random(0))


def plays(*cards: str) -> list[Any]:
    return [PLAYS[card] for card in cards]


def test_a7_eldest_stands_with_the_ace_of_the_turn_up_suit_and_begs_without_trumps() -> None:
    strong = make_view(phase="beg", trump=None, hand=("AH", "2C", "3C", "4D", "5D", "6S"))
    weak = make_view(phase="beg", trump=None, hand=("2C", "3C", "4D", "5D", "6S", "7S"))
    assert choose(strong, [STAND, BEG]) == STAND
    assert choose(weak, [STAND, BEG]) == BEG


def test_a7_eldest_stands_when_the_kicks_of_a_run_could_end_the_match() -> None:
    weak = make_view(phase="beg", trump=None, hand=("2C", "3C", "4D", "5D", "6S", "7S"), scores=(12, 3))
    assert choose(weak, [STAND, BEG]) == STAND


def test_a7_dealer_never_gives_the_winning_point_and_runs_with_a_weak_holding() -> None:
    strong = ("AH", "KH", "2C", "3C", "4D", "5D")
    weak = ("2C", "3C", "4D", "5D", "6S", "7S")
    dealer = {"phase": "dealer_choice", "trump": None, "viewer": 0, "to_act": 0}
    assert choose(make_view(hand=strong, **dealer), [GIVE_ONE, RUN_PACK]) == GIVE_ONE
    assert choose(make_view(hand=weak, **dealer), [GIVE_ONE, RUN_PACK]) == RUN_PACK
    assert choose(make_view(hand=strong, scores=(0, 13), **dealer), [GIVE_ONE, RUN_PACK]) == RUN_PACK


def test_a10_leads_the_master_trump_while_trumps_are_out() -> None:
    view = make_view(hand=("AH", "9H", "2C", "3C", "4D", "5D"))
    assert choose(view, plays(*view.hand)) == PLAYS["AH"]


def test_a10_leads_a_low_plain_card_without_the_master_trump() -> None:
    view = make_view(hand=("QH", "10C", "3C", "AD", "KS", "4S"))
    assert choose(view, plays(*view.hand)) == PLAYS["3C"]


def test_a10_feeds_a_ten_to_the_partner_winning_last() -> None:
    # seat 1 plays last; its partner seat 3 leads the ace of clubs, nobody trumped
    trick = (Played(3, "AC"), Played(0, "4C"), Played(2, "5C"))  # seats 1 and 3 are partners
    view = make_view(viewer=1, to_act=1, trick=trick, hand=("10C", "2C", "9H", "KD", "3S", "6S"))
    assert choose(view, plays("10C", "2C", "9H")) == PLAYS["10C"]


def test_a10_wins_an_opponent_trick_worth_taking_with_the_cheapest_winner_when_last() -> None:
    trick = (Played(2, "10C"), Played(3, "4C"), Played(0, "5C"))
    view = make_view(viewer=1, to_act=1, trick=trick, hand=("KC", "AC", "9D", "KD", "3S", "6S"))
    assert choose(view, plays("KC", "AC")) == PLAYS["KC"]
    # a low trump wins it more cheaply still (Low goes to its holder whoever takes the trick, A11)
    view = make_view(viewer=1, to_act=1, trick=trick, hand=("KC", "AC", "2H", "KD", "3S", "6S"))
    assert choose(view, plays("KC", "AC", "2H")) == PLAYS["2H"]


def test_a10_throws_a_cheap_card_when_it_cannot_win() -> None:
    trick = (Played(2, "AC"), Played(3, "4C"), Played(0, "KH"))
    view = make_view(viewer=1, to_act=1, trick=trick, hand=("10C", "2C", "3H", "KD", "3S", "6S"))
    assert choose(view, plays("10C", "2C", "3H")) == PLAYS["2C"]


def test_determinize_respects_a_void_shown_in_the_current_trick() -> None:
    # seat 3 did not follow clubs and did not trump: it has no clubs left
    trick = (Played(2, "AC"), Played(3, "4D"))
    view = make_view(
        viewer=0, to_act=0, trick=trick, hand_sizes=(6, 6, 5, 5), hand=("2S", "3S", "4S", "5S", "6S", "7S")
    )
    rng = random.Random(4)
    for _ in range(50):
        state = GAME.determinize(CONFIG, view, rng)  # type: ignore[attr-defined]
        assert not any(card.endswith("C") for card in state.hands[3])
        assert GAME.view(state, 0) == view


def test_determinize_rebuilds_the_holders_of_past_tricks() -> None:
    # two players: every past trick's seats follow from its winning card and side
    view = make_view(
        viewer=0,
        players=2,
        to_act=1,
        dealer=1,
        eldest=0,
        hand=("2S", "3S", "4S", "5S", "6S"),
        hand_sizes=(5, 5),
        stock_size=39,
        trick_no=2,
        tricks_won=((), ("AC", "KH")),  # seat 0 led AC, seat 1 trumped with KH
        exposed=((), ()),
    )
    state = GAME.determinize(CONFIG, view, random.Random(1))  # type: ignore[attr-defined]
    assert "AC" in state.in_play[0] and "KH" in state.in_play[1]
