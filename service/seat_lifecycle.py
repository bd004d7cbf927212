"""The seat lifecycle of any game: Resign, Abort, HandOver and ReissueToken (the application layer).

Each is a batch the service writes itself (``Games.record``) after checking who asks:

* ``resign``: a seat's token; the match ends, the seat and its side rank last (``seat_resigned``);
* ``abort``: a seat's token or the owner token, only before any seat played (a command in the
  log): ``game_aborted``; PLAY_BEGAN otherwise;
* ``hand_over``: a seat's token for its own seat, or the owner token for any seat; a bot strength
  (engine/core/time_control.py) or "" to give the seat back to its player (``seat_handed_over``);
  the bot plays through service/table_clocks.py;
* ``reissue_token``: the owner token; the seat's new token's hash is written with the
  ``token_reissued`` event in one insert; the old token stops working at once (in every
  process: one that reads the event reloads the seats' hashes).

Every refusal writes nothing: GAME_OVER once the match has ended, TOKEN_INVALID for a token that
is neither, OWNER_TOKEN_REQUIRED, INVALID_SEAT.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from cardgames.engine.core.events import GameAborted, SeatHandedOver, SeatResigned, TokenReissued
from cardgames.engine.core.protocol import GameRules, RejectionCode, reject
from cardgames.engine.core.time_control import BOT_STRENGTHS
from cardgames.service import seat_store
from cardgames.service.errors import OwnerTokenRequired
from cardgames.service.games import (
    Games,
    InvalidRequest,
    MissingToken,
    NotNow,
    Rejected,
    StaleSequenceError,
    WrongToken,
    token_hash,
)
from cardgames.service.games.auth import seat_required
from cardgames.service.seat_store import TokenRecord

#: Attempts of a lifecycle call that meets another process's write.
ATTEMPTS = 3


@dataclass(frozen=True)
class Written:
    """A lifecycle call's outcome: the sequence and head after it (``token``: a reissued token)."""

    sequence: int
    head: str
    token: str = ""


def _owner(live: Any, token: str | None) -> bool:
    return (
        bool(token)
        and bool(live.header.owner_hash)
        and hmac.compare_digest(live.header.owner_hash, token_hash(token or ""))
    )


def _over(rules: GameRules, state: Any) -> None:
    if rules.is_over(state):
        raise Rejected(reject(RejectionCode.GAME_OVER, "the match is over", "seat"))


async def _write(
    games: Games,
    game_id: str,
    decide: Callable[[GameRules, Any], Sequence[Any] | None],
    *,
    expected: int | None = None,
    token: TokenRecord | None = None,
) -> Written:
    """Record the batch ``decide`` gives on the latest state (again when another process wrote first,
    unless the caller named the sequence it decided at: STALE_SEQUENCE then). No events: nothing written."""
    for _ in range(ATTEMPTS):
        produced: list[bool] = []

        def counted(rules: GameRules, state: Any, produced: list[bool] = produced) -> list[Any]:
            events = list(decide(rules, state) or ())
            produced.append(bool(events))
            return events

        sequence = await games.record(game_id, expected, counted, token=token)
        live = await games.game(game_id)
        if sequence is not None or produced == [False]:
            return Written(live.sequence, live.head.hex())
        if expected is not None:
            raise StaleSequenceError.at(expected, live.sequence)
    raise StaleSequenceError.at(live.sequence, live.sequence)


async def resign(games: Games, game_id: str, token: str | None) -> Written:
    """The token's seat resigns."""
    live = await games.fresh(game_id)
    seat = seat_required(live, token)

    def decide(rules: GameRules, state: Any) -> list[Any]:
        _over(rules, state)
        return [SeatResigned(seat)]

    return await _write(games, game_id, decide)


async def abort(games: Games, game_id: str, token: str | None) -> Written:
    """Call the match off before any seat played (a seat's token or the owner token)."""
    live = await games.fresh(game_id)
    by = None if _owner(live, token) else seat_required(live, token)
    _over(live.rules, live.state)
    sequence = live.sequence
    log = await games.read(games.store.log, live.game_id, live.rules, 0, sequence)
    if any(note.command is not None for _, note in log):
        raise NotNow("a seat has played: the match can no longer be aborted (resign instead)", reason="PLAY_BEGAN")

    def decide(rules: GameRules, state: Any) -> list[Any]:
        _over(rules, state)
        return [GameAborted(by)]

    return await _write(games, game_id, decide, expected=sequence)


async def hand_over(games: Games, game_id: str, token: str | None, seat: int | None, bot: str) -> Written:
    """Hand ``seat`` (None: the token's own) to the bot ``bot`` (a strength), or back to its player ("")."""
    if bot and bot not in BOT_STRENGTHS:
        raise InvalidRequest(
            f"the bot is one of {', '.join(BOT_STRENGTHS)}, or none to hand a seat back", reason="INVALID_BOT"
        )
    live = await games.fresh(game_id)
    if _owner(live, token):
        if seat is None:
            raise InvalidRequest("with the owner token, name the seat to hand over", reason="INVALID_SEAT")
    else:
        own = seat_required(live, token)
        if seat is not None and seat != own:
            raise WrongToken("a seat's token hands over only its own seat (the owner token hands over any)")
        seat = own
    assert seat is not None
    target = _seat_of(live, seat)

    def decide(rules: GameRules, state: Any) -> list[Any]:
        _over(rules, state)
        return [] if state.bots.get(target, "") == bot else [SeatHandedOver(target, bot)]

    if bot and live.control is None:  # its bot must go on after a restart: the table clocks find it
        await games.write(seat_store.mark_clocked, games.store, live.game_id)
    return await _write(games, game_id, decide)


async def reissue_token(games: Games, game_id: str, token: str | None, seat: int | None) -> Written:
    """A new token for ``seat`` (the owner token only); the old one stops working."""
    live = await games.fresh(game_id)
    if not token:
        raise MissingToken("ReissueToken acts for the game's owner: send the owner token in cardgames-token")
    if not _owner(live, token):
        raise OwnerTokenRequired("only the game's owner token reissues a seat's token")
    if seat is None:
        raise InvalidRequest("name the seat whose token to reissue", reason="INVALID_SEAT")
    target = _seat_of(live, seat)
    new = secrets.token_urlsafe(32)

    def decide(rules: GameRules, state: Any) -> list[Any]:
        _over(rules, state)
        return [TokenReissued(target)]

    written = await _write(games, game_id, decide, token=TokenRecord(target, token_hash(new)))
    return Written(written.sequence, written.head, new)


def _seat_of(live: Any, seat: int) -> int:
    if not 0 <= seat < live.header.players:
        raise InvalidRequest(
            f"seat {seat} is not a seat of this {live.header.players}-seat match", reason="INVALID_SEAT"
        )
    return seat
