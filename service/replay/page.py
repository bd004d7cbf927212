"""The replay as one self-contained HTML page: inline CSS and JavaScript, the steps as JSON, no network.

Every step's view is computed here, in Python, for the one viewer the page is for (the
public by default, or a seat): the page holds nothing that viewer did not see, so it can
be handed to that player. The page draws each step's table from the generic
:mod:`~cardgames.service.replay.layout` (seats, cards on the table, facts) and, for a game that
exports ``table_text``, shows that text too; the raw view is under a "view (JSON)"
disclosure.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

import msgspec

from cardgames.engine.core.protocol import Viewer
from cardgames.service.replay.assets import CSS, JS
from cardgames.service.replay.layout import layout
from cardgames.service.replay.steps import Replay, viewer_name

_encoder = msgspec.json.Encoder()


def page_data(replay: Replay, viewer: Viewer, start: int = 0) -> dict[str, Any]:
    """What the page embeds: the match's facts and, per step, the event line, the view and its table."""
    steps = []
    for step in replay.steps(viewer):
        steps.append({
            "seq": step.seq,
            "kind": step.kind,
            "line": step.line,
            "actor": step.actor,
            "command": step.command,
            "view": step.view,
            "table": layout(step.view, replay.base.TRAITS.layout),
            "text": step.text,
        })
    return {
        "game": replay.base.NAME,
        "title": replay.title,
        "game_id": replay.game_id,
        "players": replay.players,
        "viewer": viewer,
        "last": replay.last,
        "start": start,
        "steps": steps,
    }


def script_json(value: Any) -> str:
    """JSON safe inside a ``<script>`` element: no ``<``, ``>`` or ``&`` as such (``</script>`` cannot occur)."""
    text = _encoder.encode(value).decode()
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def render(replay: Replay, viewer: Viewer, start: int = 0) -> str:
    """The whole page as text."""
    who = viewer_name(viewer)
    title = html.escape(f"Replay: {replay.title}, as seen by {who}")
    sub = html.escape(f"game {replay.game_id} · {replay.players} players · {replay.last} events · as seen by {who} "
                      "· replayed from the audit log (check it with `cardgames verify`)")
    last = replay.last
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>{CSS}</style>
</head>
<body>
<header>
<h1>{html.escape(replay.title)} <span class="sub">as seen by {html.escape(who)}</span></h1>
<div class="sub">{sub}</div>
<nav class="controls" aria-label="steps">
<button id="prev" type="button" title="Previous event (Left arrow)">&#9664; Prev</button>
<input id="slider" type="range" min="0" max="{last}" value="{start}" step="1" aria-label="event">
<button id="next" type="button" title="Next event (Right arrow)">Next &#9654;</button>
<span id="position">seq <b id="step-no">{start}</b> / {last}</span>
</nav>
<div id="current-event" aria-live="polite"></div>
</header>
<main>
<section id="table-pane">
<div id="table"></div>
<pre id="table-text" hidden></pre>
<details><summary>view (JSON)</summary><pre id="view-json"></pre></details>
</section>
<aside id="events-pane">
<h2>Events</h2>
<ol id="events"></ol>
</aside>
</main>
<script type="application/json" id="replay-data">{script_json(page_data(replay, viewer, start))}</script>
<script>{JS}</script>
</body>
</html>
"""


def write(path: Path, replay: Replay, viewer: Viewer, start: int = 0) -> int:
    """Write the page (its folder created); returns its size in bytes."""
    data = render(replay, viewer, start).encode()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return len(data)
