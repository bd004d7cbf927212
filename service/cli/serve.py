"""``cardgames serve [--address HOST:PORT] [--store URL]``: run the gRPC GameService."""

from __future__ import annotations

import asyncio

import typer

from service.server import DEFAULT_ADDRESS, serve
from service.store import ENV_STORE, EventStore, StoreError


def serve_command(
    address: str = typer.Option(DEFAULT_ADDRESS, "--address", help="Where to listen (HOST:PORT; port 0: any)."),
    store: str | None = typer.Option(
        None,
        "--store",
        help=f"memory:, sqlite:///path/file.sqlite or postgresql://user@host:port/db "
        f"(default: ${ENV_STORE}, else ./data/cardgames.sqlite).",
    ),
) -> None:
    """Serve the GameService over gRPC (with health and reflection) until interrupted."""
    try:
        event_store = EventStore.from_url(store)
    except StoreError as error:
        typer.echo(f"cardgames serve: {error}", err=True)
        raise typer.Exit(code=2) from error
    try:
        asyncio.run(serve(address, event_store, lambda line: typer.echo(line)))
    except OSError as error:
        typer.echo(f"cardgames serve: {error}", err=True)
        raise typer.Exit(code=2) from error
