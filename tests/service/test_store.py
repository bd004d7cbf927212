"""The event store on each backend: streams, one insert per batch, conflicts, URLs."""

from __future__ import annotations

import threading
import types
from pathlib import Path
from uuid import uuid4

import pytest
from cardgames.engine.core.events import MatchSeeded, Shuffled, match_seeded
from cardgames.service.store import EventStore, GameNotFound, Header, StaleSequence
from cardgames.service.store_location import (
    ENV_SQLITE_SYNCHRONOUS,
    ENV_STORE,
    StoreError,
    environment_for_url,
    resolve_environment,
)

CORE = types.SimpleNamespace(Event=MatchSeeded | Shuffled)  # a "game" whose events are the core ones
HEADER = Header(game="core", players=2, config={"players": 2}, token_hashes=("a" * 64, "b" * 64))
START = [match_seeded("ab" * 32, (("AS", "2S"),)), Shuffled(0, 2, ("AS", "2S"))]


def test_create_then_load_gives_header_and_events(store: EventStore) -> None:
    game_id = uuid4()
    assert store.create(game_id, HEADER, START) == 2
    header, events = store.load(game_id, lambda name: CORE)
    assert header == HEADER
    assert events == START
    assert store.header(game_id) == HEADER
    assert store.events(game_id, CORE) == START  # the header is not an event
    assert store.events(game_id, CORE, after=1) == START[1:]
    assert store.events(game_id, CORE, after=0, upto=1) == START[:1]


def test_append_and_stale_sequence_writes_nothing(store: EventStore) -> None:
    game_id = uuid4()
    store.create(game_id, HEADER, START)
    batch = [Shuffled(1, 1, ("AS",)), Shuffled(2, 1, ("2S",))]
    assert store.append(game_id, "core", 2, batch) == 4
    with pytest.raises(StaleSequence):
        store.append(game_id, "core", 3, [Shuffled(9, 1, ("KS",)), Shuffled(10, 1, ("QS",))])
    with pytest.raises(StaleSequence):
        store.append(game_id, "core", 2, [Shuffled(9, 1, ("KS",))])
    assert store.events(game_id, CORE) == START + batch
    assert store.append(game_id, "core", 4, []) == 4


def test_unknown_game(store: EventStore) -> None:
    with pytest.raises(GameNotFound):
        store.header(uuid4())
    with pytest.raises(GameNotFound):
        store.load(uuid4(), lambda name: CORE)
    assert store.events(uuid4(), CORE) == []


def test_creating_the_same_game_twice_conflicts(store: EventStore) -> None:
    game_id = uuid4()
    store.create(game_id, HEADER, START)
    with pytest.raises(StaleSequence):
        store.create(game_id, HEADER, START)


def test_concurrent_appends_at_one_sequence_one_wins(store: EventStore) -> None:
    game_id = uuid4()
    store.create(game_id, HEADER, START)
    outcomes: list[str] = []
    barrier = threading.Barrier(4)

    def writer(n: int) -> None:
        barrier.wait()
        try:
            store.append(game_id, "core", 2, [Shuffled(n, 1, ("AS",)), Shuffled(n, 1, ("2S",))])
            outcomes.append("ok")
        except StaleSequence:
            outcomes.append("stale")

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["ok", "stale", "stale", "stale"]
    events = store.events(game_id, CORE)
    assert len(events) == 4 and events[2].shuffle_no == events[3].shuffle_no


def test_sqlite_file_survives_reopening(tmp_path: Path) -> None:
    url = f"sqlite://{tmp_path}/deep/folder/games.sqlite"
    first = EventStore.from_url(url)
    game_id = uuid4()
    first.create(game_id, HEADER, START)
    first.close()
    assert (tmp_path / "deep" / "folder" / "games.sqlite").exists()
    second = EventStore.from_url(url)
    assert second.load(game_id, lambda name: CORE) == (HEADER, START)
    second.close()


def test_sqlite_commits_to_the_wal_and_flushes_per_commit_only_when_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/service.md, durability on SQLite: WAL with synchronous=NORMAL unless FULL is asked for."""

    def settings(store: EventStore) -> tuple[str, int]:
        store.create(uuid4(), HEADER, START)  # connections are made on use: write through one
        with store.factory.datastore.transaction(commit=False) as cursor:  # type: ignore[attr-defined]
            cursor.execute("PRAGMA journal_mode")
            mode = cursor.fetchone()[0]
            cursor.execute("PRAGMA synchronous")
            return mode, cursor.fetchone()[0]

    assert settings(EventStore.from_url(f"sqlite://{tmp_path}/a.sqlite")) == ("wal", 1)  # NORMAL
    assert settings(EventStore.from_url(f"sqlite://{tmp_path}/b.sqlite?synchronous=full")) == ("wal", 2)
    monkeypatch.setenv(ENV_SQLITE_SYNCHRONOUS, "extra")
    assert settings(EventStore.from_url(f"sqlite://{tmp_path}/c.sqlite")) == ("wal", 3)
    with pytest.raises(StoreError, match="synchronous"):
        EventStore.from_url(f"sqlite://{tmp_path}/d.sqlite?synchronous=off")


def test_store_urls() -> None:
    assert environment_for_url("memory:") == {"PERSISTENCE_MODULE": "eventsourcing.popo"}
    env = environment_for_url("postgresql://alice:s%40cret@db.example:6543/games?schema=cg")
    assert env == {
        "PERSISTENCE_MODULE": "eventsourcing.postgres", "POSTGRES_DBNAME": "games", "POSTGRES_HOST": "db.example",
        "POSTGRES_PORT": "6543", "POSTGRES_USER": "alice", "POSTGRES_PASSWORD": "s@cret", "POSTGRES_SCHEMA": "cg",
    }
    assert environment_for_url("postgresql://bob@localhost/g")["POSTGRES_PORT"] == "5432"
    for bad in ("mysql://x/y", "postgresql://host-only", "sqlite://"):
        with pytest.raises(StoreError):
            environment_for_url(bad)


def test_sqlite_urls_absolute_and_relative(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    absolute = environment_for_url(f"sqlite://{tmp_path}/a/x.sqlite")
    assert absolute == {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": f"{tmp_path}/a/x.sqlite"}
    assert (tmp_path / "a").is_dir()
    assert environment_for_url(f"sqlite:///{tmp_path}/a/x.sqlite") == absolute  # four slashes work too
    monkeypatch.chdir(tmp_path)
    assert environment_for_url("sqlite:///./rel/y.sqlite")["SQLITE_DBNAME"] == "./rel/y.sqlite"
    assert (tmp_path / "rel").is_dir()


def test_resolution_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert resolve_environment("memory:", {ENV_STORE: "sqlite:///./x.sqlite"})["PERSISTENCE_MODULE"] == \
        "eventsourcing.popo"
    assert resolve_environment(None, {ENV_STORE: "memory:"}) == {"PERSISTENCE_MODULE": "eventsourcing.popo"}
    library = {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": "lib/z.sqlite"}
    assert resolve_environment(None, library) == library
    assert (tmp_path / "lib").is_dir()
    default = resolve_environment(None, {})
    assert default == {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": "./data/cardgames.sqlite"}
    assert (tmp_path / "data").is_dir()


def test_unreachable_postgres_is_a_store_error() -> None:
    with pytest.raises(StoreError):
        EventStore(environment_for_url("postgresql://nobody@127.0.0.1:1/none")
                   | {"POSTGRES_CONNECT_TIMEOUT": "1"})
