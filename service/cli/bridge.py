"""``cardgames bridge -- COMMAND...``: play through a program's stdin/stdout (JSON lines; clients/bridge.py)."""

from __future__ import annotations

import asyncio
import logging

import grpc
import typer

from cardgames.clients.bridge import LineProgram, ProgramExited
from cardgames.clients.remote_bot import play_seat, play_tournament
from cardgames.service.cli.output import unreachable


def bridge_command(
    command: list[str] = typer.Argument(..., help="The bot program and its arguments (after --)."),
    server: str = typer.Option("127.0.0.1:50051", "--server", help="The service's HOST:PORT."),
    game_id: str | None = typer.Option(None, "--game-id", help="Play one seat of this match..."),
    token: str | None = typer.Option(None, "--token", help="...with this seat token."),
    tournament: str | None = typer.Option(None, "--tournament", help="Or play in this tournament..."),
    name: str | None = typer.Option(None, "--name", help="...as this remote entrant..."),
    credential: str | None = typer.Option(
        None, "--credential", envvar="CARDGAMES_CREDENTIAL",
        help="...registering with the credential the tournament's creator was given for it.",
    ),
    entrant_token: str | None = typer.Option(
        None, "--entrant-token", help="An entrant token from an earlier registration (with --credential: used while "
                                      "it is valid)."
    ),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Log each decision to stderr."),
    timeout: float = typer.Option(10.0, "--timeout", help="Seconds to wait for the service at the start (once "
                                                          "connected, the bridge reconnects after any outage)."),
) -> None:
    """Bridge a program without gRPC: one decision per line to its stdin, one command per line back."""
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, format="bridge: %(message)s")
    if (game_id is None) == (tournament is None):
        raise typer.BadParameter("give --game-id and --token, or --tournament and --name")
    if game_id is not None and not token:
        raise typer.BadParameter("--game-id needs the seat's --token")
    if tournament is not None and not (name and (credential or entrant_token)):
        raise typer.BadParameter("--tournament needs --name and --credential (or --entrant-token)")
    try:
        code = asyncio.run(_bridge(command, server, game_id, token, tournament, name, credential, entrant_token,
                                   timeout))
    except ProgramExited as error:
        typer.echo(f"cardgames bridge: {error}", err=True)
        raise typer.Exit(code=3) from error
    except Unreachable as error:
        typer.echo(unreachable("bridge", server, str(error), timeout), err=True)
        raise typer.Exit(code=2) from error
    except grpc.aio.AioRpcError as error:
        if error.code() == grpc.StatusCode.UNAVAILABLE:
            typer.echo(unreachable("bridge", server, f"UNAVAILABLE: {error.details()}"), err=True)
        else:
            typer.echo(f"cardgames bridge: {error.code().name}: {error.details()}", err=True)
        raise typer.Exit(code=2) from error
    raise typer.Exit(code=code)


class Unreachable(Exception):
    """No service answered at the address before the bridge's start-up timeout."""


async def _bridge(command: list[str], server: str, game_id: str | None, token: str | None,
                  tournament: str | None, name: str | None, credential: str | None, entrant_token: str | None,
                  timeout: float) -> int:
    async with grpc.aio.insecure_channel(server) as channel:
        try:  # reach the service before the program starts: a wrong address is said at once
            await asyncio.wait_for(channel.channel_ready(), timeout)
        except TimeoutError:
            raise Unreachable(f"no connection: {channel.get_state(try_to_connect=False).name}") from None
        program = LineProgram(command)
        await program.start()
        try:
            if game_id is not None and token is not None:
                outcome = await play_seat(channel, game_id, token, program.ask)
                typer.echo(f"cardgames bridge: match over, outcome {outcome}", err=True)
            elif tournament is not None:
                await play_tournament(
                    channel, tournament, name or "", program.ask, credential=credential, entrant_token=entrant_token,
                    on_token=lambda token: typer.echo(f"cardgames bridge: entrant token {token}", err=True),
                )
                typer.echo("cardgames bridge: tournament over", err=True)
        finally:
            status = await program.close()
    return status or 0
