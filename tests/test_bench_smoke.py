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


class _FakeGame:
    """An RLCard-like game object whose ``step`` builds an observation with ``get_state``, as RLCard's do."""

    def __init__(self) -> None:
        self.observations = 0
        self.judger = self
        self.left = 0

    def get_state(self, player_id: int) -> dict[str, int]:
        self.observations += 1
        return {"player_id": player_id}

    def get_legal_actions(self) -> list[int]:
        return [1, 2]

    def init_game(self) -> tuple[dict[str, int], int]:
        self.left = 5
        return self.get_state(player_id=0), 0

    def step(self, action: int) -> tuple[dict[str, int], int]:
        self.left -= 1
        return self.get_state(player_id=0), 0

    def is_over(self) -> bool:
        return self.left <= 0


def test_the_rlcard_anchor_builds_no_observation(monkeypatch: pytest.MonkeyPatch) -> None:
    """The anchor times the rules engine alone: the game's ``get_state`` never runs in its games."""
    import sys
    import types

    from bench.anchors import RLCardProbe, no_observation
    from bench.harness import Context

    game = _FakeGame()
    fake = types.ModuleType("rlcard")
    fake.make = lambda name, config: types.SimpleNamespace(game=game)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "rlcard", fake)
    probe = RLCardProbe("gin-rummy")
    ctx = Context(TINY)
    probe.setup(ctx)
    assert game.get_state is no_observation
    figures = probe.sample(ctx)
    assert figures["steps_per_s"] > 0 and probe.info()["steps_per_game"] == 5
    assert game.observations == 0


def test_the_worst_case_rows_say_cold_warm_page_and_their_verdicts() -> None:
    rows, results = run(TINY, ["seep.legal_worst", "contract_rummy.finder_worst"])
    by_name = {row.name: row for row in rows}
    for label in ("seep legal_commands", "contract_rummy finder"):
        cold, warm = by_name[f"{label}: worst plausible, cold"], by_name[f"{label}: worst plausible, warm"]
        assert cold.target == "<= 0.5x" and cold.verdict.startswith(("met", "MISSED"))
        assert warm.target == "" and warm.verdict == "info"
        assert "playout median deal" in cold.anchor
    page = by_name["seep legal_commands: first page of 1,000, worst plausible"]
    assert page.target == "<= 1x" and page.verdict.startswith(("met", "MISSED"))
    assert by_name["seep legal_commands: every command made, worst plausible"].verdict == "info"
    assert not any(name.startswith("contract_rummy finder: first page") for name in by_name)
    positions = results["seep.legal_worst"].info["positions"]
    assert all(entry["cold_ms"] > 0 and entry["page_ms"] > 0 for entry in positions.values())


@pytest.mark.parametrize("game", ["seep", "contract_rummy"])
def test_clear_caches_empties_what_the_listing_remembers(game: str) -> None:
    """The cold worst cases clear every cache before each call: after clear_caches, nothing is held."""
    from bench.playout import SPECS, Player
    from bench.worst import cache_clearer
    from cardgames.engine.core.registry import get_game

    rules = get_game(game)
    listing = __import__(f"cardgames.engine.{game}.legal", fromlist=["LAST_LISTING"])
    Player(SPECS[game], 1).play()
    state = object()
    listing.LAST_LISTING.remember(state, 0, ["listed"])
    assert listing.LAST_LISTING.holds(state, 0, "listed")
    if game == "contract_rummy":
        from cardgames.engine.contract_rummy import finder

        caches = (finder._rank_sets, finder._suit_runs, finder._window_runs, finder._window_costs, listing._shape,
                  listing._dig_rule)
        assert all(cached.cache_info().currsize > 0 for cached in caches)
    else:
        assert listing._OPTIONS.last is not None
    cache_clearer(rules)()
    assert not listing.LAST_LISTING.holds(state, 0, "listed")
    if game == "contract_rummy":
        assert all(cached.cache_info().currsize == 0 for cached in caches)
    else:
        assert listing._OPTIONS.last is None


def test_the_shortcut_rows_compare_playouts_with_and_without_it() -> None:
    rows, results = run(TINY, ["seep.shortcut", "contract_rummy.shortcut"])
    for game in ("seep", "contract_rummy"):
        result = results[f"{game}.shortcut"]
        assert result.ok and result.medians["on_actions_per_s"] > 0 and result.medians["off_actions_per_s"] > 0
        row = next(row for row in rows if row.name.startswith(f"{game} actions, decide's shortcut"))
        assert row.target == ">= 1.05x" and row.verdict.startswith(("met", "MISSED"))


def test_a_game_without_clear_caches_has_its_functools_caches_cleared(monkeypatch: pytest.MonkeyPatch) -> None:
    import functools
    import sys
    import types

    from bench.worst import cache_clearer

    package, module = types.ModuleType("plugin_game"), types.ModuleType("plugin_game.legal")

    @functools.cache
    def square(value: int) -> int:
        return value * value

    module.square = square  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "plugin_game", package)
    monkeypatch.setitem(sys.modules, "plugin_game.legal", module)
    square(3)
    clear = cache_clearer(package)
    assert square.cache_info().currsize == 1
    clear()
    assert square.cache_info().currsize == 0
