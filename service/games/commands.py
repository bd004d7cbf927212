"""Commands: a seat's command decided by the rules and written, and batches the service decides itself.

Per game, commands are applied one at a time (the live game's lock); the store's unique (game,
sequence) key still guards against another process writing at the same sequence. The cache may
be behind the store (another process wrote to a shared store, or a write's outcome is unknown):
a command is decided on the cache, and caught up first only when that is known to be needed
(the game is suspect, or the caller names a later sequence). A refusal on a shared store is
decided again on the latest state before it is final, and a write that meets another process's
write is decided again on the latest state (``SUBMIT_ATTEMPTS`` times in all) unless the caller
named its ``expected_sequence``, which is then stale.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import msgspec

from cardgames.engine.core.commands import parse_command
from cardgames.engine.core.protocol import GameRules, Malformed, Rejection
from cardgames.engine.core.replay import fold
from cardgames.service.errors import Rejected, StaleSequenceError, StoreUnavailable
from cardgames.service.games.auth import seat_required
from cardgames.service.games.bounds import servable
from cardgames.service.games.cache import LiveGames
from cardgames.service.games.disclosure import Disclosure
from cardgames.service.games.executor import StoreExecutor
from cardgames.service.games.live import LiveGame
from cardgames.service.games.results import Accepted, entries_for
from cardgames.service.store import Note, StaleSequence

#: Attempts of a command sent without expected_sequence that meets another process's write.
SUBMIT_ATTEMPTS = 3

#: The clocks' hook (service/clocks.py): called with (live game, seat, events) before a seat's
#: command is written, lock held; may refuse it (a ServiceError) or add events after the batch.
ClockHook = Callable[[LiveGame, int, list[Any]], list[Any]]


class Commands:
    """Writes the games' batches (see the module's docstring)."""

    def __init__(self, games: LiveGames, executor: StoreExecutor, disclosure: Disclosure) -> None:
        self.games = games
        self.executor = executor
        self.disclosure = disclosure
        self.clock_hook: ClockHook | None = None

    async def submit(
        self,
        game_id: str,
        token: str | None,
        command: Mapping[str, Any] | Malformed,
        expected_sequence: int | None = None,
        *,
        for_game: str | None = None,
    ) -> Accepted:
        """Apply one command for the token's seat; raises a ServiceError (nothing written) otherwise.

        ``for_game`` is the game the command was written for (the wire's oneof): another game's
        command is malformed here.
        """
        live = await self.games.get(game_id)
        if not live.started:
            live = await self.games.fresh(game_id)  # MATCH_NOT_STARTED, unless another process started it
        seat = seat_required(live, token)
        game = live.header.game
        if for_game is not None and for_game != game and not isinstance(command, Malformed):
            command = Malformed(f"a {for_game} command sent to a {game} game", type=command.get("type"))
        parsed = command if isinstance(command, Malformed) else parse_command(live.rules, command)
        async with live.lock:
            fresh = live.suspect or (expected_sequence is not None and expected_sequence > live.sequence)
            if fresh:
                await self.games.catch_up(live)
            attempts = 0
            while True:
                attempts += 1
                events, state, fresh = await self._decide(live, seat, parsed, expected_sequence, fresh)
                recorded = msgspec.to_builtins(parsed)  # the command as the rules read it
                notes = live.chain(live.sequence + 1, events, seat, recorded)
                try:
                    await self._write(live, events, (seat, recorded), notes)
                    break
                except StaleSequence:
                    await self.games.catch_up(live)  # another process wrote first: reload what it wrote
                    fresh = True
                    if expected_sequence is not None or attempts >= SUBMIT_ATTEMPTS:
                        stale = live.sequence if expected_sequence is None else expected_sequence
                        raise StaleSequenceError.at(stale, live.sequence) from None
                    # no sequence was asked for: decide again on the latest state
            first = live.advance(events, notes, state)
            sequence = live.sequence
            self.games.save_snapshot(live, first)
        over = live.rules.is_over(state)
        entries = entries_for(live.rules, first, events, seat, await self.disclosure.disclosed(live, over), notes)
        return Accepted(game, seat, sequence, entries, notes[-1].hash)

    async def _decide(
        self, live: LiveGame, seat: int, command: Any, expected: int | None, fresh: bool
    ) -> tuple[list[Any], Any, bool]:
        """The command's batch on the live state and the state after it (clock events included), and
        whether the live game is known to be fresh now: a refusal on a shared store is decided again on
        the latest state before it is final."""
        while True:
            if expected is not None and expected != live.sequence:
                raise StaleSequenceError.at(expected, live.sequence)
            outcome = live.rules.decide(live.state, seat, command)
            if not isinstance(outcome, Rejection):
                break
            if fresh or not self.games.shared:
                raise Rejected(outcome)
            await self.games.catch_up(live)
            fresh = True
        events = list(outcome)
        state = fold(live.rules, live.state, events)
        servable(live.rules, live.header.game, events, state)  # before the clocks count the move
        if self.clock_hook is not None:
            hooked = self.clock_hook(live, seat, events)
            state = fold(live.rules, state, hooked[len(events):])  # the hook adds events after the batch
            events = hooked
        return events, state, fresh

    async def record(
        self, game_id: str, expected_sequence: int, decide: Callable[[GameRules, Any], Sequence[Any] | None]
    ) -> int | None:
        """Write a batch the service decided itself, with no seat's command (a seat's clock ran out).

        ``decide(rules, state)`` gives the batch's events on the state at ``expected_sequence``
        (None or none: nothing to write). Returns the new sequence, or None when nothing was
        written (the game had moved on: the caller decides again on the new state).
        """
        live = await self.games.get(game_id)
        async with live.lock:
            if live.suspect:
                await self.games.catch_up(live)
            if expected_sequence != live.sequence:
                return None
            events = list(decide(live.rules, live.state) or ())
            if not events:
                return None
            state = fold(live.rules, live.state, events)
            servable(live.rules, live.header.game, events, state)
            notes = live.chain(live.sequence + 1, events)
            try:
                await self._write(live, events, None, notes)
            except StaleSequence:
                await self.games.catch_up(live)
                return None
            live.advance(events, notes, state)
            return live.sequence

    async def _write(
        self, live: LiveGame, events: list[Any], command: tuple[int, Any] | None, notes: list[Note]
    ) -> None:
        """Write a batch after the live game's sequence (lock held): StaleSequence if another process did.

        When the store fails or is late the live game is suspect: the insert may have happened.
        """
        hashes = [note.hash for note in notes]

        def late() -> None:
            live.suspect = True

        try:
            await self.executor.append(live.game_id, live.header.game, live.sequence, events, command, hashes,
                                       on_late=late)
        except StoreUnavailable:
            live.suspect = True
            raise
