"""What the command line prints: tables whole, and what to do when no service answers.

On a terminal rich fits a table to the terminal's width. Written to a file or a pipe it would
fit it to 80 columns (rich's default when there is no terminal to ask), wrapping or cutting
cells; :func:`print_whole` prints it at its natural width there instead, so that a saved
crosstable or score sheet keeps one line per row. :func:`unreachable` is the message of every
command that talks to a running service (``export``, ``bridge``) when none answers.
"""

from __future__ import annotations

from rich.console import Console, RenderableType

#: The widest a table may measure when nothing limits it (a bound for rich's measurement only).
UNBOUNDED = 100_000


def print_whole(console: Console, renderable: RenderableType) -> None:
    """Print ``renderable`` at the terminal's width, or (not a terminal) at least as wide as it needs."""
    if console.is_terminal:
        console.print(renderable)
        return
    natural = console.measure(renderable, options=console.options.update(width=UNBOUNDED)).maximum
    width = console.width
    console.width = max(width, natural)
    try:
        console.print(renderable)
    finally:
        console.width = width


def unreachable(command: str, address: str, detail: str, waited: float | None = None) -> str:
    """``cardgames CMD: no cardgames service answered at ADDRESS ...``, with what to do about it."""
    within = f" within {waited:g} s" if waited is not None else ""
    return (
        f"cardgames {command}: no cardgames service answered at {address}{within} ({detail}). Is it running? "
        f"Start one with `cardgames serve --address {address}`, or give the address of yours with "
        f"--server HOST:PORT."
    )
