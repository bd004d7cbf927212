"""The ~20-line bot of docs/bot-authors.md (section 5) plays a tournament as written."""

from __future__ import annotations

import asyncio
import os
import re
import sys
from pathlib import Path

from cardgames.service.server import Running

REPO = Path(__file__).resolve().parents[2]
BLOCK = re.compile(r"```python\n(.*?)```", re.DOTALL)


async def test_the_twenty_line_bot_plays_its_tournament(server: Running, tmp_path: Path) -> None:
    blocks = BLOCK.findall((REPO / "docs" / "bot-authors.md").read_text())
    script = next(block for block in blocks if "play_tournament" in block)
    assert len(script.strip().splitlines()) <= 26
    named = re.findall(r"^\.venv/bin/python (\w+\.py) ", (REPO / "docs" / "bot-authors.md").read_text(), re.MULTILINE)
    path = tmp_path / named[-1]  # the file the page saves it as and runs
    path.write_text(script)
    tournaments = server.bots.tournaments  # type: ignore[union-attr]
    created = await tournaments.create("all_fours", ["mybot", "random", "heuristic"], players=2, matches=2,
                                       seed="12" * 32)
    tid = created.tournament_id
    process = await asyncio.create_subprocess_exec(
        sys.executable, str(path), f"127.0.0.1:{server.port}", tid, created.credentials["mybot"], cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(REPO)}, stderr=asyncio.subprocess.PIPE,
    )
    _, err = await asyncio.wait_for(process.communicate(), 120)
    assert process.returncode == 0, err.decode()
    table = await tournaments.wait(tid)
    assert table.finished and table.played == 6
    mybot = next(row for row in table.rows if row.name == "mybot")
    assert mybot.matches == 4 and mybot.timeouts == 0
