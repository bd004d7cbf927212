"""The Node.js client and bot (clients/node): its node:test suite against a live service.

``npm ci`` installs @grpc/grpc-js and @grpc/proto-loader from clients/node/package-lock.json
when node_modules is missing; then ``node --test`` plays a tournament and a match against the
service's Python bots, and again through a server in front of the service that refuses every
call twice with a retry hint (tests/clients/refusing.py): afterwards no call may have come back
before its hint. Skipped where node or npm is not installed.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from cardgames.service.server import Running
from tests.clients.refusing import RefusingProxy, refuse_first

NODE_DIR = Path(__file__).resolve().parents[2] / "clients" / "node"
needs_node = pytest.mark.skipif(not (shutil.which("node") and shutil.which("npm")), reason="node/npm not installed")


@pytest.fixture(scope="module")
def node_modules() -> Path:
    modules = NODE_DIR / "node_modules"
    if not (modules / "@grpc" / "grpc-js").exists():
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=NODE_DIR, check=True, timeout=600,
                       capture_output=True)
    return modules


@needs_node
async def test_the_node_bot_plays_against_python_bots(node_modules: Path, server: Running) -> None:
    proxy = await RefusingProxy(f"127.0.0.1:{server.port}", refuse_first(2, 20)).start()
    try:
        process = await asyncio.create_subprocess_exec(
            "node", "--test", "test/", cwd=NODE_DIR,
            env={**os.environ, "CARDGAMES_SERVER": f"127.0.0.1:{server.port}",
                 "CARDGAMES_REFUSING_SERVER": proxy.address},
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
        )
        output, _ = await asyncio.wait_for(process.communicate(), 300)
    finally:
        await proxy.stop()
    text = output.decode()
    assert process.returncode == 0, text
    assert "# fail 0" in text and "# skipped 0" in text and "# pass 11" in text, text
    refused = {arrival.method.rsplit("/", 1)[-1] for arrival in proxy.refused()}
    assert {"CreateGame", "GetView", "Watch", "Decisions", "SubmitCommand", "CreateTournament", "RegisterEntrant",
            "Assignments"} <= refused, refused
    assert proxy.early() == [], proxy.early()[:5]
