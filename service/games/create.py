"""Creating a game: options checked by the game, a seed, one token per seat, the start written.

A game created with ``seat_entropy`` is written with its header only: it starts with its seats'
last reveal (service/games/entropy.py).
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Mapping, Sequence
from typing import Any
from uuid import uuid4

import msgspec

from cardgames.engine.core import chain, fairness
from cardgames.engine.core.chance import ShuffleUnavailable
from cardgames.engine.core.protocol import OptionsError, ScenarioError, Setup
from cardgames.engine.core.replay import new_match
from cardgames.service.errors import InvalidOptions, InvalidRequest
from cardgames.service.games.auth import token_hash
from cardgames.service.games.bounds import servable
from cardgames.service.games.cache import LiveGames, rules_for
from cardgames.service.games.executor import StoreExecutor
from cardgames.service.games.results import Created
from cardgames.service.store import Header

SEED_HEX = re.compile(r"[0-9a-f]{64}")
#: Placeholder shuffle seed for checking a seat-entropy game's setup before its real seed exists.
PROBE_SEED = "00" * 32


class Creation:
    """Makes new games in the store and in the cache."""

    def __init__(self, games: LiveGames, executor: StoreExecutor) -> None:
        self.games = games
        self.executor = executor

    async def create(
        self,
        game: str,
        options: Mapping[str, Any] | None = None,
        players: int | None = None,
        *,
        seed: str | None = None,
        decks: Sequence[Sequence[str]] = (),
        dealer: int | None = None,
        seat_entropy: bool = False,
        tokens: Sequence[str] | None = None,
        held_by: str = "",
    ) -> Created:
        """A new match: validated options, a seed from ``secrets`` unless given, one token per seat.

        With ``seat_entropy`` the match starts only once every seat has committed to and
        revealed entropy of its own (service/games/entropy.py).
        ``tokens``: the seats' tokens (as random as ``secrets``' own: a tournament derives them),
        else new ones. ``held_by``: whoever withholds the finished match's reveal (service/games/disclosure.py).
        """
        rules = rules_for(game)
        try:
            config = rules.make_config(dict(options or {}), players)
        except OptionsError as error:
            raise InvalidOptions(str(error), game=game) from error
        seats = int(getattr(config, "players", None) or players or rules.DEFAULT_PLAYERS)
        seed_given = seed is not None
        if seed is not None:
            seed = seed.lower()
            if not SEED_HEX.fullmatch(seed):
                raise InvalidRequest("a seed is 32 bytes in hex (64 hex digits)", reason="INVALID_SEED")
        else:
            # Also with stacked decks: the seed then feeds the shuffles after them.
            seed = secrets.token_hex(32)
        if dealer is not None and not 0 <= dealer < seats:
            raise InvalidRequest(f"dealer {dealer} is not a seat of {seats}", reason="INVALID_SETUP")
        stacked = tuple(tuple(deck) for deck in decks)
        # A seat-entropy game's setup is checked with a placeholder seed; it starts later.
        setup = Setup(seed=PROBE_SEED if seat_entropy else seed, decks=stacked, dealer=dealer)
        try:
            state, events = new_match(rules, config, setup)
        except (ScenarioError, ShuffleUnavailable, ValueError) as error:
            raise InvalidRequest(f"cannot start the match: {error}", reason="INVALID_SETUP") from error
        if tokens is not None and (len(tokens) != seats or not all(tokens)):
            raise InvalidRequest(f"a game of {seats} seats takes {seats} tokens", reason="INVALID_SETUP")
        tokens = list(tokens) if tokens is not None else [secrets.token_urlsafe(32) for _ in range(seats)]
        header = Header(
            game=game,
            players=seats,
            config=msgspec.to_builtins(config),
            token_hashes=tuple(token_hash(token) for token in tokens),
            rules_version=chain.rules_version(rules),
            seed=seed,
            seed_commitment=fairness.commitment(seed),
            seed_given=seed_given,
            seat_entropy=seat_entropy,
            dealer=dealer,
            stacked=len(stacked),
            decks=stacked if seat_entropy else (),
            held_by=held_by,
        )
        if not seat_entropy:
            servable(rules, game, events, state)
        game_id = uuid4()
        live = self.games.new(game_id, rules, header, None if seat_entropy else state)
        if seat_entropy:
            events = []
            live.commitments, live.entropies = [""] * seats, [""] * seats
        notes = live.chain(1, events)
        await self.executor.write(self.executor.store.create, game_id, header, events, [note.hash for note in notes])
        live.advance(events, notes, state)
        self.games.keep(live)
        return Created(str(game_id), game, tokens, live.sequence, header.seed_commitment, live.head.hex())
