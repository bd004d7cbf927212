"""``cardgames serve`` as a child process: started on a port (0: any), its bound port read from stdout."""

from __future__ import annotations

import asyncio
import os
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SERVING = re.compile(r"serving GameService on (\S+):(\d+)")


def cardgames_command() -> list[str]:
    """The installed ``cardgames`` script next to this Python, else the same entry point via ``-c``."""
    script = Path(sys.executable).parent / "cardgames"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "from cardgames.service.cli import main; main()"]


class ServerProcess:
    """A running ``cardgames serve``; :meth:`kill` sends SIGKILL (no shutdown of any kind)."""

    def __init__(self, process: asyncio.subprocess.Process, port: int) -> None:
        self.process = process
        self.port = port

    @classmethod
    async def start(cls, store: str, logs: Path, port: int = 0, timeout: float = 30.0) -> ServerProcess:
        """Start serving ``store`` on 127.0.0.1:``port``; returns once the server says where it listens."""
        env = {**os.environ, "GRPC_VERBOSITY": "ERROR"}
        for attempt in range(20):  # the port of a killed server may take a moment to be free again
            with (logs / f"serve-{port}-{attempt}.stderr").open("wb") as stderr:
                process = await asyncio.create_subprocess_exec(
                    *cardgames_command(), "serve", "--address", f"127.0.0.1:{port}", "--http", "off", "--store", store,
                    stdout=asyncio.subprocess.PIPE, stderr=stderr, cwd=REPO, env=env,
                )
            assert process.stdout is not None
            line = await asyncio.wait_for(process.stdout.readline(), timeout)
            found = SERVING.search(line.decode())
            if found:
                return cls(process, int(found.group(2)))
            await process.wait()
            await asyncio.sleep(0.25)
        raise AssertionError(f"cardgames serve did not start on port {port}: see {logs}")

    async def kill(self) -> None:
        """SIGKILL, and wait until the process is gone."""
        if self.process.returncode is None:
            self.process.kill()
        await self.process.wait()
