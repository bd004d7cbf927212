"""Headless Chromium for the replay page's tests: a screenshot, and a page driven over the DevTools protocol.

Chromium is Debian's package (``.ci/run`` installs it). It runs with a fresh profile, no
network features, and the DevTools protocol on a free loopback port
(``--remote-debugging-port=0``: the port is read from the profile's ``DevToolsActivePort``).
:class:`Page` sends real input events (``Input.dispatchMouseEvent``, ``dispatchKeyEvent``)
and reads the DOM with ``Runtime.evaluate``.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import struct
import subprocess
import tempfile
import time
import urllib.request
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from websockets.sync.client import ClientConnection, connect

FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-dev-shm-usage", "--hide-scrollbars", "--window-size=1280,900",
)


def chromium() -> str:
    """The chromium binary; skips the test when it is missing, except under CI (where it must be there)."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found:
        return found
    if os.environ.get("CI"):
        pytest.fail("chromium is not installed, and CI must run the browser tests (.ci/run installs it)")
    pytest.skip("chromium is not installed (apt-get install chromium); CI installs it and runs this test")


def screenshot(page: Path, out: Path, fragment: str = "") -> subprocess.CompletedProcess[str]:
    """``chromium --screenshot`` of a local page; the PNG is ``out``."""
    binary = chromium()
    with tempfile.TemporaryDirectory(prefix="replay-chromium-", ignore_cleanup_errors=True) as profile:
        return subprocess.run(
            [binary, *FLAGS, f"--user-data-dir={profile}", f"--screenshot={out}", page.resolve().as_uri() + fragment],
            capture_output=True, text=True, timeout=120,
        )


def png_facts(data: bytes) -> tuple[int, int, int]:
    """(width, height, number of distinct byte values in the pixel data) of a PNG; asserts its signature."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    width, height = struct.unpack(">II", data[16:24])
    position, chunks = 8, []
    while position < len(data):
        length = struct.unpack(">I", data[position:position + 4])[0]
        kind = data[position + 4:position + 8]
        if kind == b"IDAT":
            chunks.append(data[position + 8:position + 8 + length])
        position += 12 + length
    pixels = zlib.decompress(b"".join(chunks))
    return width, height, len(set(pixels))


class Page:
    """One page target of a running Chromium, over the DevTools protocol."""

    def __init__(self, socket: ClientConnection) -> None:
        self.socket = socket
        self.next_id = 0

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        self.next_id += 1
        ident = self.next_id
        self.socket.send(json.dumps({"id": ident, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.recv(timeout=30))
            if message.get("id") == ident:
                if "error" in message:
                    raise AssertionError(f"{method}: {message['error']}")
                result: dict[str, Any] = message.get("result", {})
                return result

    def evaluate(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in result:
            raise AssertionError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 30) -> Any:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = self.evaluate(expression)
            if value:
                return value
            time.sleep(0.05)
        raise AssertionError(f"timed out waiting for {expression}")

    def click(self, selector: str) -> None:
        """A real mouse click (press and release) in the middle of the element ``selector``."""
        box = self.evaluate(
            f"(() => {{ const node = document.querySelector({json.dumps(selector)}); node.scrollIntoView("
            "{block: 'nearest'}); const r = node.getBoundingClientRect(); "
            "return {x: r.x + r.width / 2, y: r.y + r.height / 2}; })()"
        )
        x, y = box["x"], box["y"]
        self.call("Input.dispatchMouseEvent", type="mouseMoved", x=x, y=y)
        self.call("Input.dispatchMouseEvent", type="mousePressed", x=x, y=y, button="left", clickCount=1)
        self.call("Input.dispatchMouseEvent", type="mouseReleased", x=x, y=y, button="left", clickCount=1)

    def key(self, key: str, code: int) -> None:
        """A real key press and release (``ArrowLeft``, 37)."""
        for kind in ("rawKeyDown", "keyUp"):
            self.call("Input.dispatchKeyEvent", type=kind, key=key, code=key, windowsVirtualKeyCode=code)

    def screenshot(self) -> bytes:
        import base64

        return base64.b64decode(self.call("Page.captureScreenshot", format="png")["data"])


@contextmanager
def browse(page: Path, fragment: str = "") -> Iterator[Page]:
    """Chromium on ``page`` with the DevTools protocol; the page once its script has run."""
    binary = chromium()
    with tempfile.TemporaryDirectory(prefix="replay-chromium-", ignore_cleanup_errors=True) as profile:
        process = subprocess.Popen(
            [binary, *FLAGS, f"--user-data-dir={profile}", "--remote-debugging-port=0",
             page.resolve().as_uri() + fragment],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        )
        try:
            port_file = Path(profile) / "DevToolsActivePort"
            deadline = time.monotonic() + 60
            while not (port_file.exists() and port_file.read_text().count("\n") >= 1):
                if process.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(f"chromium did not start its DevTools endpoint (exit {process.poll()})")
                time.sleep(0.05)
            port = int(port_file.read_text().split("\n")[0])
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as answer:
                targets = json.load(answer)
            target = next(item for item in targets if item.get("type") == "page")
            with connect(target["webSocketDebuggerUrl"], max_size=None, proxy=None, open_timeout=30) as socket:
                tab = Page(socket)
                tab.wait_for("document.body && document.body.dataset.ready === 'true'")
                yield tab
        finally:
            _stop(process)


def _stop(process: subprocess.Popen[bytes]) -> None:
    """End the chromium started here and its helper processes (its own process group, by its id)."""
    for sig, wait in ((signal.SIGTERM, 10.0), (signal.SIGKILL, 10.0)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            continue
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:  # the helpers of the group end after the browser
            try:
                os.killpg(process.pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.05)
