"""The state of a Contract Rummy match (one frozen struct) and what can be read off it directly.

``gc=False`` (states and turns): frozen, holding only strings, ints, tuples and structs built
before them, they cannot be part of a reference cycle, and the garbage collector need not
track them (one new state per event).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import msgspec

from cardgames.engine.contract_rummy.config import CONTRACTS, Config, deck_for
from cardgames.engine.contract_rummy.melds import Meld
from cardgames.engine.core.chance import Chance

#: ``setup`` before the first deal and ``deal`` between the events of a deal; the
#: snapshot phases are ``draw``, ``play`` and ``over`` (A.13).
SETUP: Final = "setup"
DEAL: Final = "deal"
DRAW: Final = "draw"
PLAY: Final = "play"
OVER: Final = "over"

STOCK: Final = "stock"
DISCARD: Final = "discard"
DIG: Final = "dig"


class Turn(msgspec.Struct, frozen=True, gc=False):
    """What the seat to act did this turn (A.13 invariants): how it drew, what it took,
    whether it went down this turn, and the code R1 bars from the discard (``None`` when none)."""

    drew: str
    taken: tuple[str, ...] = ()
    went_down: bool = False
    barred: str | None = None


class State(msgspec.Struct, frozen=True, gc=False):
    """Everything about a match now.

    ``stock`` and ``discard`` are top first. ``known`` holds, per seat, the cards publicly
    taken from the discard pile that are still in that hand (D). ``met_turn`` is the turn
    of the deal in which each seat met its contract (0: not met, or met before a state
    start). ``pack`` holds the cards between their gathering and the deal (A.5: the
    shuffled order, with the places of dealt cards emptied) or a refill's shuffle (A.12), so
    that every card is somewhere at every event.
    """

    config: Config
    players: int
    deck: tuple[str, ...]
    chance: Chance = Chance()
    pack: tuple[str, ...] = ()
    phase: str = SETUP
    deal: int = 0
    dealer: int | None = None
    to_act: int | None = None
    hands: tuple[tuple[str, ...], ...] = ()
    stock: tuple[str, ...] = ()
    discard: tuple[str, ...] = ()
    melds: tuple[Meld, ...] = ()
    contract_met: tuple[bool, ...] = ()
    met_turn: tuple[int, ...] = ()
    turn_no: int = 0
    turn: Turn | None = None
    scores: tuple[int, ...] = ()
    last_deal_scores: tuple[int, ...] | None = None
    winners: tuple[int, ...] | None = None
    refills: int = 0
    known: tuple[tuple[str, ...], ...] = ()


def initial(config: Config) -> State:
    """The state before the first event: nothing dealt, every total 0."""
    players = config.players
    return State(
        config=config,
        players=players,
        deck=deck_for(config.deck_policy, players),
        pack=deck_for(config.deck_policy, players),
        hands=((),) * players,
        contract_met=(False,) * players,
        met_turn=(0,) * players,
        scores=(0,) * players,
        known=((),) * players,
    )


def is_over(state: State) -> bool:
    return state.phase == OVER


def to_act(state: State) -> tuple[int, ...]:
    if state.phase in (DRAW, PLAY) and state.to_act is not None:
        return (state.to_act,)
    return ()


def contract(state: State) -> tuple[int, int]:
    """(sets, runs) of the current deal's contract (A.6)."""
    return CONTRACTS[state.deal - 1]


def all_at_once(state: State) -> bool:
    """Deal 7 under an all-at-once mode (A.11)."""
    return state.deal == 7 and state.config.final_deal_mode != "normal"


def winners_of(totals: Sequence[int]) -> tuple[int, ...]:
    best = min(totals)
    return tuple(seat for seat, total in enumerate(totals) if total == best)


def outcome(state: State) -> list[int]:
    """0 for the winners (lowest total); others rank by total: 1 + the seats strictly better."""
    if state.phase != OVER:
        raise ValueError("the match is not over")
    totals = state.scores
    return [sum(1 for other in totals if other < total) for total in totals]


def barred(state: State) -> str | None:
    """The code R1 bars from the discard this turn, if any."""
    turn = state.turn
    return None if turn is None else turn.barred
