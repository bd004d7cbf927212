"""Match assignments for remote entrants: what each one must play now, pushed as it happens.

The runner *posts* an assignment (a match, a seat and its token) for each seat a remote
entrant plays, and *withdraws* it when the match is over. An entrant's stream
(:meth:`Hub.follow`) first sends every assignment still open, then each new one: an
entrant that reconnects is sent its open matches again (its seats are still its own,
with the same tokens), so a bot that crashed mid-match resumes where it was. The stream
ends when the tournament does, or with :class:`EntrantSuperseded` when the entrant registers
again (its new registration's stream takes over).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import msgspec

from cardgames.service.games import WrongToken


class EntrantSuperseded(WrongToken):
    """The entrant registered again: the stream of its earlier registration ends."""

    reason = "ENTRANT_SUPERSEDED"


class Assignment(msgspec.Struct, frozen=True):
    tournament_id: str
    match_no: int
    game_id: str
    game: str
    seat: int
    seat_token: str
    #: the entrant of every seat, seat 0 first
    seats: tuple[str, ...]


@dataclass
class _Mailbox:
    open: dict[tuple[int, int], Assignment] = field(default_factory=dict)
    changed: asyncio.Condition = field(default_factory=asyncio.Condition)
    connections: int = 0
    #: How many times the entrant registered again (older streams end).
    generation: int = 0


class Hub:
    """The open assignments of one tournament's remote entrants."""

    def __init__(self, names: list[str]) -> None:
        self._boxes = {name: _Mailbox() for name in names}
        self.closed = False

    def connected(self, name: str) -> bool:
        return self._boxes[name].connections > 0

    async def post(self, name: str, assignment: Assignment) -> None:
        box = self._boxes[name]
        async with box.changed:
            box.open[(assignment.match_no, assignment.seat)] = assignment
            box.changed.notify_all()

    async def withdraw(self, name: str, match_no: int) -> None:
        box = self._boxes[name]
        async with box.changed:
            for key in [key for key in box.open if key[0] == match_no]:
                del box.open[key]
            box.changed.notify_all()

    async def supersede(self, name: str) -> None:
        """End the entrant's open streams (it registered again)."""
        box = self._boxes[name]
        async with box.changed:
            box.generation += 1
            box.changed.notify_all()

    async def close(self) -> None:
        self.closed = True
        for box in self._boxes.values():
            async with box.changed:
                box.changed.notify_all()

    async def follow(self, name: str) -> AsyncIterator[Assignment]:
        """Every open assignment of ``name``, then each new one, until the tournament is over."""
        box = self._boxes[name]
        sent: set[tuple[int, int]] = set()
        generation = box.generation
        box.connections += 1
        try:
            while True:
                async with box.changed:
                    if box.generation != generation:
                        raise EntrantSuperseded(f"{name!r} registered again: follow the new registration's stream")
                    fresh = [a for key, a in sorted(box.open.items()) if key not in sent]
                    if not fresh:
                        if self.closed:
                            return
                        await box.changed.wait()
                        continue
                for assignment in fresh:
                    sent.add((assignment.match_no, assignment.seat))
                    yield assignment
        finally:
            box.connections -= 1
