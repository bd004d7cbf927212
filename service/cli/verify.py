"""``cardgames verify FILE.ndjson``: check a match's audit log offline (docs/log-format.md).

Exit status: 0 when the log holds (one summary line on stdout); 1 when it does not (the
first bad sequence number and what is wrong, on stderr); 2 when the file cannot be read
as a log at all (missing, not JSON, cut short, unknown game, format or rules version).
"""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from cardgames.service.audit.logfile import LogFormatError
from cardgames.service.audit.verify import Failure, verify_bytes

OK, INVALID, UNREADABLE = 0, 1, 2


def verify_command(
    file: Path = typer.Argument(..., help="The NDJSON log (from `cardgames export` or `cardgames play --log`); "
                                          "- for stdin.", show_default=False),
    head: str | None = typer.Option(None, "--head", help="The head hash you were shown: the log must end there."),
) -> None:
    """Check a log offline: its hash chain, the seed commitments, every shuffle and every move."""
    name = "stdin" if str(file) == "-" else str(file)
    try:
        data = sys.stdin.buffer.read() if str(file) == "-" else file.read_bytes()
    except OSError as error:
        typer.echo(f"cardgames verify: cannot read {name}: {error.strerror or error}", err=True)
        raise typer.Exit(UNREADABLE) from None
    try:
        summary = verify_bytes(data)
    except LogFormatError as error:
        typer.echo(f"cardgames verify: {name}: {error}", err=True)
        raise typer.Exit(UNREADABLE) from None
    except Failure as failure:
        typer.echo(f"FAIL {name}: {failure}", err=True)
        raise typer.Exit(INVALID) from None
    if head is not None and head.lower() != summary.head:
        typer.echo(f"FAIL {name}: the log ends at head {summary.head}, not at the expected {head.lower()}", err=True)
        raise typer.Exit(INVALID)
    typer.echo(summary.line())
