"""A fresh PostgreSQL database per test (the real server on 127.0.0.1:5432, never a mock)."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

PG_HOST = "127.0.0.1"
PG_PORT = 5432
PG_USER = "postgres"


def pg_connect(dbname: str = "postgres") -> Any:
    """An autocommit connection to the test server."""
    import psycopg

    return psycopg.connect(host=PG_HOST, port=PG_PORT, user=PG_USER, dbname=dbname, autocommit=True,
                           connect_timeout=3)


@contextmanager
def fresh_database(prefix: str = "cardgames_t") -> Iterator[tuple[str, str]]:
    """Create a database; yield (its URL, its name); drop it (closing its connections) at the end."""
    try:
        admin = pg_connect()
    except Exception as error:  # pragma: no cover - depends on the machine
        pytest.skip(f"PostgreSQL is not reachable on {PG_HOST}:{PG_PORT}: {error}")
    name = f"{prefix}_{secrets.token_hex(5)}"
    admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"postgresql://{PG_USER}@{PG_HOST}:{PG_PORT}/{name}", name
    finally:
        admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.close()


def admin_execute(sql: str) -> None:
    with pg_connect() as admin:
        admin.execute(sql)
