"""An asyncio client of the cardgames GameService (grpc.aio).

>>> async with GameClient("127.0.0.1:50051") as client:          # doctest: +SKIP
...     created = await client.create_game("all_fours", players=4)
...     seat = client.seat(created.game_id, created.tokens[0])
...     async for update in seat.watch():
...         if update.view.my_turn:
...             legal = await seat.legal_commands()
...             await seat.submit(legal.commands[0], expected_sequence=legal.sequence)

Commands, events and views are FORMAT.md-shaped plain data (``{"type": "play", "card":
"AS"}``), converted to and from the wire messages by :mod:`cardgames.wire`. Refusals
raise the typed errors of :mod:`cardgames.clients.errors`.

Reconnecting: reads (``view``, ``legal_commands``, ``log``) are retried while the service
is unreachable, for up to :attr:`Retry.timeout` seconds. ``watch`` reconnects the same way
and resumes after the last sequence it delivered, so a server restart loses and repeats
nothing. ``create_game`` and ``submit`` wait for the connection but are not re-sent after
a broken connection: :class:`ServiceUnavailable` then says that the outcome is unknown
(re-read the view; a retry with ``expected_sequence`` can never apply twice).

Refusals: a call the service refuses with RESOURCE_EXHAUSTED and a retry hint (its
``google.rpc.RetryInfo`` or the ``grpc-retry-pushback-ms`` trailer: too many calls from this
caller, or the service past its capacity) did nothing, so the client waits at least the hint
(jittered upwards) and sends it again, at most :attr:`Retry.refusals` times in a row and within
:attr:`Retry.timeout` seconds, then raises :class:`RateLimited`. Every call is resent that way,
a watch's opening too, except a ``submit`` without ``expected_sequence`` (only the sequence makes
a resent command impossible to apply twice): that one raises :class:`RateLimited` at once.
A RESOURCE_EXHAUSTED without a hint (:class:`ResourceExhausted`) is never resent.
"""

from __future__ import annotations

import asyncio
import hashlib
import random
import re
from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping, Sequence
from types import TracebackType
from typing import Any, TypeVar

import grpc

from cardgames import wire
from cardgames.clients.errors import (
    TRANSIENT_CODES,
    CardgamesError,
    CommandRejected,
    InvalidRequest,
    RateLimited,
    ServiceUnavailable,
    from_rpc_error,
)
from cardgames.clients.models import (
    BOT_STRENGTHS,
    Accepted,
    CreatedGame,
    LegalCommands,
    Log,
    TimeControl,
    Update,
    View,
    Written,
    log_events,
)
from cardgames.clients.retries import Refusals, Retry
from cardgames.v1 import game_service_pb2 as pb
from cardgames.v1 import game_service_pb2_grpc
from cardgames.v1.common_pb2 import CardList

#: The call metadata key that carries a seat's token.
TOKEN_METADATA = "cardgames-token"

#: Channel options: reconnect quickly once a restarted server listens again.
CHANNEL_OPTIONS: tuple[tuple[str, int], ...] = (
    ("grpc.initial_reconnect_backoff_ms", 100),
    ("grpc.min_reconnect_backoff_ms", 100),
    ("grpc.max_reconnect_backoff_ms", 1000),
    ("grpc.use_local_subchannel_pool", 1),  # close() then really closes the connection
)

R = TypeVar("R")
_HEX_SEED = re.compile(r"[0-9a-fA-F]{64}")
#: A watch that fails with one of these reconnects (CANCELLED: the server cancelled it, shutting down).
_RECONNECT_CODES = TRANSIENT_CODES | {grpc.StatusCode.CANCELLED}


def _auth(token: str | None) -> tuple[tuple[str, str], ...]:
    return ((TOKEN_METADATA, token),) if token else ()


class GameClient:
    """A connection to one GameService. Use it as an async context manager, or ``close()`` it.

    ``address`` is ``host:port``; ``channel`` replaces the insecure channel the client
    would open (e.g. a TLS channel).
    """

    def __init__(
        self,
        address: str,
        *,
        retry: Retry | None = None,
        channel: grpc.aio.Channel | None = None,
    ) -> None:
        self.address = address
        self.retry = retry or Retry()
        self._channel = channel or grpc.aio.insecure_channel(address, options=CHANNEL_OPTIONS)
        self._stub = game_service_pb2_grpc.GameServiceStub(self._channel)
        self._rng = random.Random()  # jitter only: never game decisions

    async def __aenter__(self) -> GameClient:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        await self.close()

    async def close(self) -> None:
        """Close the channel (open calls and watches end)."""
        await self._channel.close()

    @property
    def stub(self) -> game_service_pb2_grpc.GameServiceStub:
        """The raw generated stub, for what this client does not wrap."""
        return self._stub

    # -- calls ---------------------------------------------------------------------

    async def call(
        self,
        rpc: Callable[..., Awaitable[R]],
        request: Any,
        token: str | None = None,
        *,
        idempotent: bool = True,
        resend_refused: bool = True,
    ) -> R:
        """One unary call with the token, typed errors and (for reads) retries while unreachable.

        The call waits for the connection to be ready (``wait_for_ready``), so a request is
        only sent to a listening server; an idempotent call is tried again when the
        connection breaks during it. A refusal with a retry hint is resent after the hint
        (jittered, bounded: :class:`Refusals`) unless ``resend_refused`` is false.
        """
        loop = asyncio.get_running_loop()
        give_up = loop.time() + self.retry.timeout
        delays = self.retry.delays(self._rng)
        refusals = Refusals(self.retry, self._rng, loop.time)
        while True:
            timeout = min(self.retry.call_timeout, max(0.1, give_up - loop.time()))
            try:
                return await rpc(request, metadata=_auth(token), timeout=timeout, wait_for_ready=True)
            except grpc.aio.AioRpcError as error:
                failure = from_rpc_error(error)
            if isinstance(failure, RateLimited):
                pause = refusals.pause(failure) if resend_refused else None
                if pause is None:
                    raise failure
                await asyncio.sleep(pause)  # refused before doing anything: safe to resend
            elif idempotent and failure.status in TRANSIENT_CODES and loop.time() < give_up:
                await asyncio.sleep(next(delays))
            else:
                raise failure

    async def create_game(
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
        """Start a match of ``game`` and return its id and one secret token per seat.

        ``options`` are the rules file's configuration keys (unset ones keep their
        defaults); ``seed`` is 64 hex digits, or any other text or int, hashed as
        :func:`seed_hex` says; unset, the service draws one. ``decks`` are stacked orders (top first) for the first
        shuffles; ``dealer`` skips the first-dealer draw. ``time_control``: a clock for every seat
        (the created game's ``owner_token`` then handles a seat whose player leaves: :meth:`owner`).
        """
        request = pb.CreateGameRequest(game=game, decks=[CardList(cards=list(deck)) for deck in decks])
        if options:
            try:
                request.options.CopyFrom(wire.wrap_options(game, options))
            except wire.WireError as error:
                raise InvalidRequest(f"invalid options: {error}", reason="INVALID_OPTIONS") from None
        if players is not None:
            request.players = players
        if seed is not None:
            request.seed = seed_hex(seed)
        if dealer is not None:
            request.dealer = dealer
        if time_control is not None:
            request.time_control.CopyFrom(time_control.to_message())
        reply = await self.call(self._stub.CreateGame, request, idempotent=False)
        return CreatedGame(reply.game_id, game, tuple(reply.seat_tokens), reply.sequence, reply.owner_token)

    def owner(self, game_id: str, owner_token: str) -> OwnerHandle:
        """The game owner's handle (CreateGame's ``owner_token``): abort, hand seats over, reissue tokens."""
        return OwnerHandle(self, game_id, owner_token)

    def seat(self, game_id: str, token: str, *, game: str | None = None) -> SeatHandle:
        """The handle of the seat ``token`` belongs to (no call is made: see :meth:`join`)."""
        return SeatHandle(self, game_id, token, game=game)

    def spectator(self, game_id: str, *, game: str | None = None) -> SeatHandle:
        """A handle without a token: the public view, the public log, no commands."""
        return SeatHandle(self, game_id, None, game=game)

    async def join(self, game_id: str, token: str) -> SeatHandle:
        """The seat's handle, after checking the token with the service (AuthError if it is not a seat's)."""
        handle = self.seat(game_id, token)
        await handle.view()
        return handle


def seed_hex(seed: str | int) -> str:
    """A seed as the service takes it (64 hex digits).

    64 hex digits pass as they are; any other seed, an int or a text, is a seed a person
    gives and becomes ``SHA-256(UTF-8 bytes of its text)`` (docs/shuffle.md), so ``7``,
    ``"7"`` and ``cardgames play --seed 7`` are the same seed.
    """
    if isinstance(seed, str) and _HEX_SEED.fullmatch(seed):
        return seed.lower()
    return hashlib.sha256(str(seed).encode("utf-8")).hexdigest()


class SeatHandle:
    """One seat of one match (or a spectator, without a token), seen through a :class:`GameClient`.

    ``seat`` (the seat number) and ``game`` (the game's name) are known once a view has
    been read (``view()``, ``watch()``, or ``join`` on the client).
    """

    def __init__(self, client: GameClient, game_id: str, token: str | None, *, game: str | None = None) -> None:
        self.client = client
        self.game_id = game_id
        self.token = token
        self.game = game
        self.seat: int | None = None

    def __repr__(self) -> str:
        who = "spectator" if self.token is None else f"seat {self.seat if self.seat is not None else '?'}"
        return f"<SeatHandle {self.game or 'game'} {self.game_id} {who}>"

    def _learn(self, view: View) -> None:
        self.game = view.game
        self.seat = view.seat

    async def _game_name(self) -> str:
        if self.game is None:
            await self.view()
        assert self.game is not None
        return self.game

    async def view(self, sequence: int | None = None) -> View:
        """The seat's view now, or at an earlier ``sequence`` (its own hand only; spectator: public)."""
        request = pb.GetViewRequest(game_id=self.game_id, sequence=sequence)
        reply = await self.client.call(self.client.stub.GetView, request, self.token)
        view = View.from_message(reply.view)
        self._learn(view)
        return view

    async def legal_commands(self, offset: int = 0, page_size: int = 0) -> LegalCommands:
        """The commands this seat may send now, as FORMAT.md dicts, with the sequence they hold at.

        One page: ``page_size`` commands (0: the service's default, 1,000; at most 10,000) from
        index ``offset``; ``total`` says how many there are in all. At one sequence the order
        never changes, so ``legal_commands(i, 1)`` is the command at index ``i``. A page of
        commands that are slow to make (deep into a listing of billions) may stop short: the
        next one starts at ``offset + len(commands)``.
        """
        request = pb.ListLegalCommandsRequest(game_id=self.game_id, offset=offset, page_size=page_size)
        reply = await self.client.call(self.client.stub.ListLegalCommands, request, self.token)
        self.seat = reply.seat
        commands = [wire.unwrap(command)[1] for command in reply.commands]
        return LegalCommands(reply.sequence, reply.seat, commands, reply.total, reply.offset)

    async def submit(self, command: Mapping[str, Any], expected_sequence: int | None = None) -> Accepted:
        """Send one command (a FORMAT.md dict) for this seat; returns the new sequence and its events.

        With ``expected_sequence`` the service refuses the command (:class:`StaleSequence`)
        unless the game is still at that sequence, and a refusal with a retry hint is resent
        (the sequence makes it impossible to apply twice); without it such a refusal raises
        :class:`RateLimited` at once. Raises :class:`CommandRejected` when the rules refuse it
        (nothing is written then) and :class:`ServiceUnavailable` when the connection broke
        before the answer (the outcome is then unknown).
        """
        game = await self._game_name()
        try:
            message = wire.wrap(pb.Command, game, command, ignore_unknown=True)
        except wire.WireError as error:
            raise CommandRejected("invalid_command", "", f"the command fits no {game} message: {error}") from None
        request = pb.SubmitCommandRequest(game_id=self.game_id, command=message, expected_sequence=expected_sequence)
        reply = await self.client.call(self.client.stub.SubmitCommand, request, self.token, idempotent=False,
                                       resend_refused=expected_sequence is not None)
        return Accepted(reply.sequence, log_events(reply.events))

    async def log(self, after_sequence: int = 0, limit: int = 0) -> Log:
        """The events after ``after_sequence`` (at most ``limit``; 0: all) as this seat may see them.

        Once the match is over every event shows in full, the seed included.
        """
        request = pb.GetLogRequest(game_id=self.game_id, after_sequence=after_sequence, limit=limit)
        reply = await self.client.call(self.client.stub.GetLog, request, self.token)
        return Log(reply.sequence, log_events(reply.events))

    async def resign(self) -> Written:
        """This seat resigns: the match ends, the seat and its side rank last."""
        reply = await self.client.call(self.client.stub.Resign, pb.ResignRequest(game_id=self.game_id), self.token,
                                       idempotent=False)
        return Written(reply.sequence)

    async def abort(self) -> Written:
        """Call the match off before any seat played (PLAY_BEGAN afterwards)."""
        reply = await self.client.call(self.client.stub.Abort, pb.AbortRequest(game_id=self.game_id), self.token,
                                       idempotent=False)
        return Written(reply.sequence)

    async def hand_over(self, bot: str | None) -> Written:
        """Let the built-in bot ``bot`` ("random", "heuristic", "search") play this seat; None: take it back."""
        request = pb.HandOverRequest(game_id=self.game_id, bot=BOT_STRENGTHS[bot] if bot else 0)  # type: ignore[arg-type]
        reply = await self.client.call(self.client.stub.HandOver, request, self.token, idempotent=False)
        return Written(reply.sequence)

    async def watch(
        self, after_sequence: int | None = None, *, presence: bool = False
    ) -> AsyncGenerator[Update, None]:
        """The seat's view, then every new batch of events with the view after it, until the match ends.

        Without ``after_sequence`` the first update is the current view (no events); with
        it, the first update carries every event after that sequence. When the connection
        breaks (a server restart) the watch reconnects with backoff and resumes after the
        last sequence it delivered: no event is missed or repeated. The first update after
        a reconnection has ``resumed`` set. Raises :class:`ServiceUnavailable` after
        ``Retry.timeout`` seconds without reaching the service. An opening refused with a retry
        hint is tried again after the hint (jittered), :attr:`Retry.refusals` times in a row at
        most, then :class:`RateLimited` is raised. ``presence``: also an update (no
        events) whenever a seat comes or goes (``Update.presence``).
        """
        client = self.client
        loop = asyncio.get_running_loop()
        last = after_sequence
        resumed = False
        failing_since: float | None = None
        delays = client.retry.delays(client._rng)
        refusals = Refusals(client.retry, client._rng, loop.time)
        while True:
            request = pb.WatchRequest(game_id=self.game_id, after_sequence=last, presence=presence)
            call = client.stub.Watch(request, metadata=_auth(self.token))
            failure: CardgamesError | None = None
            try:
                async for message in call:
                    failing_since = None
                    delays = client.retry.delays(client._rng)
                    refusals.reset()
                    view = View.from_message(message.view)
                    self._learn(view)
                    events = log_events(message.events)
                    if last is not None:
                        events = tuple(event for event in events if event.sequence > last)
                    changes = tuple((change.seat, change.connected) for change in message.presence)
                    update = Update(message.sequence, events, view, resumed, changes)
                    resumed = False
                    last = message.sequence
                    yield update
                    if view.over:
                        return
                # The service ends a stream only once the match is over: any other end is a
                # shutdown, as is a failure in TRANSIENT_CODES or a cancellation by the server.
            except grpc.aio.AioRpcError as error:
                failure = from_rpc_error(error)
                if not isinstance(failure, RateLimited) and failure.status not in _RECONNECT_CODES:
                    raise failure from None
            finally:
                call.cancel()
            resumed = True
            if isinstance(failure, RateLimited):
                pause = refusals.pause(failure)
                if pause is None:
                    raise failure from None
                await asyncio.sleep(pause)
                continue
            now = loop.time()
            failing_since = now if failing_since is None else failing_since
            if now - failing_since > client.retry.timeout:
                raise ServiceUnavailable(
                    f"no answer from {client.address} for {client.retry.timeout:.0f} s: {failure}",
                    status=grpc.StatusCode.UNAVAILABLE,
                )
            await asyncio.sleep(next(delays))


class OwnerHandle:
    """The owner of one match (CreateGame's ``owner_token``): what it may do for any seat."""

    def __init__(self, client: GameClient, game_id: str, token: str) -> None:
        self.client = client
        self.game_id = game_id
        self.token = token

    async def abort(self) -> Written:
        """Call the match off before any seat played."""
        reply = await self.client.call(self.client.stub.Abort, pb.AbortRequest(game_id=self.game_id), self.token,
                                       idempotent=False)
        return Written(reply.sequence)

    async def hand_over(self, seat: int, bot: str | None) -> Written:
        """Let the built-in bot ``bot`` play ``seat``; None: give the seat back to its player."""
        request = pb.HandOverRequest(game_id=self.game_id, seat=seat, bot=BOT_STRENGTHS[bot] if bot else 0)  # type: ignore[arg-type]
        reply = await self.client.call(self.client.stub.HandOver, request, self.token, idempotent=False)
        return Written(reply.sequence)

    async def reissue_token(self, seat: int) -> Written:
        """A new token for ``seat`` (``Written.token``); the old one stops working at once."""
        request = pb.ReissueTokenRequest(game_id=self.game_id, seat=seat)
        reply = await self.client.call(self.client.stub.ReissueToken, request, self.token, idempotent=False)
        return Written(reply.sequence, reply.seat_token)


__all__ = [
    "CHANNEL_OPTIONS",
    "TOKEN_METADATA",
    "CardgamesError",
    "GameClient",
    "OwnerHandle",
    "Retry",
    "SeatHandle",
    "seed_hex",
]
