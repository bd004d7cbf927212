"""The state of an All Fours match (one frozen struct) and the small records inside it."""

from __future__ import annotations

from typing import Final

import msgspec

from cardgames.engine.all_fours.cards import side_of
from cardgames.engine.all_fours.config import Config
from cardgames.engine.core.cards import STANDARD_PACK
from cardgames.engine.core.chance import Chance

#: Phases. ``created`` and ``deal`` only exist between the events of one command;
#: the snapshot phases are ``beg``, ``dealer_choice``, ``play`` and ``over`` (A3).
CREATED: Final = "created"
DEAL: Final = "deal"
BEG: Final = "beg"
DEALER_CHOICE: Final = "dealer_choice"
PLAY: Final = "play"
OVER: Final = "over"

SIDES: Final = 2


class Played(msgspec.Struct, frozen=True):
    """One card of the trick in progress."""

    seat: int
    card: str


class Award(msgspec.Struct, frozen=True):
    """One award of a hand (A12); ``card`` only for kick, high, low, jack and hang_jack."""

    side: int
    points: int
    reason: str
    card: str | None = None


class LastHand(msgspec.Struct, frozen=True):
    """The last scored hand (A17 ``last_hand``)."""

    awards: tuple[Award, ...]
    game_totals: tuple[int, ...]


def empty_hands(players: int) -> tuple[tuple[str, ...], ...]:
    return ((),) * players


class State(msgspec.Struct, frozen=True):
    """Everything about a match now. ``turn`` is the seat to act (``to_act``).

    ``in_play`` keeps the hands as trick play began, for the holders of High, Low and
    the jack (A11). ``hand_awards`` are this hand's awards so far (kicks of every deal
    of the hand, give one), for ``last_hand``.
    """

    config: Config
    players: int
    phase: str = CREATED
    dealer: int | None = None
    turn: int | None = None
    hand_no: int = 0
    redeal_no: int = 0
    hand_size: int = 0
    hands: tuple[tuple[str, ...], ...] = ()
    stock: tuple[str, ...] = STANDARD_PACK
    turn_up: str | None = None
    trump: str | None = None
    set_aside: tuple[str, ...] = ()
    run_no: int = 0
    trick: tuple[Played, ...] = ()
    trick_no: int = 0
    tricks_won: tuple[tuple[str, ...], ...] = ((), ())
    exposed: tuple[tuple[str, ...], ...] = ()
    scores: tuple[int, ...] = (0, 0)
    hand_awards: tuple[Award, ...] = ()
    last_hand: LastHand | None = None
    in_play: tuple[tuple[str, ...], ...] = ()
    winner: int | None = None
    chance: Chance = Chance()

    @property
    def eldest(self) -> int | None:
        return None if self.dealer is None else (self.dealer + 1) % self.players


def initial(config: Config) -> State:
    """The state before the first event: all 52 cards in the stock, nothing dealt."""
    hands = empty_hands(config.players)
    return State(config=config, players=config.players, hands=hands, exposed=hands, in_play=hands)


def is_over(state: State) -> bool:
    return state.phase == OVER


def to_act(state: State) -> tuple[int, ...]:
    """The seat the match waits for: the eldest (beg), the dealer (dealer_choice), the player (play)."""
    if state.phase == OVER or state.turn is None:
        return ()
    return (state.turn,)


def outcome(state: State) -> list[int]:
    """0 for the seats of the winning side, 1 for the others (only once over)."""
    if state.winner is None:
        raise ValueError("the match is not over")
    return [0 if side_of(seat) == state.winner else 1 for seat in range(state.players)]
