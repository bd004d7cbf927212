"""The commands of All Fours (A17), tagged as FORMAT.md names them."""

from __future__ import annotations

from typing import Final, TypeAlias

import msgspec

from cardgames.engine.core.cards import STANDARD_PACK


class Stand(msgspec.Struct, frozen=True, tag="stand", tag_field="type"):
    """The eldest keeps the turned-up suit (A7)."""


class Beg(msgspec.Struct, frozen=True, tag="beg", tag_field="type"):
    """The eldest asks for another trump suit (A7)."""


class GiveOne(msgspec.Struct, frozen=True, tag="give_one", tag_field="type"):
    """The dealer gives the beggar's side a point (A7)."""


class RunPack(msgspec.Struct, frozen=True, tag="run_pack", tag_field="type"):
    """The dealer runs the pack (A9)."""


class Play(msgspec.Struct, frozen=True, tag="play", tag_field="type"):
    """Play a card; out of turn it is exposed instead (A14)."""

    card: str


class Call(msgspec.Struct, frozen=True, tag="call", tag_field="type"):
    """Call an exposed card of ``owner`` to be played on the owner's turn (A14)."""

    owner: int
    card: str


Command: TypeAlias = Stand | Beg | GiveOne | RunPack | Play | Call

#: Shared instances for the hot path (commands are immutable).
STAND: Final = Stand()
BEG: Final = Beg()
GIVE_ONE: Final = GiveOne()
RUN_PACK: Final = RunPack()
PLAYS: Final[dict[str, Play]] = {card: Play(card) for card in STANDARD_PACK}
