"""Store replay: the long log read back from the service's event store, decoded and folded.

The long log (bench/longlog.py) is written by the service's application layer
(``cardgames.service.games.Games``: the match created with the log's seed, then every command
submitted), so the records are exactly what the service writes (chain notes, one
insert per command). A replay is what the service does to load a game from its log
alone: ``EventStore.load`` (select, decode into the game's Event union), the config
from the header, then ``cardgames.engine.core.replay.fold`` from ``initial`` (no snapshot).
The figure is events per second of whole replays, on the in-memory store (the
library's POPO recorder, as the anchor uses) and, for information, on SQLite.
"""

from __future__ import annotations

import statistics
import tempfile
import uuid
from pathlib import Path
from typing import Any

import msgspec
from cardgames.engine.core.replay import fold

from bench.harness import Context, Probe, Unavailable, cpu_clock, timed_loop
from bench.longlog import LongLog, long_log
from bench.playout import load_game


def _store_module() -> Any:
    try:
        from cardgames.service import store
    except ImportError as error:
        raise Unavailable(f"store not available (cardgames.service.store: {error})") from error
    return store


class StoreReplayProbe(Probe):
    """Whole replays of the long log from the store."""

    anchors = ("eventsourcing.aggregate",)

    def __init__(self, url: str = "memory:") -> None:
        self.url = url
        self.name = "store.replay" if url == "memory:" else "store.replay." + url.split(":", 1)[0]
        self._tempdir: tempfile.TemporaryDirectory[str] | None = None
        self._facts: dict[str, Any] = {}
        self._games: Any = None

    def setup(self, ctx: Context) -> None:
        store_module = _store_module()
        log = long_log(ctx)
        url = self.url
        if url.startswith("sqlite"):
            self._tempdir = tempfile.TemporaryDirectory(prefix="cardgames-bench-")
            url = f"sqlite:///{Path(self._tempdir.name) / 'replay.sqlite'}"
        self.store = store_module.EventStore.from_url(url)
        self.game = load_game(log.game_name)
        self.config = log.config
        self.log = log
        try:
            self.game_id, written = ctx.run(self._write_through_service(log)), "through cardgames.service.games.Games"
        except (ImportError, AttributeError, TypeError) as error:  # the app layer's API moved: write directly
            self.game_id, written = self._write_directly(store_module, log), f"directly (Games: {error})"
        if self._replay() != log.final_state:
            raise RuntimeError("the replayed long log does not fold to the state it was played to")
        self._facts = {"log": log.describe(), "store": self.store.describe(), "written": written,
                       **self._breakdown()}

    async def _write_through_service(self, log: LongLog) -> uuid.UUID:
        """Create the match and submit its commands through the application layer, so the
        records are exactly what the service writes (notes, hashes, one insert per command)."""
        from cardgames.service.games import Games

        games = Games(self.store)
        created = await games.create(log.game_name, log.options, seed=log.seed)
        sequence = created.sequence
        for seat, command, size in log.commands:
            accepted = await games.submit(created.game_id, created.seat_tokens[seat], msgspec.to_builtins(command),
                                          sequence)
            sequence = accepted.sequence
            if sequence - accepted.entries[0].sequence + 1 != size:
                raise RuntimeError("the service wrote another batch than the engine made")
        if sequence != len(log.events):
            raise RuntimeError(f"the service's log has {sequence} events, the long log {len(log.events)}")
        self._games = games  # closing it would close the store
        return uuid.UUID(created.game_id)

    def _write_directly(self, store_module: Any, log: LongLog) -> uuid.UUID:
        game_id = uuid.uuid4()
        players = getattr(self.config, "players", None) or self.game.DEFAULT_PLAYERS
        header = store_module.Header(
            game=log.game_name, players=players, config=msgspec.to_builtins(self.config),
            token_hashes=tuple("0" * 64 for _ in range(players)),
        )
        sequence = self.store.create(game_id, header, log.events[: log.start_events])
        for _seat, _command, size in log.commands:
            sequence = self.store.append(game_id, log.game_name, sequence, log.events[sequence: sequence + size])
        if sequence != len(log.events):
            raise RuntimeError("the long log's batches do not add up to its events")
        return game_id

    def _replay(self) -> Any:
        """As the service loads a game it does not hold (cardgames.service.games.Games.game)."""
        header, events = self.store.load(self.game_id, load_game)
        game = load_game(header.game)
        config = msgspec.convert(header.config, game.Config)
        return fold(game, game.initial(config), events)

    def _breakdown(self) -> dict[str, Any]:
        """Where a replay's time goes: reading + decoding, and folding (medians of 5)."""
        clock = cpu_clock
        load, fold_times = [], []
        for _ in range(5):
            start = clock()
            _header, events = self.store.load(self.game_id, load_game)
            middle = clock()
            fold(self.game, self.game.initial(self.config), events)
            load.append(middle - start)
            fold_times.append(clock() - middle)
        length = len(self.log.events)
        return {
            "load_decode_events_per_s": round(length / statistics.median(load)),
            "fold_events_per_s": round(length / statistics.median(fold_times)),
        }

    def sample(self, ctx: Context) -> dict[str, float]:
        elapsed, replays = timed_loop(ctx.settings.budget, self._replay)
        return {"events_per_s": len(replays) * len(self.log.events) / elapsed}

    def teardown(self, ctx: Context) -> None:
        if self._games is not None:
            ctx.run(self._games.close())  # closes the store too
        else:
            self.store.close()
        if self._tempdir is not None:
            self._tempdir.cleanup()

    def info(self) -> dict[str, Any]:
        return dict(self._facts)
