"""The store's records beside a game's stream for its seats and clock: reissued tokens, clocked games.

* A reissued token: its SHA-256 (never the token) as the next record of the game's token stream,
  written in ONE insert with the batch of its ``token_reissued`` event (service/seat_lifecycle.py).
* A game with a time control gets one marker record (topic :data:`CLOCKED_TOPIC`) in the insert
  that creates it (a game without one, when a seat is first handed to a bot); :func:`clocked_games`
  finds them through the store's notification log, so a process finds every clocked game at start
  (after a restart) and as other processes create them (service/table_clocks.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import suppress
from typing import Any
from uuid import UUID, uuid5

import msgspec
from eventsourcing.persistence import IntegrityError, StoredEvent

from cardgames.service.store import EventStore, StaleSequence

TOKEN_TOPIC = "cardgames.token"
CLOCKED_TOPIC = "cardgames.clocked"


class TokenRecord(msgspec.Struct, frozen=True):
    """A seat's token reissued: the SHA-256 of its new token (never the token)."""

    seat: int
    token_hash: str


_encoder = msgspec.json.Encoder()
_token_decoder = msgspec.json.Decoder(TokenRecord)


def token_stream(game_id: UUID) -> UUID:
    """The id of a game's stream of reissued tokens (their hashes)."""
    return uuid5(game_id, "cardgames.tokens")


def clocked_marker(game_id: UUID) -> StoredEvent:
    """The record that marks a game as clocked (written with the game's creation)."""
    return StoredEvent(uuid5(game_id, "cardgames.clocked"), 1, CLOCKED_TOPIC, str(game_id).encode())


def mark_clocked(store: EventStore, game_id: UUID) -> None:
    """Mark a game without a time control as one the table clocks follow (a seat handed to a bot), so
    that a restarted process finds it too; a game marked already stays as it was."""
    with suppress(IntegrityError):
        store.recorder.insert_events([clocked_marker(game_id)])


def reissue(
    store: EventStore,
    game_id: UUID,
    game_name: str,
    after: int,
    events: Sequence[Any],
    hashes: Sequence[str],
    version: int,
    record: TokenRecord,
) -> int:
    """Write the events of a token's reissue after ``after`` and the new token's hash as record ``version``
    of the game's token stream, in one insert (StaleSequence when either is taken); the new sequence."""
    records = [StoredEvent(token_stream(game_id), version, TOKEN_TOPIC, _encoder.encode(record))]
    records += store.batch_records(game_id, game_name, after, events, None, hashes)
    try:
        store.recorder.insert_events(records)
    except IntegrityError as error:
        raise StaleSequence(game_id, after) from error
    return after + len(events)


def tokens(store: EventStore, game_id: UUID) -> list[TokenRecord]:
    """A game's reissued tokens' hashes in the order they were written."""
    return [_token_decoder.decode(record.state) for record in store.recorder.select_events(token_stream(game_id))]


def clocked_games(store: EventStore, after: int = 0, limit: int = 1000) -> tuple[list[UUID], int]:
    """Ids of games with a time control whose marker comes after notification ``after``, and the last
    notification id read (pass it back as ``after``: a cursor over the notification log)."""
    found = store.recorder.select_notifications(after + 1, limit, topics=[CLOCKED_TOPIC])
    if not found:
        return [], after
    return [UUID(notification.state.decode()) for notification in found], found[-1].id
