"""The ``curl`` lines of docs/integrators.md ("Over HTTP") run as written against a real ``cardgames serve``
(on a free port instead of 8080), and print what the page says they print (its ``# ...`` lines)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from cardgames.service.spawn import spawn_server

DOCS = Path(__file__).resolve().parents[2] / "docs"
SECTION = re.compile(r"^## Over HTTP.*?(?=^## )", re.DOTALL | re.MULTILINE)
BLOCK = re.compile(r"```sh\n(.*?)```", re.DOTALL)
DOCUMENTED = "127.0.0.1:8080"


def curl_blocks() -> list[str]:
    section = SECTION.search((DOCS / "integrators.md").read_text())
    assert section, "docs/integrators.md has no 'Over HTTP' section"
    blocks = BLOCK.findall(section.group(0))
    assert blocks and all("curl" in block for block in blocks), blocks
    return blocks


def test_the_curl_lines_are_one_script_that_uses_the_default_http_address() -> None:
    script = "\n".join(curl_blocks())
    assert DOCUMENTED in script and "cardgames-token" in script and "application/json" in script


@pytest.mark.skipif(not (shutil.which("curl") and shutil.which("jq")), reason="needs curl, jq (.ci/run)")
def test_the_curl_lines_in_the_docs_run_and_print_what_the_docs_say(tmp_path: Path) -> None:
    blocks = curl_blocks()
    server = spawn_server("memory:")
    try:
        assert server.http_port is not None
        script = "\n".join(blocks).replace(DOCUMENTED, f"127.0.0.1:{server.http_port}")
        done = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=120
        )
    finally:
        server.stop()
    assert done.returncode == 0, done.stderr
    said = [line[2:] for block in blocks for line in block.splitlines() if line.startswith("# ")]
    assert done.stdout.splitlines() == said, done.stdout
