"""``cardgames export`` and ``cardgames verify`` as a user runs them: subprocesses, exit codes, messages."""

from __future__ import annotations

import asyncio
import json
import random
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from cardgames.service.audit.export import from_result
from cardgames.service.audit.logfile import to_bytes
from cardgames.service.server import start
from cardgames.service.store import EventStore
from tests.audit.helpers import GAMES, commit_and_reveal, fresh, play_to_end, played_log, rechain

REPO = Path(__file__).resolve().parents[2]


def cardgames() -> list[str]:
    script = Path(sys.executable).parent / "cardgames"
    fallback = [sys.executable, "-c", "from cardgames.service.cli import main; main()"]
    return [str(script)] if script.exists() else fallback


def run(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*cardgames(), *args], cwd=REPO, capture_output=True, text=True, timeout=timeout,
                          env={"PATH": "/usr/bin:/bin", "GRPC_VERBOSITY": "ERROR"})


async def run_async(*args: str) -> tuple[int, bytes, str]:
    process = await asyncio.create_subprocess_exec(
        *cardgames(), *args, cwd=REPO, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        env={"PATH": "/usr/bin:/bin", "GRPC_VERBOSITY": "ERROR"},
    )
    out, err = await asyncio.wait_for(process.communicate(), 120)
    assert process.returncode is not None
    return process.returncode, out, err.decode()


@pytest.mark.parametrize("game", GAMES)
async def test_export_over_grpc_writes_the_log_and_it_verifies(game: str, tmp_path: Path) -> None:
    running = await start("127.0.0.1:0", EventStore.from_url("memory:"))
    try:
        games = running.games
        created = await games.create(game, {}, None, seat_entropy=game == "seep")
        rng = random.Random(7)
        if game == "seep":
            await commit_and_reveal(games, created, rng)
        await play_to_end(games, created, rng, limit=10)  # not over yet: the caller's view, no reveal
        if game == "all_fours":
            code, partial, err = await run_async("export", created.game_id, "--server", f"127.0.0.1:{running.port}")
            assert code == 0 and "has not ended" in err and b'"reveal"' not in partial
            assert b'"redacted":true' in partial  # a spectator sees the hidden events' public forms
        await play_to_end(games, created, rng)
        code, exported, err = await run_async("export", created.game_id, "--server", f"127.0.0.1:{running.port}")
        assert code == 0, err
        # the same bytes as the in-process log: one writer, and the wire round-trips every event and command
        assert exported == to_bytes(from_result(await games.log(created.game_id, None)))
        lines = exported.decode().splitlines()
        assert json.loads(lines[0])["game"] == game and "reveal" in json.loads(lines[-1])
        (tmp_path / "game.ndjson").write_bytes(exported)
        code, out, err = await run_async("verify", str(tmp_path / "game.ndjson"))
        assert code == 0 and out.decode().startswith(f"OK {game} {created.game_id}") and not err
        if game == "all_fours":
            code, _, err = await run_async("export", "00000000-0000-4000-8000-000000000000", "--server",
                                           f"127.0.0.1:{running.port}")
            assert code != 0 and "no game" in err and "Traceback" not in err
    finally:
        await running.stop()


def test_export_from_a_server_that_is_not_there() -> None:
    result = run("export", "00000000-0000-4000-8000-000000000000", "--server", "127.0.0.1:9", "--timeout", "1")
    assert result.returncode == 2 and "Traceback" not in result.stderr and result.stderr.strip()
    # which address, and what to do about it
    assert "no cardgames service answered at 127.0.0.1:9 within 1 s" in result.stderr
    assert "cardgames serve --address 127.0.0.1:9" in result.stderr and "--server HOST:PORT" in result.stderr


def test_verify_says_ok_or_names_the_first_bad_sequence(tmp_path: Path) -> None:
    log = played_log("contract_rummy")
    good = tmp_path / "good.ndjson"
    good.write_bytes(to_bytes(log))
    result = run("verify", str(good))
    assert result.returncode == 0 and result.stdout.count("\n") == 1 and not result.stderr
    assert result.stdout.startswith("OK contract_rummy") and log.head in result.stdout
    assert run("verify", str(good), "--head", log.head).returncode == 0
    wrong_head = run("verify", str(good), "--head", "0" * 64)
    assert wrong_head.returncode == 1 and "expected" in wrong_head.stderr

    tampered = fresh("contract_rummy")
    tampered.entries[40]["event"]["type"] = "discarded" if tampered.entries[40]["event"]["type"] != "discarded" \
        else "stock_drawn"
    bad = tmp_path / "bad.ndjson"
    bad.write_bytes(to_bytes(rechain(tampered)))
    result = run("verify", str(bad))
    assert result.returncode == 1 and result.stderr.startswith(f"FAIL {bad}: seq 41 (line 42): ")
    assert "Traceback" not in result.stderr and not result.stdout


def _unreadable(tmp_path: Path) -> dict[str, tuple[bytes, str]]:
    data = to_bytes(played_log("all_fours"))
    header, rest = data.split(b"\n", 1)

    def with_header(**changes: object) -> bytes:
        return json.dumps({**json.loads(header), **changes}).encode() + b"\n" + rest

    cut = data.index(b"\n", len(data) // 2) - 5  # inside a line: a cut at a line's end leaves a readable log
    return {
        "truncated": (data[:cut], "cut short"),
        "not_json": (b"this is not a log\n", "not JSON"),
        "empty": (b"", "empty"),
        "array": (b"[1, 2, 3]\n", "JSON object"),
        "no_header": (rest, "not a log header"),
        "unknown_game": (with_header(game="chess"), "unknown game 'chess'"),
        "format_version": (with_header(version=2), "format version 2"),
        "rules_version": (with_header(rules_version="0"), "rules version '0'"),
        "binary": (bytes(range(256)), "not JSON"),
    }


def test_verify_refuses_what_is_not_a_log_without_a_traceback(tmp_path: Path) -> None:
    cases = _unreadable(tmp_path)
    for name, (data, _) in cases.items():
        (tmp_path / f"{name}.ndjson").write_bytes(data)
    with ThreadPoolExecutor(len(cases)) as pool:
        results = dict(zip(cases, pool.map(lambda name: run("verify", str(tmp_path / f"{name}.ndjson")), cases),
                           strict=True))
    for name, (_, expect) in cases.items():
        result = results[name]
        assert result.returncode == 2, (name, result.stderr)
        assert expect in result.stderr, (name, result.stderr)
        assert "Traceback" not in result.stderr and result.stderr.count("\n") == 1, (name, result.stderr)
    missing = run("verify", str(tmp_path / "nothing.ndjson"))
    assert missing.returncode == 2 and "cannot read" in missing.stderr and "Traceback" not in missing.stderr
