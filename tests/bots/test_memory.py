"""Bots with a memory: what a seat saw earlier (every play is public) sharpens its determinizations.

The memory is built from the seat's views only (``remember``), so it holds no hidden card either.
"""

from __future__ import annotations

import random
from typing import Any

from cardgames.engine.bots import get_policy
from cardgames.engine.bots.arena import match_seed, play_match
from cardgames.engine.core.protocol import Rejection, Setup
from cardgames.engine.core.registry import get_game
from cardgames.engine.core.replay import new_match
from cardgames.engine.seep.cards import VALUE


def _self_play(game_name: str, matches: int, seed: str) -> Any:
    """Heuristic self-play; yields (state, seat to act, memories per seat) before every decision."""
    game = get_game(game_name)
    config = game.make_config({}, None)
    policy = game.heuristic_policy(config)  # type: ignore[attr-defined]
    for match in range(matches):
        state, _ = new_match(game, config, Setup(seed=match_seed(seed, match)))
        memories: list[Any] = [None] * config.players
        rng = random.Random(match)
        while not game.is_over(state):
            for seat in range(config.players):
                memories[seat] = game.remember(memories[seat], game.view(state, seat))  # type: ignore[attr-defined]
            seat = game.to_act(state)[0]
            yield state, seat, memories
            command = policy.choose(game.view(state, seat), game.legal_commands(state, seat), rng)
            events = game.decide(state, seat, command)
            assert not isinstance(events, Rejection), events
            for event in events:
                state = game.evolve(state, event)


def test_all_fours_memory_knows_who_played_every_card() -> None:
    game = get_game("all_fours")
    config = game.make_config({}, None)
    rng = random.Random(1)
    checked = 0
    for state, seat, memories in _self_play("all_fours", 4, "af-memory"):
        if state.phase != "play":
            continue
        assert memories[seat].complete
        sample = game.determinize(config, game.view(state, seat), rng, memories[seat])  # type: ignore[attr-defined]
        for other in range(state.players):
            played = set(sample.in_play[other]) - set(sample.hands[other])
            assert played == set(state.in_play[other]) - set(state.hands[other])
        assert game.view(sample, seat) == game.view(state, seat)
        checked += 1
    assert checked > 100


def _seep_plays(matches: int, seed: str) -> Any:
    """(state, seat to act, its memory, a determinization of its view) at every play of Seep self-play."""
    game = get_game("seep")
    config = game.make_config({}, None)
    rng = random.Random(seed)
    for state, seat, memories in _self_play("seep", matches, seed):
        if state.phase == "play":
            memory = memories[seat]
            yield state, seat, memory, game.determinize(config, game.view(state, seat), rng, memory)  # type: ignore[attr-defined]


def test_seep_memory_knows_every_captured_card() -> None:
    game = get_game("seep")
    checked = 0
    for state, seat, memory, sample in _seep_plays(2, "seep-memory"):
        assert memory.piles == (frozenset(state.piles[0]), frozenset(state.piles[1]))
        assert (set(sample.piles[0]), set(sample.piles[1])) == (set(state.piles[0]), set(state.piles[1]))
        assert game.view(sample, seat) == game.view(state, seat)
        checked += 1
    assert checked > 100


def test_seep_memory_infers_values_only_from_sweeps_passed_up() -> None:
    inferred = 0
    for state, seat, memories in _self_play("seep", 3, "seep-lacking"):
        for other, values in enumerate(memories[seat].lacking):
            assert not any(VALUE[card] in values for card in state.hands[other]), (other, values)
            inferred += bool(values) and other != seat
    assert inferred > 0


def test_seep_memory_knows_the_values_a_seat_still_holds() -> None:
    """The bid and every key a seat had to keep (A5.4, A8.3, rule R) stay in its hand until it is
    seen to play a card of that value; the determinization deals it one."""
    inferred = 0
    for state, seat, memory, sample in _seep_plays(3, "seep-holding"):
        for other, values in enumerate(memory.holding):
            held = {VALUE[card] for card in state.hands[other]}
            assert values <= held, (other, values, held)
            inferred += bool(values - {house.value for house in state.houses}) and other != seat
        for other, values in enumerate(memory.holding):
            if other != seat:
                assert values <= {VALUE[card] for card in sample.hands[other]}
    assert inferred > 0  # values no house on the floor shows any more


def test_a_stale_seep_memory_is_ignored() -> None:
    game = get_game("seep")
    config = game.make_config({}, None)
    positions = [(state, seat, list(memories)) for state, seat, memories in _self_play("seep", 1, "stale")]
    late_memories = positions[-1][2]
    early_state, early_seat, _ = next(p for p in positions if p[0].phase == "play" and p[0].plays == 5)
    # a memory of a later position of the deal does not fit an earlier view: the view alone is used
    sample = game.determinize(  # type: ignore[attr-defined]
        config, game.view(early_state, early_seat), random.Random(0), late_memories[early_seat]
    )
    assert game.view(sample, early_seat) == game.view(early_state, early_seat)


class Recorder:
    """A random policy that records what the arena shows it."""

    def __init__(self) -> None:
        self.seen: list[Any] = []
        self.resets = 0

    def choose(self, view: Any, legal: Any, rng: random.Random) -> Any:
        return legal[rng.randrange(len(legal))]

    def observe(self, view: Any) -> None:
        self.seen.append(view)

    def reset(self) -> None:
        self.resets += 1


def test_the_arena_shows_an_observer_its_seats_views_before_every_decision() -> None:
    recorder = Recorder()
    config = get_game("all_fours").make_config({}, None)
    policies = [recorder, get_policy("all_fours", "random"), recorder, get_policy("all_fours", "random")]
    _, decisions = play_match("all_fours", config, policies, match_seed("observe", 0))
    assert recorder.resets == 1
    assert len(recorder.seen) == 2 * decisions
    assert {view.viewer for view in recorder.seen} == {0, 2}
