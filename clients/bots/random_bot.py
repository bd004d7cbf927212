"""A bot that plays uniformly at random among its seat's legal commands.

It watches its seat and, whenever the view says the seat is to act, asks the service
for the legal commands, picks one with its own seeded :class:`random.Random` and submits
it with ``expected_sequence``. It never sees more than its seat's view. Subclasses
change :meth:`RandomBot.choose` (or its awaited form, :meth:`RandomBot.decide`) to play better.

Errors that only mean "the game moved on" (a stale sequence, a deadline passed on a
clocked match), "the service is restarting" (unavailable) or "the service is busy" (a
refusal with a retry hint, still refused after the client's own resends: the bot waits
the hint again, jittered, and looks again) are absorbed: the watch delivers the new state
and the bot decides again. Any other rejection of a listed command is a bug and is raised.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Mapping
from typing import Any

from cardgames.clients.client import SeatHandle
from cardgames.clients.errors import CommandRejected, RateLimited, ServiceUnavailable, StaleSequence
from cardgames.clients.models import Accepted, LegalCommands, Update, View

#: The reason of a command refused because the seat's match clock ran out first.
DEADLINE_PASSED = "DEADLINE_PASSED"
#: Called after each accepted command with the command sent and the service's answer.
OnAccepted = Callable[[Mapping[str, Any], Accepted], None]
#: Called with every update of the bot's watch, before the bot acts on it.
OnUpdate = Callable[[Update], None]


class RandomBot:
    """Plays one seat until the match is over.

    ``seed`` seeds the bot's own :class:`random.Random` (so a match between seeded bots
    on a seeded game is reproducible); ``rng`` may be given instead. ``after_sequence``:
    watch from there (the first update then carries every event since), so that the bot
    sees every event even when other seats act before its watch is open.
    """

    def __init__(
        self,
        seat: SeatHandle,
        *,
        seed: int | str | None = None,
        rng: random.Random | None = None,
        on_accepted: OnAccepted | None = None,
        on_update: OnUpdate | None = None,
        after_sequence: int | None = None,
    ) -> None:
        self.seat = seat
        self.after_sequence = after_sequence
        self.rng = rng if rng is not None else random.Random(seed)
        self.on_accepted = on_accepted
        self.on_update = on_update
        #: Every command the service accepted from this bot, with its answer, in order.
        self.accepted: list[tuple[Mapping[str, Any], Accepted]] = []
        #: Commands sent when the connection broke before the answer: (command, expected_sequence).
        #: Each was applied or not; the log tells which.
        self.unanswered: list[tuple[Mapping[str, Any], int]] = []
        self._jitter = random.Random()  # pauses only, so that retries never change the game's choices

    def choose(self, view: View, commands: list[dict[str, Any]]) -> dict[str, Any]:
        """The command to send, among ``commands`` (never empty), given the seat's ``view``.

        ``commands`` are the seat's legal commands, or the first page of them (1,000) when there
        are more. This bot's own choice is uniform over every legal command all the same: beyond
        a page it picks an index and asks the service for that command (:meth:`act`).
        """
        return self.rng.choice(commands)

    async def decide(self, view: View, commands: list[dict[str, Any]]) -> dict[str, Any]:
        """:meth:`choose`, awaited: a bot that thinks for long overrides this to think off the event loop."""
        return self.choose(view, commands)

    async def _any_of(self, legal: LegalCommands) -> dict[str, Any] | None:
        """A uniform choice among all ``legal.total`` commands; None when the game moved on meanwhile.

        ``rng.choice`` over a list draws ``randrange(len)``: this draws the same, so a seeded bot
        makes the same choices whether or not the page held every command.
        """
        index = self.rng.randrange(legal.total)
        if index < len(legal.commands):
            return legal.commands[index]
        page = await self.seat.legal_commands(index, 1)
        return page.commands[0] if page.sequence == legal.sequence and page.commands else None

    @property
    def _uniform(self) -> bool:
        """True when this bot's choice is this class's own uniform one (neither hook overridden)."""
        return type(self).choose is RandomBot.choose and type(self).decide is RandomBot.decide

    async def run(self) -> View:
        """Play until the match is over; returns the seat's final view."""
        final: View | None = None
        after = self.after_sequence
        while final is None or not final.over:
            try:
                async for update in self.seat.watch(after):
                    if self.on_update is not None:
                        self.on_update(update)
                    final, after = update.view, update.sequence
                    if update.view.my_turn:
                        await self.act(update.view)
            except RateLimited as error:  # still refused after the client's resends: slow down, watch again
                await asyncio.sleep(self.seat.client.retry.pushback(error.retry_after, self._jitter))
        return final

    async def act(self, view: View) -> None:
        """Decide and submit once for ``view``, unless the game has moved past it.

        A newer state always comes through the watch, so the bot simply returns when its
        view is stale; while the service is unreachable it retries with backoff.
        """
        delays = self.seat.client.retry.delays(self._jitter)
        while True:
            try:
                legal = await self.seat.legal_commands()
            except ServiceUnavailable:
                await asyncio.sleep(next(delays))
                continue
            except RateLimited as error:
                await asyncio.sleep(self.seat.client.retry.pushback(error.retry_after, self._jitter))
                continue
            if legal.sequence != view.sequence or not legal.commands:
                return  # the watch is behind: its next update brings the newer state
            if legal.total > len(legal.commands) and self._uniform:
                found = await self._any_of(legal)
                if found is None:
                    return  # the game moved on while the command was fetched
                command = found
            else:
                command = await self.decide(view, legal.commands)
            try:
                accepted = await self.seat.submit(command, expected_sequence=legal.sequence)
            except StaleSequence:
                return
            except RateLimited as error:  # nothing was done: look again after the hint (the same sequence)
                await asyncio.sleep(self.seat.client.retry.pushback(error.retry_after, self._jitter))
                continue
            except CommandRejected as error:
                if error.reason != DEADLINE_PASSED:
                    raise  # a listed command refused: a bug somewhere
                return  # too late: the match clock's consequence is on its way through the watch
            except ServiceUnavailable:
                # The connection broke: the command may or may not have been applied. Look
                # again; with expected_sequence a second submit can never apply twice.
                self.unanswered.append((command, legal.sequence))
                await asyncio.sleep(next(delays))
                continue
            self.accepted.append((command, accepted))
            if self.on_accepted is not None:
                self.on_accepted(command, accepted)
            return
