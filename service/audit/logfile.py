"""The NDJSON audit log (docs/log-format.md): the one writer and the one reader.

A log is a header line, one line per event of the match, and, once the match is over, a
reveal line. ``cardgames export`` and ``cardgames play --log`` both write it with
:func:`write_log`; ``cardgames verify`` reads it with :func:`read_log`. Every line is one
JSON object with its keys in a fixed order (the verifier accepts any order and spacing:
hashes are computed over the canonical encoding, never over the file's bytes).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import msgspec

from cardgames.engine.core import chain
from cardgames.engine.core.canonical import canonical
from cardgames.service.store import EntropyRecord, Header

ENTRY_KEYS = ("seq", "seat", "command", "event", "hash", "redacted")

_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder()


class LogFormatError(ValueError):
    """A file that is not a readable log: ``line`` (from 1) says where, when known."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}" if self.line else self.message


@dataclass
class AuditLog:
    """A log in memory: the header (with ``genesis``), the entries and the reveal (or None)."""

    header: dict[str, Any]
    entries: list[dict[str, Any]] = field(default_factory=list)
    reveal: dict[str, Any] | None = None
    head: str = ""
    #: The file line of each entry (for messages); empty for a log built in memory.
    lines: list[int] = field(default_factory=list)
    reveal_line: int | None = None


# ---------------------------------------------------------------------------
# Building the parts from the service's records.


def log_header(header: Header, game_id: str, commitments: list[str] | None) -> dict[str, Any]:
    """The log header (without ``genesis``) of a stored game.

    ``commitments``: each seat's entropy commitment for a seat-entropy game ("" for a seat
    that has not committed yet), else None.
    """
    return chain.header(
        game=header.game,
        rules_version=header.rules_version or chain.DEFAULT_RULES_VERSION,
        game_id=game_id,
        players=header.players,
        config=header.config,
        dealer=header.dealer,
        stacked=header.stacked,
        seed_commitment=header.seed_commitment,
        seed_given=header.seed_given,
        seat_commitments=commitments,
        time_control=header.time_control,
    )


def with_genesis(header: dict[str, Any]) -> dict[str, Any]:
    return {**header, "genesis": chain.genesis(header).hex()}


def seat_values(players: int, records: Iterable[EntropyRecord], kind: str) -> list[str]:
    """Each seat's commitment (``kind="commit"``) or entropy (``"reveal"``), "" where missing."""
    values = [""] * players
    for record in records:
        if record.kind == kind and 0 <= record.seat < players:
            values[record.seat] = record.value
    return values


def reveal(server_seed: str, entropies: list[str] | None) -> dict[str, Any]:
    """The reveal: the server's seed and, for a seat-entropy game, every seat's entropy."""
    return {"seed": server_seed, "seat_entropy": entropies}


def entry(
    seq: int,
    event: Any,
    hash_hex: str,
    seat: int | None = None,
    command: Any = None,
    redacted: bool = False,
) -> dict[str, Any]:
    """One entry line's object, keys in the file's order."""
    data: dict[str, Any] = {"seq": seq}
    if command is not None:
        data["seat"] = seat
        data["command"] = command
    data["event"] = event
    data["hash"] = hash_hex
    if redacted:
        data["redacted"] = True
    return data


class LogBuilder:
    """A log built batch by batch, with its chain (for a match played outside the service)."""

    def __init__(self, header: dict[str, Any], server_seed: str) -> None:
        self.header = with_genesis(header)
        self.seed = bytes.fromhex(server_seed)
        self.previous = bytes.fromhex(self.header["genesis"])
        self.entries: list[dict[str, Any]] = []

    def add(self, events: list[Any], seat: int | None = None, command: Any = None) -> str:
        """Append one batch (plain data or structs); returns the new head."""
        first = len(self.entries) + 1
        hashes = chain.batch_hashes(self.previous, self.seed, first, events, seat, command)
        for offset, (event, digest) in enumerate(zip(events, hashes, strict=True)):
            plain_event = msgspec.to_builtins(event)
            if offset == 0 and command is not None:
                self.entries.append(entry(first, plain_event, digest.hex(), seat, msgspec.to_builtins(command)))
            else:
                self.entries.append(entry(first + offset, plain_event, digest.hex()))
        if hashes:
            self.previous = hashes[-1]
        return self.previous.hex()

    def finish(self, reveal_data: dict[str, Any] | None) -> AuditLog:
        return AuditLog(self.header, self.entries, reveal_data, self.previous.hex() if reveal_data else "")


# ---------------------------------------------------------------------------
# Writing.


def _line(item: dict[str, Any], keys: Iterable[str]) -> bytes:
    """One line: the top-level keys in the given order, every nested object canonical (sorted keys)."""
    parts = [_encoder.encode(key) + b":" + canonical(item[key]) for key in keys if key in item]
    return b"{" + b",".join(parts) + b"}\n"


def lines(log: AuditLog) -> Iterator[bytes]:
    """The log's lines (each ends with a newline): the same log always gives the same bytes."""
    yield _line(log.header, (*chain.HEADER_KEYS, *chain.OPTIONAL_HEADER_KEYS, "genesis"))
    for item in log.entries:
        yield _line(item, ENTRY_KEYS)
    if log.reveal is not None:
        yield _line({"reveal": log.reveal, "head": log.head}, ("reveal", "head"))


def write_log(out: IO[bytes], log: AuditLog) -> int:
    """Write the log as NDJSON to a binary stream; returns the number of lines."""
    count = 0
    for line in lines(log):
        out.write(line)
        count += 1
    return count


def to_bytes(log: AuditLog) -> bytes:
    return b"".join(lines(log))


# ---------------------------------------------------------------------------
# Reading.


def read_log(data: bytes) -> AuditLog:
    """Parse an NDJSON log; :class:`LogFormatError` names the line of anything unreadable.

    Only the shape is checked here (JSON objects, one header first, entries, one reveal
    last); what the values mean is the verifier's job.
    """
    header: dict[str, Any] | None = None
    log: AuditLog | None = None
    number = 0
    for number, raw in enumerate(data.split(b"\n"), start=1):
        if not raw.strip():
            continue
        try:
            item = _decoder.decode(raw)
        except msgspec.DecodeError as error:
            hint = " (the file is cut short?)" if number >= data.count(b"\n") else ""
            raise LogFormatError(f"not JSON{hint}: {error}", number) from None
        if not isinstance(item, dict):
            raise LogFormatError("a log line is a JSON object", number)
        if header is None:
            if "format" not in item:
                raise LogFormatError("the first line is not a log header (no 'format' key): not a cardgames log",
                                     number)
            header = item
            log = AuditLog(header)
            continue
        assert log is not None
        if log.reveal is not None:
            raise LogFormatError("a line after the reveal line (the reveal comes last)", number)
        if "reveal" in item:
            if not isinstance(item["reveal"], dict):
                raise LogFormatError("the reveal is not an object", number)
            log.reveal = item["reveal"]
            head = item.get("head")
            log.head = head if isinstance(head, str) else ""
            log.reveal_line = number
            continue
        log.entries.append(item)
        log.lines.append(number)
    if log is None:
        raise LogFormatError("the file is empty: no log header")
    return log


def write_log_file(path: Path, log: AuditLog) -> int:
    """Write the log to a file (its folder created); returns the number of lines."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as out:
        return write_log(out, log)
