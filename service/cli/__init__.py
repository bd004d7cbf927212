"""The ``cardgames`` command line: one module per subcommand, registered here."""

from __future__ import annotations

import typer

from service.cli import bridge, conformance, export, play, replay, serve, tournament, verify

app = typer.Typer(
    name="cardgames",
    help="An event-sourced card-game engine service: Seep, Contract Rummy and All Fours.",
    no_args_is_help=True,
    add_completion=False,
)


@app.callback()
def _root() -> None:
    """An event-sourced card-game engine service: Seep, Contract Rummy and All Fours."""


app.command("conformance")(conformance.conformance_command)
app.command("serve")(serve.serve_command)
app.command("play")(play.play_command)
app.command("export")(export.export_command)
app.command("verify")(verify.verify_command)
app.command("replay")(replay.replay_command)
app.command("tournament")(tournament.tournament_command)
app.command("bridge")(bridge.bridge_command)


def main() -> None:
    app()
