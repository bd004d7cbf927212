"""Events every game shares: the match's chance source and each shuffle.

Both are hidden while the match runs (DESIGN.md: chance is recorded, never
re-rolled). Their public forms keep the commitment and the shuffle's number and
size, never the seed or the order.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import Any, Final, TypeAlias

import msgspec

from cardgames.engine.core.chance import Chance, advance, next_order


class MatchSeeded(msgspec.Struct, frozen=True, tag="match_seeded", tag_field="type"):
    """The chance source of a match: a seed (hex, 32 bytes) and/or stacked orders.

    ``commitment`` is ``sha256(seed bytes)`` in hex ("" without a seed) and
    ``stacked`` the number of stacked orders: both public. ``seed`` and ``decks``
    are hidden until the match ends.
    """

    commitment: str
    stacked: int
    seed: str | None = None
    decks: tuple[tuple[str, ...], ...] = ()

    def chance(self) -> Chance:
        return Chance(seed=self.seed, decks=self.decks, used=0)


class Shuffled(msgspec.Struct, frozen=True, tag="shuffled", tag_field="type"):
    """Shuffle number ``shuffle_no`` of the match produced ``order`` (top first)."""

    shuffle_no: int
    size: int
    order: tuple[str, ...] = ()


def match_seeded(seed: str | None, decks: tuple[tuple[str, ...], ...]) -> MatchSeeded:
    commitment = hashlib.sha256(bytes.fromhex(seed)).hexdigest() if seed else ""
    return MatchSeeded(commitment=commitment, stacked=len(decks), seed=seed, decks=decks)


def shuffle(chance: Chance, cards: Sequence[str]) -> Shuffled:
    """The next shuffle of ``cards`` from ``chance`` (a stacked order first, else the seed), as its
    event; the chance after it is ``advance(chance)``."""
    order = next_order(chance, cards)
    return Shuffled(shuffle_no=chance.used, size=len(order), order=order)


def redact_core(event: MatchSeeded | Shuffled) -> MatchSeeded | Shuffled:
    """The public form of a core event: commitment and sizes, no seed, no order."""
    if isinstance(event, MatchSeeded):
        return msgspec.structs.replace(event, seed=None, decks=())
    return msgspec.structs.replace(event, order=())


# ---------------------------------------------------------------------------
# Seat events: facts the service records about a seat's clock (DESIGN.md: timeouts,
# disconnects and forfeits are events in the log, never silent substitutions). The
# engine never produces them by itself (it has no clock); the service decides that a
# deadline passed and records them. Every game's Event union includes them (through
# CoreEvent), its evolve leaves its own state unchanged on them (through core_reducers),
# and engine/core/seat_events.py gives them their meaning (a forfeit ends the match).

#: What a timeout does, as chosen by the match's clock options (a tournament's: forfeit or
#: auto_move; a game's time control: bot_plays, forfeit or abort).
FORFEIT: Final = "forfeit"
AUTO_MOVE: Final = "auto_move"
BOT_PLAYS: Final = "bot_plays"
ABORT: Final = "abort"
#: Why a seat timed out: it was connected but too slow, or it was gone.
TIMEOUT: Final = "timeout"
DISCONNECTED: Final = "disconnected"


class SeatTimedOut(msgspec.Struct, frozen=True, tag="seat_timed_out", tag_field="type"):
    """``seat`` let its clock run out (public).

    ``consequence``: ``forfeit`` (the match ends, the seat's side loses), ``auto_move``
    (the events of the seat's first legal command follow in the same batch), ``bot_plays``
    (a built-in bot plays for the seat from now on, until the seat acts again or is handed
    back) or ``abort`` (the match ends with no result).
    ``reason``: ``timeout`` or ``disconnected`` (no connection for the seat then).
    ``waited_ms``: how long the decision had been waiting.
    """

    seat: int
    consequence: str
    reason: str = TIMEOUT
    waited_ms: int = 0


class ClockCharged(msgspec.Struct, frozen=True, tag="clock_charged", tag_field="type"):
    """``seat`` took ``used_ms`` for a decision, more than the per-move time: its bank is now ``bank_ms``."""

    seat: int
    used_ms: int
    bank_ms: int


class ClockMarked(msgspec.Struct, frozen=True, tag="clock_marked", tag_field="type"):
    """The clocks of a match with a time control, as of the batch it ends (public).

    ``at_ms``: the server's time the batch was written at (Unix milliseconds); ``banks``:
    each seat's time bank left (ms, after its Fischer increment; all 0 without a bank);
    ``since``: for each seat, when its pending decision began (Unix ms), 0 for a seat the
    match is not waiting for. A seat's deadline follows from the last mark and the log
    header's time control, so any process can rebuild every deadline from the log.
    """

    at_ms: int
    banks: tuple[int, ...] = ()
    since: tuple[int, ...] = ()


class SeatResigned(msgspec.Struct, frozen=True, tag="seat_resigned", tag_field="type"):
    """``seat`` resigned (public): the match ends; the seat, and its side, rank last."""

    seat: int


class GameAborted(msgspec.Struct, frozen=True, tag="game_aborted", tag_field="type"):
    """The match was called off before any seat played (public): it ends with no result.

    ``seat``: the seat that aborted it, None for the game's owner (or its clock).
    """

    seat: int | None = None


class SeatHandedOver(msgspec.Struct, frozen=True, tag="seat_handed_over", tag_field="type"):
    """``seat`` is played from now on by the built-in bot ``bot`` (a strength: random, heuristic,
    search), or by its own player again when ``bot`` is "" (public)."""

    seat: int
    bot: str = ""


class TokenReissued(msgspec.Struct, frozen=True, tag="token_reissued", tag_field="type"):
    """The owner gave ``seat`` a new token; the old one stopped working (public). Never the token."""

    seat: int


SeatEvent: TypeAlias = (
    SeatTimedOut | ClockCharged | ClockMarked | SeatResigned | GameAborted | SeatHandedOver | TokenReissued
)
SEAT_EVENTS: Final = (SeatTimedOut, ClockCharged, ClockMarked, SeatResigned, GameAborted, SeatHandedOver,
                      TokenReissued)


#: The events of every game's log besides its own: a game's ``Event`` union is its own events
#: ``| CoreEvent``.
CoreEvent: TypeAlias = MatchSeeded | Shuffled | SeatEvent

#: How a game's state takes an event: ``(state, event) -> state``.
Reducer: TypeAlias = Callable[[Any, Any], Any]


def seeded(state: Any, event: MatchSeeded) -> Any:
    """The match's chance source from its seed (a state with a ``chance`` field)."""
    return msgspec.structs.replace(state, chance=event.chance())


def shuffled_to_stock(state: Any, event: Shuffled) -> Any:
    """A shuffle that becomes the stock (a state with ``stock`` and ``chance`` fields)."""
    return msgspec.structs.replace(state, stock=event.order, chance=advance(state.chance))


def unchanged(state: Any, event: Any) -> Any:
    """An event that changes nothing of the game's own state (a seat event)."""
    return state


def core_reducers(shuffled: Reducer = shuffled_to_stock) -> dict[type, Reducer]:
    """The reducers of :data:`CoreEvent` for a game's evolve table: the seed sets ``chance``, a
    shuffle goes by ``shuffled`` (by default it becomes the stock), seat events change nothing
    of the game's own state (engine/core/seat_events.py gives them their meaning)."""
    return {MatchSeeded: seeded, Shuffled: shuffled, **dict.fromkeys(SEAT_EVENTS, unchanged)}
