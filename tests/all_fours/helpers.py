"""Helpers for the All Fours tests: stacked decks built from wanted hands, and short command calls."""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import msgspec

from cardgames.engine.all_fours import State
from cardgames.engine.all_fours.commands import PLAYS
from cardgames.engine.core.cards import STANDARD_PACK
from cardgames.engine.core.protocol import Rejection, Setup
from cardgames.engine.core.registry import get_game
from cardgames.engine.core.replay import apply, new_match

GAME = get_game("all_fours")
SEED = "ab" * 32


def positions(players: int, style: str, dealer: int, count: int) -> list[int]:
    """The seat receiving each of ``count`` consecutive dealt positions (A5)."""
    eldest = (dealer + 1) % players
    if style == "ones":
        return [(eldest + i) % players for i in range(count)]
    return [(eldest + i // 3) % players for i in range(count)]


def make_deck(
    hands: Mapping[int, Sequence[str]],
    turn_up: str,
    *,
    dealer: int = 3,
    players: int = 4,
    style: str = "threes",
    runs: Sequence[tuple[Mapping[int, Sequence[str]], str]] = (),
    stock: Sequence[str] = (),
) -> list[str]:
    """A pack order dealing ``hands`` (seat -> up to 6 cards), then ``turn_up``, then each run.

    Cards not named fill the remaining hand slots and the stock in canonical order;
    ``stock`` puts given cards at the top of what is left undealt.
    """
    named = [c for hand in hands.values() for c in hand] + [turn_up] + list(stock)
    for run_hands, run_turn_up in runs:
        named += [c for hand in run_hands.values() for c in hand] + [run_turn_up]
    assert len(named) == len(set(named)), "a card is named twice"
    spare = iter(card for card in STANDARD_PACK if card not in set(named))

    def deal(wanted: Mapping[int, Sequence[str]], per_seat: int) -> list[str]:
        queues = {seat: list(wanted.get(seat, ())) for seat in range(players)}
        out = []
        for seat in positions(players, style, dealer, per_seat * players):
            out.append(queues[seat].pop(0) if queues[seat] else next(spare))
        assert not any(queues.values()), "too many cards for a hand"
        return out

    deck = [*deal(hands, 6), turn_up]
    for run_hands, run_turn_up in runs:
        deck += [*deal(run_hands, 3), run_turn_up]
    deck += list(stock) + list(spare)
    assert sorted(deck) == sorted(STANDARD_PACK)
    return deck


def start(
    deck: Sequence[str] | None = None,
    *,
    dealer: int | None = 3,
    decks: Sequence[Sequence[str]] = (),
    options: Mapping[str, Any] | None = None,
    players: int = 4,
    scores: Sequence[int] | None = None,
    seed: str | None = SEED,
) -> State:
    """A new match from a deck start (FORMAT.md): ``deck`` first, then ``decks``."""
    config = GAME.make_config(options or {}, players)
    stacked = ([tuple(deck)] if deck is not None else []) + [tuple(d) for d in decks]
    match = {"scores": list(scores)} if scores is not None else {}
    state, _ = new_match(GAME, config, Setup(seed=seed, decks=tuple(stacked), dealer=dealer, match=match))
    return state


def events_of(deck: Sequence[str], **kwargs: Any) -> list[Any]:
    """The events of a new match (see :func:`start`)."""
    options = kwargs.pop("options", None) or {}
    players = kwargs.pop("players", 4)
    dealer = kwargs.pop("dealer", 3)
    decks = kwargs.pop("decks", ())
    config = GAME.make_config(options, players)
    stacked = (tuple(deck), *(tuple(d) for d in decks))
    return GAME.start(config, Setup(seed=SEED, decks=stacked, dealer=dealer, **kwargs))


def act(state: State, seat: int, command: dict[str, Any]) -> State:
    """Send a FORMAT.md command that must be accepted; the new state."""
    result = apply(GAME, state, seat, command)
    assert not isinstance(result, Rejection), f"{command} from seat {seat}: {result}"
    return result[0]


def act_events(state: State, seat: int, command: dict[str, Any]) -> tuple[State, list[Any]]:
    result = apply(GAME, state, seat, command)
    assert not isinstance(result, Rejection), f"{command} from seat {seat}: {result}"
    return result[0], list(result[1])


def rejection(state: State, seat: int, command: dict[str, Any]) -> str:
    """The code of a command that must be rejected (and change nothing)."""
    before = GAME.snapshot(state)
    result = apply(GAME, state, seat, command)
    assert isinstance(result, Rejection), f"{command} from seat {seat} was accepted"
    assert GAME.snapshot(state) == before
    return result.code.value


def play(state: State, *cards: str) -> State:
    """Each card played in turn by the seat to act."""
    for card in cards:
        assert state.turn is not None
        state = act(state, state.turn, {"type": "play", "card": card})
    return state


def snap(state: State) -> dict[str, Any]:
    return GAME.snapshot(state)


def tags(events: Sequence[Any]) -> list[str]:
    return [msgspec.to_builtins(event)["type"] for event in events]


def legal_plays(state: State, seat: int) -> set[str]:
    return {cmd.card for cmd in GAME.legal_commands(state, seat) if type(cmd).__name__ == "Play"}


def random_match(
    rng: random.Random, options: Mapping[str, Any], players: int, seed: str, chaos: float = 0.1
) -> Iterator[tuple[State, Any, State, bool]]:
    """A random match: yields (state before, event, state after, last event of its command) for every event.

    Mostly the seat to act picks one of its legal commands; with probability ``chaos``
    another seat plays a random card it holds out of turn (an exposure) or sends a call.
    """
    config = GAME.make_config(options, players)
    state = GAME.initial(config)
    events = GAME.start(config, Setup(seed=seed))
    for index, event in enumerate(events):
        after = GAME.evolve(state, event)
        yield state, event, after, index == len(events) - 1
        state = after
    while state.phase != "over":
        seat = state.turn
        assert seat is not None
        command: Any = None
        if rng.random() < chaos:
            other = rng.choice([s for s in range(players) if s != seat])
            calls = GAME.legal_commands(state, other)
            if calls and rng.random() < 0.5:
                seat, command = other, rng.choice(calls)
            elif state.hands[other]:
                seat, command = other, PLAYS[rng.choice(state.hands[other])]
        if command is None:
            command = rng.choice(GAME.legal_commands(state, seat))
        outcome = GAME.decide(state, seat, command)
        if isinstance(outcome, Rejection):
            assert outcome.code.value == "not_your_turn", outcome  # an exposed card played out of turn again
            continue
        for index, event in enumerate(outcome):
            after = GAME.evolve(state, event)
            yield state, event, after, index == len(outcome) - 1
            state = after
