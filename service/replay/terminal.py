"""The replay in the terminal, with rich: one step's table, every step, the summary, or interactively.

Each step shows the event line (as the viewer was shown it), the seats (the viewer's own
hand, the others' card counts, roles, per-seat lists and scores) and the table: the
game's own ``table_text`` when its package exports one (reached through the registry),
else the generic areas and facts of :mod:`cardgames.service.replay.layout`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from cardgames.engine.core.protocol import Viewer
from cardgames.service.replay.layout import Area, card_text, layout
from cardgames.service.replay.steps import Replay, Step, viewer_name

CARD_PATTERN = re.compile(r"\b(?:JK=(?:10|[2-9AJQK])[SHDC]|JK|(?:10|[2-9AJQK])[SHDC])\b")
STYLES = {"red": "bold red", "black": "bold", "joker": "bold magenta"}
HELP = "Enter/n next · p previous · q quit · a number jumps to that seq"


def card(code: str) -> Text:
    face, colour = card_text(code)
    return Text(face, style=STYLES[colour])


def cards(codes: Sequence[str], parts: Sequence[int] = ()) -> Text:
    """Cards separated by spaces, ``|`` between the parts (a house's components)."""
    out = Text()
    ends: set[int] = set()
    total = 0
    for length in parts[:-1]:
        total += length
        ends.add(total)
    for index, code in enumerate(codes):
        if index:
            out.append(" | " if index in ends else " ")
        out.append_text(card(code))
    return out if codes else Text("-", style="dim")


def coloured(text: str) -> Text:
    """A game's own text with every card code in it drawn as a card."""
    out = Text()
    position = 0
    for match in CARD_PATTERN.finditer(text):
        out.append(text[position:match.start()])
        out.append_text(card(match.group()))
        position = match.end()
    out.append(text[position:])
    return out


def _area(area: Area) -> Text:
    line = Text(f"{area.label}: ", style="cyan")
    if not area.groups:
        line.append("-", style="dim")
    for index, group in enumerate(area.groups):
        if index:
            line.append("   ")
        if group.caption:
            line.append(f"[{group.caption}] ", style="dim")
        line.append_text(cards(group.cards, group.parts))
    return line


def _event(replay: Replay, step: Step) -> Text:
    line = Text(f"seq {step.seq:>4}  ", style="dim")
    if step.actor is not None:
        line.append("▸ ", style="bold yellow")
    line.append(step.line, style="bold" if step.actor is not None else "")
    if step.command is not None:
        line.append(f"   (your command: {step.command})", style="dim")
    return line


def render(replay: Replay, step: Step, viewer: Viewer) -> RenderableType:
    """One step: the event line, the seats and the table."""
    table = layout(step.view, replay.base.TRAITS.layout)
    seats = Table(box=None, show_header=True, header_style="dim", pad_edge=False)
    for column in ("seat", "", "hand", ""):
        seats.add_column(column)
    for seat in table.seats:
        name = Text(f"{seat.seat}" + (" (you)" if seat.you else ""), style="bold" if seat.you else "")
        roles = Text(", ".join(seat.badges), style="yellow")
        hand = cards(seat.cards) if seat.cards is not None else Text(seat.note or f"{seat.count} cards", style="dim")
        more = Text("  ").join(
            [_area(extra) for extra in seat.extras]
            + [Text(f"{label} {value}", style="dim") for label, value in seat.facts]
        )
        seats.add_row(name, roles, hand, more)
    parts: list[RenderableType] = [_event(replay, step), seats]
    if step.text is not None:
        parts.append(coloured(step.text))
    else:
        parts.extend(_area(area) for area in table.areas)
        if table.facts:
            parts.append(Text(" · ".join(f"{label} {value}" for label, value in table.facts), style="dim"))
    title = f"{replay.title} · seq {step.seq}/{replay.last} · as seen by {viewer_name(viewer)}"
    return Panel(Group(*parts), title=title, title_align="left")


def print_at(console: Console, replay: Replay, seq: int, viewer: Viewer) -> None:
    console.print(render(replay, replay.step(seq, viewer), viewer))


def print_all(console: Console, replay: Replay, viewer: Viewer) -> None:
    for step in replay.steps(viewer):
        console.print(render(replay, step, viewer))


def print_summary(console: Console, replay: Replay, viewer: Viewer) -> None:
    """The account (one line per event the game describes, as the viewer saw it) and the final table."""
    console.print(Text(f"{replay.title}: game {replay.game_id}, {replay.players} players, {replay.last} events, "
                       f"as seen by {viewer_name(viewer)}", style="bold"))
    last = None
    for step in replay.steps(viewer):
        if step.seq and step.kind not in ("match_seeded", "shuffled"):
            console.print(_event(replay, step))
        last = step
    assert last is not None
    console.print(render(replay, last, viewer))


def interactive(
    console: Console, replay: Replay, viewer: Viewer, start: int = 0, read: Callable[[str], str] | None = None
) -> None:
    """Step through the log: Enter or n next, p previous, q quit, a number jumps to that seq."""
    ask = read or console.input
    seq = start
    note = ""
    while True:
        console.clear()
        print_at(console, replay, seq, viewer)
        if note:
            console.print(Text(note, style="yellow"))
        try:
            answer = ask(f"{HELP} > ").strip().lower()
        except (EOFError, KeyboardInterrupt):
            return
        note = ""
        if answer in ("", "n", "next"):
            if seq < replay.last:
                seq += 1
            else:
                note = "this is the last event (q quits)"
        elif answer in ("p", "prev", "previous"):
            if seq > 0:
                seq -= 1
            else:
                note = "this is the start"
        elif answer in ("q", "quit", "exit"):
            return
        elif answer.isdigit() and 0 <= int(answer) <= replay.last:
            seq = int(answer)
        else:
            note = f"{answer!r}: {HELP} (seq 0 to {replay.last})"
