"""Properties over random deals (A6 F1-F5, A10, A11, A14): conservation, floor invariants,
scoring identities, no house after the last play, snapshots that round-trip."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardgames.engine import seep
from cardgames.engine.core.protocol import Rejection, Setup
from cardgames.engine.seep.cards import BASE_POINTS
from cardgames.engine.seep.events import Captured, DealScored, LeftoverAwarded, SweepScored
from tests.drawn import DrawnGame, play_drawn
from tests.profiles import examples
from tests.seep.helpers import GAME, SEED, floor_problems, new_match
from tests.soundness import new_state

SCORING_OPTIONS: dict[str, Any] = {
    "capture_extent": st.sampled_from(["maximal", "free"]),
    "throw_when_capture_available": st.booleans(),
    "auto_merge_loose_sets": st.booleans(),
    "allow_direct_cemented_build": st.booleans(),
    "partner_adds_without_key": st.booleans(),
    "allow_break_partner_house": st.booleans(),
    "break_into_partner_house_without_key": st.booleans(),
    "max_houses_on_floor": st.sampled_from([None, 1, 2, 3]),
    "sweeps_enabled": st.booleans(),
    "opening_sweep_at": st.sampled_from(["play1", "play2"]),
    "last_play_sweep_points": st.sampled_from([0, 50]),
    "ten_of_diamonds_points": st.sampled_from([6, 2]),
    "majority_cards_bonus": st.sampled_from([0, 4]),
    "minimum_includes_sweeps": st.booleans(),
    "dealer_rule": st.sampled_from(["losing_team_deals", "rotate"]),
}


class DealAccount:
    """Checks a deal's events as they come: the floor after each (F1-F5), no house after the last
    play, and the deal's scores adding up to its card points, sweeps and bonuses (A10, A11)."""

    def __init__(self) -> None:
        self.sweeps = [0, 0]
        self.captured = False

    def check(self, before: Any, event: Any, after: Any) -> bool:
        """Whether ``event`` (``before`` -> ``after``) ended the deal (DealScored)."""
        problems = floor_problems(after)
        assert not problems, (event, problems)
        config = after.config
        if isinstance(event, Captured):
            self.captured = True
        if isinstance(event, SweepScored):
            self.sweeps[event.team] += event.points
        if isinstance(event, LeftoverAwarded):
            # A8.6, A10: after play #48 every hand is empty and no house is left
            assert after.plays == 48 and not any(after.hands) and not after.houses
        if not isinstance(event, DealScored):
            return False
        assert list(event.sweeps) == self.sweeps
        total = sum(BASE_POINTS.values()) + config.ten_of_diamonds_points
        if self.captured:
            assert sum(event.card_points) == total  # 100 with the default 10D (A2, A11.1)
            assert len(after.piles[0]) + len(after.piles[1]) == 52
        for team in (0, 1):
            assert event.scores[team] == event.card_points[team] + event.sweeps[team] + event.bonus[team]
        if not config.majority_cards_bonus:
            assert sum(event.scores) == sum(event.card_points) + sum(self.sweeps)
        self.sweeps, self.captured = [0, 0], False
        return True


@settings(max_examples=examples(1000), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**64),
    dealer=st.integers(0, 3),
    options=st.fixed_dictionaries({}, optional=SCORING_OPTIONS),
)
def test_a_random_deal_keeps_every_invariant(seed: int, dealer: int, options: dict[str, Any]) -> None:
    rng = random.Random(seed)
    state = new_match(options, seed=f"{seed:064x}", dealer=dealer)
    assert not floor_problems(state)
    account = DealAccount()
    while True:
        seat = seep.to_act(state)[0]
        listed = seep.legal_commands(state, seat)
        assert listed, "A8.6: there is always a legal move"
        outcome = seep.decide(state, seat, rng.choice(listed))
        assert not isinstance(outcome, Rejection), outcome
        plays = state.plays
        for event in outcome:
            before, state = state, seep.evolve(state, event)
            if account.check(before, event, state):
                return
        assert state.plays == plays + 1 or (plays == 0 and state.phase == "play")


#: A deal is a bid and 48 plays: a drawn game goes a little past the first deal's scoring.
DRAWN_COMMANDS = 56


def drawn_deals(data: st.DataObject, rules: Any = GAME, record: DrawnGame | None = None) -> None:
    """A match under drawn options and seed, every command drawn (tests/drawn.py): at every position
    every listed command is accepted on a copy and no view shows a hidden card; after every event
    the floor invariants hold, the cards are conserved and each deal's scores add up."""
    options = data.draw(st.fixed_dictionaries({}, optional=SCORING_OPTIONS), label="options")
    seed = data.draw(st.integers(0, 2**64 - 1), label="seed")
    state = new_state(rules, options, 4, seed)
    assert not floor_problems(state)
    play_drawn(data, "seep", rules, state, 4, DRAWN_COMMANDS, DealAccount().check, record)


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_drawn_deals_keep_every_invariant(data: st.DataObject) -> None:
    drawn_deals(data)


@settings(max_examples=examples(60), deadline=None)
@given(seed=st.integers(0, 2**32), steps=st.integers(0, 60))
def test_snapshots_round_trip(seed: int, steps: int) -> None:
    """snapshot(from_snapshot(snapshot(s))) == snapshot(s), and play goes on the same (FORMAT.md)."""
    rng = random.Random(seed)
    state = new_match(seed=f"{seed:064x}", dealer=rng.randrange(4))
    for _ in range(steps):
        if seep.is_over(state):
            break
        seat = seep.to_act(state)[0]
        command = rng.choice(seep.legal_commands(state, seat))
        events = seep.decide(state, seat, command)
        assert not isinstance(events, Rejection)
        for event in events:
            state = seep.evolve(state, event)
    snap = seep.snapshot(state)
    copy = seep.from_snapshot(state.config, snap, Setup(seed=SEED))
    assert seep.snapshot(copy) == snap
    for seat in range(4):
        assert seep.legal_commands(copy, seat) == seep.legal_commands(state, seat)


def test_a_whole_match_ends_and_rejects_everything_after() -> None:
    """Deals go on until baazis_to_play baazis are complete (A12.3); then game_over."""
    rng = random.Random(7)
    state = new_match({"baazi_lead": 30})
    deals = 0
    while not seep.is_over(state):
        seat = seep.to_act(state)[0]
        events = seep.decide(state, seat, rng.choice(seep.legal_commands(state, seat)))
        assert not isinstance(events, Rejection)
        deals += sum(isinstance(event, DealScored) for event in events)
        for event in events:
            state = seep.evolve(state, event)
    assert sum(state.baazis) == 1 and deals >= 1
    assert seep.to_act(state) == () and seep.legal_commands(state, 0) == []
    assert sorted(seep.outcome(state)) == [0, 0, 1, 1]
    rejection = seep.decide(state, 1, seep.Bid(value=9))
    assert isinstance(rejection, Rejection) and rejection.code == "game_over"
    assert GAME.is_over(state)
