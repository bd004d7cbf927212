"""Authentication: which seat of a game a token belongs to.

A game's header keeps only its seat tokens' SHA-256 hashes; a token is checked by its hash, in
constant time against each seat's (``hmac.compare_digest``), so a lookup's timing tells nothing
about the tokens themselves. A token once found is remembered by its hash in the live game.
"""

from __future__ import annotations

import hashlib
import hmac

from cardgames.service.errors import MissingToken, WrongToken
from cardgames.service.games.live import LiveGame


def token_hash(token: str) -> str:
    """The hash of a seat token, as a game's header keeps it (SHA-256, hex)."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def seat_of(live: LiveGame, token: str | None) -> int | None:
    """The seat a token belongs to; None for a spectator (no token). WrongToken for any other token."""
    if not token:
        return None
    digest = token_hash(token)
    seat = live.seats_by_digest.get(digest)
    if seat is not None:
        return seat
    for index, known in enumerate(live.header.token_hashes):
        if hmac.compare_digest(known, digest):
            seat = index
    if seat is None:
        raise WrongToken("the token is not a seat token of this game")
    live.seats_by_digest[digest] = seat
    return seat


def seat_required(live: LiveGame, token: str | None) -> int:
    """The seat a token belongs to, for a call that acts for a seat: MissingToken without one."""
    seat = seat_of(live, token)
    if seat is None:
        raise MissingToken("this call acts for a seat: send its token in the cardgames-token metadata")
    return seat
