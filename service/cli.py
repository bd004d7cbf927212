"""The ``cardgames`` command line (placeholder entry until the CLI lands)."""

from __future__ import annotations


def main() -> None:
    raise SystemExit("cardgames: CLI not yet built")
