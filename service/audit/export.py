"""A match's audit log read from a GameService over gRPC (``GetLog``), ready for the NDJSON writer.

The wire carries typed messages; :func:`from_responses` turns them back into the
FORMAT.md data the chain was computed over, through the game's own structs (so that a
field the wire leaves unset reads back exactly as the engine wrote it), and checks the
result against the server's genesis and, once the seeds are revealed, every hash: a log
that does not round-trip is refused here rather than written.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from cardgames import wire
from cardgames.engine.core import chain
from cardgames.engine.core.protocol import GameRules
from cardgames.engine.core.registry import UnknownGame, get_game
from cardgames.engine.core.time_control import TimeControlError, parse_time_control
from cardgames.service.audit.logfile import AuditLog, entry
from cardgames.v1 import game_service_pb2 as pb

#: Events per GetLog call.
PAGE = 2000


class ExportError(Exception):
    """The log read from the server is not one the writer can write faithfully."""


def _engine_data(rules_type: Any, message: Any) -> Any:
    """A top-level wire message (Event, Command) as the engine's FORMAT.md data."""
    _, data = wire.unwrap(message)
    return msgspec.to_builtins(msgspec.convert(data, rules_type))


def _time_control(header: pb.LogHeader) -> dict[str, Any] | None:
    """The header's time control in its plain form (every key: as the genesis hashed it)."""
    if not header.HasField("time_control"):
        return None
    from cardgames.service.grpc_tables import time_control_data  # the wire's enums, named once

    try:
        control = parse_time_control(time_control_data(header.time_control))
    except TimeControlError as error:
        raise ExportError(f"the log header's time control is not one: {error}") from None
    return msgspec.to_builtins(control)


def header_data(rules: GameRules, header: pb.LogHeader) -> dict[str, Any]:
    """The log header (with ``genesis``) from its message; the config through the game's Config."""
    options = wire.options_dict(header.config) if header.config.WhichOneof("game") else {}
    config = msgspec.to_builtins(msgspec.convert({**options, "players": header.players}, rules.Config))
    data = chain.header(
        game=header.game,
        rules_version=header.rules_version,
        game_id=header.game_id,
        players=header.players,
        config=config,
        dealer=header.dealer if header.HasField("dealer") else None,
        stacked=header.stacked,
        seed_commitment=header.seed_commitment,
        seed_given=header.seed_given,
        seat_commitments=list(header.seat_commitments) if header.seat_entropy else None,
        time_control=_time_control(header),
    )
    if header.genesis and chain.genesis(data).hex() != header.genesis:
        raise ExportError("the log header read from the server does not hash to its genesis (the config did not "
                          "round-trip through the wire)")
    return {**data, "genesis": header.genesis}


def from_responses(responses: Sequence[pb.GetLogResponse]) -> AuditLog:
    """One log from the pages of a GetLog (in order)."""
    if not responses:
        raise ExportError("no GetLog response")
    first, last = responses[0], responses[-1]
    try:
        rules = get_game(first.header.game)
    except (UnknownGame, ImportError) as error:
        raise ExportError(f"the game {first.header.game!r} is not available here: {error}") from None
    header = header_data(rules, first.header)
    entries = []
    for response in responses:
        for item in response.events:
            event = _engine_data(rules.Event, item.event)
            command = _engine_data(rules.Command, item.command) if item.HasField("command") else None
            entries.append(entry(item.sequence, event, item.hash, item.seat if command is not None else None,
                                 command, item.redacted))
    reveal: dict[str, Any] | None = None
    if last.HasField("reveal"):
        reveal = {"seed": last.reveal.seed,
                  "seat_entropy": list(last.reveal.seat_entropy) if first.header.seat_entropy else None}
        _check_hashes(header, entries, last.reveal.seed)
    return AuditLog(header, entries, reveal, last.head if reveal is not None else "")


def _check_hashes(header: dict[str, Any], entries: list[dict[str, Any]], seed_hex: str) -> None:
    previous, seed = bytes.fromhex(header["genesis"]), bytes.fromhex(seed_hex)
    for item in entries:
        seq = item["seq"]
        previous = chain.next_hash(previous, seed, seq, item["event"], item.get("seat"), item.get("command"))
        if previous.hex() != item["hash"]:
            raise ExportError(f"seq {seq}: the entry read from the server does not hash to the server's hash "
                              "(it did not round-trip through the wire)")


def from_result(result: Any) -> AuditLog:
    """The log of an application-layer :class:`cardgames.service.games.LogResult` (in-process, no wire)."""
    entries = [
        entry(item.sequence, msgspec.to_builtins(item.event), item.hash, item.seat,
              msgspec.to_builtins(item.command) if item.command is not None else None, item.redacted)
        for item in result.entries
    ]
    return AuditLog(dict(result.header), entries, result.reveal, result.head if result.reveal is not None else "")


async def fetch(client: Any, game_id: str, token: str | None = None) -> AuditLog:
    """The log of ``game_id`` as ``token``'s seat (or a spectator) may read it, page by page.

    ``client`` is a :class:`clients.GameClient` (its ``call`` gives retries and typed errors).
    """
    responses: list[pb.GetLogResponse] = []
    after = 0
    while True:
        request = pb.GetLogRequest(game_id=game_id, after_sequence=after, limit=PAGE)
        response = await client.call(client.stub.GetLog, request, token)
        responses.append(response)
        if response.events:
            after = response.events[-1].sequence
        if not response.events or after >= response.sequence:
            break
    return from_responses(responses)
