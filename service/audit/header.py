"""The header of an audit log checked (docs/log-format.md), and the failure of a log that does not hold.

Used by the verifier (service/audit/verify.py) and by the replay (service/replay/steps.py), which
checks a header the same way before it folds a log.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cardgames.engine.core import chain, fairness
from cardgames.engine.core.canonical import canonical
from cardgames.engine.core.protocol import GameRules, OptionsError
from cardgames.engine.core.registry import GAME_MODULES, UnknownGame, get_game
from cardgames.service.audit.logfile import LogFormatError


class Failure(Exception):
    """The log does not hold: ``where`` is ``"seq N"``, ``"header"`` or ``"reveal"``."""

    def __init__(self, where: str, message: str, seq: int | None = None, line: int | None = None) -> None:
        super().__init__(message)
        self.where = where
        self.message = message
        self.seq = seq
        self.line = line

    def __str__(self) -> str:
        at = f" (line {self.line})" if self.line else ""
        return f"{self.where}{at}: {self.message}"


@dataclass(frozen=True)
class CheckedHeader:
    """What a header that holds says: the game's rules, its config, seats, dealer, stacked decks, genesis."""

    base: GameRules
    config: Any
    players: int
    dealer: int | None
    stacked: int
    genesis: bytes


def hex32(value: Any) -> bool:
    """Whether a header's or reveal's value is 32 bytes of lower-case hex."""
    return fairness.is_hex32(value)


def check_header(header: Mapping[str, Any]) -> CheckedHeader:
    """The header's checks (format, version, game, rules version, keys, config, genesis), and what it says.

    A file this engine cannot read at all is a LogFormatError (line 1); a header that does not hold
    is a :class:`Failure` at ``header``.
    """
    fmt = header.get("format")
    if fmt != chain.FORMAT:
        raise LogFormatError(f"not a cardgames log: its format is {fmt!r}, not {chain.FORMAT!r}", 1)
    version = header.get("version")
    if version != chain.VERSION:
        raise LogFormatError(
            f"unsupported log format version {version!r}: this verifier reads version {chain.VERSION}", 1
        )
    name = header.get("game")
    if not isinstance(name, str) or name not in GAME_MODULES:
        raise LogFormatError(f"unknown game {name!r}: this engine knows {', '.join(sorted(GAME_MODULES))}", 1)
    try:
        base = get_game(name)
    except (UnknownGame, ImportError) as error:
        raise LogFormatError(f"the game {name!r} is not available here: {error}", 1) from None
    implemented = chain.rules_version(base)
    if header.get("rules_version") != implemented:
        raise LogFormatError(
            f"a log of {name} rules version {header.get('rules_version')!r}: this engine implements "
            f"version {implemented!r}, so it cannot re-run the log",
            1,
        )
    known = {*chain.HEADER_KEYS, "genesis"}
    unknown = sorted(set(header) - known)
    if unknown:
        raise Failure("header", f"unknown header keys {unknown}", line=1)
    missing = sorted(known - set(header))
    if missing:
        raise Failure("header", f"missing header keys {missing}", line=1)
    players = header["players"]
    if not isinstance(players, int) or isinstance(players, bool) or players not in base.PLAYER_COUNTS:
        raise Failure("header", f"{players!r} is not a player count of {name}", line=1)
    config = _config(base, header["config"], players)
    dealer = header["dealer"]
    if dealer is not None and not (isinstance(dealer, int) and 0 <= dealer < players):
        raise Failure("header", f"dealer {dealer!r} is not a seat", line=1)
    stacked = header["stacked"]
    if not isinstance(stacked, int) or isinstance(stacked, bool) or stacked < 0:
        raise Failure("header", f"stacked {stacked!r} is not a count", line=1)
    if not hex32(header["seed_commitment"]):
        raise Failure("header", "seed_commitment is not 32 bytes of lower-case hex", line=1)
    if not isinstance(header["seed_given"], bool):
        raise Failure("header", "seed_given is not true or false", line=1)
    commitments = header["seat_commitments"]
    if commitments is not None and not (
        isinstance(commitments, list) and len(commitments) == players and all(map(hex32, commitments))
    ):
        raise Failure("header", f"seat_commitments is not null or {players} hashes in hex", line=1)
    genesis = chain.genesis(header)
    if header["genesis"] != genesis.hex():
        raise Failure("header", "its genesis is not the hash of the header: the header was changed", line=1)
    return CheckedHeader(base, config, players, dealer, stacked, genesis)


def _config(base: GameRules, config: Any, players: int) -> Any:
    if not isinstance(config, dict):
        raise Failure("header", "config is not an object", line=1)
    try:
        typed = base.make_config({key: value for key, value in config.items() if key != "players"}, players)
    except (OptionsError, ValueError, TypeError) as error:
        raise Failure("header", f"the game refuses this config: {error}", line=1) from None
    if canonical(typed) != canonical(config):
        raise Failure("header", "config is not the game's full config for its options", line=1)
    return typed
