"""Seat entropy: a game whose seats commit to, then reveal, entropy of their own before it starts.

Every seat first commits (SHA-256 of its entropy), then, once all have, reveals it; the last
reveal starts the match, shuffled with the seed combined from the server's and every seat's
(engine/core/fairness.py). Sending the same commitment or entropy again is a no-op.
"""

from __future__ import annotations

import msgspec

from cardgames.engine.core import fairness
from cardgames.engine.core.protocol import Setup
from cardgames.engine.core.replay import new_match
from cardgames.service.errors import InvalidRequest, NotNow, StaleSequenceError
from cardgames.service.games.auth import seat_required
from cardgames.service.games.bounds import servable
from cardgames.service.games.cache import LiveGames
from cardgames.service.games.executor import StoreExecutor
from cardgames.service.games.live import LiveGame
from cardgames.service.games.results import EntropyStatus
from cardgames.service.store import EntropyRecord, StaleSequence


class SeatEntropy:
    """The seats' commitments and reveals of the games of a process."""

    def __init__(self, games: LiveGames, executor: StoreExecutor) -> None:
        self.games = games
        self.executor = executor

    async def commit_entropy(self, game_id: str, token: str | None, commitment: str) -> EntropyStatus:
        """Record the token's seat's commitment (SHA-256 of its entropy, hex); the same again is a no-op."""
        commitment = commitment.lower()
        if not fairness.is_hex32(commitment):
            raise InvalidRequest("a commitment is SHA-256 in hex (64 hex digits)", reason="INVALID_ENTROPY")
        return await self._record(game_id, token, "commit", commitment)

    async def reveal_entropy(self, game_id: str, token: str | None, entropy: str) -> EntropyStatus:
        """Record the seat's entropy (32 bytes, hex) once every seat has committed; the last reveal starts the match."""
        entropy = entropy.lower()
        if not fairness.is_hex32(entropy):
            raise InvalidRequest("an entropy is 32 bytes in hex (64 hex digits)", reason="INVALID_ENTROPY")
        return await self._record(game_id, token, "reveal", entropy)

    async def _record(self, game_id: str, token: str | None, kind: str, value: str) -> EntropyStatus:
        live = await self.games.get(game_id)
        seat = seat_required(live, token)
        async with live.lock:
            if self.games.shared or live.suspect:
                await self.games.catch_up(live)
            commitments, entropies = live.commitments, live.entropies
            if commitments is None or entropies is None or live.started:
                why = "has started" if commitments is not None else "takes no seat entropy"
                raise NotNow(f"the game {why}", reason="NO_SEAT_ENTROPY")
            values = commitments if kind == "commit" else entropies
            if values[seat]:
                if values[seat] == value:
                    return status(live)
                done = "ALREADY_COMMITTED" if kind == "commit" else "ALREADY_REVEALED"
                raise NotNow(f"seat {seat} has already sent its {kind}", reason=done)
            if kind == "reveal":
                if not all(commitments):
                    raise NotNow("every seat commits before any reveals", reason="COMMITMENTS_PENDING")
                if fairness.commitment(value) != commitments[seat]:
                    raise InvalidRequest(f"this entropy does not hash to seat {seat}'s commitment",
                                         reason="ENTROPY_MISMATCH")
            written = sum(map(bool, commitments)) + sum(map(bool, entropies))
            after = [value if index == seat else old for index, old in enumerate(values)]
            start = state = None
            if kind == "reveal" and all(after):  # the last reveal: the match starts with the combined seed
                header = live.header
                assert header.seed is not None
                config = msgspec.convert(header.config, live.rules.Config)
                setup = Setup(seed=fairness.shuffle_seed(header.seed, after), decks=header.decks, dealer=header.dealer)
                state, events = new_match(live.rules, config, setup)
                servable(live.rules, header.game, events, state)
                notes = live.chain(1, events)
                start = (header.game, events, [note.hash for note in notes])
            record = EntropyRecord(seat, kind, value)
            try:
                await self.executor.write(self.executor.store.add_entropy, live.game_id, written, record, start)
            except StaleSequence:
                await self.games.catch_up(live)  # another process wrote first
                raise StaleSequenceError.at(0, live.sequence) from None
            if start is not None:
                live.advance(events, notes, state)
            values[seat] = value
            return status(live)


def status(live: LiveGame) -> EntropyStatus:
    """Where a seat-entropy game stands: commitments and reveals so far, and whether it started."""
    commitments, entropies = live.commitments or [], live.entropies or []
    return EntropyStatus(len(commitments), sum(map(bool, commitments)), sum(map(bool, entropies)), live.started,
                         live.sequence, live.head.hex())
