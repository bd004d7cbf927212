"""``seep.costly``: the cheap test a service asks before listing (service/workers.py).

No floor the default rules let play produce is costly (at most 16 cards lie loose:
docs/seep_legal_commands.md); under the option to throw a card that could capture (B-7) a
floor of seats that throw everything is, past 16 loose cards, for the seat to act only.
"""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardgames.engine import seep
from cardgames.engine.core.protocol import Rejection
from tests.profiles import examples
from tests.seep.helpers import new_match, playout_states


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32))
def test_no_position_of_default_play_is_costly(seed: int) -> None:
    for state, _events in playout_states(random.Random(seed), deals=2):
        assert not any(seep.costly(state, seat) for seat in range(4)), state.loose


def test_a_floor_of_throws_is_costly_past_sixteen_loose_cards_for_the_seat_to_act() -> None:
    state = new_match({"throw_when_capture_available": True}, seed="b7" * 32, dealer=0)
    seen = set()
    while state.phase != "over" and len(state.loose) < 30:
        seat = seep.to_act(state)[0]
        expected = state.phase == "play" and len(state.loose) > 16
        assert [seep.costly(state, other) for other in range(4)] == [expected and other == seat for other in range(4)]
        seen.add(expected)
        for card in state.hands[seat]:
            outcome = seep.decide(state, seat, seep.Throw(card))
            if not isinstance(outcome, Rejection):
                break
        else:
            outcome = seep.decide(state, seat, seep.legal_commands(state, seat)[0])
        assert not isinstance(outcome, Rejection)
        for event in outcome:
            state = seep.evolve(state, event)
    assert seen == {False, True}
