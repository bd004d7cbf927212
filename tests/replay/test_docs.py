"""docs/auditors.md's "Try it" block runs as written: play, verify, replay in the terminal and as a page."""

from __future__ import annotations

import re
import shlex
import subprocess

from tests.audit.test_cli import REPO, cardgames
from tests.replay.helpers import page_data

BLOCK = re.compile(r"```sh\n(.*?)```", re.DOTALL)


def test_the_try_it_block_runs(tmp_path) -> None:
    block = BLOCK.findall((REPO / "docs" / "auditors.md").read_text())[0]
    commands = [line for line in block.splitlines() if line.strip()]
    assert len(commands) == 5 and all(line.startswith(".venv/bin/cardgames ") for line in commands)
    outputs = []
    for line in commands:
        arguments = shlex.split(line)[1:]
        result = subprocess.run([*cardgames(), *arguments], cwd=tmp_path, capture_output=True, text=True,
                                timeout=180, env={"PATH": "/usr/bin:/bin", "GRPC_VERBOSITY": "ERROR"})
        assert result.returncode == 0, (line, result.stderr)
        outputs.append(result.stdout)
    assert outputs[1].startswith("OK seep ")
    assert "seq 30/" in outputs[2] and "as seen by seat 2" in outputs[2] and "2 (you)" in outputs[2]
    assert "match over" in outputs[3]
    data = page_data((tmp_path / "seat2.html").read_text())
    assert data["viewer"] == 2 and data["game"] == "seep"
