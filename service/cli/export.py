"""``cardgames export GAME_ID [--server ADDR] [--token TOKEN] > game.ndjson``: a match's audit log.

Reads the log with GetLog (as a spectator, or as the seat of ``--token``) and writes it as
NDJSON (docs/log-format.md) on stdout. Once the match is over the log is complete and
``cardgames verify`` checks it; before that it is the caller's view, without the reveal
(a note on stderr says so).
"""

from __future__ import annotations

import asyncio
import sys

import typer

from cardgames.clients import CardgamesError, GameClient, Retry, ServiceUnavailable
from cardgames.service.audit.export import ExportError, fetch
from cardgames.service.audit.logfile import AuditLog, write_log
from cardgames.service.cli.output import unreachable
from cardgames.service.server import DEFAULT_ADDRESS


async def _fetch(server: str, game_id: str, token: str | None, timeout: float) -> AuditLog:
    async with GameClient(server, retry=Retry(timeout=timeout, call_timeout=timeout)) as client:
        return await fetch(client, game_id, token)


def export_command(
    game_id: str = typer.Argument(..., help="The game's id (from CreateGame or `cardgames play`).", show_default=False),
    server: str = typer.Option(DEFAULT_ADDRESS, "--server", help="The GameService address, HOST:PORT."),
    token: str | None = typer.Option(None, "--token", help="A seat token: read the log as that seat."),
    timeout: float = typer.Option(10.0, "--timeout", help="Seconds to keep trying to reach the server."),
) -> None:
    """Write a match's audit log as NDJSON on stdout (complete once the match is over)."""
    try:
        log = asyncio.run(_fetch(server, game_id, token, timeout))
    except ServiceUnavailable as error:
        typer.echo(unreachable("export", server, str(error), timeout), err=True)
        raise typer.Exit(2) from None
    except CardgamesError as error:
        typer.echo(f"cardgames export: {error}", err=True)
        raise typer.Exit(2 if error.reason.startswith(("INVALID", "UNAVAILABLE")) else 1) from None
    except ExportError as error:
        typer.echo(f"cardgames export: {error}", err=True)
        raise typer.Exit(1) from None
    write_log(sys.stdout.buffer, log)
    sys.stdout.buffer.flush()
    if log.reveal is None:
        typer.echo("cardgames export: the match has not ended (or it is a tournament's match whose deal is still "
                   "being played): this is the log as the caller sees it now, without the reveal (cardgames verify "
                   "needs the log of an ended match)", err=True)
