"""The offline verifier of an NDJSON audit log (docs/log-format.md, "Verifying a log").

It trusts nothing but the engine's rules and the log's own commitments:

1. the header: a known format and version, a known game, the rules version this engine
   implements, a config the game accepts, the genesis hash;
2. the reveal: the server's seed hashes to the header's commitment, each seat's entropy to
   its commitment; the shuffle seed follows from them;
3. every entry in order: its sequence number, its chain hash, a ``shuffled`` order
   recomputed from the shuffle seed (or the stacked order), the ``match_seeded`` event
   against the revealed seed, and the event itself against what the rules produce: the
   start of the match (``start``), each player's command run through ``decide`` (it must
   be accepted), a service-recorded timeout through its documented consequence;
4. the end: no event the rules still owe, the match is over, the reveal's head is the
   last hash.

The first thing wrong stops the check: :class:`Failure` names the sequence number (or
``header`` / ``reveal``) and what is wrong. A file that cannot be read as a log at all
(not JSON, cut short, unknown game, format or rules version) is a
:class:`~cardgames.service.audit.logfile.LogFormatError`.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

import msgspec

from cardgames.engine.core import chain, fairness
from cardgames.engine.core.canonical import canonical
from cardgames.engine.core.commands import parse_command
from cardgames.engine.core.events import ClockCharged, MatchSeeded, SeatTimedOut, Shuffled
from cardgames.engine.core.protocol import Malformed, Rejection, Setup
from cardgames.engine.core.seat_events import timeout_events, with_seat_events
from cardgames.service.audit.header import Failure, check_header, hex32
from cardgames.service.audit.logfile import AuditLog, read_log

ENTRY_FIELDS = frozenset({"seq", "seat", "command", "event", "hash", "redacted"})
SEAT_EVENT_TYPES = frozenset({"seat_timed_out", "clock_charged"})


@dataclass(frozen=True)
class Summary:
    """What a verified log holds."""

    game: str
    game_id: str
    entries: int
    commands: int
    timeouts: int
    seeded_shuffles: int
    stacked_shuffles: int
    seats_entropy: int | None
    seed_given: bool
    head: str

    def line(self) -> str:
        if self.stacked_shuffles or self.seed_given:
            why = "stacked decks" if self.stacked_shuffles else "a seed chosen at creation"
            fairness_note = f"{why}: no fairness claim"
        elif self.seats_entropy:
            fairness_note = f"deals from the server's seed and {self.seats_entropy} seats' entropy"
        else:
            fairness_note = "deals from the server's committed seed"
        shuffles = f"{self.seeded_shuffles} shuffles recomputed"
        if self.stacked_shuffles:
            shuffles += f", {self.stacked_shuffles} stacked"
        extra = f", {self.timeouts} timeouts" if self.timeouts else ""
        return (
            f"OK {self.game} {self.game_id}: {self.entries} events, {self.commands} commands{extra}, "
            f"{shuffles}; every move legal, every event as the rules give it; {fairness_note}; head {self.head}"
        )


def verify_bytes(data: bytes) -> Summary:
    """Read and verify a log file's bytes."""
    return verify(read_log(data))


def verify(log: AuditLog) -> Summary:
    """Check a log; raises :class:`Failure` (or LogFormatError) at the first thing wrong."""
    return _Verifier(log).run()


# ---------------------------------------------------------------------------


def _where(seq: int) -> str:
    return f"seq {seq}"


def _first_difference(expected: Any, found: Any) -> str:
    """The first field where two events differ, in words."""
    want, have = msgspec.to_builtins(expected), msgspec.to_builtins(found)
    if isinstance(want, dict) and isinstance(have, dict):
        if want.get("type") != have.get("type"):
            return f"the rules give a {want.get('type')!r} event here, the log has {have.get('type')!r}"
        for key in [*want, *(key for key in have if key not in want)]:
            if want.get(key) != have.get(key):
                return (f"{want.get('type')!r} field {key!r}: the rules give {_short(want.get(key))}, "
                        f"the log has {_short(have.get(key))}")
    return f"the rules give {_short(want)}, the log has {_short(have)}"


def _short(value: Any, limit: int = 160) -> str:
    text = msgspec.json.encode(value).decode()
    return text if len(text) <= limit else text[: limit - 3] + "..."


class _Verifier:
    def __init__(self, log: AuditLog) -> None:
        self.log = log

    # -- header and reveal ----------------------------------------------------------

    def _header(self) -> None:
        checked = check_header(self.log.header)
        self.base, self.config, self.players = checked.base, checked.config, checked.players
        self.dealer, self.stacked, self.previous = checked.dealer, checked.stacked, checked.genesis

    def _reveal(self) -> None:
        log, header = self.log, self.log.header
        reveal, line = log.reveal, log.reveal_line
        if reveal is None:
            last = len(log.entries)
            raise Failure(
                "reveal",
                f"the log has no reveal line after seq {last}: the match had not ended when it was written (a "
                "tournament's match: its deal was still being played), or the file is cut short",
            )
        seed = str(reveal.get("seed"))
        if not hex32(seed):
            raise Failure("reveal", "the server's seed is not 32 bytes of lower-case hex", line=line)
        if fairness.commitment(seed) != header["seed_commitment"]:
            raise Failure("reveal", "the revealed server seed does not hash to the header's seed_commitment",
                          line=line)
        entropies = reveal.get("seat_entropy")
        commitments = header["seat_commitments"]
        if (entropies is None) != (commitments is None):
            raise Failure("reveal", "seat_entropy must be given exactly when the header has seat_commitments",
                          line=line)
        if entropies is not None:
            if not (isinstance(entropies, list) and len(entropies) == self.players and all(map(hex32, entropies))):
                raise Failure("reveal", f"seat_entropy is not {self.players} values of 32 bytes in hex", line=line)
            for seat, (entropy, committed) in enumerate(zip(entropies, commitments, strict=True)):
                if fairness.commitment(entropy) != committed:
                    raise Failure("reveal", f"the entropy of seat {seat} does not hash to its commitment", line=line)
        if set(reveal) - {"seed", "seat_entropy"}:
            raise Failure("reveal", f"unknown reveal keys {sorted(set(reveal) - {'seed', 'seat_entropy'})}", line=line)
        self.server_seed = bytes.fromhex(seed)
        self.shuffle_seed = fairness.shuffle_seed(seed, entropies)
        self.seats_entropy = len(entropies) if entropies is not None else None

    # -- entries --------------------------------------------------------------------

    def run(self) -> Summary:
        self._header()
        self._reveal()
        log = self.log
        entries = log.entries
        types = {item.get("event", {}).get("type") for item in entries if isinstance(item.get("event"), dict)}
        self.rules = with_seat_events(self.base) if types & SEAT_EVENT_TYPES else self.base
        rules = self.rules
        # Typed decoding from bytes is far faster than msgspec.convert from dicts; the bytes
        # are the canonical encoding of the entry's plain data, so nothing is lost.
        decode_event = _decoder(rules.Event).decode
        decode_command = _decoder(rules.Command).decode
        evolve, decide = rules.evolve, rules.decide
        state = rules.initial(self.config)
        pending: deque[Any] = deque(self._start_events())
        origin = 0  # the seq of the command (0: the start) whose events are pending
        commands = timeouts = seeded = stacked = 0
        decks: tuple[tuple[str, ...], ...] = ()
        seed_hex = self.shuffle_seed
        server_seed = self.server_seed
        previous = self.previous
        for index, item in enumerate(entries):
            seq = index + 1
            line = log.lines[index] if index < len(log.lines) else None
            where = _where(seq)
            if not isinstance(item.get("seq"), int) or item["seq"] != seq:
                found = item.get("seq")
                why = "missing" if isinstance(found, int) and found > seq else "out of order"
                raise Failure(where, f"expected seq {seq}, the log has seq {found!r} here ({why})", seq, line)
            extra = set(item) - ENTRY_FIELDS
            if extra:
                raise Failure(where, f"unknown entry keys {sorted(extra)}", seq, line)
            if item.get("redacted"):
                raise Failure(where, "the entry is redacted: verifying needs the full log of an ended match", seq, line)
            has_command = "command" in item
            if has_command != ("seat" in item):
                raise Failure(where, "an entry carries both 'seat' and 'command' or neither", seq, line)
            hash_hex = item.get("hash")
            if not hex32(hash_hex):
                raise Failure(where, "its hash is not 32 bytes of lower-case hex", seq, line)
            previous = chain.next_hash(previous, server_seed, seq, item.get("event"), item.get("seat"),
                                       item.get("command"))
            if previous.hex() != hash_hex:
                raise Failure(where, "the hash does not follow the chain: this entry (or the header) was changed, "
                              "or one was removed or moved", seq, line)
            try:
                event = decode_event(canonical(item["event"]))
            except (msgspec.ValidationError, KeyError, TypeError) as error:
                raise Failure(where, f"not a {self.base.NAME} event: {error}", seq, line) from None
            kind = type(event)
            if kind is MatchSeeded:
                decks = self._seeded(event, seed_hex, where, seq, line)
            elif kind is Shuffled:
                if event.shuffle_no != seeded + stacked:
                    raise Failure(where, f"shuffle number {event.shuffle_no}, expected {seeded + stacked}", seq, line)
                expected = fairness.expected_order(event.order, event.shuffle_no, seed_hex, decks)
                if expected != event.order:
                    source = "stacked order" if event.shuffle_no < len(decks) else "shuffle of the revealed seed"
                    raise Failure(where, f"shuffle {event.shuffle_no} is not the {source}", seq, line)
                if event.shuffle_no < len(decks):
                    stacked += 1
                else:
                    seeded += 1
            if has_command:
                if pending:
                    raise Failure(where, f"the rules still owe events after seq {origin} (next: a "
                                  f"{_tag(pending[0])!r} event), but the log has a new command here", seq, line)
                seat = item["seat"]
                if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < self.players:
                    raise Failure(where, f"seat {seat!r} is not a seat of this match", seq, line)
                try:
                    parsed = decode_command(canonical(item["command"]))
                except (msgspec.ValidationError, TypeError):
                    parsed = parse_command(rules, item["command"])  # for its reason
                if isinstance(parsed, Malformed):
                    raise Failure(where, f"the command of seat {seat} is malformed: {parsed.reason}", seq, line)
                try:
                    outcome = decide(state, seat, parsed)
                except Exception as error:  # a hand-made log can reach states the rules never produce
                    raise Failure(where, f"the rules fail on this command: {type(error).__name__}: {error}",
                                  seq, line) from None
                if isinstance(outcome, Rejection):
                    raise Failure(where, f"the command of seat {seat} {_short(item['command'])} is not legal: "
                                  f"{outcome}", seq, line)
                pending.extend(outcome)
                origin = seq
                commands += 1
            elif not pending:
                if kind is SeatTimedOut:
                    if not 0 <= event.seat < self.players or event.seat not in rules.to_act(state):
                        raise Failure(where, f"seat {event.seat} timed out but the game was not waiting for it",
                                      seq, line)
                    try:
                        pending.extend(timeout_events(rules, state, event.seat, event.consequence, event.reason,
                                                      event.waited_ms))
                    except ValueError as error:
                        raise Failure(where, f"an invalid timeout: {error}", seq, line) from None
                    timeouts += 1
                elif kind is ClockCharged:
                    pending.append(event)  # a fact of the service's clock: nothing to recompute
                else:
                    raise Failure(where, f"a {_tag(event)!r} event that no command caused (the rules wait for a "
                                  "command here)", seq, line)
                origin = seq
            wanted = pending.popleft()
            if wanted != event:
                raise Failure(where, _first_difference(wanted, event), seq, line)
            try:
                state = evolve(state, event)
            except Exception as error:  # pragma: no cover - the event is the rules' own
                raise Failure(where, f"the rules fail on this event: {type(error).__name__}: {error}",
                              seq, line) from None
        last = len(entries)
        if pending:
            raise Failure(_where(last + 1), f"the log ends, but the rules give more events after seq {origin} "
                          f"(next: a {_tag(pending[0])!r} event)", last + 1)
        if not rules.is_over(state):
            raise Failure("reveal", f"the log ends at seq {last} but the match is not over", line=log.reveal_line)
        if log.head != previous.hex():
            raise Failure("reveal", "its head is not the hash of the last entry", line=log.reveal_line)
        return Summary(
            game=self.base.NAME,
            game_id=str(log.header.get("game_id")),
            entries=last,
            commands=commands,
            timeouts=timeouts,
            seeded_shuffles=seeded,
            stacked_shuffles=stacked,
            seats_entropy=self.seats_entropy,
            seed_given=bool(log.header.get("seed_given")),
            head=previous.hex(),
        )

    def _start_events(self) -> list[Any]:
        """What ``start`` makes of the header's setup, the revealed seed and the logged stacked orders."""
        decks: tuple[tuple[str, ...], ...] = ()
        for item in self.log.entries:
            if "command" in item:
                break
            event = item.get("event")
            if isinstance(event, Mapping) and event.get("type") == MatchSeeded.__struct_config__.tag:
                raw = event.get("decks") or ()
                if isinstance(raw, list) and all(isinstance(deck, list) for deck in raw):
                    decks = tuple(tuple(deck) for deck in raw)
                break
        setup = Setup(seed=self.shuffle_seed, decks=decks, dealer=self.dealer)
        try:
            return list(self.rules.start(self.config, setup))
        except Exception as error:  # a setup the game cannot start from is the log's fault
            raise Failure(_where(1), f"the match cannot start from the logged setup: {error}", 1) from None

    def _seeded(
        self, event: MatchSeeded, seed_hex: str, where: str, seq: int, line: int | None
    ) -> tuple[tuple[str, ...], ...]:
        if event.seed != seed_hex:
            raise Failure(where, "the match was seeded with another seed than the revealed one", seq, line)
        if event.commitment != fairness.commitment(seed_hex):
            raise Failure(where, "the match_seeded commitment is not the hash of its seed", seq, line)
        if event.stacked != self.stacked or len(event.decks) != self.stacked:
            raise Failure(where, f"{len(event.decks)} stacked orders, the header says {self.stacked}", seq, line)
        return event.decks


@cache
def _decoder(kind: Any) -> msgspec.json.Decoder[Any]:
    return msgspec.json.Decoder(kind)


def _tag(event: Any) -> str:
    config = getattr(type(event), "__struct_config__", None)
    return str(getattr(config, "tag", type(event).__name__))
