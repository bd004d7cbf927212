"""The server's tournament key: the secret that tournament seat tokens are derived from.

The tournament log never holds a seat token (a copy of the store must give no seat away, as
for games, whose headers keep only the tokens' SHA-256). Yet a restarted runner must hand
each remote entrant its seats again and play its built-in seats on. So a match's seat token
is not drawn at random and stored: it is ``HMAC-SHA256(key, "cardgames seat token:" +
tournament id + ":" + match number + ":" + seat)`` (base64url, 43 characters, as many bits
as ``secrets.token_urlsafe(32)``), computed again whenever it is needed, from a key that is
kept outside the store:

* ``CARDGAMES_SECRET`` (any string; 32 random bytes in hex are plenty) when it is set: the
  one choice for replicas sharing a PostgreSQL store, which must all hold the same key;
* else, for a SQLite file store, a key file next to it (``<file>.key``, mode 0600, made on
  first use): keep it out of the store's backups and copies;
* else a new key for the process (a memory store; a PostgreSQL store without
  ``CARDGAMES_SECRET``, which is logged): its tournaments cannot be resumed by another process.

Each tournament records the key's id (an HMAC of a constant: it tells nothing of the key) at
creation; a runner holding another key refuses to resume it, instead of handing out tokens
that no match would accept.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import hmac
import logging
import os
import secrets
from collections.abc import Mapping
from pathlib import Path
from typing import Final

from cardgames.service.store import EventStore

ENV_SECRET: Final = "CARDGAMES_SECRET"
log = logging.getLogger(__name__)


class TournamentKey:
    """A key that seat tokens are derived from (never written to the store)."""

    def __init__(self, secret: bytes, source: str) -> None:
        if not secret:
            raise ValueError("a tournament key is not empty")
        self._secret = secret
        #: Where the key came from (for messages): the variable, the key file, or "this process".
        self.source = source
        #: Recorded with each tournament: which key its tokens come from.
        self.key_id = self._mac("cardgames key id")[:16]

    def _mac(self, text: str) -> str:
        return hmac.new(self._secret, text.encode(), hashlib.sha256).hexdigest()

    def seat_token(self, tournament_id: str, match_no: int, seat: int) -> str:
        """The token of ``seat`` in match ``match_no`` of the tournament."""
        digest = hmac.new(self._secret, f"cardgames seat token:{tournament_id}:{match_no}:{seat}".encode(),
                          hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def key_file(path: Path) -> bytes:
    """The key in ``path``, made (32 random bytes in hex, mode 0600) when there is none yet.

    A new key is written to a temporary file that is then linked to ``path``: two processes
    starting at once both end up with whichever key was linked first, never half a key.
    """
    try:
        return path.read_bytes().strip()
    except FileNotFoundError:
        pass
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(8)}")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(descriptor, "wb") as out:
            out.write(secrets.token_hex(32).encode() + b"\n")
        with contextlib.suppress(FileExistsError):  # another process made it first: use that one
            os.link(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
    return path.read_bytes().strip()


def tournament_key(store: EventStore, environ: Mapping[str, str] | None = None) -> TournamentKey:
    """The key for tournaments on ``store`` (see the module's docstring for where it comes from)."""
    environ = os.environ if environ is None else environ
    given = environ.get(ENV_SECRET, "")
    if given:
        return TournamentKey(given.encode(), f"${ENV_SECRET}")
    module = str(store.env.get("PERSISTENCE_MODULE", ""))
    database = store.env.get("SQLITE_DBNAME", "")
    if module.endswith("sqlite") and database and database != ":memory:" and "mode=memory" not in database:
        path = Path(f"{database}.key")
        return TournamentKey(key_file(path), str(path))
    if module.endswith("postgres"):
        log.warning("%s is not set: tournaments created by this process cannot be resumed by another one "
                    "(set it to the same secret on every replica)", ENV_SECRET)
    return TournamentKey(secrets.token_bytes(32), "this process")
