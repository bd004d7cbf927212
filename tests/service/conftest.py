"""Fixtures for the service tests: a store per backend (memory, SQLite in a temp dir, PostgreSQL)."""

from __future__ import annotations

import secrets
from collections.abc import Iterator

import pytest

from service.store import EventStore

PG_HOST = "127.0.0.1"
PG_PORT = 5432
PG_USER = "postgres"


def _pg_connect(dbname: str = "postgres"):
    import psycopg

    return psycopg.connect(host=PG_HOST, port=PG_PORT, user=PG_USER, dbname=dbname, autocommit=True,
                           connect_timeout=3)


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A fresh PostgreSQL database for this test run, dropped at the end."""
    try:
        admin = _pg_connect()
    except Exception as error:  # pragma: no cover - depends on the machine
        pytest.skip(f"PostgreSQL is not reachable on {PG_HOST}:{PG_PORT}: {error}")
    name = f"cardgames_test_{secrets.token_hex(6)}"
    admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"postgresql://{PG_USER}@{PG_HOST}:{PG_PORT}/{name}"
    finally:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.close()


@pytest.fixture(params=["memory", "sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store(request: pytest.FixtureRequest, tmp_path) -> Iterator[EventStore]:
    if request.param == "memory":
        url = "memory:"
    elif request.param == "sqlite":
        url = f"sqlite://{tmp_path}/store/games.sqlite"
    else:
        url = request.getfixturevalue("postgres_url")
    store = EventStore.from_url(url)
    yield store
    store.close()
