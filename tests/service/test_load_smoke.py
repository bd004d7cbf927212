"""Tiny runs of bench/load.py and bench/loadtime.py: they work and stop by themselves (the real runs are in
docs/operations.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bench import load, loadtime
from tests.service.helpers import needs_game

pytestmark = needs_game


def test_load_runs_a_few_matches_without_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "load.json"
    code = load.main(["--matches", "4", "--duration", "2", "--warmup", "0.5", "--store", "memory",
                      "--clients", "1", "--sample", "0.5", "--json", str(out)])
    assert code == 0
    [result] = json.loads(out.read_text())
    assert result["moves"] > 0 and result["errors"] == {} and result["rss_end_mib"] > 0
    assert "| memory | 4 |" in capsys.readouterr().out


def test_loadtime_measures_a_short_log(capsys: pytest.CaptureFixture[str]) -> None:
    assert loadtime.main(["--lengths", "130", "--store", "memory", "--repeat", "1", "--every", "50"]) == 0
    table = capsys.readouterr().out
    assert "| memory |" in table
    row = next(line for line in table.splitlines() if line.startswith("| memory"))
    assert int(row.split("|")[4]) < 50 + 30  # folded at most about K events from the snapshot


def _soaked(samples: list[float], every: float = 30.0) -> load.Result:
    """A soak's result with these RSS samples (every ``every`` seconds) and nothing else of interest."""
    timed = [(index * every, mib) for index, mib in enumerate(samples)]
    fields: dict[str, Any] = {name: 0 for name in load.Result.__dataclass_fields__}
    fields.update(store="sqlite", errors={}, refusals={}, error_details=[], error_median_ms={}, server_gauges={},
                  refusal_reasons={}, clients_lag_ms=(0.0, 0.0), rss_samples_mib=samples,
                  rss_warmup_mib=[], seconds=(len(samples) - 1) * every,
                  rss_slope_mib_per_min=load._slope(timed), rss_scatter_mib=load._scatter(timed))
    return load.Result(**fields)


def test_the_soak_verdict_weighs_the_slope_against_the_scatter() -> None:
    noisy_but_flat = [127.0, 127.5, 124.2, 127.6, 123.5, 120.8, 123.2, 123.3, 122.8, 133.7, 133.9, 122.2, 124.0,
                      125.3, 125.8, 127.9, 128.3, 125.7, 127.1, 127.2, 126.1]
    climbing = [107.9, 110.3, 109.5, 104.2, 110.3, 107.4, 110.2, 116.0, 111.8, 113.0, 114.0, 114.4, 121.1, 112.9,
                121.1, 112.8, 115.5, 116.2, 114.4, 119.0, 124.7]
    assert load.flat(_soaked(noisy_but_flat))
    assert not load.flat(_soaked(climbing))
    assert not load.flat(_soaked([100.0 + minute * 0.5 for minute in range(21)]))  # steady, no scatter
    assert load.flat(_soaked([100.0, 100.0, 100.0]))


def test_a_soak_says_whether_memory_stayed_flat(capsys: pytest.CaptureFixture[str]) -> None:
    code = load.main(["--matches", "4", "--soak", "2", "--warmup", "1", "--store", "memory", "--clients", "1",
                      "--sample", "0.5"])
    assert code == 0
    said = capsys.readouterr().out
    assert "soak (memory, 4 matches, 2s)" in said and ("FLAT" in said or "GROWING" in said)
    assert "warm-up samples [" in said


def test_the_load_bots_read_a_refusals_hint_as_the_clients_do() -> None:
    import grpc

    from bench.load_bots import pushback_seconds

    def refusal(*trailers: tuple[str, str]) -> grpc.aio.AioRpcError:
        return grpc.aio.AioRpcError(grpc.StatusCode.RESOURCE_EXHAUSTED, grpc.aio.Metadata(),
                                    grpc.aio.Metadata(*trailers), "the server is busy")

    assert pushback_seconds(refusal(("grpc-retry-pushback-ms", "250"))) == 0.25
    assert pushback_seconds(refusal()) == 0.1  # no hint: the bots' own pause
