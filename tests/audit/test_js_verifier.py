"""The independent JavaScript verifier (clients/verifier-js) agrees with the Python one on real logs.

It checks the chain, the seed commitments and the shuffles (not the rules): on every real
log it says OK with the same head, and on every log changed where those checks reach it
fails at the same place as ``cardgames verify``.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from cardgames.engine.core import fairness
from cardgames.service.audit.logfile import AuditLog, to_bytes
from cardgames.service.audit.verify import Failure, verify
from tests.audit.helpers import GAMES, fresh, index_of, played_log, rechain

REPO = Path(__file__).resolve().parents[2]
VERIFIER = REPO / "clients" / "verifier-js"
NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="node (20+) is not installed")
VARIANTS = ("plain", "entropy", "given_seed", "stacked")


def node(*args: str) -> subprocess.CompletedProcess[str]:
    assert NODE is not None
    return subprocess.run([NODE, *args], cwd=REPO, capture_output=True, text=True, timeout=120)


def test_node_unit_tests() -> None:
    result = node("--test", str(VERIFIER))
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_same_logs_hold_in_both(tmp_path: Path) -> None:
    cases = [(game, variant) for game in GAMES for variant in VARIANTS]
    for game, variant in cases:
        (tmp_path / f"{game}-{variant}.ndjson").write_bytes(to_bytes(played_log(game, variant)))
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda case: node(str(VERIFIER / "verify.mjs"),
                                                  str(tmp_path / f"{case[0]}-{case[1]}.ndjson")), cases))
    for (game, variant), result in zip(cases, results, strict=True):
        log = played_log(game, variant)
        assert result.returncode == 0, (game, variant, result.stderr)
        assert result.stdout.startswith(f"OK {game} ") and f"head {log.head}" in result.stdout
        assert f"{len(log.entries)} events" in result.stdout
        assert verify(fresh(game, variant)).head == log.head


def _card_changed(log: AuditLog) -> None:
    index = index_of(log, lambda event: event["type"] != "shuffled" and bool(event.get("cards")), 3)
    cards = log.entries[index]["event"]["cards"]
    cards[0] = "JK" if cards[0] != "JK" else "AS"


def _dropped(log: AuditLog) -> None:
    del log.entries[len(log.entries) // 2]


def _swapped(log: AuditLog) -> None:
    index = next(i for i in range(len(log.entries) // 2, len(log.entries) - 1)
                 if log.entries[i]["event"] != log.entries[i + 1]["event"])
    log.entries[index], log.entries[index + 1] = log.entries[index + 1], log.entries[index]


def _score_edited(log: AuditLog) -> None:
    index = max(i for i, item in enumerate(log.entries) if isinstance(item["event"].get("scores"), list)
                or isinstance(item["event"].get("totals"), list))
    event = log.entries[index]["event"]
    event["scores" if isinstance(event.get("scores"), list) else "totals"][0] += 1


def _wrong_seed(log: AuditLog) -> None:
    assert log.reveal is not None
    log.reveal["seed"] = "ab" * 32


def _seed_and_commitment(log: AuditLog) -> None:
    assert log.reveal is not None
    log.reveal["seed"] = "ab" * 32
    log.header["seed_commitment"] = fairness.commitment("ab" * 32)
    seeded = log.entries[index_of(log, lambda event: event["type"] == "match_seeded")]["event"]
    seeded["seed"], seeded["commitment"] = "ab" * 32, fairness.commitment("ab" * 32)
    rechain(log)


def _shuffle_changed(log: AuditLog) -> None:
    index = max(i for i, item in enumerate(log.entries)
                if item["event"]["type"] == "shuffled" and len(set(item["event"]["order"])) > 1)
    order = log.entries[index]["event"]["order"]
    other = next(i for i, card in enumerate(order) if card != order[0])
    order[0], order[other] = order[other], order[0]
    rechain(log)


def _header_changed(log: AuditLog) -> None:
    log.header["dealer"] = 1


TAMPERINGS: dict[str, Callable[[AuditLog], None]] = {
    "card_changed": _card_changed,
    "dropped": _dropped,
    "swapped": _swapped,
    "score_edited": _score_edited,
    "wrong_seed": _wrong_seed,
    "seed_and_commitment": _seed_and_commitment,
    "shuffle_changed": _shuffle_changed,
    "header_changed": _header_changed,
}


def _where(failure: Failure) -> str:
    return failure.where


@pytest.mark.parametrize("game", GAMES)
def test_both_catch_the_same_tampering_at_the_same_place(game: str, tmp_path: Path) -> None:
    expected = {}
    for name, tamper in TAMPERINGS.items():
        log = fresh(game)
        tamper(log)
        with pytest.raises(Failure) as caught:
            verify(log)
        expected[name] = _where(caught.value)
        (tmp_path / f"{name}.ndjson").write_bytes(to_bytes(log))
    with ThreadPoolExecutor(4) as pool:
        results = dict(zip(TAMPERINGS, pool.map(
            lambda name: node(str(VERIFIER / "verify.mjs"), str(tmp_path / f"{name}.ndjson")), TAMPERINGS),
            strict=True))
    for name, result in results.items():
        assert result.returncode == 1, (name, result.stdout, result.stderr)
        found = re.match(r"FAIL (seq \d+|header|reveal): ", result.stderr)
        assert found and found.group(1) == expected[name], (name, expected[name], result.stderr)


def test_unreadable_files(tmp_path: Path) -> None:
    data = to_bytes(played_log("all_fours"))
    cut = data.index(b"\n", len(data) // 3) - 5  # inside a line: a cut at a line's end leaves a readable log
    (tmp_path / "cut.ndjson").write_bytes(data[:cut])
    (tmp_path / "version.ndjson").write_bytes(data.replace(b'"version":1', b'"version":7', 1))
    for name in ("cut", "version"):
        result = node(str(VERIFIER / "verify.mjs"), str(tmp_path / f"{name}.ndjson"))
        assert result.returncode == 2 and result.stderr.startswith("verify.mjs: "), result.stderr
        assert result.stderr.count("\n") == 1, result.stderr  # one line, no stack trace
