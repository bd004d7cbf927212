"""The events of Seep (A15's list), plus the core chance events.

Visibility (D): cards dealt to a seat are private to it (``cards_dealt``), the four
face-down floor cards are hidden from everyone (``floor_dealt``) until
``floor_revealed``; everything else is public. See :mod:`cardgames.engine.seep.view`.

``gc=False`` (every event of play and dealing): an event holds only strings, ints, tuples
and frozen structs built before it, so it can never be part of a reference cycle and the
garbage collector need not track it (a playout's log keeps hundreds of them alive).
"""

from __future__ import annotations

from typing import TypeAlias

import msgspec

from cardgames.engine.core.events import (
    ClockCharged,
    ClockMarked,
    GameAborted,
    MatchSeeded,
    SeatHandedOver,
    SeatResigned,
    SeatTimedOut,
    Shuffled,
    TokenReissued,
)
from cardgames.engine.seep.commands import Groups
from cardgames.engine.seep.config import Config
from cardgames.engine.seep.state import House


class MatchCreated(msgspec.Struct, frozen=True, tag="match_created", tag_field="type"):
    """A new match: its rules, the first dealer when known, the match account it starts from."""

    config: Config
    players: int
    dealer: int | None = None
    difference: int = 0
    baazis: tuple[int, int] = (0, 0)


class DealerChosen(msgspec.Struct, frozen=True, gc=False, tag="dealer_chosen", tag_field="type"):
    """The first dealer (A4): the top card of a shuffled pack, by its canonical position mod 4."""

    dealer: int
    card: str


class DealStarted(msgspec.Struct, frozen=True, gc=False, tag="deal_started", tag_field="type"):
    """Deal number ``deal`` of the match, attempt ``attempt`` (1 + void deals before it), by ``dealer``.

    All 52 cards are gathered; the next ``shuffled`` orders them.
    """

    dealer: int
    deal: int
    attempt: int


class CardsDealt(msgspec.Struct, frozen=True, gc=False, tag="cards_dealt", tag_field="type"):
    """Cards dealt to ``seat`` (private to it; others see ``count``) (A5.2, A5.6)."""

    seat: int
    cards: tuple[str, ...]
    count: int


class FloorDealt(msgspec.Struct, frozen=True, gc=False, tag="floor_dealt", tag_field="type"):
    """Four cards dealt face down to the floor: hidden from everyone until revealed (A5.2)."""

    cards: tuple[str, ...]
    count: int


class Redealt(msgspec.Struct, frozen=True, gc=False, tag="redealt", tag_field="type"):
    """The bidder holds nothing above 8: he shows his cards and the deal is void (A5.3)."""

    seat: int
    cards: tuple[str, ...]


class BidMade(msgspec.Struct, frozen=True, gc=False, tag="bid_made", tag_field="type"):
    seat: int
    value: int


class FloorRevealed(msgspec.Struct, frozen=True, gc=False, tag="floor_revealed", tag_field="type"):
    """The four floor cards are turned face up and become loose cards (A5.4)."""

    cards: tuple[str, ...]


class Captured(msgspec.Struct, frozen=True, gc=False, tag="captured", tag_field="type"):
    """Play ``play``: ``card`` took ``groups`` and, when on the floor, ``house`` (A8.1)."""

    seat: int
    play: int
    card: str
    groups: Groups
    house: House | None
    team: int


class Thrown(msgspec.Struct, frozen=True, gc=False, tag="thrown", tag_field="type"):
    """Play ``play``: ``card`` left loose on the floor (A8.2)."""

    seat: int
    play: int
    card: str


class Built(msgspec.Struct, frozen=True, gc=False, tag="built", tag_field="type"):
    """Play ``play``: a HOUSE move (A8.3).

    ``action`` is ``new`` (a new house), ``cement`` (an ordinary house cemented) or
    ``add`` (components added to a cemented house). ``merged`` are the loose single
    cards of the value that joined automatically, each as its own component;
    ``owners`` the house's owners afterwards.
    """

    seat: int
    play: int
    card: str
    value: int
    groups: Groups
    action: str
    merged: tuple[str, ...]
    owners: tuple[int, ...]


class Broken(msgspec.Struct, frozen=True, gc=False, tag="broken", tag_field="type"):
    """Play ``play``: the ordinary house of value ``house`` raised by ``card`` to ``value`` (A8.4).

    ``joined``: it merged into the house already of that value. ``merged``: loose
    single cards of the new value that joined it. ``owners``: the owners afterwards.
    """

    seat: int
    play: int
    card: str
    house: int
    value: int
    joined: bool
    merged: tuple[str, ...]
    owners: tuple[int, ...]


class SweepScored(msgspec.Struct, frozen=True, gc=False, tag="sweep_scored", tag_field="type"):
    """A capture on play ``play`` emptied the floor (A11.2)."""

    seat: int
    team: int
    play: int
    points: int


class LeftoverAwarded(msgspec.Struct, frozen=True, gc=False, tag="leftover_awarded", tag_field="type"):
    """After play #48 the loose cards go to the last capturing team; ``team`` None: nobody (A10)."""

    team: int | None
    cards: tuple[str, ...]


class DealScored(msgspec.Struct, frozen=True, gc=False, tag="deal_scored", tag_field="type"):
    """The deal's account (A11, A12): per team card points, sweep points, bonus and score.

    ``difference`` is the running difference afterwards (0 when a baazi was won);
    ``baazi_winner`` the team that won a baazi with this deal, if any.
    """

    card_points: tuple[int, int]
    sweeps: tuple[int, int]
    bonus: tuple[int, int]
    scores: tuple[int, int]
    leftover: tuple[str, ...]
    leftover_to: int | None
    difference: int
    baazi_winner: int | None


class BaaziWon(msgspec.Struct, frozen=True, gc=False, tag="baazi_won", tag_field="type"):
    """``team`` won a baazi: ``reason`` is ``lead`` (difference) or ``minimum`` (9-point rule) (A12)."""

    team: int
    reason: str
    baazis: tuple[int, int]


class MatchEnded(msgspec.Struct, frozen=True, gc=False, tag="match_ended", tag_field="type"):
    """The agreed number of baazis is complete; ``winner`` None is a drawn match (A12.3)."""

    baazis: tuple[int, int]
    winner: int | None


Event: TypeAlias = (
    MatchCreated
    | MatchSeeded
    | Shuffled
    | DealerChosen
    | DealStarted
    | CardsDealt
    | FloorDealt
    | Redealt
    | BidMade
    | FloorRevealed
    | Captured
    | Thrown
    | Built
    | Broken
    | SweepScored
    | LeftoverAwarded
    | DealScored
    | BaaziWon
    | MatchEnded
    | SeatTimedOut
    | ClockCharged
    | ClockMarked
    | SeatResigned
    | GameAborted
    | SeatHandedOver
    | TokenReissued
)
