"""Views, audiences and redaction (D): no viewer ever sees another seat's unplayed cards."""

from __future__ import annotations

import random
from typing import Any

import msgspec
import pytest

from cardgames.engine.all_fours import State
from cardgames.engine.all_fours.events import CardsDealt, CardsDelivered, DealerChosen, TrumpFixed
from cardgames.engine.all_fours.view import hand_hidden
from cardgames.engine.core.cards import STANDARD_CARDS
from cardgames.engine.core.events import MatchSeeded, Shuffled
from cardgames.engine.core.protocol import HIDDEN, PUBLIC
from tests.all_fours.helpers import GAME, act, make_deck, play, random_match, start

HANDS = {
    0: ["5S", "KS", "2C", "2D", "3D", "9D"],
    1: ["QS", "3H", "9C", "4D", "7C", "8D"],
    2: ["9S", "QH", "KH", "4C", "7D", "2S"],
    3: ["AS", "JH", "10D", "QC", "AD", "5C"],
}
STRICT = {"beg_phase_hand_visibility": "dealer_and_eldest_only"}


def cards_in(value: Any) -> set[str]:
    """Every card code anywhere in a struct's plain form."""
    found: set[str] = set()

    def walk(item: Any) -> None:
        if isinstance(item, str):
            if item in STANDARD_CARDS:
                found.add(item)
        elif isinstance(item, dict):
            for inner in item.values():
                walk(inner)
        elif isinstance(item, list | tuple):
            for inner in item:
                walk(inner)

    walk(msgspec.to_builtins(value))
    return found


def secret_for(state: State, viewer: int | None) -> set[str]:
    """The cards ``viewer`` may not know now: others' unexposed cards, the stock, its own held-back hand."""
    secret = set(state.stock)
    for seat, hand in enumerate(state.hands):
        if seat != viewer or hand_hidden(state, seat):
            secret |= set(hand) - set(state.exposed[seat])
    return secret


def shown(event: Any, viewer: int | None) -> Any:
    audience = GAME.audience(event)
    return event if audience in (PUBLIC, viewer) else GAME.redact(event, viewer)


def test_d_view_of_a_seat_shows_its_own_hand_only() -> None:
    state = act(act(start(make_deck(HANDS, "4H")), 0, {"type": "stand"}), 2, {"type": "play", "card": "KH"})
    state = play(state, "5S")
    view = GAME.view(state, 1)
    assert view.hand == state.hands[1] and view.hand_sizes == (5, 6, 6, 6)
    assert view.exposed[2] == ("KH",) and view.trump == "H" and view.turn_up == "4H"
    assert [p.card for p in view.trick] == ["5S"] and view.to_act == 1 and view.stock_size == 27
    assert cards_in(view) & secret_for(state, 1) == set()
    spectator = GAME.view(state, None)
    assert spectator.hand == () and spectator.viewer is None
    assert cards_in(spectator) == {"4H", "KH", "5S"}


def test_d_dealt_cards_go_to_their_seat_only_and_chance_is_hidden() -> None:
    config = GAME.make_config({}, 4)
    from cardgames.engine.core.protocol import Setup

    events = GAME.start(config, Setup(seed="cd" * 32, dealer=0))
    for event in events:
        if isinstance(event, CardsDealt):
            assert GAME.audience(event) == event.seat
            redacted = GAME.redact(event, (event.seat + 1) % 4)
            assert redacted.cards == () and redacted.count == 6 and redacted.seat == event.seat
        if isinstance(event, MatchSeeded | Shuffled):
            assert GAME.audience(event) == HIDDEN
            assert cards_in(GAME.redact(event, None)) == set()
            assert getattr(GAME.redact(event, None), "seed", None) is None


def test_d_dealer_and_eldest_only_holds_back_the_other_hands_until_trump() -> None:
    state = start(make_deck(HANDS, "4H"), options=STRICT)
    dealt = [e for e in GAME.start(GAME.make_config(STRICT, 4), _setup()) if isinstance(e, CardsDealt)]
    assert {e.seat: GAME.audience(e) for e in dealt} == {0: 0, 1: HIDDEN, 2: HIDDEN, 3: 3}
    assert GAME.view(state, 1).hand == () and GAME.view(state, 1).hand_hidden
    assert GAME.view(state, 0).hand == state.hands[0] and GAME.view(state, 3).hand == state.hands[3]
    assert GAME.view(state, 2).hand_sizes == (6, 6, 6, 6)
    after = GAME.decide(state, 0, GAME.legal_commands(state, 0)[0])  # stand
    assert isinstance(after, list)
    delivered = [e for e in after if isinstance(e, CardsDelivered)]
    assert [e.seat for e in delivered] == [1, 2] and all(GAME.audience(e) == e.seat for e in delivered)
    assert next(i for i, e in enumerate(after) if isinstance(e, TrumpFixed)) < after.index(delivered[0])
    state = act(state, 0, {"type": "stand"})
    assert GAME.view(state, 1).hand == state.hands[1] and not GAME.view(state, 1).hand_hidden


def test_d_held_back_run_cards_are_delivered_with_the_whole_hand() -> None:
    deck = make_deck(HANDS, "4H", runs=[({}, "8C")])
    state = act(start(deck, options=STRICT), 0, {"type": "beg"})
    outcome = GAME.decide(state, 3, GAME.legal_commands(state, 3)[-1])  # run the pack
    assert isinstance(outcome, list)
    run_cards = [e for e in outcome if isinstance(e, CardsDealt)]
    assert [GAME.audience(e) for e in run_cards] == [0, HIDDEN, HIDDEN, 3]
    delivered = {e.seat: e.cards for e in outcome if isinstance(e, CardsDelivered)}
    assert set(delivered) == {1, 2} and all(len(cards) == 9 for cards in delivered.values())


def _setup() -> Any:
    from cardgames.engine.core.protocol import Setup

    return Setup(seed="ab" * 32, decks=(tuple(make_deck(HANDS, "4H")),), dealer=3)


@pytest.mark.parametrize("options", [{}, STRICT, {**STRICT, "players": 2}, {"players": 2}])
def test_d_no_view_or_shown_event_ever_shows_another_seats_unplayed_cards(options: dict[str, Any]) -> None:
    options = dict(options)
    players = options.pop("players", 4)
    for match in range(12):
        rng = random.Random(match)
        for _before, event, after, end in random_match(rng, options, players, f"{match + 77:064x}", 0.2):
            if isinstance(event, DealerChosen):
                continue  # the cut cards are public (A4) and go back before the deal's own shuffle
            for viewer in (None, *range(players)):
                secret = secret_for(after, viewer)
                leaked = cards_in(shown(event, viewer)) & secret
                assert not leaked, (viewer, event, leaked)
                if end:  # last_hand names cards of the finished hand, which are dealt again now
                    view = msgspec.structs.replace(GAME.view(after, viewer), last_hand=None)
                    assert not cards_in(view) & secret, viewer


def test_view_round_trips_through_msgspec() -> None:
    state = start(make_deck(HANDS, "4H"))
    view = GAME.view(state, 2)
    assert msgspec.convert(msgspec.to_builtins(view), GAME.View) == view
