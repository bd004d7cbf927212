"""A blocking wrapper of the asyncio client, for scripts and notebooks.

>>> with SyncGameClient("127.0.0.1:50051") as client:                # doctest: +SKIP
...     created = client.create_game("all_fours", seed=7)
...     seat = client.seat(created.game_id, created.tokens[0])
...     print(seat.view().data["hand"])

It runs the asyncio client on an event loop of its own, in a background thread; every
method blocks until the call is done and raises the same typed errors. ``watch`` is a
plain iterator.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncGenerator, Coroutine, Generator, Mapping, Sequence
from concurrent.futures import Future
from types import TracebackType
from typing import Any, TypeVar

from cardgames.clients.client import GameClient, OwnerHandle, SeatHandle
from cardgames.clients.models import Accepted, CreatedGame, LegalCommands, Log, TimeControl, Update, View, Written
from cardgames.clients.retries import Retry

T = TypeVar("T")


class SyncGameClient:
    """:class:`cardgames.clients.client.GameClient` with blocking methods. Close it (or use ``with``)."""

    def __init__(self, address: str, *, retry: Retry | None = None) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="cardgames-client", daemon=True)
        self._thread.start()
        self._client = self.run(self._open(address, retry))  # the channel belongs to the loop's thread

    @staticmethod
    async def _open(address: str, retry: Retry | None) -> GameClient:
        return GameClient(address, retry=retry)

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run a coroutine on the client's loop and wait for its result."""
        future: Future[T] = asyncio.run_coroutine_threadsafe(coroutine, self._loop)
        return future.result()

    def __enter__(self) -> SyncGameClient:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        """Close the channel and stop the loop's thread."""
        if self._loop.is_closed():
            return
        self.run(self._client.close())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()
        self._loop.close()

    @property
    def client(self) -> GameClient:
        """The asyncio client underneath (its coroutines run with :meth:`run`)."""
        return self._client

    def create_game(
        self,
        game: str,
        *,
        options: Mapping[str, Any] | None = None,
        players: int | None = None,
        seed: str | int | None = None,
        decks: Sequence[Sequence[str]] = (),
        dealer: int | None = None,
        time_control: TimeControl | None = None,
    ) -> CreatedGame:
        """See :meth:`GameClient.create_game`."""
        return self.run(
            self._client.create_game(game, options=options, players=players, seed=seed, decks=decks, dealer=dealer,
                                     time_control=time_control)
        )

    def owner(self, game_id: str, owner_token: str) -> SyncOwner:
        """See :meth:`GameClient.owner`."""
        return SyncOwner(self, self._client.owner(game_id, owner_token))

    def seat(self, game_id: str, token: str, *, game: str | None = None) -> SyncSeat:
        return SyncSeat(self, self._client.seat(game_id, token, game=game))

    def spectator(self, game_id: str, *, game: str | None = None) -> SyncSeat:
        return SyncSeat(self, self._client.spectator(game_id, game=game))


async def _next(updates: AsyncGenerator[Update, None]) -> Update:
    return await anext(updates)


class SyncSeat:
    """:class:`cardgames.clients.client.SeatHandle` with blocking methods."""

    def __init__(self, owner: SyncGameClient, handle: SeatHandle) -> None:
        self._owner = owner
        self.handle = handle

    @property
    def seat(self) -> int | None:
        return self.handle.seat

    def view(self, sequence: int | None = None) -> View:
        return self._owner.run(self.handle.view(sequence))

    def legal_commands(self, offset: int = 0, page_size: int = 0) -> LegalCommands:
        return self._owner.run(self.handle.legal_commands(offset, page_size))

    def submit(self, command: Mapping[str, Any], expected_sequence: int | None = None) -> Accepted:
        return self._owner.run(self.handle.submit(command, expected_sequence))

    def log(self, after_sequence: int = 0, limit: int = 0) -> Log:
        return self._owner.run(self.handle.log(after_sequence, limit))

    def resign(self) -> Written:
        return self._owner.run(self.handle.resign())

    def abort(self) -> Written:
        return self._owner.run(self.handle.abort())

    def hand_over(self, bot: str | None) -> Written:
        return self._owner.run(self.handle.hand_over(bot))

    def watch(self, after_sequence: int | None = None) -> Generator[Update, None, None]:
        """The updates of :meth:`SeatHandle.watch`, one at a time (close the iterator to stop early)."""
        updates = self.handle.watch(after_sequence)
        try:
            while True:
                try:
                    yield self._owner.run(_next(updates))
                except StopAsyncIteration:
                    return
        finally:
            self._owner.run(updates.aclose())


class SyncOwner:
    """:class:`cardgames.clients.client.OwnerHandle` with blocking methods."""

    def __init__(self, owner: SyncGameClient, handle: OwnerHandle) -> None:
        self._owner = owner
        self.handle = handle

    def abort(self) -> Written:
        return self._owner.run(self.handle.abort())

    def hand_over(self, seat: int, bot: str | None) -> Written:
        return self._owner.run(self.handle.hand_over(seat, bot))

    def reissue_token(self, seat: int) -> Written:
        return self._owner.run(self.handle.reissue_token(seat))
