"""Seats and sides (A1), the match flow (A3), the cut (A4), the deal mapping (A5), kicks (A6), next hand (A13)."""

from __future__ import annotations

import pytest

from cardgames.engine.all_fours import State
from cardgames.engine.all_fours.events import (
    CardsDealt,
    CardTurnedUp,
    DealerChosen,
    HandStarted,
    MatchCreated,
    PointsScored,
)
from cardgames.engine.core.cards import STANDARD_PACK
from cardgames.engine.core.chance import Chance, next_order
from cardgames.engine.core.events import MatchSeeded, Shuffled
from cardgames.engine.core.protocol import ScenarioError, Setup
from tests.all_fours.helpers import GAME, SEED, act, events_of, make_deck, positions, rejection, snap, start

# A pack in which no kick scores: the turn-up (position 24 for 4 players, 12 for 2) is a 9.
PLAIN = [c for c in STANDARD_PACK if c != "9C"]


def plain_deck(turn_up_at: int) -> list[str]:
    deck = [c for c in PLAIN if c[:-1] not in ("A", "6", "J")]
    rest = [c for c in PLAIN if c not in deck]
    deck = [*deck[:turn_up_at], "9C", *deck[turn_up_at:], *rest]
    assert len(deck) == 52
    return deck


def finish_hand(state: State) -> State:
    """Play until the hand ends: every decision takes the first legal command."""
    hand = state.hand_no
    while state.phase != "over" and state.hand_no == hand:
        seat = state.turn
        assert seat is not None
        command = GAME.legal_commands(state, seat)[0]
        outcome = GAME.decide(state, seat, command)
        assert isinstance(outcome, list)
        for event in outcome:
            state = GAME.evolve(state, event)
    return state


# --- A1 ---------------------------------------------------------------------------------


def test_a1_sides_and_eldest_four_players() -> None:
    events = events_of(plain_deck(24), dealer=3)
    created = events[0]
    assert isinstance(created, MatchCreated)
    assert created.sides == ((0, 2), (1, 3))
    started = next(e for e in events if isinstance(e, HandStarted))
    assert (started.dealer, started.eldest) == (3, 0)
    state = start(plain_deck(24), dealer=1)
    assert state.eldest == 2 and snap(state)["to_act"] == 2


def test_a1_two_players_each_is_a_side_and_the_non_dealer_is_eldest() -> None:
    events = events_of(plain_deck(12), dealer=0, players=2)
    assert events[0].sides == ((0,), (1,))
    state = start(plain_deck(12), dealer=0, players=2)
    assert state.eldest == 1 and len(state.hands) == 2 and len(snap(state)["scores"]) == 2


# --- A3 ---------------------------------------------------------------------------------


def test_a3_flow_phases_and_the_position_stays_after_the_win() -> None:
    state = start(plain_deck(24), dealer=3)
    assert snap(state)["phase"] == "beg"
    state = act(state, 0, {"type": "beg"})
    assert snap(state)["phase"] == "dealer_choice" and snap(state)["to_act"] == 3
    state = act(state, 3, {"type": "give_one"})
    assert snap(state)["phase"] == "play"
    won = start(make_deck({}, "JD", dealer=3), dealer=3, options={"target_score": 3})
    assert snap(won)["phase"] == "over" and snap(won)["to_act"] is None
    for seat, command in [(0, {"type": "stand"}), (3, {"type": "give_one"}), (1, {"type": "play", "card": "XX"})]:
        assert rejection(won, seat, command) == "game_over"


# --- A4 ---------------------------------------------------------------------------------


def test_a4_cut_from_a_seeded_shuffle_highest_rank_deals() -> None:
    config = GAME.make_config({}, 4)
    events = GAME.start(config, Setup(seed=SEED))
    assert isinstance(events[1], MatchSeeded)
    shuffles = [e for e in events if isinstance(e, Shuffled)]
    chosen = next(e for e in events if isinstance(e, DealerChosen))
    first = shuffles[0]
    assert first.order == next_order(Chance(seed=SEED), STANDARD_PACK)
    round_one = [cut for cut in chosen.cuts if cut.round == 1]
    assert [(cut.seat, cut.card) for cut in round_one] == list(enumerate(first.order[:4]))
    last_round = max(cut.round for cut in chosen.cuts)
    finals = [cut for cut in chosen.cuts if cut.round == last_round]
    order = "23456789TJQKA"
    best = max(finals, key=lambda cut: order.index(cut.card[:-1].replace("10", "T")))
    assert chosen.dealer == best.seat
    assert GAME.audience(chosen) == "public"
    # the first deal is the next shuffle
    assert shuffles[-1].shuffle_no == len(shuffles) - 1
    started = next(e for e in events if isinstance(e, HandStarted))
    assert started.dealer == chosen.dealer


def test_a4_ties_are_cut_again_among_the_tied_players() -> None:
    cut1 = ["AS", "KH", "AD", "QC", *[c for c in STANDARD_PACK if c not in ("AS", "KH", "AD", "QC")]]
    cut2 = ["3S", "7H", *[c for c in STANDARD_PACK if c not in ("3S", "7H")]]
    deal = plain_deck(24)
    config = GAME.make_config({}, 4)
    events = GAME.start(config, Setup(seed=SEED, decks=(tuple(cut1), tuple(cut2), tuple(deal))))
    chosen = next(e for e in events if isinstance(e, DealerChosen))
    assert [(c.round, c.seat, c.card) for c in chosen.cuts] == [
        (1, 0, "AS"),
        (1, 1, "KH"),
        (1, 2, "AD"),
        (1, 3, "QC"),
        (2, 0, "3S"),
        (2, 2, "7H"),
    ]
    assert chosen.dealer == 2
    state = GAME.initial(config)
    for event in events:
        state = GAME.evolve(state, event)
    assert state.dealer == 2 and state.hands[3] == tuple(deal[0:3] + deal[12:15])


def test_a4_a_given_dealer_skips_the_cut_and_the_given_deck_is_the_first_shuffle() -> None:
    deck = plain_deck(24)
    events = events_of(deck, dealer=1)
    assert not any(isinstance(e, DealerChosen) for e in events)
    shuffles = [e for e in events if isinstance(e, Shuffled)]
    assert len(shuffles) == 1 and shuffles[0].order == tuple(deck) and shuffles[0].shuffle_no == 0


def test_a4_a_bad_dealer_or_match_key_is_a_scenario_error() -> None:
    config = GAME.make_config({}, 2)
    with pytest.raises(ScenarioError):
        GAME.start(config, Setup(seed=SEED, dealer=2))
    with pytest.raises(ScenarioError):
        GAME.start(config, Setup(seed=SEED, dealer=0, match={"difference": 3}))
    with pytest.raises(ScenarioError):
        GAME.start(config, Setup(seed=SEED, dealer=0, match={"scores": [14, 0]}))


# --- A5 ---------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("style", ["threes", "ones"])
@pytest.mark.parametrize("dealer", [0, 1])
def test_a5_initial_deal_mapping(players: int, style: str, dealer: int) -> None:
    deck = plain_deck(6 * players)
    state = start(deck, dealer=dealer, players=players, options={"deal_style": style})
    eldest = (dealer + 1) % players
    for seat in range(players):
        if style == "ones":
            wanted = [deck[i] for i in range(6 * players) if (eldest + i) % players == seat]
        else:
            wanted = [deck[i] for i in range(6 * players) if (eldest + i // 3) % players == seat]
        assert list(state.hands[seat]) == wanted
    assert state.turn_up == deck[6 * players] == "9C"
    assert list(state.stock) == deck[6 * players + 1 :]
    assert state.hand_size == 6


def test_a5_threes_four_players_positions_from_the_rules() -> None:
    seats = positions(4, "threes", 3, 24)
    assert seats[0:3] == [0, 0, 0] and seats[9:12] == [3, 3, 3] and seats[12:15] == [0, 0, 0]
    assert seats[21:24] == [3, 3, 3]


@pytest.mark.parametrize("style", ["threes", "ones"])
def test_a5_a_run_deals_three_each_in_the_same_style(style: str) -> None:
    deck = make_deck({}, "4H", dealer=3, style=style, runs=[({}, "8C")])
    state = start(deck, dealer=3, options={"deal_style": style})
    before = [list(hand) for hand in state.hands]
    state = act(state, 0, {"type": "beg"})
    state = act(state, 3, {"type": "run_pack"})
    for seat in range(4):
        offsets = [j for j in range(12) if (positions(4, style, 3, 12)[j] == seat)]
        assert list(state.hands[seat]) == before[seat] + [deck[25 + j] for j in offsets]
    assert state.turn_up == deck[37] == "8C" and state.trump == "C" and state.hand_size == 9
    assert list(state.stock) == deck[38:]


def test_a5_two_player_runs_start_at_13_with_turn_up_at_19() -> None:
    deck = make_deck({}, "4H", dealer=1, players=2, runs=[({}, "8C")])
    state = start(deck, dealer=1, players=2)
    state = act(state, 0, {"type": "beg"})
    state = act(state, 1, {"type": "run_pack"})
    assert state.turn_up == deck[19] == "8C"
    assert state.hands[0][-3:] == tuple(deck[13:16]) and state.hands[1][-3:] == tuple(deck[16:19])
    assert len(state.stock) == 32


def test_a5_each_shuffle_is_a_shuffled_event_from_next_order() -> None:
    config = GAME.make_config({}, 4)
    state, events = GAME.initial(config), GAME.start(config, Setup(seed=SEED, dealer=0))
    shuffled = [e for e in events if isinstance(e, Shuffled)]
    assert len(shuffled) == 1
    assert shuffled[0].order == next_order(Chance(seed=SEED), STANDARD_PACK)
    for event in events:
        state = GAME.evolve(state, event)
    assert state.chance.used == 1
    dealt = [e for e in events if isinstance(e, CardsDealt)]
    assert [e.seat for e in dealt] == [1, 2, 3, 0]  # eldest first, dealer last
    assert state.hands[1] == shuffled[0].order[0:3] + shuffled[0].order[12:15]


def test_a5_deal_style_is_fixed_for_the_whole_match() -> None:
    deck = plain_deck(24)
    second = list(reversed(STANDARD_PACK))
    state = start(deck, dealer=3, decks=[second], options={"deal_style": "ones"})
    state = finish_hand(state)
    assert state.hand_no == 2 and state.dealer == 0
    assert state.hands[1] == tuple(second[i] for i in range(24) if (1 + i) % 4 == 1)


# --- A6 ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("rank", "points"), [("A", 1), ("6", 2), ("J", 3), ("10", 0), ("2", 0), ("K", 0)])
def test_a6_kick_points_go_to_the_dealers_side(rank: str, points: int) -> None:
    for dealer in (0, 1):
        state = start(make_deck({}, rank + "H", dealer=dealer), dealer=dealer)
        expected = [0, 0]
        expected[dealer % 2] = points
        assert list(state.scores) == expected
        assert [a.reason for a in state.hand_awards] == (["kick"] if points else [])


def test_a6_tobago_kick_table() -> None:
    tobago = {"kick_values": {"A": 1, "2": 2, "J": 3}}
    assert list(start(make_deck({}, "2D", dealer=0), dealer=0, options=tobago).scores) == [2, 0]
    assert list(start(make_deck({}, "6D", dealer=0), dealer=0, options=tobago).scores) == [0, 0]


def test_a6_kick_event_and_the_turn_up_is_in_no_hand() -> None:
    events = events_of(make_deck({}, "JS", dealer=0), dealer=0)
    turned = next(e for e in events if isinstance(e, CardTurnedUp))
    scored = next(e for e in events if isinstance(e, PointsScored))
    assert (turned.card, turned.run_index) == ("JS", 0)
    assert (scored.side, scored.amount, scored.reason, scored.card, scored.totals) == (0, 3, "kick", "JS", (3, 0))
    state = start(make_deck({}, "JS", dealer=0), dealer=0)
    assert all("JS" not in hand for hand in state.hands) and state.turn_up == "JS"


def test_a6_two_players_kick_goes_to_the_dealer() -> None:
    state = start(make_deck({}, "6S", dealer=1, players=2), dealer=1, players=2)
    assert list(state.scores) == [0, 2]


def test_a6_match_scores_from_the_deck_start_count() -> None:
    state = start(make_deck({}, "6S", dealer=1), dealer=1, scores=[5, 10])
    assert list(state.scores) == [5, 12] and state.phase == "beg"
    state = start(make_deck({}, "6S", dealer=1), dealer=1, scores=[5, 12])
    assert list(state.scores) == [5, 14] and state.phase == "over" and state.winner == 1


# --- A13 --------------------------------------------------------------------------------


def test_a13_next_hand_dealer_passes_right_and_everything_resets() -> None:
    deck = plain_deck(24)
    second = make_deck({}, "AD", dealer=0)
    state = start(deck, dealer=3, decks=[second])
    state = act(state, 0, {"type": "stand"})
    state = act(state, 1, {"type": "play", "card": state.hands[1][0]})  # an exposure
    state = finish_hand(state)
    s = snap(state)
    assert s["dealer"] == 0 and s["to_act"] == 1 and s["phase"] == "beg"
    assert s["hand_no"] == 2 and s["redeal_no"] == 0
    assert s["trump"] is None and s["set_aside"] == [] and s["trick"] == [] and s["tricks_won"] == [[], []]
    assert s["exposed"] == [[], [], [], []] and s["turn_up"] == "AD" and s["hand_size"] == 6
    assert s["last_hand"] is not None
    kick = state.hand_awards[-1]
    assert (kick.reason, kick.side, kick.points) == ("kick", 0, 1)  # the new turn-up scores
    assert state.chance.used == 2
