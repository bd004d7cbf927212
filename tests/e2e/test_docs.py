"""The Python in docs/integrators.md and docs/bot-authors.md runs as written, against a real server."""

from __future__ import annotations

import ast
import asyncio
import inspect
import os
import re
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from cardgames.clients import CommandRejected, GameClient
from tests.e2e.server_process import REPO, ServerProcess

DOCS = REPO / "docs"
DEFAULT_ADDRESS = "127.0.0.1:50051"
BLOCK = re.compile(r"```python\n(.*?)```", re.DOTALL)


def python_blocks(name: str) -> list[str]:
    blocks = BLOCK.findall((DOCS / name).read_text())
    assert blocks, name
    return blocks


@pytest.fixture
async def address(tmp_path: Path) -> AsyncIterator[str]:
    server = await ServerProcess.start("memory:", tmp_path)
    try:
        yield f"127.0.0.1:{server.port}"
    finally:
        await server.kill()


async def test_the_integrators_walkthrough_runs_in_order(address: str) -> None:
    namespace: dict[str, Any] = {"__name__": "__docs__"}
    for block in python_blocks("integrators.md"):
        source = block.replace(DEFAULT_ADDRESS, address)
        code = compile(source, "docs/integrators.md", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
        result = eval(code, namespace)  # as the asyncio REPL runs what is typed at its prompt
        if inspect.iscoroutine(result):
            await result
    assert namespace["log"].sequence >= namespace["accepted"].sequence


def bot_files(name: str) -> list[str]:
    """The scripts a page tells the reader to run (``.venv/bin/python NAME.py``), in order."""
    return re.findall(r"^\.venv/bin/python (\w+\.py)\b", (DOCS / name).read_text(), re.MULTILINE)


def test_the_bot_authors_page_gives_each_bot_its_own_file_and_frees_the_port() -> None:
    files = bot_files("bot-authors.md")
    assert len(files) == 2 and len(set(files)) == 2, files  # section 3's bot, section 5's tournament bot
    text = (DOCS / "bot-authors.md").read_text()
    section5 = text[text.index("## 5."):]
    assert "stop that service first" in section5 and "--listen" in section5  # step 2's service holds 50051


async def test_the_bot_authors_quickstart_plays_a_match(address: str, tmp_path: Path) -> None:
    script = python_blocks("bot-authors.md")[0]  # section 3 (section 5: tests/remote_bots/test_docs_bot.py)
    path = tmp_path / bot_files("bot-authors.md")[0]
    path.write_text(script)
    result = await asyncio.to_thread(
        subprocess.run, [sys.executable, str(path), address], cwd=tmp_path, capture_output=True, text=True,
        timeout=120, env={**os.environ, "PYTHONPATH": str(REPO), "GRPC_VERBOSITY": "ERROR"},
    )
    assert result.returncode == 0, result.stderr
    assert "final scores" in result.stdout


async def test_the_integrators_warning_on_all_fours_plays_out_of_turn_holds(address: str) -> None:
    """docs/integrators.md: under out_of_turn_play = expose a play with the wrong seat's token is
    accepted and exposes the card; under reject it is refused with not_your_turn."""
    text = (DOCS / "integrators.md").read_text()
    assert "out_of_turn_play = expose" in text and '"out_of_turn_play": "reject"' in text
    async with GameClient(address) as client:
        for option, exposed in (("expose", True), ("reject", False)):
            created = await client.create_game("all_fours", players=4, seed=7,
                                               options={"out_of_turn_play": option})
            view = await client.spectator(created.game_id).view()
            wrong = next(seat for seat in range(4) if seat not in view.to_act)
            seat = client.seat(created.game_id, created.tokens[wrong])
            card = (await seat.view()).data["hand"][0]
            if exposed:
                accepted = await seat.submit({"type": "play", "card": card}, expected_sequence=view.sequence)
                assert [event.event for event in accepted.events] == [
                    {"type": "card_exposed", "seat": wrong, "card": card}
                ]
            else:
                with pytest.raises(CommandRejected) as refused:
                    await seat.submit({"type": "play", "card": card}, expected_sequence=view.sequence)
                assert refused.value.code == "not_your_turn"
