"""``cardgames play``: whole matches between the built-in bots through the real service."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from service.cli import app
from tests.e2e.server_process import REPO, cardgames_command


def read_ndjson(path: Path) -> list[dict[str, Any]]:
    """The events of an audit log (docs/log-format.md), each with its ``sequence``."""
    header, *lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert header["format"] == "cardgames-log" and "reveal" in lines[-1]  # a whole match: the seeds revealed
    events = [{"sequence": line["seq"], **line["event"]} for line in lines[:-1]]
    assert events and all(isinstance(event, dict) and "type" in event for event in events)
    sequences = [event["sequence"] for event in events]
    assert sequences == list(range(1, len(events) + 1))  # strictly increasing, none missing
    return events


def test_play_all_fours_with_a_log(tmp_path: Path) -> None:
    log = tmp_path / "match.ndjson"
    result = subprocess.run(
        [*cardgames_command(), "play", "all_fours", "--seed", "7", "--log", str(log)],
        cwd=REPO, capture_output=True, text=True, timeout=120, env={**os.environ, "GRPC_VERBOSITY": "ERROR"},
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Final score" in out and "wins the match" in out and "Standings" in out
    assert "Seat 0 plays" in out or "Seat 1 plays" in out  # the account, event by event
    events = read_ndjson(log)
    assert events[0]["type"] == "match_created" and events[-1]["type"] == "match_won"
    seeded = next(event for event in events if event["type"] == "match_seeded")
    assert seeded["seed"] == hashlib.sha256(b"7").hexdigest()  # the whole log: hidden fields show once it is over
    dealt = [event for event in events if event["type"] == "cards_dealt"]
    assert dealt and all(event["cards"] for event in dealt)
    assert f"{len(events)} events" in out


def test_two_players_quiet_and_reproducible(tmp_path: Path) -> None:
    runner = CliRunner()
    logs = [tmp_path / "first.ndjson", tmp_path / "second.ndjson"]
    outputs = []
    for log in logs:
        result = runner.invoke(app, ["play", "all_fours", "--seed", "7", "--players", "2", "--quiet",
                                     "--log", str(log)])
        assert result.exit_code == 0, result.output
        outputs.append(result.output)
    assert "wins the match" in outputs[0] and "Seat 0 plays" not in outputs[0]  # --quiet: no account
    first = read_ndjson(logs[0])
    assert first[0]["players"] == 2
    assert first == read_ndjson(logs[1])  # the same seed, the same match (in another game id)


def test_play_seep_shows_the_floor_after_each_play() -> None:
    result = CliRunner().invoke(app, ["play", "seep", "--seed", "7"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    plays = [index for index, line in enumerate(lines) if re.match(r"\s*\d+\s+#\d+ seat \d ", line)]
    assert len(plays) >= 48
    assert all(lines[index + 1].strip().startswith("floor: ") for index in plays)
    assert any("-house [" in line and "owner" in line for line in lines if line.strip().startswith("floor: "))
    assert "deal scored" in result.output and "difference" in result.output


def test_options_and_refusals() -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["play", "all_fours", "--seed", "3", "-q", "-o", "target_score=5"])
    assert result.exit_code == 0, result.output
    assert re.search(r"target_score\s+5\b", result.output)
    refused = [
        ["play", "chess"],
        ["play", "all_fours", "-o", "target_score=0"],
        ["play", "all_fours", "-o", "nokey"],
        ["play", "all_fours", "--players", "3"],
    ]
    for args in refused:
        result = runner.invoke(app, args)
        assert result.exit_code == 2, (args, result.output)
