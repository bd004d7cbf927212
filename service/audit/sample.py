"""Sample logs: a match of random legal commands recorded straight from the engine.

The same log a service game would give for the same seeds and commands (tests compare
the two), without a store: for benchmarks, the JavaScript verifier's tests and examples.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

from engine.core import chain, fairness
from engine.core.protocol import Setup
from engine.core.registry import get_game
from engine.core.replay import apply, new_match
from service.audit.logfile import AuditLog, LogBuilder, reveal


def random_log(
    game_name: str,
    options: Mapping[str, Any] | None = None,
    players: int | None = None,
    *,
    rng_seed: int = 0,
    seat_entropy: bool = False,
    decks: Sequence[Sequence[str]] = (),
    dealer: int | None = None,
    max_commands: int = 1_000_000,
) -> AuditLog:
    """A whole match (or its first ``max_commands`` commands, then without a reveal) of random legal play."""
    rng = random.Random(rng_seed)
    game = get_game(game_name)
    config = game.make_config(dict(options or {}), players)
    seats = int(getattr(config, "players", None) or players or game.DEFAULT_PLAYERS)
    server_seed = rng.randbytes(32).hex()
    entropies = [rng.randbytes(32).hex() for _ in range(seats)] if seat_entropy else None
    header = chain.header(
        game=game_name,
        rules_version=chain.rules_version(game),
        game_id=str(uuid.UUID(bytes=rng.randbytes(16), version=4)),
        players=seats,
        config=msgspec.to_builtins(config),
        dealer=dealer,
        stacked=len(decks),
        seed_commitment=fairness.commitment(server_seed),
        seed_given=False,
        seat_commitments=[fairness.commitment(entropy) for entropy in entropies] if entropies else None,
    )
    builder = LogBuilder(header, server_seed)
    setup = Setup(seed=fairness.shuffle_seed(server_seed, entropies), decks=tuple(map(tuple, decks)), dealer=dealer)
    state, events = new_match(game, config, setup)
    builder.add(events)
    for _ in range(max_commands):
        if game.is_over(state):
            return builder.finish(reveal(server_seed, entropies))
        seat = rng.choice(game.to_act(state))
        command = rng.choice(game.legal_commands(state, seat))
        outcome = apply(game, state, seat, command)
        if not isinstance(outcome, tuple):
            raise RuntimeError(f"{game_name}: a legal command was refused: {outcome}")
        state, batch = outcome
        builder.add(list(batch), seat, command)
    return builder.finish(reveal(server_seed, entropies) if game.is_over(state) else None)
