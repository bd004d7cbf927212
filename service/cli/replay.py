"""``cardgames replay FILE.ndjson``: step through a match's audit log as one viewer saw it.

``--seat N`` replays it as seat N saw it (its own hand, the others' card counts, the
events it was shown), ``--public`` (the default) as a spectator. ``--at SEQ`` prints the
table at that sequence number and exits; without it the replay steps through the log,
interactively when stdin is a terminal, else it prints every step (or, with
``--summary``, the account and the final table). ``--html OUT.html`` writes one
self-contained page instead (docs/auditors.md).

Exit status: 0; 1 when the log's events cannot be replayed; 2 when the file is not a
readable log (missing, not JSON, cut short, unknown game, format or rules version) or an
option is out of range.
"""

from __future__ import annotations

import sys
from pathlib import Path

import typer
from rich.console import Console

from cardgames.engine.core.protocol import Viewer
from cardgames.service.audit.logfile import LogFormatError
from cardgames.service.replay import page, terminal
from cardgames.service.replay.steps import Replay, ReplayError, viewer_name

UNREPLAYABLE, UNREADABLE = 1, 2


def _fail(code: int, message: str) -> typer.Exit:
    typer.echo(f"cardgames replay: {message}", err=True)
    return typer.Exit(code)


def replay_command(
    file: Path = typer.Argument(..., help="The NDJSON log (from `cardgames export` or `cardgames play --log`); "
                                          "- for stdin.", show_default=False),
    seat: int | None = typer.Option(None, "--seat", help="Replay as this seat saw the match (its hand only)."),
    public: bool = typer.Option(False, "--public", help="Replay as a spectator saw it (the default)."),
    at: int | None = typer.Option(None, "--at", help="Print the table at this sequence number (0: before the "
                                                     "first event) and exit; with --html, the page opens there."),
    html: Path | None = typer.Option(None, "--html", help="Write one self-contained HTML page here instead."),
    summary: bool = typer.Option(False, "--summary", help="Print only the account and the final table."),
) -> None:
    """Step through a log as one viewer saw it, in the terminal or as an HTML page."""
    if seat is not None and public:
        raise _fail(UNREADABLE, "--seat and --public exclude each other")
    name = "stdin" if str(file) == "-" else str(file)
    try:
        data = sys.stdin.buffer.read() if str(file) == "-" else file.read_bytes()
    except OSError as error:
        raise _fail(UNREADABLE, f"cannot read {name}: {error.strerror or error}") from None
    try:
        replay = Replay.from_bytes(data)
    except LogFormatError as error:
        raise _fail(UNREADABLE, f"{name}: {error}") from None
    except ReplayError as error:
        raise _fail(UNREPLAYABLE, f"{name}: {error}") from None
    viewer: Viewer = seat
    try:
        replay.check_viewer(viewer)
    except ValueError as error:
        raise _fail(UNREADABLE, str(error)) from None
    if at is not None and not 0 <= at <= replay.last:
        raise _fail(UNREADABLE, f"--at {at}: this log has seq 0 to {replay.last}")
    if html is not None:
        try:
            size = page.write(html, replay, viewer, start=at or 0)
        except OSError as error:
            raise _fail(UNREADABLE, f"cannot write {html}: {error.strerror or error}") from None
        typer.echo(f"{html}: {replay.title}, {replay.last} events as seen by {viewer_name(viewer)} "
                   f"({size // 1024} KiB, self-contained)")
        return
    console = Console(highlight=False)
    if at is not None:
        terminal.print_at(console, replay, at, viewer)
    elif summary:
        terminal.print_summary(console, replay, viewer)
    elif sys.stdin.isatty() and str(file) != "-":
        terminal.interactive(console, replay, viewer)
    else:
        terminal.print_all(console, replay, viewer)
