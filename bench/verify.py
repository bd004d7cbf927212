"""Verifying the audit log of the long log, next to replaying the same file without verification.

The long log (bench/longlog.py) is written as the NDJSON audit log (docs/log-format.md)
with the service's own writer and chain. ``verify`` is ``cardgames verify`` without the
process: parse every line, check the header, the seed commitments, every chain hash,
every shuffle against the seed and every command through ``decide``, event by event.
``replay`` reads the same bytes, decodes every event into the game's structs and folds
them, trusting the file. Figures are events per second of whole files.
"""

from __future__ import annotations

from typing import Any

import msgspec

from bench.harness import Context, Probe, Unavailable, timed_loop
from bench.longlog import LongLog, long_log
from bench.playout import load_game
from cardgames.engine.core.replay import fold


def audit_bytes(log: LongLog) -> bytes:
    """The long log as the NDJSON audit log of a finished match."""
    from cardgames.engine.core import chain, fairness
    from cardgames.service.audit.logfile import LogBuilder, reveal, to_bytes

    game = load_game(log.game_name)
    header = chain.header(
        game=log.game_name, rules_version=chain.rules_version(game), game_id="00000000-0000-4000-8000-00000000be4c",
        players=int(getattr(log.config, "players", game.DEFAULT_PLAYERS)), config=msgspec.to_builtins(log.config),
        dealer=None, stacked=0, seed_commitment=fairness.commitment(log.seed), seed_given=False, seat_commitments=None,
    )
    builder = LogBuilder(header, log.seed)
    builder.add(log.events[: log.start_events])
    at = log.start_events
    for seat, command, size in log.commands:
        builder.add(log.events[at: at + size], seat, command)
        at += size
    return to_bytes(builder.finish(reveal(log.seed, None)))


class VerifyProbe(Probe):
    """Whole verifications of the long log's audit file, and whole replays of it."""

    name = "audit.verify"

    def setup(self, ctx: Context) -> None:
        try:
            from cardgames.service.audit.logfile import read_log
            from cardgames.service.audit.verify import verify_bytes
        except ImportError as error:
            raise Unavailable(f"the verifier is not available ({error})") from error
        self.log = long_log(ctx)
        self.data = audit_bytes(self.log)
        self.read_log, self.verify_bytes = read_log, verify_bytes
        self.game = load_game(self.log.game_name)
        self.decode = msgspec.json.Decoder(self.game.Event).decode
        summary = verify_bytes(self.data)
        if summary.entries != len(self.log.events) or self._replay() != self.log.final_state:
            raise RuntimeError("the long log's audit file does not verify or replay to its final state")

    def _replay(self) -> Any:
        """Parse the file, decode each event into the game's structs, fold from the header's config."""
        log = self.read_log(self.data)
        game, encode = self.game, msgspec.json.encode
        config = msgspec.convert(log.header["config"], game.Config)
        return fold(game, game.initial(config), (self.decode(encode(item["event"])) for item in log.entries))

    def sample(self, ctx: Context) -> dict[str, float]:
        events = len(self.log.events)
        verify_time, verified = timed_loop(ctx.settings.budget / 2, lambda: self.verify_bytes(self.data))
        replay_time, replayed = timed_loop(ctx.settings.budget / 2, self._replay)
        return {
            "verify_events_per_s": len(verified) * events / verify_time,
            "replay_events_per_s": len(replayed) * events / replay_time,
        }

    def info(self) -> dict[str, Any]:
        return {"log": self.log.describe(), "file_bytes": len(self.data)}
