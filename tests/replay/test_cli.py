"""``cardgames replay`` as a user runs it: the table at a sequence, every step, the summary, the interactive
stepper on a terminal, the HTML page, and clear refusals of what is not a log."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cardgames.service.audit.logfile import read_log, to_bytes
from cardgames.service.cli import app
from tests.audit.test_cli import REPO, cardgames, run
from tests.replay.helpers import page_data, replay_of, write_log


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("logs")
    return {game: write_log(game, folder) for game in ("all_fours", "seep", "contract_rummy")}


def test_at_prints_the_table_at_that_sequence_as_the_seat_saw_it(logs: dict[str, Path]) -> None:
    replay = replay_of("all_fours")
    seq = next(step.seq for step in replay.steps(2) if len(step.view["hand"]) >= 5)
    step = replay.step(seq, 2)
    result = run("replay", str(logs["all_fours"]), "--seat", "2", "--at", str(seq))
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert f"seq {seq}/{replay.last}" in out and "as seen by seat 2" in out and step.line[:40] in out
    row = next(line for line in out.splitlines() if "2 (you)" in line)
    faces = [code[:-1] + {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}[code[-1]] for code in step.view["hand"]]
    assert all(face in row for face in faces), (row, faces)
    public = run("replay", str(logs["all_fours"]), "--public", "--at", str(seq))
    assert public.returncode == 0 and "(you)" not in public.stdout and "as seen by the public" in public.stdout


def test_without_a_terminal_it_prints_every_step_or_the_summary(logs: dict[str, Path]) -> None:
    replay = replay_of("seep")
    with ThreadPoolExecutor(2) as pool:
        every, summary = pool.map(lambda args: run("replay", *args), [
            (str(logs["seep"]), "--seat", "0"),
            (str(logs["seep"]), "--summary"),
        ])
    assert every.returncode == 0, every.stderr
    assert every.stdout.count("as seen by seat 0") == replay.last + 1
    assert f"seq 0/{replay.last}" in every.stdout and f"seq {replay.last}/{replay.last}" in every.stdout
    assert "floor:" in every.stdout  # Seep's own table_text, reached through the registry
    assert summary.returncode == 0, summary.stderr
    described = [step for step in replay.steps(None) if step.seq and step.kind not in ("match_seeded", "shuffled")]
    assert described[-1].line[:30] in summary.stdout and summary.stdout.count("╭") == 1


def test_the_interactive_stepper_on_a_terminal(logs: dict[str, Path]) -> None:
    """Enter and n go forward, p back, a number jumps, q quits (a pseudo-terminal as stdin and stdout)."""
    replay = replay_of("contract_rummy")
    leader, follower = pty.openpty()
    process = subprocess.Popen([*cardgames(), "replay", str(logs["contract_rummy"]), "--seat", "1"], cwd=REPO,
                               stdin=follower, stdout=follower, stderr=follower, close_fds=True,
                               env={"PATH": "/usr/bin:/bin", "TERM": "xterm", "COLUMNS": "120", "LINES": "60"})
    os.close(follower)
    screen = b""

    def until(text: str, timeout: float = 60) -> None:
        nonlocal screen
        deadline = time.monotonic() + timeout
        while text.encode() not in screen:
            assert time.monotonic() < deadline, f"{text!r} never shown; last output: {screen[-2000:]!r}"
            ready, _, _ = select.select([leader], [], [], 0.5)
            if ready:
                try:
                    screen += os.read(leader, 65536)
                except OSError:
                    break

    def send(keys: str, expect: str) -> None:
        nonlocal screen
        screen = b""
        os.write(leader, keys.encode())
        until(expect)

    try:
        until(f"seq 0/{replay.last}")
        until("a number jumps")
        send("\r", f"seq 1/{replay.last}")
        send("n\r", f"seq 2/{replay.last}")
        send("p\r", f"seq 1/{replay.last}")
        send("300\r", f"seq 300/{replay.last}")
        assert replay.step(300, 1).line[:30].encode() in screen
        send("zzz\r", "'zzz'")
        send(f"{replay.last}\r", f"seq {replay.last}/{replay.last}")
        send("\r", "this is the last event")
        os.write(leader, b"q\r")
        assert process.wait(timeout=30) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(leader)


def test_html_writes_one_page_for_the_viewer(logs: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "pages" / "rummy-seat-3.html"
    result = run("replay", str(logs["contract_rummy"]), "--seat", "3", "--html", str(out), "--at", "12")
    assert result.returncode == 0, result.stderr
    assert str(out) in result.stdout and "self-contained" in result.stdout
    data = page_data(out.read_text())
    assert data["viewer"] == 3 and data["start"] == 12 and data["game"] == "contract_rummy"
    assert len(data["steps"]) == replay_of("contract_rummy").last + 1


def _bad_logs(good: bytes) -> dict[str, tuple[bytes, str]]:
    header, rest = good.split(b"\n", 1)
    no_reveal = b"\n".join(good.rstrip(b"\n").split(b"\n")[:-1]) + b"\n"

    def with_header(**changes: object) -> bytes:
        return json.dumps({**json.loads(header), **changes}).encode() + b"\n" + rest

    cut = good.index(b"\n", len(good) // 2) - 5  # inside a line: a cut at a line's end leaves a readable log
    return {
        "truncated": (good[:cut], "cut short"),
        "no_reveal": (no_reveal, "no reveal line"),
        "not_json": (b"this is not a log\n", "not JSON"),
        "empty": (b"", "empty"),
        "unknown_game": (with_header(game="chess"), "unknown game 'chess'"),
        "format_version": (with_header(version=2), "format version 2"),
        "rules_version": (with_header(rules_version="0"), "rules version '0'"),
    }


def test_what_is_not_a_replayable_log_is_refused_without_a_traceback(logs: dict[str, Path], tmp_path: Path) -> None:
    good = logs["all_fours"].read_bytes()
    cases = {name: (2, data, expect) for name, (data, expect) in _bad_logs(good).items()}
    broken = read_log(good)
    broken.entries[20]["event"] = {"type": "card_played", "seat": "x"}
    cases["bad_event"] = (1, to_bytes(broken), "seq 21 (line 22)")
    for name, (_, data, _) in cases.items():
        (tmp_path / f"{name}.ndjson").write_bytes(data)
    arguments: dict[str, tuple[str, ...]] = {
        name: ("replay", str(tmp_path / f"{name}.ndjson"), "--at", "3") for name in cases
    }
    arguments["missing"] = ("replay", str(tmp_path / "nothing.ndjson"))
    arguments["seat"] = ("replay", str(logs["all_fours"]), "--seat", "4", "--at", "1")
    arguments["at"] = ("replay", str(logs["all_fours"]), "--at", "100000")
    arguments["both"] = ("replay", str(logs["all_fours"]), "--seat", "1", "--public")
    expected = {name: (code, expect) for name, (code, _, expect) in cases.items()}
    expected |= {"missing": (2, "cannot read"), "seat": (2, "seat 4 is not a seat"), "at": (2, "--at 100000"),
                 "both": (2, "exclude each other")}
    runner = CliRunner()
    for name, (code, expect) in expected.items():
        result = runner.invoke(app, list(arguments[name]))
        assert result.exception is None or isinstance(result.exception, SystemExit), (name, result.exception)
        assert result.exit_code == code, (name, result.exit_code, result.stderr)
        assert expect in result.stderr and result.stderr.startswith("cardgames replay: "), (name, result.stderr)
        assert result.stderr.count("\n") == 1 and not result.stdout, name
    # and as a user runs it: a process that says why in one line, without a traceback
    process = run(*arguments["truncated"])
    assert process.returncode == 2 and "cut short" in process.stderr, process.stderr
    assert "Traceback" not in process.stderr and process.stderr.count("\n") == 1 and not process.stdout
