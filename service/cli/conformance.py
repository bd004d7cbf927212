"""``cardgames conformance PATH...``: run FORMAT.md scenarios through the engine."""

from __future__ import annotations

from pathlib import Path

import typer

from cardgames.service.conformance import run_paths


def conformance_command(
    paths: list[Path] = typer.Argument(..., help="Scenario files or folders (searched recursively for *.json)."),
) -> None:
    """Run conformance scenarios: one PASS/FAIL line each, then 'N passed, N failed'."""
    failed = run_paths(paths, print)
    raise typer.Exit(code=1 if failed else 0)
