"""Where the store is: a store URL (or the environment) as the eventsourcing library's settings.

``memory:``, ``sqlite:///path`` (``?synchronous=normal|full|extra``) or
``postgresql://user:password@host:port/db`` (``?schema=``); without one, ``CARDGAMES_STORE``, else
the library's own variables, else a SQLite file under ``data/``. A SQLite file's connections get
``PRAGMA synchronous`` (:func:`tune_sqlite`). service/store.py opens the store so found.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

from eventsourcing.persistence import InfrastructureFactory
from eventsourcing.sqlite import SQLiteConnection, SQLiteConnectionPool

DEFAULT_SQLITE = Path("data") / "cardgames.sqlite"
ENV_STORE = "CARDGAMES_STORE"
#: SQLite's ``synchronous`` on the store's connections (the URL's ``?synchronous=``, else this
#: variable): NORMAL by default, FULL or EXTRA to flush the log to disk at every commit.
ENV_SQLITE_SYNCHRONOUS = "CARDGAMES_SQLITE_SYNCHRONOUS"
SQLITE_SYNCHRONOUS = ("NORMAL", "FULL", "EXTRA")


class StoreError(Exception):
    """A problem with the store itself (bad URL, unreachable database)."""


def environment_for_url(url: str) -> dict[str, str]:
    """The eventsourcing environment (PERSISTENCE_MODULE, ...) for a store URL."""
    if url in ("memory:", "memory://", "memory"):
        return {"PERSISTENCE_MODULE": "eventsourcing.popo"}
    parts = urlsplit(url)
    if parts.scheme == "sqlite":
        path = unquote(parts.path)
        if parts.netloc:  # sqlite://relative/path
            path = parts.netloc + path
        elif path.startswith(("/./", "/../")):
            path = path[1:]  # sqlite:///./data/x.sqlite: relative to the working directory
        elif path.startswith("//"):
            path = path[1:]  # sqlite:////abs/x.sqlite (SQLAlchemy's absolute form)
        if not path or path == "/":
            raise StoreError(f"the SQLite URL names no file: {url!r}")
        if path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        env = {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": path}
        synchronous = parse_qs(parts.query).get("synchronous")
        if synchronous:
            env[ENV_SQLITE_SYNCHRONOUS] = synchronous[0]
        return env
    if parts.scheme in ("postgresql", "postgres"):
        dbname = unquote(parts.path.lstrip("/"))
        if not dbname or not parts.hostname:
            raise StoreError(f"a PostgreSQL URL needs a host and a database: {url!r}")
        env = {
            "PERSISTENCE_MODULE": "eventsourcing.postgres",
            "POSTGRES_DBNAME": dbname,
            "POSTGRES_HOST": parts.hostname,
            "POSTGRES_PORT": str(parts.port or 5432),
            "POSTGRES_USER": unquote(parts.username or "postgres"),
            "POSTGRES_PASSWORD": unquote(parts.password or ""),
        }
        schema = parse_qs(parts.query).get("schema")
        if schema:
            env["POSTGRES_SCHEMA"] = schema[0]
        return env
    raise StoreError(f"unknown store URL {url!r}: use memory:, sqlite:///path or postgresql://user@host/db")


def resolve_environment(url: str | None = None, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The store's environment: the URL, else CARDGAMES_STORE, else the library's, else SQLite."""
    environ = os.environ if environ is None else environ
    if url:
        return environment_for_url(url)
    if environ.get(ENV_STORE):
        return environment_for_url(environ[ENV_STORE])
    if environ.get("PERSISTENCE_MODULE"):
        env = dict(environ)
        if env.get("SQLITE_DBNAME") and env["SQLITE_DBNAME"] != ":memory:":
            Path(env["SQLITE_DBNAME"]).parent.mkdir(parents=True, exist_ok=True)
        return env
    return environment_for_url(f"sqlite:///./{DEFAULT_SQLITE}")


def describe_environment(env: Mapping[str, str]) -> str:
    """A short, password-free description of where the store is (for logs)."""
    module = env.get("PERSISTENCE_MODULE", "eventsourcing.popo")
    if module.endswith("sqlite"):
        return f"sqlite:{env.get('SQLITE_DBNAME')}"
    if module.endswith("postgres"):
        return f"postgresql://{env.get('POSTGRES_USER')}@{env.get('POSTGRES_HOST')}:" \
               f"{env.get('POSTGRES_PORT', '5432')}/{env.get('POSTGRES_DBNAME')}"
    return "memory"


def tune_sqlite(factory: InfrastructureFactory, synchronous: str | None = None) -> str | None:
    """Set ``PRAGMA synchronous`` (default NORMAL) on every connection of a SQLite file store.

    The library opens SQLite files in WAL mode with SQLite's default ``synchronous=FULL``: every
    commit waits for the write-ahead log to reach the disk (an fsync, 0.5 to several ms, per
    command). With NORMAL a commit is in the WAL file (the operating system's page cache) when it
    returns and the WAL is flushed at checkpoints: an accepted command survives a crash or kill of
    the process (the database stays consistent in every case), and only a power loss or an
    operating-system crash may lose the last commits. FULL (or EXTRA) keeps a flush per commit.
    Call before the first connection is made (the pool opens them lazily). Returns the level
    set, None when the store is not a SQLite file.
    """
    level = (synchronous or "NORMAL").upper()
    if level not in SQLITE_SYNCHRONOUS:
        choices = ", ".join(SQLITE_SYNCHRONOUS)
        raise StoreError(f"unknown SQLite synchronous setting {synchronous!r}: use one of {choices}")
    pool = getattr(getattr(factory, "datastore", None), "pool", None)
    if not isinstance(pool, SQLiteConnectionPool) or pool.is_sqlite_memory_mode:
        return None
    connect = pool._create_connection

    def tuned() -> SQLiteConnection:
        connection = connect()
        connection.cursor().execute(f"PRAGMA synchronous={level}")
        return connection

    pool._create_connection = tuned  # type: ignore[method-assign]
    return level
