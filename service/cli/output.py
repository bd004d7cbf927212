"""Printing tables from the command line: whole, whether to a terminal, a file or a pipe.

On a terminal rich fits a table to the terminal's width. Written to a file or a pipe it would
fit it to 80 columns (rich's default when there is no terminal to ask), wrapping or cutting
cells; :func:`print_whole` prints it at its natural width there instead, so that a saved
crosstable or score sheet keeps one line per row.
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
