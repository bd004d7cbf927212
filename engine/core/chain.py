"""The log's hash chain (docs/log-format.md, "The chain"): pure functions over canonical bytes.

* The **genesis** ``h_0 = SHA-256(canonical(header))``, where ``header`` is the log's
  header object without its ``genesis`` key (game, rules version, game id, players,
  config, setup, commitments).
* Entry ``n`` (its sequence number) is the object ``{"seq": n, "event": ...}``, with
  ``"seat"`` and ``"command"`` added on the entry whose command caused its batch.
* Its **salt** ``s_n = SHA-256("cardgames/log/salt" || server seed || u64be(n))``: 32
  bytes nobody can compute before the server's seed is revealed, so that a hash shown
  while the match runs gives away nothing of a hidden event (a dealt hand of six cards
  would otherwise be found by trying every hand).
* ``h_n = SHA-256(h_{n-1} || s_n || canonical(entry_n))``; the **head** is the last ``h``.

Hashes are 32 raw bytes here and lower-case hex in logs and messages.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from cardgames.engine.core.canonical import canonical

if TYPE_CHECKING:
    from cardgames.engine.core.protocol import GameRules

SALT_DOMAIN = b"cardgames/log/salt"
#: The log format's name and version (the header's ``format`` and ``version``).
FORMAT = "cardgames-log"
VERSION = 1
#: A game's rules version when it declares none (:attr:`~cardgames.engine.core.protocol.Traits.rules_version`).
DEFAULT_RULES_VERSION = "1"
#: The header's keys, in the order a log file writes them (``genesis`` follows them).
HEADER_KEYS = (
    "format", "version", "game", "rules_version", "game_id", "players", "config", "dealer", "stacked",
    "seed_commitment", "seed_given", "seat_commitments",
)
#: Header keys a log has only when they are set (a log without them hashes as it always did).
OPTIONAL_HEADER_KEYS = ("time_control",)


def rules_version(game: GameRules) -> str:
    """The version of the rules a game implements (its traits' ``rules_version``, "1" by default).

    A game bumps it whenever ``decide`` or ``evolve`` would give another log for the same
    commands, so that a log of the old rules is refused instead of failing obscurely.
    """
    return game.TRAITS.rules_version


def header(
    *,
    game: str,
    rules_version: str,
    game_id: str,
    players: int,
    config: Any,
    dealer: int | None,
    stacked: int,
    seed_commitment: str,
    seed_given: bool,
    seat_commitments: list[str] | None,
    time_control: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The log's header object (without ``genesis``), as docs/log-format.md lists its keys.

    ``time_control``: the game's clock (engine/core/time_control.py), a key only when set.
    """
    header = {
        "format": FORMAT,
        "version": VERSION,
        "game": game,
        "rules_version": rules_version,
        "game_id": game_id,
        "players": players,
        "config": config,
        "dealer": dealer,
        "stacked": stacked,
        "seed_commitment": seed_commitment,
        "seed_given": seed_given,
        "seat_commitments": seat_commitments,
    }
    if time_control is not None:
        header["time_control"] = dict(time_control)
    return header


def genesis(header: Mapping[str, Any]) -> bytes:
    """``h_0``: the hash of the header (its ``genesis`` key, if any, left out)."""
    if "genesis" in header:
        header = {key: value for key, value in header.items() if key != "genesis"}
    return hashlib.sha256(canonical(header)).digest()


def entry(seq: int, event: Any, seat: int | None = None, command: Any = None) -> dict[str, Any]:
    """The chained object of entry ``seq``: its event, and the command that started its batch."""
    if command is None:
        return {"seq": seq, "event": event}
    return {"seq": seq, "event": event, "seat": seat, "command": command}


def salt(seed: bytes, seq: int) -> bytes:
    """``s_seq``, from the server's 32-byte seed."""
    return hashlib.sha256(SALT_DOMAIN + seed + seq.to_bytes(8, "big")).digest()


def link(previous: bytes, salt_bytes: bytes, entry_bytes: bytes) -> bytes:
    """``h_n`` from ``h_{n-1}``, ``s_n`` and ``canonical(entry_n)``."""
    return hashlib.sha256(previous + salt_bytes + entry_bytes).digest()


def next_hash(
    previous: bytes, seed: bytes, seq: int, event: Any, seat: int | None = None, command: Any = None
) -> bytes:
    """``h_seq`` from ``h_{seq-1}`` and the entry's parts (plain data or msgspec structs)."""
    return link(previous, salt(seed, seq), canonical(entry(seq, event, seat, command)))


def batch_hashes(
    previous: bytes, seed: bytes, first: int, events: Sequence[Any], seat: int | None = None, command: Any = None
) -> list[bytes]:
    """The hash after each event of a batch starting at sequence ``first``.

    ``seat`` and ``command`` (when the batch is a command's) go with its first event.
    """
    hashes = []
    for offset, event in enumerate(events):
        if offset:
            previous = next_hash(previous, seed, first + offset, event)
        else:
            previous = next_hash(previous, seed, first, event, seat, command)
        hashes.append(previous)
    return hashes
