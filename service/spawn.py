"""Run ``cardgames serve`` as a child process and learn its port (for replicas, load runs and tests)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_ANNOUNCE = re.compile(r"serving GameService on (\S+):(\d+)")
_ANNOUNCE_HTTP = re.compile(r"serving Connect and gRPC-Web on https?://\S+:(\d+)/")


@dataclass
class ServerProcess:
    """A ``cardgames serve`` child process listening on ``port``."""

    process: subprocess.Popen[str]
    host: str
    port: int
    log_path: Path
    lines: list[str] = field(default_factory=list)
    _log_text: str | None = None
    #: The port of its HTTP listener (Connect, gRPC-Web), None when it has none (``--http off``).
    http_port: int | None = None

    @property
    def target(self) -> str:
        return f"{self.host}:{self.port}"

    @property
    def pid(self) -> int:
        return self.process.pid

    def rss_kib(self) -> int:
        """Resident memory of the process in KiB (Linux /proc; 0 elsewhere or when gone)."""
        try:
            for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        except OSError:
            pass
        return 0

    def kill(self) -> None:
        """SIGKILL: no shutdown at all, as a crash."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)
        self._forget_log()

    def stop(self, timeout: float = 15.0) -> int:
        """SIGTERM (graceful stop), SIGKILL after ``timeout``; returns the exit code."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        self._forget_log()
        return self.process.returncode

    def _forget_log(self) -> None:
        """Keep what the process wrote on stderr in memory (``log()``) and remove its file."""
        if self._log_text is None:
            self._log_text = self._read_log()
            self.log_path.unlink(missing_ok=True)

    def log(self) -> str:
        """What the process wrote on stderr."""
        return self._log_text if self._log_text is not None else self._read_log()

    def _read_log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""


def spawn_server(
    store: str | None,
    *,
    args: Sequence[str] = (),
    address: str = "127.0.0.1:0",
    env: Mapping[str, str] | None = None,
    timeout: float = 60.0,
    http: str = "127.0.0.1:0",
) -> ServerProcess:
    """Start ``cardgames serve --address ADDRESS --http HTTP --store STORE ARGS...``; return once it listens.

    ``store`` None: no ``--store`` (the environment's ``CARDGAMES_STORE`` or the default applies).
    ``http``: where its HTTP listener goes (a free port by default, never the fixed 8080; ``off``: none).
    """
    command = [sys.executable, "-c", "from cardgames.service.cli import main; main()", "serve", "--address", address,
               "--http", http, *(["--store", store] if store is not None else []), *args]
    expect_http = http.strip().lower() != "off"
    log_file = tempfile.NamedTemporaryFile(prefix="cardgames-serve-", suffix=".log", delete=False)  # noqa: SIM115
    process = subprocess.Popen(
        command, cwd=ROOT, stdout=subprocess.PIPE, stderr=log_file, text=True,
        env={**os.environ, **(env or {}), "PYTHONUNBUFFERED": "1"},
    )
    log_file.close()
    lines: list[str] = []
    found = threading.Event()
    where: list[tuple[str, int]] = []
    web: list[int] = []

    def read() -> None:  # keep draining stdout so the child never blocks on it
        assert process.stdout is not None
        for line in process.stdout:
            lines.append(line.rstrip("\n"))
            match = _ANNOUNCE.search(line)
            if match and not where:
                where.append((match.group(1), int(match.group(2))))
            match = _ANNOUNCE_HTTP.search(line)
            if match and not web:
                web.append(int(match.group(1)))
            if where and (web or not expect_http):
                found.set()
        found.set()

    threading.Thread(target=read, daemon=True).start()
    deadline = time.monotonic() + timeout
    while not found.wait(0.1):
        if time.monotonic() > deadline:
            process.kill()
            raise TimeoutError(f"cardgames serve did not start within {timeout:g}s")
    if not where:
        process.wait(10)
        log = Path(log_file.name)
        text = log.read_text(errors="replace")
        log.unlink(missing_ok=True)
        raise RuntimeError(f"cardgames serve exited ({process.returncode}): {text}")
    host, port = where[0]
    return ServerProcess(process, host, port, Path(log_file.name), lines, http_port=web[0] if web else None)
