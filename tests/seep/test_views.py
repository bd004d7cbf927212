"""The information model (D): views, audiences, redactions, no leaks; describe and table_text."""

from __future__ import annotations

import json
import random
import re

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from cardgames.engine import seep
from cardgames.engine.core.events import MatchSeeded, Shuffled
from cardgames.engine.core.protocol import HIDDEN, PUBLIC, Rejection, Setup
from cardgames.engine.seep.events import CardsDealt, FloorDealt, Redealt
from cardgames.engine.seep.state import State
from tests.profiles import examples
from tests.seep.helpers import SEED, act, config, deck, new_match, playout_states, table

CARD = re.compile(r"\b(?:10|[2-9AJQK])[SHDC]\b")


def _cards_in(value: object) -> set[str]:
    return set(CARD.findall(json.dumps(msgspec.to_builtins(value))))


def _secret_from(state: State, viewer: int | None) -> set[str]:
    """What ``viewer`` may not see now: the other hands, the stock, a face-down floor."""
    secret = set(state.stock)
    for seat, hand in enumerate(state.hands):
        if seat != viewer:
            secret.update(hand)
    if state.phase == "bid":
        secret.update(state.loose)
    return secret


@settings(max_examples=examples(100), deadline=None)
@given(seed=st.integers(0, 2**32))
def test_no_view_or_redacted_event_leaks_a_card(seed: int) -> None:
    """After every event, no viewer sees a card it may not see now, in its view or in the event
    as shown to it (``last_deal`` aside: the last deal's leftover is history, A10)."""
    rng = random.Random(seed)
    state = new_match(seed=f"{seed:064x}", dealer=rng.randrange(4))
    while not seep.is_over(state) and state.deal_no < 2:
        seat = seep.to_act(state)[0]
        events = seep.decide(state, seat, rng.choice(seep.legal_commands(state, seat)))
        assert not isinstance(events, Rejection)
        for event in events:
            state = seep.evolve(state, event)
            for viewer in (None, 0, 1, 2, 3):
                secret = _secret_from(state, viewer)
                view = msgspec.structs.replace(seep.view(state, viewer), last_deal=None)
                assert not _cards_in(view) & secret, (viewer, event)
                if isinstance(event, Redealt):
                    continue  # the bidder shows his cards (A5.3)
                shown = event if seep.audience(event) in (PUBLIC, viewer) else seep.redact(event, viewer)
                assert not _cards_in(shown) & secret, (viewer, event)


def test_audiences_and_redactions() -> None:
    events = seep.start(config(), Setup(seed=SEED, dealer=0))
    kinds = {type(event): event for event in events}
    dealt = kinds[CardsDealt]
    assert seep.audience(dealt) == 1
    assert seep.redact(dealt, 0) == CardsDealt(seat=1, cards=(), count=4)
    assert seep.redact(dealt, None).count == 4
    floor = kinds[FloorDealt]
    assert seep.audience(floor) == HIDDEN and seep.redact(floor, 1).cards == () and floor.count == 4
    assert seep.audience(kinds[Shuffled]) == HIDDEN and seep.redact(kinds[Shuffled], None).order == ()
    seeded = seep.redact(kinds[MatchSeeded], 2)
    assert seeded.seed is None and seeded.commitment
    assert seep.audience(events[0]) == PUBLIC


def test_D_views_per_seat() -> None:
    houses = [{"value": 11, "components": [["5H", "6S"], ["JD"]], "owners": [1, 2]}]
    state = table({1: ["JS", "2C"], 2: ["JH"]}, ["4S", "8D"], houses)
    own = seep.view(state, 1)
    assert own.hand == ("JS", "2C") and own.hand_sizes == tuple(len(h) for h in state.hands)
    assert own.loose == ("4S", "8D") and own.houses[0].owners == (1, 2) and own.houses[0].value == 11
    assert own.houses[0].components == (("5H", "6S"), ("JD",))
    assert seep.view(state, None).hand == () and seep.view(state, 0).hand == state.hands[0]
    assert own.piles == ((), ()) and own.pile_sizes == (len(state.piles[0]), 0)


def test_D_floor_face_down_until_the_bid() -> None:
    state = new_match(decks=(deck(["9H", "QC", "2D", "3S"], ["5C", "6D", "KH", "2S"]),))
    for viewer in (None, 0, 1, 2, 3):
        view = seep.view(state, viewer)
        assert view.loose == () and view.face_down == 4
    state, events = act(state, 1, seep.Bid(value=12))
    assert seep.view(state, 3).loose == ("5C", "6D", "KH", "2S")
    assert seep.audience(events[1]) == PUBLIC and events[1].cards == ("5C", "6D", "KH", "2S")


def test_D_capture_inspection_window() -> None:
    def after_capture(window: str):
        state = table({1: ["9S", "2C"], 2: ["3H", "4H"]}, ["9C", "KD"], capture_inspect_window=window)
        state, _ = act(state, 1, seep.Capture(card="9S", groups=(("9C",),)))
        return state

    state = after_capture("until_next_play")
    assert seep.view(state, 0).last_capture == ("9S", "9C") and seep.view(state, 0).last_capture_team == 1
    state, _ = act(state, 2, seep.Throw(card="3H"))
    assert seep.view(state, 0).last_capture == ()
    assert seep.view(after_capture("never"), 0).last_capture == ()
    always = after_capture("always")
    assert "9S" in seep.view(always, 3).piles[1]
    always, _ = act(always, 2, seep.Throw(card="3H"))
    assert "9S" in seep.view(always, 3).piles[1]


def test_describe_tells_every_public_event() -> None:
    lines = []
    for _state, events in playout_states(random.Random(3), deals=1):
        for event in events:
            line = seep.describe(event)
            if isinstance(event, MatchSeeded | Shuffled):
                assert line is None
            else:
                assert line, event
                lines.append(line)
    text = "\n".join(lines)
    assert "bids" in text and "deal scored" in text and "difference" in text
    houses = [{"value": 11, "components": [["5H", "6S"], ["JD"]], "owners": [1, 3]}]
    state = table({1: ["JS", "2C"], 3: ["JH"]}, ["4S", "8D"], houses)
    _, events = act(state, 1, seep.Capture(card="JS", groups=()))
    assert seep.describe(events[0]) == (
        "#41 seat 1 captures with JS: the 11-house [5H 6S | JD] cemented, owners 1 3"
    )


def test_table_text_shows_floor_houses_owners_and_account() -> None:
    houses = [{"value": 11, "components": [["5H", "6S"], ["JD"]], "owners": [1, 3]}]
    state = table({1: ["JS", "2C"], 3: ["JH"]}, ["4S", "8D"], houses, extra={"difference": -12})
    text = seep.table_text(seep.view(state, 1))
    assert "floor: 4S 8D" in text and "11-house [5H 6S | JD] cemented, owners 1 3" in text
    assert "your hand: JS 2C" in text and "difference -12" in text
    assert "face down" in seep.table_text(seep.view(new_match(), None))


def test_floor_text_is_one_line_of_loose_cards_houses_and_sweeps() -> None:
    houses = [{"value": 11, "components": [["5H", "6S"], ["JD"]], "owners": [1, 3]}]
    state = table({1: ["JS", "2C"], 3: ["JH"]}, ["4S", "8D"], houses)
    assert seep.floor_text(seep.view(state, None)) == "floor: 4S 8D | 11-house [5H 6S | JD] cemented, owners 1 3"
    swept = msgspec.structs.replace(state, loose=(), houses=(), sweeps=(50, 0))
    assert seep.floor_text(seep.view(swept, None)) == "floor: - | sweeps 50-0"
    assert seep.floor_text(seep.view(new_match(), None)) is None  # the bid: the floor is face down
