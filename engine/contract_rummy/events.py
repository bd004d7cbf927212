"""The events of a Contract Rummy match (A.13). Dealt and stock-drawn cards are private (D).

``gc=False`` (every event but ``match_created``): an event holds only strings, ints, tuples of
them and None, so it can never be part of a reference cycle and the garbage collector need not
track it (a playout's log keeps hundreds of them alive).
"""

from __future__ import annotations

from typing import TypeAlias

import msgspec

from cardgames.engine.contract_rummy.config import Config
from cardgames.engine.core.events import CoreEvent


class MatchCreated(msgspec.Struct, frozen=True, tag="match_created", tag_field="type"):
    """A new match: its rules, its size, and the first dealer when known (A.4).

    ``deal`` and ``scores`` are the match-level facts a deck start may set (FORMAT.md ``match``).
    """

    config: Config
    players: int
    dealer: int | None = None
    deal: int = 1
    scores: tuple[int, ...] = ()


class DealerCardDrawn(msgspec.Struct, frozen=True, gc=False, tag="dealer_card_drawn", tag_field="type"):
    """One card of the draw for the first dealer (A.4); ``round`` counts the tie-breaking redraws."""

    seat: int
    card: str
    round: int


class DealerChosen(msgspec.Struct, frozen=True, gc=False, tag="dealer_chosen", tag_field="type"):
    dealer: int


class DealStarted(msgspec.Struct, frozen=True, gc=False, tag="deal_started", tag_field="type"):
    """Deal ``deal`` begins: its dealer, hand size and contract (A.5, A.6)."""

    deal: int
    dealer: int
    hand_size: int
    sets: int
    runs: int


class CardsDealt(msgspec.Struct, frozen=True, gc=False, tag="cards_dealt", tag_field="type"):
    """One seat's hand (private to that seat; others see ``count`` only)."""

    seat: int
    cards: tuple[str, ...]
    count: int


class UpcardTurned(msgspec.Struct, frozen=True, gc=False, tag="upcard_turned", tag_field="type"):
    """The upcard starts the discard pile; the rest of the pack is the stock (A.5)."""

    card: str
    stock_size: int


class StockRefilled(msgspec.Struct, frozen=True, gc=False, tag="stock_refilled", tag_field="type"):
    """The pile but its top card became the stock (A.12).

    ``shuffled``: the cards are gathered for the ``Shuffled`` event that follows, whose order
    is the new stock (``cards`` are then in canonical order: which cards, not their order);
    else the pile was turned over and ``cards`` is the new stock, top first. ``refills``
    counts this deal's refills.
    """

    cards: tuple[str, ...]
    shuffled: bool
    refills: int


class StockDrawn(msgspec.Struct, frozen=True, gc=False, tag="stock_drawn", tag_field="type"):
    """D1 (the card is private to the drawer; others see an empty ``card``)."""

    seat: int
    card: str
    count: int = 1


class DiscardDrawn(msgspec.Struct, frozen=True, gc=False, tag="discard_drawn", tag_field="type"):
    """D2: the top discard, taken in public."""

    seat: int
    card: str


class DiscardDug(msgspec.Struct, frozen=True, gc=False, tag="discard_dug", tag_field="type"):
    """D3: the top ``depth`` cards of the pile (top first), taken in public."""

    seat: int
    depth: int
    cards: tuple[str, ...]


class ContractMelded(msgspec.Struct, frozen=True, gc=False, tag="contract_melded", tag_field="type"):
    """The contract went down (A.6): runs listed low to high, jokers with their declarations."""

    seat: int
    melds: tuple[tuple[str, ...], ...]
    kinds: tuple[str, ...]


class MeldsAdded(msgspec.Struct, frozen=True, gc=False, tag="melds_added", tag_field="type"):
    """New melds of a player who is down (allow_new_melds_after_contract, A.8)."""

    seat: int
    melds: tuple[tuple[str, ...], ...]
    kinds: tuple[str, ...]


class CardLaidOff(msgspec.Struct, frozen=True, gc=False, tag="card_laid_off", tag_field="type"):
    """A.9: ``card`` (a joker with its declaration) onto meld ``meld``; ``end`` for runs."""

    seat: int
    card: str
    meld: int
    end: str | None = None


class JokerSwapped(msgspec.Struct, frozen=True, gc=False, tag="joker_swapped", tag_field="type"):
    """A.10: natural ``card`` replaced ``joker`` in run ``meld``; the joker went to ``joker_as``.

    The joker was laid off onto ``to_meld`` (at ``end`` for a run) or went into the new meld
    ``new_meld`` (of kind ``new_meld_kind``), which then takes the next meld index.
    """

    seat: int
    card: str
    meld: int
    joker: str
    joker_as: str
    to_meld: int | None = None
    end: str | None = None
    new_meld: tuple[str, ...] | None = None
    new_meld_kind: str | None = None


class Discarded(msgspec.Struct, frozen=True, gc=False, tag="discarded", tag_field="type"):
    seat: int
    card: str


class PlayerWentOut(msgspec.Struct, frozen=True, gc=False, tag="player_went_out", tag_field="type"):
    seat: int


class DealBlocked(msgspec.Struct, frozen=True, gc=False, tag="deal_blocked", tag_field="type"):
    """A.12: the stock cannot be refilled, or was refilled ``max_stock_refills`` times."""

    deal: int
    reason: str


class DealScored(msgspec.Struct, frozen=True, gc=False, tag="deal_scored", tag_field="type"):
    """A.11: every hand revealed, each seat's penalty and the new totals; ``out`` went out."""

    deal: int
    hands: tuple[tuple[str, ...], ...]
    penalties: tuple[int, ...]
    totals: tuple[int, ...]
    out: int | None = None


class GameEnded(msgspec.Struct, frozen=True, gc=False, tag="game_ended", tag_field="type"):
    """After deal 7: the seats with the lowest total win (co-winners on a tie)."""

    winners: tuple[int, ...]
    totals: tuple[int, ...]


Event: TypeAlias = (
    MatchCreated
    | DealerCardDrawn
    | DealerChosen
    | DealStarted
    | CardsDealt
    | UpcardTurned
    | StockRefilled
    | StockDrawn
    | DiscardDrawn
    | DiscardDug
    | ContractMelded
    | MeldsAdded
    | CardLaidOff
    | JokerSwapped
    | Discarded
    | PlayerWentOut
    | DealBlocked
    | DealScored
    | GameEnded
    | CoreEvent
)
