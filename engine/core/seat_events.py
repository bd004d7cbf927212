"""A game with seat events: timeouts, forfeits and time banks on top of any game's rules.

:func:`with_seat_events` wraps a game module (a :class:`~cardgames.engine.core.protocol.GameRules`)
into one whose state also folds the seat events of engine/core/events.py:

* ``SeatTimedOut(consequence="forfeit")`` ends the match: no command is accepted after it
  (``game_over``), nobody is to act, and :meth:`SeatRules.outcome` ranks the forfeiting
  seat last (1) and every other seat first (0);
* ``SeatTimedOut(consequence="auto_move")`` changes nothing by itself: the events of the
  seat's automatic command follow it in the same batch (:func:`timeout_events`);
* ``ClockCharged`` records what is left of a seat's time bank (:attr:`Seated.banks`).

Everything else is the game's own rules. The wrapper is pure like the engine: the service
owns the clock and decides *when* a seat timed out; this module says what that means.
The automatic command is documented and deterministic: the first of the seat's
``legal_commands`` (each game lists them in a stable order).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, cast

import msgspec

from cardgames.engine.core.events import (
    AUTO_MOVE,
    FORFEIT,
    SEAT_EVENTS,
    TIMEOUT,
    ClockCharged,
    SeatTimedOut,
)
from cardgames.engine.core.protocol import PUBLIC, Audience, GameRules, Rejection, RejectionCode, Setup, Viewer, reject
from cardgames.engine.core.score_sheet import ScoreSheet

CONSEQUENCES = (FORFEIT, AUTO_MOVE)


class Seated(msgspec.Struct, frozen=True):
    """A game's state with what the seat events add: who forfeited, what is left of the banks."""

    game: Any
    players: int
    forfeited: int | None = None
    banks: dict[int, int] = {}


class SeatRules:
    """A game's rules, extended with seat events (see the module's docstring)."""

    def __init__(self, rules: GameRules) -> None:
        self.rules = rules
        # The game's own names, as they are (the protocol's names, engine/core/protocol.py).
        self.NAME = rules.NAME
        self.TITLE = rules.TITLE
        self.DEFAULT_PLAYERS = rules.DEFAULT_PLAYERS
        self.PLAYER_COUNTS = rules.PLAYER_COUNTS
        self.TRAITS = rules.TRAITS
        self.Config = rules.Config
        self.Command: Any = rules.Command
        self.View = rules.View
        self.make_config = rules.make_config
        self.start = rules.start
        # Every game's Event union holds the seat events (CoreEvent): the same union.
        self.Event: Any = rules.Event
        self._evolve = rules.evolve
        # A Seated subclass whose ``game`` has the game's own state type, so that a state
        # encodes and decodes (msgspec, e.g. snapshots) with nothing lost.
        game_state = type(rules.initial(rules.make_config({}, None)))
        self.State: type[Seated] = msgspec.defstruct(  # type: ignore[assignment]
            f"Seated_{rules.NAME}", [("game", game_state)], bases=(Seated,), frozen=True, module=__name__
        )

    def __repr__(self) -> str:
        return f"SeatRules({self.rules.NAME})"

    def initial(self, config: Any) -> Seated:
        return self.State(self.rules.initial(config), _players(config))

    def evolve(self, state: Seated, event: Any) -> Seated:
        kind = type(event)
        if kind is SeatTimedOut:  # the seat's time is spent: its bank is empty from now on
            banks = {**state.banks, event.seat: 0}
            if event.consequence == FORFEIT:
                return msgspec.structs.replace(state, forfeited=event.seat, banks=banks)
            return msgspec.structs.replace(state, banks=banks)
        if kind is ClockCharged:
            return msgspec.structs.replace(state, banks={**state.banks, event.seat: event.bank_ms})
        return self.State(self._evolve(state.game, event), state.players, state.forfeited, state.banks)

    def decide(self, state: Seated, seat: int, command: Any) -> Sequence[Any] | Rejection:
        if state.forfeited is not None:
            return reject(RejectionCode.GAME_OVER, f"the match is over: seat {state.forfeited} forfeited", "clock")
        return self.rules.decide(state.game, seat, command)

    def view(self, state: Seated, viewer: Viewer) -> Any:
        return self.rules.view(state.game, viewer)

    def legal_commands(self, state: Seated, seat: int) -> Sequence[Any]:
        return [] if state.forfeited is not None else self.rules.legal_commands(state.game, seat)

    def to_act(self, state: Seated) -> tuple[int, ...]:
        return () if state.forfeited is not None else self.rules.to_act(state.game)

    def is_over(self, state: Seated) -> bool:
        return state.forfeited is not None or self.rules.is_over(state.game)

    def outcome(self, state: Seated) -> list[int]:
        if state.forfeited is not None:
            return [1 if seat == state.forfeited else 0 for seat in range(state.players)]
        return self.rules.outcome(state.game)

    def audience(self, event: Any) -> Audience:
        return PUBLIC if isinstance(event, SEAT_EVENTS) else self.rules.audience(event)

    def redact(self, event: Any, viewer: Viewer) -> Any:
        return event if isinstance(event, SEAT_EVENTS) else self.rules.redact(event, viewer)

    def snapshot(self, state: Seated) -> dict[str, Any]:
        return self.rules.snapshot(state.game)

    def from_snapshot(self, config: Any, snapshot: Mapping[str, Any], setup: Setup) -> Seated:
        return self.State(self.rules.from_snapshot(config, snapshot, setup), _players(config))

    def describe(self, event: Any) -> str | None:
        if isinstance(event, SeatTimedOut):
            why = "was disconnected" if event.reason != TIMEOUT else "ran out of time"
            then = "and forfeits the match" if event.consequence == FORFEIT else "and its first legal command is played"
            return f"Seat {event.seat} {why} after {event.waited_ms} ms {then}"
        if isinstance(event, ClockCharged):
            return f"Seat {event.seat} took {event.used_ms} ms: {event.bank_ms} ms left in its bank"
        return self.rules.describe(event)

    def score_sheet(self, events: Iterable[Any]) -> ScoreSheet:
        return self.rules.score_sheet(event for event in events if not isinstance(event, SEAT_EVENTS))


def _players(config: Any) -> int:
    """The number of seats of a game's config (every game's Config has ``players``)."""
    return int(config.players)


_WRAPPED: dict[str, SeatRules] = {}


def with_seat_events(rules: GameRules) -> GameRules:
    """``rules`` extended with seat events (one wrapper per game)."""
    if isinstance(rules, SeatRules):
        return cast(GameRules, rules)
    wrapped = _WRAPPED.get(rules.NAME)
    if wrapped is None or wrapped.rules is not rules:
        wrapped = _WRAPPED[rules.NAME] = SeatRules(rules)
    return cast(GameRules, wrapped)


def timeout_events(
    rules: GameRules, state: Seated, seat: int, consequence: str, reason: str = TIMEOUT, waited_ms: int = 0,
    first: Any = None,
) -> list[Any]:
    """The events recording that ``seat`` timed out in ``state`` (a :class:`Seated` of ``rules``).

    ``auto_move``: the timeout, then the events of the seat's first legal command (a forfeit
    when the seat has none, which a game waiting for the seat never does). ``first``: that
    command, when the caller has it already (a service lists a costly position elsewhere).
    """
    if consequence not in CONSEQUENCES:
        raise ValueError(f"a timeout's consequence is one of {CONSEQUENCES}, got {consequence!r}")
    base = rules.rules if isinstance(rules, SeatRules) else rules
    if consequence == AUTO_MOVE:
        legal = [first] if first is not None else base.legal_commands(state.game, seat)
        if legal:
            outcome = base.decide(state.game, seat, legal[0])
            if not isinstance(outcome, Rejection):
                return [SeatTimedOut(seat, AUTO_MOVE, reason, waited_ms), *outcome]
    return [SeatTimedOut(seat, FORFEIT, reason, waited_ms)]
