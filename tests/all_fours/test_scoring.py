"""End-of-hand scoring (A11), the order of awards and the win (A12), derived facts (A16), last_hand (A17)."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from cardgames.engine.all_fours import make_config
from cardgames.engine.all_fours.cards import COUNT, count_points
from cardgames.engine.all_fours.events import HandScored, MatchWon, PointsScored
from cardgames.engine.all_fours.scoring import score_hand
from cardgames.engine.core.cards import STANDARD_PACK
from tests.all_fours.helpers import GAME, act, make_deck, snap, start

# Trump H, dealer 3. Seat -> cards held as trick play began.
IN_PLAY = (
    ("AH", "2S", "3S"),  # seat 0 (side 0): High
    ("JH", "4S", "5S"),  # seat 1 (side 1): the jack
    ("KS", "QS", "10S"),  # seat 2 (side 0)
    ("2H", "9S", "8S"),  # seat 3 (side 1): Low
)


def score(
    tricks_won: tuple[tuple[str, ...], tuple[str, ...]],
    in_play: tuple[tuple[str, ...], ...] = IN_PLAY,
    scores: tuple[int, ...] = (0, 0),
    dealer: int = 3,
    trump: str = "H",
    **options: Any,
) -> tuple[list[tuple[int, int, str]], HandScored, MatchWon | None, tuple[int, ...]]:
    events: list[Any] = []
    config = make_config(options, len(in_play))
    totals, _ = score_hand(events, config, scores, dealer, trump, in_play, tricks_won)
    awards = [(e.side, e.amount, e.reason) for e in events if isinstance(e, PointsScored)]
    scored = next(e for e in events if isinstance(e, HandScored))
    won = next((e for e in events if isinstance(e, MatchWon)), None)
    if won is not None:
        assert events[-1] is won and events[-2] is scored
    return awards, scored, won, totals


SIDE0_TAKES_ALL = (tuple(c for hand in IN_PLAY for c in hand), ())


def test_a2_counting_values_and_the_full_pack_counts_80() -> None:
    assert [COUNT[c] for c in ("10H", "AH", "KH", "QH", "JH", "9H", "2H")] == [10, 4, 3, 2, 1, 0, 0]
    assert count_points(STANDARD_PACK) == 80


def test_a11_high_low_hang_jack_game_in_order() -> None:
    awards, scored, won, totals = score(SIDE0_TAKES_ALL)
    assert awards == [(0, 1, "high"), (1, 1, "low"), (0, 3, "hang_jack"), (0, 1, "game")]
    assert (scored.high_card, scored.high_holder, scored.low_card, scored.low_holder) == ("AH", 0, "2H", 3)
    assert (scored.jack_outcome, scored.jack_holder, scored.jack_taker) == ("hang_jack", 1, 0)
    assert won is None and totals == (5, 1)


def test_a11_low_goes_to_the_original_holder_not_the_captor() -> None:
    awards, *_ = score(SIDE0_TAKES_ALL)
    assert (1, 1, "low") in awards  # 2H was held by seat 3, captured by side 0


def test_a11_jack_kept_by_the_holders_side_scores_one() -> None:
    jack_trick = ("JH", "4S", "5S", "9S")
    rest = tuple(c for hand in IN_PLAY for c in hand if c not in jack_trick)
    awards, scored, *_ = score((rest, jack_trick))
    assert (1, 1, "jack") in awards and scored.jack_outcome == "jack"


def test_a11_hang_jack_points_option_and_capture_only_and_none() -> None:
    awards, *_ = score(SIDE0_TAKES_ALL, hang_jack_points=5)
    assert (0, 5, "hang_jack") in awards
    awards, scored, *_ = score(SIDE0_TAKES_ALL, jack_scoring="capture_only")
    assert (0, 1, "jack") in awards and scored.jack_outcome == "captured"
    awards, scored, *_ = score(SIDE0_TAKES_ALL, jack_scoring="none")
    assert all(reason not in ("jack", "hang_jack") for *_, reason in awards) and scored.jack_outcome == "not_scored"
    awards, *_ = score(SIDE0_TAKES_ALL, hang_jack_points=0)
    assert all(reason != "hang_jack" for *_, reason in awards)


def test_a11_jack_not_in_play_scores_nothing() -> None:
    in_play = tuple(tuple(c for c in hand if c != "JH") + (("7C",) if "JH" in hand else ()) for hand in IN_PLAY)
    awards, scored, *_ = score((tuple(c for hand in in_play for c in hand), ()), in_play=in_play)
    assert scored.jack_outcome == "not_in_play" and scored.jack_holder is None
    assert [reason for *_, reason in awards] == ["high", "low", "game"]


def test_a11_b27_a_single_trump_is_high_and_low() -> None:
    in_play = (("2S", "3S"), ("QH", "5S"), ("KS", "4S"), ("9S", "8S"))
    awards, scored, *_ = score((tuple(c for h in in_play for c in h), ()), in_play=in_play)
    assert awards[:2] == [(1, 1, "high"), (1, 1, "low")] and scored.high_card == scored.low_card == "QH"


def test_a11_b26_no_trump_in_play_game_only() -> None:
    in_play = (("2S", "3S"), ("QC", "5S"), ("KS", "4S"), ("9S", "8S"))
    awards, scored, *_ = score(((), tuple(c for h in in_play for c in h)), in_play=in_play)
    assert awards == [(1, 1, "game")] and scored.high_card is None and scored.low_card is None


@pytest.mark.parametrize(
    ("game_tie", "dealer", "expected"),
    [("none", 3, None), ("non_dealer_side", 3, 0), ("dealer_side", 3, 1), ("non_dealer_side", 0, 1)],
)
def test_a11_game_ties(game_tie: str, dealer: int, expected: int | None) -> None:
    in_play = (("2S", "10S"), ("3S", "4S"), ("10D", "5S"), ("6S", "7S"))
    tricks = (("2S", "10S", "3S", "4S"), ("10D", "5S", "6S", "7S"))
    awards, scored, *_ = score(tricks, in_play=in_play, dealer=dealer, game_tie=game_tie)
    assert scored.game_totals == (10, 10)
    assert awards == ([] if expected is None else [(expected, 1, "game")])


def test_a11_game_point_value() -> None:
    awards, *_ = score(SIDE0_TAKES_ALL, game_point_value=2)
    assert awards[-1] == (0, 2, "game")
    awards, *_ = score(SIDE0_TAKES_ALL, game_point_value=0)
    assert all(reason != "game" for *_, reason in awards)


def test_a11_two_players() -> None:
    in_play = (("AH", "2S"), ("2H", "JH"))
    awards, _scored, *_ = score((("AH", "2S", "2H", "JH"), ()), in_play=in_play, dealer=1)
    assert awards == [(0, 1, "high"), (1, 1, "low"), (0, 3, "hang_jack"), (0, 1, "game")]


def test_a12_at_13_13_high_wins_and_nothing_later_is_applied() -> None:
    awards, scored, won, totals = score(SIDE0_TAKES_ALL, scores=(13, 13))
    assert awards == [(0, 1, "high")] and won is not None and (won.side, won.reason) == (0, "high")
    assert totals == (14, 13) and scored.game_totals == (20, 0)


def test_a12_low_or_hang_jack_can_win_and_scores_may_pass_the_target() -> None:
    awards, _, won, totals = score(SIDE0_TAKES_ALL, scores=(0, 13))
    assert awards == [(0, 1, "high"), (1, 1, "low")] and won is not None and won.reason == "low"
    awards, _, won, totals = score(SIDE0_TAKES_ALL, scores=(12, 0))
    assert won is not None and won.reason == "hang_jack" and totals == (16, 1)


# --- whole hands: last_hand (A17) --------------------------------------------------------


def play_out(state: Any) -> Any:
    """Play the hand to its end, each seat taking its first legal command."""
    hand = state.hand_no
    while state.phase != "over" and state.hand_no == hand:
        seat = state.turn
        state = act(state, seat, msgspec.to_builtins(GAME.legal_commands(state, seat)[0]))
    return state


def test_a17_last_hand_lists_every_award_of_the_hand_in_order() -> None:
    first = make_deck({}, "6H", runs=[({}, "AH"), ({}, "5H")])  # kicks 2 + 1, then exhausted
    second = make_deck({}, "JS")  # kick 3, then a give one
    state = act(act(start(first, decks=[second]), 0, {"type": "beg"}), 3, {"type": "run_pack"})
    assert state.redeal_no == 1 and list(state.scores) == [0, 6]
    state = act(act(state, 0, {"type": "beg"}), 3, {"type": "give_one"})
    assert state.last_hand is None
    state = play_out(state)
    last = snap(state)["last_hand"]
    assert last["awards"][:4] == [
        {"side": 1, "points": 2, "reason": "kick", "card": "6H"},
        {"side": 1, "points": 1, "reason": "kick", "card": "AH"},
        {"side": 1, "points": 3, "reason": "kick", "card": "JS"},
        {"side": 0, "points": 1, "reason": "give_one"},
    ]
    for award in last["awards"][4:]:
        assert award["reason"] in ("high", "low", "jack", "hang_jack", "game")
        assert ("card" in award) == (award["reason"] != "game")
        assert award["points"] > 0
    assert len(last["game_totals"]) == 2 and sum(last["game_totals"]) <= 80


def test_a17_last_hand_is_written_when_an_end_of_hand_award_wins() -> None:
    state = act(start(make_deck({}, "9S"), scores=[13, 13]), 0, {"type": "stand"})
    state = play_out(state)
    assert state.phase == "over"
    last = snap(state)["last_hand"]
    assert last is not None and last["awards"][-1]["reason"] == "high" and len(last["awards"]) == 1
    assert snap(state)["hands"] == [[], [], [], []]


def test_target_score_option_ends_the_match_at_its_value() -> None:
    _, _, won, totals = score(SIDE0_TAKES_ALL, scores=(6, 0), target_score=7)
    assert won is not None and won.reason == "high" and totals == (7, 0)
    _, _, won, _ = score(SIDE0_TAKES_ALL, scores=(6, 0))
    assert won is None


def test_a16_derived_facts_hand_sizes_stock_and_the_largest_hand_total() -> None:
    for runs, turn_ups in ((0, []), (1, ["9C"]), (2, ["9H", "9C"])):
        deck = make_deck({}, "4H", runs=[({}, card) for card in turn_ups])
        state = start(deck)
        state = act(state, 0, {"type": "stand"} if not runs else {"type": "beg"})
        if runs:
            state = act(state, 3, {"type": "run_pack"})
        assert state.hand_size == 6 + 3 * runs and state.run_no == runs
        assert 4 * state.hand_size + 1 + runs + len(state.stock) == 52
    in_play = (("AH", "2H"), ("JH", "3S"), ("KS", "4S"), ("9S", "5S"))
    awards, *_ = score((tuple(c for hand in in_play for c in hand), ()), in_play=in_play)
    assert sum(points for side, points, _ in awards if side == 0) == 6  # High + Low + Hang Jack + Game
