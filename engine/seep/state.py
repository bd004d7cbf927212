"""The state of a Seep match: the floor (loose cards and houses), hands, piles, the match account.

``gc=False``: states, houses and deal accounts are frozen and hold only strings, ints,
tuples and structs built before them, so they cannot be part of a reference cycle and
the garbage collector need not track them (one new state per event).
"""

from __future__ import annotations

from typing import Final

import msgspec

from cardgames.engine.core.cards import STANDARD_PACK
from cardgames.engine.core.chance import Chance
from cardgames.engine.seep.config import Config

Hand = tuple[str, ...]

#: Phases: ``start`` (before the first deal), ``bid``, ``play``, ``over``.
START: Final = "start"
BID: Final = "bid"
PLAY: Final = "play"
OVER: Final = "over"


class House(msgspec.Struct, frozen=True, gc=False):
    """A house (A6): its value 9..13, its components (each adding up to the value), its owners."""

    value: int
    components: tuple[tuple[str, ...], ...]
    owners: tuple[int, ...]

    @property
    def cemented(self) -> bool:
        return len(self.components) > 1

    def cards(self) -> tuple[str, ...]:
        return tuple([card for component in self.components for card in component])


class LastDeal(msgspec.Struct, frozen=True, gc=False):
    """The account of the last finished deal (FORMAT.md ``last_deal``)."""

    card_points: tuple[int, int]
    sweeps: tuple[int, int]
    leftover: tuple[str, ...]
    leftover_to: int | None
    baazi_winner: int | None


class State(msgspec.Struct, frozen=True, gc=False):
    """Everything the rules need. ``loose`` holds the four face-down floor cards in phase ``bid``.

    ``houses`` are kept in ascending order of value. ``window`` holds the cards of the
    last capture while it may still be inspected (D), ``window_team`` the team that took them.
    """

    config: Config
    chance: Chance = Chance()
    phase: str = START
    dealer: int = 0
    bid: int | None = None
    plays: int = 0
    redeals: int = 0
    deal_no: int = 0
    hands: tuple[Hand, ...] = ((), (), (), ())
    stock: tuple[str, ...] = STANDARD_PACK
    loose: tuple[str, ...] = ()
    houses: tuple[House, ...] = ()
    piles: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
    sweeps: tuple[int, int] = (0, 0)
    last_capture_team: int | None = None
    window: tuple[str, ...] = ()
    window_team: int | None = None
    last_deal_points: tuple[int, int] | None = None
    last_deal: LastDeal | None = None
    difference: int = 0
    baazis: tuple[int, int] = (0, 0)


def initial(config: Config) -> State:
    """The state before any event: the whole pack in the stock, nobody to act."""
    return State(config=config)


#: ``to_act`` and ``is_over`` are asked by interpreted callers at every step (a playout, the
#: service), so they stay here, uncompiled; ``cardgames.engine.seep.turn.actor`` is the compiled rules' form.
_ONE_SEAT = ((0,), (1,), (2,), (3,))


def to_act(state: State) -> tuple[int, ...]:
    phase = state.phase
    if phase == PLAY:
        return _ONE_SEAT[(state.dealer + state.plays + 1) % 4]
    if phase == BID:
        return _ONE_SEAT[(state.dealer + 1) % 4]
    return ()


def is_over(state: State) -> bool:
    return state.phase == OVER


def outcome(state: State) -> list[int]:
    """0 for the seats of the team with more baazis, 1 for the others; all 0 for a drawn match."""
    first, second = state.baazis
    if first == second:
        return [0, 0, 0, 0]
    winner = 0 if first > second else 1
    return [0 if seat % 2 == winner else 1 for seat in range(4)]
