"""Real audit logs for the tests: whole matches of random legal commands through the app layer."""

from __future__ import annotations

import asyncio
import hashlib
import random
from functools import cache
from typing import Any

import msgspec

from cardgames.engine.core import chain
from cardgames.engine.core.registry import get_game
from cardgames.service.audit.export import from_result
from cardgames.service.audit.logfile import AuditLog, read_log, to_bytes
from cardgames.service.games import Created, Games
from cardgames.service.store import EventStore

GAMES = ("all_fours", "seep", "contract_rummy")


async def commit_and_reveal(games: Games, created: Created, rng: random.Random) -> list[str]:
    """Every seat commits to fresh entropy, then reveals it; the entropies."""
    entropies = [rng.randbytes(32).hex() for _ in created.seat_tokens]
    for token, entropy in zip(created.seat_tokens, entropies, strict=True):
        await games.commit_entropy(created.game_id, token, hashlib.sha256(bytes.fromhex(entropy)).hexdigest())
    for token, entropy in zip(created.seat_tokens, entropies, strict=True):
        await games.reveal_entropy(created.game_id, token, entropy)
    return entropies


async def play_to_end(games: Games, created: Created, rng: random.Random, limit: int | None = None) -> int:
    """Random legal commands by the seats to act until the match is over (or ``limit`` commands)."""
    for count in range(100_000 if limit is None else limit):
        view = await games.view(created.game_id, None)
        if view.over:
            return count
        seat = rng.choice(view.to_act)
        legal = await games.legal_commands(created.game_id, created.seat_tokens[seat])
        command = rng.choice(legal.commands)
        await games.submit(created.game_id, created.seat_tokens[seat], msgspec.to_builtins(command), legal.sequence)
    if limit is None:
        raise AssertionError("the match did not end")
    return limit


async def _played(game: str, variant: str, rng_seed: int, kwargs: dict[str, Any]) -> AuditLog:
    rng = random.Random(rng_seed)
    games = Games(EventStore.from_url("memory:"))
    try:
        if variant == "given_seed":
            kwargs = {"seed": rng.randbytes(32).hex()}
        created = await games.create(game, {}, None, seat_entropy=variant == "entropy", **kwargs)
        if variant == "entropy":
            await commit_and_reveal(games, created, rng)
        await play_to_end(games, created, rng)
        return from_result(await games.log(created.game_id, None))
    finally:
        await games.close()


@cache
def played_log(game: str, variant: str = "plain", rng_seed: int = 1) -> AuditLog:
    """A finished match's whole log (cached per session: copy before changing it)."""
    kwargs: dict[str, Any] = {}
    if variant == "stacked":  # the first shuffle's cards, in another order, dealt by seat 0
        first = next(item for item in played_log(game, "plain", rng_seed + 1).entries
                     if item["event"]["type"] == "shuffled")
        kwargs = {"decks": [list(reversed(first["event"]["order"]))], "dealer": 0}
    return asyncio.run(_played(game, variant, rng_seed, kwargs))


def fresh(game: str, variant: str = "plain") -> AuditLog:
    """A copy of a real log as a file gives it (plain JSON data), to tamper with."""
    return read_log(to_bytes(played_log(game, variant)))


# ---------------------------------------------------------------------------
# Tampering.


def rechain(log: AuditLog) -> AuditLog:
    """Recompute the genesis, every hash and the head (what a forger who rewrites the whole chain does)."""
    header = {key: value for key, value in log.header.items() if key != "genesis"}
    previous = chain.genesis(header)
    log.header = {**header, "genesis": previous.hex()}
    seed = bytes.fromhex(log.reveal["seed"]) if log.reveal else bytes(32)
    for item in log.entries:
        previous = chain.next_hash(previous, seed, item["seq"], item["event"], item.get("seat"), item.get("command"))
        item["hash"] = previous.hex()
    log.head = previous.hex()
    return log


def renumber(log: AuditLog) -> AuditLog:
    for index, item in enumerate(log.entries, start=1):
        item["seq"] = index
    return log


def index_of(log: AuditLog, predicate: Any, start: int = 0) -> int:
    """The index of the first entry from ``start`` whose event satisfies ``predicate``."""
    return next(index for index in range(start, len(log.entries)) if predicate(log.entries[index]["event"]))


def commands(log: AuditLog) -> list[int]:
    """The indexes of the entries that carry a command."""
    return [index for index, item in enumerate(log.entries) if "command" in item]


def players(log: AuditLog) -> int:
    return int(log.header["players"])


def rules(log: AuditLog) -> Any:
    return get_game(log.header["game"])
