"""Soundness checks that cannot pass through ``decide``'s shortcut for listed commands.

``decide`` applies a command that ``legal_commands`` just listed for the very same state
object without checking it again (cardgames.engine.core.listing.LastListing). A check that
lists for a state and then decides on that same object would therefore accept an illegal
command a faulty listing offered. Every "listed implies accepted" check goes through
:func:`assert_listed_accepted`, which decides on a copy the listing never saw.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

import msgspec

from cardgames.engine.all_fours.commands import Play
from cardgames.engine.contract_rummy.commands import Discard
from cardgames.engine.core.cards import STANDARD_PACK
from cardgames.engine.core.protocol import Rejection, Setup
from cardgames.engine.core.replay import fold
from cardgames.engine.seep.commands import Throw


def unseen(state: Any) -> Any:
    """An equal state that is not the object any listing was made for (a decoded copy)."""
    copy = msgspec.convert(msgspec.to_builtins(state), type(state))
    assert copy is not state and copy == state, "the copy of the state differs from the state"
    return copy


def assert_listed_accepted(rules: Any, state: Any, seat: int, listed: Iterable[Any] | None = None) -> list[Any]:
    """Every command ``rules`` lists for ``seat`` (or ``listed``) is accepted by ``decide`` on a copy
    of ``state`` the listing never saw; returns the listed commands."""
    commands = list(rules.legal_commands(state, seat) if listed is None else listed)
    fresh = unseen(state)
    for command in commands:
        outcome = rules.decide(fresh, seat, command)
        assert not isinstance(outcome, Rejection), f"listed {command!r} is rejected: {outcome}"
    return commands


def new_state(rules: Any, options: dict[str, Any], players: int, seed: int) -> Any:
    """The state of a new match of ``rules`` dealt from ``seed``."""
    config = rules.make_config(options, players)
    return fold(rules, rules.initial(config), rules.start(config, Setup(seed=f"{seed:064x}")))


def random_walk(rules: Any, options: dict[str, Any], players: int, seed: int, steps: int) -> int:
    """Random legal play from a new match, checking every position on the way with
    :func:`assert_listed_accepted`; returns how many positions were checked."""
    rng = random.Random(seed)
    state = new_state(rules, options, players, seed)
    checked = 0
    while checked < steps and not rules.is_over(state):
        seat = rules.to_act(state)[0]
        listed = assert_listed_accepted(rules, state, seat)
        checked += 1
        outcome = rules.decide(state, seat, rng.choice(listed))
        assert not isinstance(outcome, Rejection), outcome
        state = fold(rules, state, outcome)
    return checked


def illegal_command(name: str) -> Any:
    """For a built-in game: a maker of an illegal command for a state and seat (a card the seat does
    not hold, thrown, discarded or played), for :class:`InjectedListing`."""
    kind = {"seep": Throw, "contract_rummy": Discard, "all_fours": Play}[name]

    def make(state: Any, seat: int) -> Any:
        return kind(card=next(card for card in STANDARD_PACK if card not in state.hands[seat]))

    return make


class InjectedListing:
    """A game's rules whose listing also offers one illegal command (made by ``illegal`` from
    the state and seat), appended to the listed object itself as a faulty listing would: a
    Python-level seam that works whether or not the engine is compiled."""

    def __init__(self, rules: Any, illegal: Any) -> None:
        self._rules = rules
        self._illegal = illegal

    def __getattr__(self, name: str) -> Any:
        return getattr(self._rules, name)

    def legal_commands(self, state: Any, seat: int) -> list[Any]:
        listed = self._rules.legal_commands(state, seat)
        extra = self._illegal(state, seat)
        if extra is not None:
            listed.append(extra)
        return listed
