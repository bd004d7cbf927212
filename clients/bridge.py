"""The JSON-lines bridge: a program with no gRPC library plays through its stdin and stdout.

``cardgames bridge -- COMMAND...`` starts COMMAND and plays a seat (``--game-id`` and
``--token``) or every seat a tournament assigns (``--tournament`` and ``--name``) for it.
The protocol is one line each way per decision:

* the bridge writes one *decision* per line to the program's stdin: a JSON object with
  ``"type": "decision"``, the ``game``, ``game_id``, ``seat``, ``sequence``, the seat's
  ``view``, the ``legal`` commands (the first 1,000 when there are more; ``legal_total``
  says how many), the ``clock`` (or null), the ``events`` since the seat's
  previous decision, and ``rejected`` (null, or ``{"reason", "message"}`` when the
  program's previous answer to this decision was refused);
* the program answers each decision with one line: a command as a JSON object (one of
  ``legal``, e.g. ``{"type": "play", "card": "AS"}``) or the index of one in ``legal``.

Nothing else is written to the program; it may log to its stderr (passed through). A
line that is not JSON, or a refused command, makes the bridge ask the same decision again
(``rejected`` set), three times at most; then the decision is left to the match's clock.
When the program exits, the bridge stops with an error (its seats then time out, and the
match's log says so). Decisions of several matches are asked one at a time.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Sequence
from typing import Any

log = logging.getLogger(__name__)


class ProgramExited(RuntimeError):
    """The bot program closed its stdout (it exited)."""


class LineProgram:
    """A child process asked one JSON line at a time."""

    def __init__(self, argv: Sequence[str]) -> None:
        self.argv = list(argv)
        self.process: asyncio.subprocess.Process | None = None
        self._lock = asyncio.Lock()
        self.asked = 0

    async def start(self) -> None:
        self.process = await asyncio.create_subprocess_exec(
            *self.argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, limit=1 << 24
        )

    async def ask(self, decision: dict[str, Any]) -> Any:
        """Write the decision, read the answer line: a JSON value (ValueError when it is not JSON)."""
        process = self.process
        assert process is not None and process.stdin is not None and process.stdout is not None
        async with self._lock:
            line = json.dumps(decision, separators=(",", ":")) + "\n"
            try:
                process.stdin.write(line.encode())
                await process.stdin.drain()
            except (BrokenPipeError, ConnectionResetError) as error:
                raise ProgramExited(f"{self.argv[0]} exited ({process.returncode})") from error
            answer = await process.stdout.readline()
            self.asked += 1
        if not answer:
            raise ProgramExited(f"{self.argv[0]} closed its output (exit status {await process.wait()})")
        text = answer.decode("utf-8", "replace").strip()
        try:
            return json.loads(text)
        except json.JSONDecodeError as error:
            log.warning("game %s seq %s: the answer is not JSON: %.80r", decision["game_id"], decision["sequence"],
                        text)
            raise ValueError(f"the answer is not JSON: {error}") from None

    async def close(self) -> int | None:
        process = self.process
        if process is None:
            return None
        if process.stdin is not None and not process.stdin.is_closing():
            process.stdin.close()
        try:
            return await asyncio.wait_for(process.wait(), 5)
        except TimeoutError:
            process.kill()
            return await process.wait()
