"""The ``cardgames`` command line: one module per subcommand, registered here."""

from __future__ import annotations

import os

# gRPC's C core logs to stderr at INFO unless told otherwise: a connection that a server closes
# while stopping comes out as ``I... chttp2_transport.cc] ...: Got goaway [2] ... Cancelling all
# calls`` in the middle of a command's output, although the command handles it (the bridge
# reconnects, a client retries). The commands keep the core's errors; ``GRPC_VERBOSITY=INFO
# cardgames ...`` shows everything. The core reads the setting when gRPC is imported: here, first.
os.environ.setdefault("GRPC_VERBOSITY", "ERROR")

import typer

from cardgames.service.cli import bridge, conformance, export, play, replay, serve, tournament, verify
from cardgames.service.cli.help import Command, Group

app = typer.Typer(
    name="cardgames",
    help="An event-sourced card-game engine service: Seep, Contract Rummy and All Fours.",
    no_args_is_help=True,
    add_completion=False,
    cls=Group,
)


@app.callback()
def _root() -> None:
    """An event-sourced card-game engine service: Seep, Contract Rummy and All Fours."""


app.command("conformance", cls=Command)(conformance.conformance_command)
app.command("serve", cls=Command)(serve.serve_command)
app.command("play", cls=Command)(play.play_command)
app.command("export", cls=Command)(export.export_command)
app.command("verify", cls=Command)(verify.verify_command)
app.command("replay", cls=Command)(replay.replay_command)
app.command("tournament", cls=Command)(tournament.tournament_command)
app.command("bridge", cls=Command)(bridge.bridge_command)


def main() -> None:
    app()
