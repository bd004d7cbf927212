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

from cardgames.service.cli import app
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
    assert "Final score" in out and "wins the match" in out and "Points per hand" in out and "1st (winner)" in out
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
    assert "options: target_score=5" in result.output and "the first side to 5 wins" in result.output
    refused = [
        ["play", "chess"],
        ["play", "all_fours", "-o", "target_score=0"],
        ["play", "all_fours", "-o", "nokey"],
        ["play", "all_fours", "--players", "3"],
        ["play", "all_fours", "--bots", "clever"],
        ["play", "all_fours", "--bots", "random,heuristic"],  # 4 seats: one kind, or four
        ["play", "all_fours", "--bots", "heuristic:20"],  # only the search bot takes a budget
        ["play", "all_fours", "--bots", "ismcts:0"],
    ]
    for args in refused:
        result = runner.invoke(app, args)
        assert result.exit_code == 2, (args, result.output)


def score_rows(output: str) -> list[list[str]]:
    """The body rows of the score table (a row per deal, the totals, the places), cell by cell."""
    rows = [line for line in output.splitlines() if line.startswith("│")]
    return [[cell.strip() for cell in row.strip("│").split("│")] for row in rows]


def test_contract_rummy_players_go_out_and_the_scores_are_a_table() -> None:
    """The heuristic bots (the default) meld and go out; random bots never did, every deal ended blocked."""
    runner = CliRunner()
    for seed in ("1", "2", "3", "7"):
        result = runner.invoke(app, ["play", "contract_rummy", "--seed", seed])
        assert result.exit_code == 0, result.output
        assert "bots: heuristic at every seat" in result.output
        assert re.search(r"^\s+\d+  seat \d goes out$", result.output, re.MULTILINE), seed
        rows = score_rows(result.output)
        deals = [row for row in rows if row[0].isdigit()]
        assert [row[0] for row in deals] == [str(deal) for deal in range(1, 8)]
        assert any("went out" in row[-1] for row in deals)
        total = next(row for row in rows if row[0] == "total")
        assert [int(cell) for cell in total[1:5]] == [sum(int(row[seat]) for row in deals) for seat in range(1, 5)]
        places = next(row for row in rows if row[0] == "place")
        assert "1st (winner)" in places
        assert "hand_hidden" not in result.output and "contract_met" not in result.output  # no raw view dump


def test_seep_and_all_fours_score_tables() -> None:
    runner = CliRunner()
    seep = runner.invoke(app, ["play", "seep", "--seed", "2", "-q"])
    assert seep.exit_code == 0, seep.output
    rows = score_rows(seep.output)
    assert rows[0][0] == "1" and any("baazi to team" in row[-1] for row in rows)
    assert next(row for row in rows if row[0] == "baazis")[1:3] in (["1", "0"], ["0", "1"])
    fours = runner.invoke(app, ["play", "all_fours", "--seed", "2", "-q", "--players", "2"])
    assert fours.exit_code == 0, fours.output
    assert "side 0 (seat 0)" in fours.output and "side 1 (seat 1)" in fours.output
    rows = score_rows(fours.output)
    hands = [row for row in rows if row[0].isdigit()]
    assert hands and all("High" in row[-1] or "Give One" in row[-1] or "Kick" in row[-1] for row in hands)
    score = next(row for row in rows if row[0] == "score")
    assert max(int(cell) for cell in score[1:3]) >= 14


def test_bots_one_kind_per_seat_and_the_search_bot() -> None:
    result = CliRunner().invoke(
        app, ["play", "all_fours", "--seed", "5", "--players", "2", "-q", "--bots", "ismcts:8,random"]
    )
    assert result.exit_code == 0, result.output
    assert "bots: seat 0 ismcts:8, seat 1 random" in result.output and "wins the match" in result.output


def test_tables_piped_keep_one_line_per_row() -> None:
    """Written to a pipe (no terminal: rich would fit 80 columns), a table prints at its own width."""
    result = subprocess.run(
        [*cardgames_command(), "play", "all_fours", "--seed", "1", "-q"],
        cwd=REPO, capture_output=True, text=True, timeout=120, env={**os.environ, "GRPC_VERBOSITY": "ERROR"},
    )
    assert result.returncode == 0, result.stderr
    rows = score_rows(result.stdout)
    hands = [row for row in rows if row[0].isdigit()]
    assert hands and all(row[-1].endswith(tuple(f"side {side}" for side in (0, 1))) for row in hands)
    assert max(len(line) for line in result.stdout.splitlines() if line.startswith("│")) > 80
