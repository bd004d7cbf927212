"""A game with seat events: clocks, timeouts, resignations, aborts and hand-overs on top of any game's rules.

:func:`with_seat_events` wraps a game module (a :class:`~cardgames.engine.core.protocol.GameRules`)
into one whose state also folds the seat events of engine/core/events.py:

* ``SeatTimedOut(consequence="forfeit")`` and ``SeatResigned`` end the match: no command is
  accepted after them (``game_over``), nobody is to act, and :meth:`SeatRules.outcome` ranks
  the seat and its side (its partners in a partnership game: the game's ``TRAITS.partnerships``) last (1)
  and every other seat first (0);
* ``GameAborted`` and ``SeatTimedOut(consequence="abort")`` end the match with no result
  (every seat 0);
* ``SeatTimedOut(consequence="auto_move")`` changes nothing by itself: the events of the
  seat's automatic command follow it in the same batch (:func:`timeout_events`);
* ``SeatHandedOver`` records who plays a seat: a built-in bot (:attr:`Seated.bots`) or its
  own player again (``SeatTimedOut(consequence="bot_plays")`` is followed by one);
* ``ClockCharged`` records what is left of a seat's time bank (:attr:`Seated.banks`, a
  tournament's clock); ``ClockMarked`` the clocks of a game's time control (:attr:`Seated.clock`,
  engine/core/time_control.py); ``TokenReissued`` changes nothing in the game.

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
    ABORT,
    AUTO_MOVE,
    BOT_PLAYS,
    FORFEIT,
    SEAT_EVENTS,
    TIMEOUT,
    ClockCharged,
    ClockMarked,
    GameAborted,
    SeatHandedOver,
    SeatResigned,
    SeatTimedOut,
    TokenReissued,
)
from cardgames.engine.core.protocol import PUBLIC, Audience, GameRules, Rejection, RejectionCode, Setup, Viewer, reject
from cardgames.engine.core.score_sheet import ScoreSheet

CONSEQUENCES = (FORFEIT, AUTO_MOVE, BOT_PLAYS, ABORT)


class Seated(msgspec.Struct, frozen=True):
    """A game's state with what the seat events add: who forfeited or resigned, whether the match
    was aborted, what is left of the banks, the latest clock mark, which seats bots play."""

    game: Any
    players: int
    forfeited: int | None = None
    banks: dict[int, int] = {}
    aborted: bool = False
    clock: ClockMarked | None = None
    #: The seats a built-in bot plays, with its strength.
    bots: dict[int, str] = {}
    #: How many times each seat's token was reissued.
    reissued: dict[int, int] = {}

    @property
    def ended(self) -> bool:
        """Ended by a seat event (a forfeit, a resignation, an abort), not by the game's rules."""
        return self.forfeited is not None or self.aborted


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
        if kind not in _SEAT_EVENT_TYPES:
            return self.State(self._evolve(state.game, event), state.players, state.forfeited, state.banks,
                              state.aborted, state.clock, state.bots, state.reissued)
        replace = msgspec.structs.replace
        if kind is ClockMarked:
            return replace(state, clock=event)
        if kind is SeatTimedOut:  # the seat's time is spent: its bank is empty from now on
            banks = {**state.banks, event.seat: 0}
            if event.consequence == FORFEIT:
                return replace(state, forfeited=event.seat, banks=banks)
            if event.consequence == ABORT:
                return replace(state, aborted=True, banks=banks)
            return replace(state, banks=banks)
        if kind is ClockCharged:
            return replace(state, banks={**state.banks, event.seat: event.bank_ms})
        if kind is SeatResigned:
            return replace(state, forfeited=event.seat)
        if kind is GameAborted:
            return replace(state, aborted=True)
        if kind is SeatHandedOver:
            bots = {seat: bot for seat, bot in state.bots.items() if seat != event.seat}
            if event.bot:
                bots[event.seat] = event.bot
            return replace(state, bots=bots)
        if kind is TokenReissued:
            return replace(state, reissued={**state.reissued, event.seat: state.reissued.get(event.seat, 0) + 1})
        return state

    def decide(self, state: Seated, seat: int, command: Any) -> Sequence[Any] | Rejection:
        if state.aborted:
            return reject(RejectionCode.GAME_OVER, "the match is over: it was aborted", "seat")
        if state.forfeited is not None:
            return reject(RejectionCode.GAME_OVER, f"the match is over: seat {state.forfeited} forfeited or resigned",
                          "clock")
        return self.rules.decide(state.game, seat, command)

    def view(self, state: Seated, viewer: Viewer) -> Any:
        return self.rules.view(state.game, viewer)

    def legal_commands(self, state: Seated, seat: int) -> Sequence[Any]:
        return [] if state.ended else self.rules.legal_commands(state.game, seat)

    def to_act(self, state: Seated) -> tuple[int, ...]:
        return () if state.ended else self.rules.to_act(state.game)

    def is_over(self, state: Seated) -> bool:
        return state.ended or self.rules.is_over(state.game)

    def outcome(self, state: Seated) -> list[int]:
        if state.aborted:
            return [0] * state.players
        if state.forfeited is not None:
            losers = set(side_seats(self.rules, state.players, state.forfeited))
            return [1 if seat in losers else 0 for seat in range(state.players)]
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
        kind = type(event)
        if kind is SeatTimedOut:
            why = "was disconnected" if event.reason != TIMEOUT else "ran out of time"
            return f"Seat {event.seat} {why} after {event.waited_ms} ms {_THEN[event.consequence]}"
        if kind is ClockCharged:
            return f"Seat {event.seat} took {event.used_ms} ms: {event.bank_ms} ms left in its bank"
        if kind is ClockMarked:
            return None  # a clock reading: not worth a line of the account
        if kind is SeatResigned:
            return f"Seat {event.seat} resigns"
        if kind is GameAborted:
            return "The match is aborted" + (f" by seat {event.seat}" if event.seat is not None else " by its owner")
        if kind is SeatHandedOver:
            return f"Seat {event.seat} is played by " + (f"the {event.bot} bot" if event.bot else "its player again")
        if kind is TokenReissued:
            return f"Seat {event.seat} gets a new token"
        return self.rules.describe(event)

    def score_sheet(self, events: Iterable[Any]) -> ScoreSheet:
        return self.rules.score_sheet(event for event in events if not isinstance(event, SEAT_EVENTS))


_SEAT_EVENT_TYPES = frozenset(SEAT_EVENTS)
_THEN = {
    FORFEIT: "and forfeits the match",
    AUTO_MOVE: "and its first legal command is played",
    BOT_PLAYS: "and a bot plays for it",
    ABORT: "and the match is aborted",
}


def side_seats(rules: GameRules, players: int, seat: int) -> tuple[int, ...]:
    """The seats of ``seat``'s side: its partners and itself (the game's partnerships for
    ``players`` seats, :class:`~cardgames.engine.core.protocol.Traits`; a game without
    partnerships, or a seat alone on its side, is a side of one)."""
    return next((side for side in rules.TRAITS.sides(players) if seat in side), (seat,))


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
    first: Any = None, bot: str = "",
) -> list[Any]:
    """The events recording that ``seat`` timed out in ``state`` (a :class:`Seated` of ``rules``).

    ``auto_move``: the timeout, then the events of the seat's first legal command (a forfeit
    when the seat has none, which a game waiting for the seat never does). ``first``: that
    command, when the caller has it already (a service lists a costly position elsewhere).
    ``bot_plays``: the timeout, then the seat handed over to the bot ``bot`` (a strength).
    ``forfeit`` and ``abort``: the timeout alone.
    """
    if consequence not in CONSEQUENCES:
        raise ValueError(f"a timeout's consequence is one of {CONSEQUENCES}, got {consequence!r}")
    if consequence == BOT_PLAYS:
        if not bot:
            raise ValueError("a timeout whose bot plays names the bot")
        return [SeatTimedOut(seat, BOT_PLAYS, reason, waited_ms), SeatHandedOver(seat, bot)]
    if consequence == ABORT:
        return [SeatTimedOut(seat, ABORT, reason, waited_ms)]
    base = rules.rules if isinstance(rules, SeatRules) else rules
    if consequence == AUTO_MOVE:
        legal = [first] if first is not None else base.legal_commands(state.game, seat)
        if legal:
            outcome = base.decide(state.game, seat, legal[0])
            if not isinstance(outcome, Rejection):
                return [SeatTimedOut(seat, AUTO_MOVE, reason, waited_ms), *outcome]
    return [SeatTimedOut(seat, FORFEIT, reason, waited_ms)]
