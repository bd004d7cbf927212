"""Smoke tests of the benchmark harness: it runs end to end with tiny samples.

No speed is asserted here (speed is measured in bench/, never in tests): only that
every probe either measures or says clearly why it cannot, that the table, the
JSON and the markdown come out, and that --only selects a probe with its anchors.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.harness import Settings, latency_figures, percentile
from bench.report import Target
from bench.run import catalogue, main, run, select
from bench.seep_throwing import main as seep_throwing_main
from bench.seep_throwing import picks_and_decision, random_matches, throwing_deal

TINY = Settings(budget=0.001, repeats=1, heavy=False)


def test_percentile_and_latency_figures() -> None:
    values = [0.001 * n for n in range(1, 101)]
    assert percentile(values, 0.5) == pytest.approx(0.050, abs=0.0011)
    assert percentile(values, 0.99) == pytest.approx(0.099, abs=0.0011)
    figures = latency_figures([0.001, 0.001, 0.002])
    assert figures["p50_us"] == pytest.approx(1000)
    assert figures["per_s"] == pytest.approx(3 / 0.004)


def test_targets() -> None:
    assert Target(1.0).met(1.2) and not Target(1.0).met(0.9)
    assert Target(1.5, at_least=False).met(1.4) and not Target(1.5, at_least=False).met(1.6)
    assert str(Target(2.2, at_least=False)) == "<= 2.2x"


def test_only_selects_the_anchors_too() -> None:
    names = [probe.name for probe in select(catalogue(), ["all_fours"])]
    assert names == ["rlcard.bridge", "all_fours.playout"]
    names = [probe.name for probe in select(catalogue(), ["submit.memory"])]
    assert names == ["grpc.echo", "grpc.submit_floor", "submit.memory"]


def test_every_probe_measures_or_says_why(tmp_path: Path) -> None:
    rows, results = run(TINY)
    assert set(results) == set(catalogue())
    for result in results.values():
        # a game still being written may misbehave (GameFault, reported in its row); the harness may not
        assert result.error is None or result.error.startswith("GameFault"), f"{result.name}: {result.error}"
        if result.ok:
            assert result.medians and all(value > 0 for value in result.medians.values()), result.name
        else:
            assert result.unavailable or result.error
    for row in rows:
        assert row.verdict, row
        assert (row.figure is None) == (row.verdict in ("not available", "error")), row


def test_the_command_writes_table_json_and_markdown(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_json, out_md = tmp_path / "bench.json", tmp_path / "bench.md"
    code = main(["--only", "grpc.echo", "--budget", "0.001", "--repeats", "2",
                 "--json", str(out_json), "--markdown", str(out_md)])
    assert code == 0
    printed = capsys.readouterr().out
    assert "grpc.aio echo p50" in printed and "cores" in printed
    report = json.loads(out_json.read_text())
    assert report["machine"]["cpu"] and report["machine"]["python"]
    assert len(report["probes"]["grpc.echo"]["samples"]["p50_us"]) == 2
    assert out_md.read_text().startswith("Machine: ") and "| name | figure |" in out_md.read_text()


@pytest.mark.parametrize("game", ["seep", "all_fours", "contract_rummy"])
def test_the_step_breakdown_times_every_call(game: str, capsys: pytest.CaptureFixture[str]) -> None:
    """``python -m bench.steps GAME`` replays the recorded steps and prints each call's cost."""
    from bench import steps

    assert steps.main([game, "--matches", "1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{game}: 1 matches, ")
    for call in ("legal_commands", "decide (listed)", "fold of its events", "to_act + is_over"):
        line = next(line for line in out.splitlines() if line.strip().startswith(call))
        figure = float(line.split()[-2])
        # decide's cost is a difference of two timings (listing and deciding, less listing): a
        # number, but on a busy machine it may come out below zero; the others are timed directly
        assert call == "decide (listed)" or figure > 0, line
    with pytest.raises(SystemExit):
        steps.main([game, "--matches", "0"])


def test_seep_throwing_crowds_the_floor_of_a_deal_and_prints_its_row(capsys: pytest.CaptureFixture[str]) -> None:
    deal = throwing_deal(3)
    assert deal.largest_floor == 51  # every card but the last one played lies loose
    assert deal.slowest_commands > 10**11 and deal.slowest_floor >= 30
    assert 0 < deal.slowest_ms / 1000 <= deal.listings_s
    largest, slowest = random_matches(2)
    assert 4 <= largest < 30 and slowest > 0
    per_pick, decision = picks_and_decision(deal, 2)
    assert per_pick > 0 and decision > 0
    seep_throwing_main(["--deals", "1", "--picks", "1"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("| seed |") and lines[2].startswith("| 1 | 51 |")
    assert lines[-1].startswith("seed 1, slowest position: ") and "heuristic bot decides" in lines[-1]


def test_what_a_task_costs_to_send_to_a_worker_is_measured() -> None:
    import asyncio

    from bench.beside_throwing import crossing

    lines = asyncio.run(crossing(calls=3))
    assert len(lines) == 3 and all("a page of one in a worker" in line for line in lines)
