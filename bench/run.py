"""One command, one table: ``python -m bench.run [--quick] [--only NAME...] [--json FILE]``.

Progress goes to stderr, the table to stdout. ``--only`` takes probe names or
prefixes (``all_fours``, ``rlcard``, ``submit.sqlite``); the anchors a selected
probe is compared with are always measured with it.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from rich.console import Console

from bench.anchors import AggregateReplayProbe, EchoProbe, RLCardProbe
from bench.beside_throwing import BesideThrowingProbe
from bench.bots import DecisionCostProbe, RemoteBotsProbe, TournamentProbe, decision_rows, matches_rows
from bench.engines import PlayoutProbe
from bench.harness import Probe, Result, Settings, load_average, machine_facts, measure
from bench.playout import MATCH_UNITS, SPECS
from bench.report import Row, RowBuilder, Target, anchor_row, as_dict, compared_row, markdown, render
from bench.rpc import SubmitFloorProbe, SubmitOverHttpProbe, SubmitProbe
from bench.shortcut import ShortcutProbe
from bench.store_replay import StoreReplayProbe
from bench.timeouts import LatenessProbe, lateness_rows
from bench.verify import VerifyProbe
from bench.worst import DEFAULT_PAGE_SIZE, ContractFinderProbe, SeepLegalWorstProbe

GAMES = ("all_fours", "seep", "contract_rummy")
ANCHOR_LABELS = {"rlcard.bridge": "RLCard bridge", "rlcard.gin-rummy": "RLCard gin-rummy"}


@dataclass(frozen=True)
class Entry:
    probe: Callable[[], Probe]
    rows: RowBuilder


def _info_note(result: Result, keys: Sequence[str]) -> str:
    return ", ".join(f"{key} {result.info[key]}" for key in keys if key in result.info)


def _rlcard_rows(name: str, label: str) -> RowBuilder:
    def rows(results: Mapping[str, Result]) -> list[Row]:
        result = results[name]
        note = _info_note(result, ["steps_per_game"])
        return [anchor_row(f"anchor: {label}", result, "steps_per_s", "steps/s", note)]

    return rows


def _aggregate_rows(results: Mapping[str, Result]) -> list[Row]:
    result = results["eventsourcing.aggregate"]
    note = _info_note(result, ["log_length", "length_from"])
    return [anchor_row("anchor: eventsourcing Aggregate get", result, "events_per_s", "events/s", note)]


def _echo_rows(results: Mapping[str, Result]) -> list[Row]:
    result = results["grpc.echo"]
    return [
        anchor_row("anchor: grpc.aio echo p50", result, "p50_us", "us"),
        anchor_row("anchor: grpc.aio echo p99", result, "p99_us", "us"),
        anchor_row("anchor: grpc.aio echo", result, "per_s", "calls/s"),
    ]


def _floor_rows(results: Mapping[str, Result]) -> list[Row]:
    result, echo = results["grpc.submit_floor"], results["grpc.echo"]
    return [compared_row("gRPC floor: SubmitCommand messages, constant handler p50", result, "p50_us", "us", echo,
                         "p50_us", "echo p50")]


def _playout_rows(game_name: str) -> RowBuilder:
    spec = SPECS[game_name]

    def rows(results: Mapping[str, Result]) -> list[Row]:
        result, anchor = results[f"{game_name}.playout"], results[spec.anchor]
        label = ANCHOR_LABELS[spec.anchor]
        note = _info_note(result, ["actions_per_match", "events_per_match", f"{spec.unit}_per_match"])
        built = [
            compared_row(
                f"{game_name} actions", result, "actions_per_s", "actions/s", anchor, "steps_per_s", label,
                Target(1.0), note,
            ),
            compared_row(f"{game_name} {spec.unit}", result, "units_per_s", f"{spec.unit}/s", anchor, "games_per_s",
                         f"{label} games/s"),
        ]
        if spec.unit not in MATCH_UNITS:
            built.append(compared_row(f"{game_name} matches", result, "matches_per_s", "matches/s", anchor,
                                      "games_per_s", f"{label} games/s"))
        return built

    return rows


#: The kinds of worst-case positions (bench/worst.py), in table order.
KINDS = ("plausible", "constructed", "extreme")


def _worst_rows(name: str, label: str, pages: bool = False) -> RowBuilder:
    """Per kind of position, the worst listing cold (the target: <= 0.5 deal) and warm; with
    ``pages``, what the service's first page and a bot's every command cost there (cold; the first
    page's target, <= 1 deal, on the positions the default rules can produce)."""

    def rows(results: Mapping[str, Result]) -> list[Row]:
        result = results[name]
        deal = "playout median deal"
        built = [
            compared_row(f"{label}: playout median step", result, "median_step_ms", "ms", result, "deal_ms", deal,
                         None, _info_note(result, ["p99_step_ms", "max_step_ms"]))
        ]
        kinds = sorted({key.split("_")[1] for key in result.medians if key.startswith("cold_")}, key=KINDS.index)
        for kind in kinds or ["plausible"]:
            for figure, target in (("cold", Target(0.5, at_least=False)), ("warm", None)):
                built.append(compared_row(
                    f"{label}: worst {kind}, {figure}", result, f"{figure}_{kind}_ms", "ms", result, "deal_ms", deal,
                    target, _info_note(result, [f"worst_{figure}_{kind}"]),
                ))
        if not pages:
            return built
        for kind in kinds or ["plausible"]:
            built.append(compared_row(
                f"{label}: first page of {DEFAULT_PAGE_SIZE:,}, worst {kind}", result, f"page_{kind}_ms", "ms", result,
                "deal_ms", deal, Target(1.0, at_least=False) if kind == "plausible" else None,
                _info_note(result, [f"worst_page_{kind}"]),
            ))
            if f"made_{kind}_ms" in result.medians:
                built.append(compared_row(
                    f"{label}: every command made, worst {kind}", result, f"made_{kind}_ms", "ms", result, "deal_ms",
                    deal, None, _info_note(result, [f"worst_made_{kind}"]),
                ))
        return built

    return rows


def _shortcut_rows(game_name: str) -> RowBuilder:
    def rows(results: Mapping[str, Result]) -> list[Row]:
        result = results[f"{game_name}.shortcut"]
        return [compared_row(f"{game_name} actions, decide's shortcut for listed commands", result,
                             "on_actions_per_s", "actions/s", result, "off_actions_per_s", "without it", Target(1.05))]

    return rows


def _store_rows(name: str, label: str, target: Target | None) -> RowBuilder:
    def rows(results: Mapping[str, Result]) -> list[Row]:
        result, anchor = results[name], results["eventsourcing.aggregate"]
        note = _info_note(result, ["log", "written", "store", "load_decode_events_per_s", "fold_events_per_s"])
        return [compared_row(label, result, "events_per_s", "events/s", anchor, "events_per_s",
                             "eventsourcing get", target, note)]

    return rows


def _verify_rows(results: Mapping[str, Result]) -> list[Row]:
    result = results["audit.verify"]
    note = _info_note(result, ["log", "file_bytes"])
    return [
        compared_row("audit log verify (long log)", result, "verify_events_per_s", "events/s", result,
                     "replay_events_per_s", "replay of the file", None, note),
    ]


def _submit_rows(store: str, ceiling: float) -> RowBuilder:
    def rows(results: Mapping[str, Result]) -> list[Row]:
        result, echo = results[f"submit.{store}"], results["grpc.echo"]
        note = _info_note(result, ["game", "server"])
        floor = results["grpc.submit_floor"]
        return [
            compared_row(f"SubmitCommand {store} p50", result, "p50_us", "us", echo, "p50_us", "echo p50",
                         Target(ceiling, at_least=False), note),
            compared_row(f"SubmitCommand {store} p50 vs gRPC floor", result, "p50_us", "us", floor, "p50_us",
                         "floor p50"),
            compared_row(f"SubmitCommand {store} p99", result, "p99_us", "us", echo, "p99_us", "echo p99"),
            compared_row(f"SubmitCommand {store}", result, "per_s", "calls/s", echo, "per_s", "echo calls/s"),
        ]

    return rows


def _beside_rows(results: Mapping[str, Result]) -> list[Row]:
    result = results["submit.beside_throwing"]
    note = _info_note(result, ["server", "throwing game"])
    return [
        compared_row("SubmitCommand p99 beside a B-7 throwing game", result, "beside_p99_us", "us", result,
                     "alone_p99_us", "alone p99", Target(2.0, at_least=False), note),
        compared_row("SubmitCommand p50 beside a B-7 throwing game", result, "beside_p50_us", "us", result,
                     "alone_p50_us", "alone p50"),
    ]


def _http_rows(results: Mapping[str, Result]) -> list[Row]:
    result = results["submit.http"]
    note = _info_note(result, ["game", "server"])
    return [
        compared_row(f"SubmitCommand p50 over {label}", result, f"{key}_p50_us", "us", result, "grpc_p50_us",
                     "native gRPC p50, same run", Target(1.5, at_least=False), note)
        for key, label in (("connect_json", "Connect JSON"), ("grpc_web", "gRPC-Web"))
    ]


def catalogue() -> dict[str, Entry]:
    """Every probe in table order (setups run in this order too)."""
    entries: dict[str, Entry] = {
        "rlcard.bridge": Entry(lambda: RLCardProbe("bridge"), _rlcard_rows("rlcard.bridge", "RLCard bridge")),
        "rlcard.gin-rummy": Entry(
            lambda: RLCardProbe("gin-rummy"), _rlcard_rows("rlcard.gin-rummy", "RLCard gin-rummy")
        ),
        "eventsourcing.aggregate": Entry(AggregateReplayProbe, _aggregate_rows),
        "grpc.echo": Entry(EchoProbe, _echo_rows),
        "grpc.submit_floor": Entry(SubmitFloorProbe, _floor_rows),
    }
    for game_name in GAMES:
        entries[f"{game_name}.playout"] = Entry(
            lambda game_name=game_name: PlayoutProbe(game_name), _playout_rows(game_name)  # type: ignore[misc]
        )
    entries["seep.legal_worst"] = Entry(
        SeepLegalWorstProbe, _worst_rows("seep.legal_worst", "seep legal_commands", pages=True)
    )
    entries["contract_rummy.finder_worst"] = Entry(
        ContractFinderProbe, _worst_rows("contract_rummy.finder_worst", "contract_rummy finder")
    )
    for game_name in ("seep", "contract_rummy"):
        entries[f"{game_name}.shortcut"] = Entry(
            lambda game_name=game_name: ShortcutProbe(game_name), _shortcut_rows(game_name)  # type: ignore[misc]
        )
    entries["store.replay"] = Entry(
        StoreReplayProbe, _store_rows("store.replay", "store replay (long log)", Target(3.0))
    )
    entries["store.replay.sqlite"] = Entry(
        lambda: StoreReplayProbe("sqlite:"),
        _store_rows("store.replay.sqlite", "store replay (long log, SQLite)", None),
    )
    entries["audit.verify"] = Entry(VerifyProbe, _verify_rows)
    entries["submit.memory"] = Entry(lambda: SubmitProbe("memory"), _submit_rows("memory", 1.5))
    entries["submit.sqlite"] = Entry(lambda: SubmitProbe("sqlite"), _submit_rows("sqlite", 2.2))
    entries["submit.http"] = Entry(SubmitOverHttpProbe, _http_rows)
    entries["submit.beside_throwing"] = Entry(BesideThrowingProbe, _beside_rows)
    entries["bots.remote"] = Entry(RemoteBotsProbe, matches_rows("bots.remote", "random bots over gRPC"))
    entries["bots.tournament"] = Entry(TournamentProbe, matches_rows("bots.tournament", "random bots, tournament"))
    entries["bots.decision"] = Entry(DecisionCostProbe, decision_rows)
    entries["clocks.lateness"] = Entry(LatenessProbe, lateness_rows("clocks.lateness", "timeout lateness", True))
    entries["clocks.lateness.memory"] = Entry(
        lambda: LatenessProbe("memory"), lateness_rows("clocks.lateness.memory", "timeout lateness, memory", False)
    )
    return entries


def select(entries: Mapping[str, Entry], only: Sequence[str] | None) -> list[Probe]:
    """The probes named (by name, prefix or glob) and their anchors, in table order."""
    probes = {name: entry.probe() for name, entry in entries.items()}
    if not only:
        return list(probes.values())

    def wanted(name: str) -> bool:
        return any(name == pattern or name.startswith(pattern) or fnmatch.fnmatch(name, pattern) for pattern in only)

    chosen = {name for name in probes if wanted(name)}
    if not chosen:
        raise SystemExit(f"--only matched no probe; probes: {', '.join(probes)}")
    for name in list(chosen):
        chosen.update(probes[name].anchors)
    return [probe for name, probe in probes.items() if name in chosen]


def run(
    settings: Settings, only: Sequence[str] | None = None, progress: Callable[[str], None] = lambda message: None
) -> tuple[list[Row], dict[str, Result]]:
    entries = catalogue()
    probes = select(entries, only)
    results = measure(probes, settings, progress)
    rows: list[Row] = []
    for name, entry in entries.items():
        if name in results:
            rows.extend(entry.rows(results))
    return rows, results


def report_json(rows: list[Row], results: Mapping[str, Result], facts: Mapping[str, Any],
                settings: Settings) -> dict[str, Any]:
    return {
        "machine": dict(facts),
        "settings": asdict(settings),
        "rows": [as_dict(row) for row in rows],
        "probes": {name: asdict(result) for name, result in results.items()},
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.run", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="short samples, 3 rounds (a smoke run)")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="probe names, prefixes or globs")
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write rows, samples and facts as JSON")
    parser.add_argument("--markdown", type=Path, metavar="FILE", help="also write the table as markdown")
    parser.add_argument("--repeats", type=int, help="rounds (default 5, quick 3)")
    parser.add_argument("--budget", type=float, help="seconds of work per sample (default 1.0, quick 0.25)")
    args = parser.parse_args(argv)

    settings = Settings.quick() if args.quick else Settings()
    if args.repeats is not None or args.budget is not None:
        settings = Settings(
            budget=args.budget if args.budget is not None else settings.budget,
            repeats=args.repeats if args.repeats is not None else settings.repeats,
            seed=settings.seed,
        )
    err = Console(stderr=True, highlight=False)
    facts = machine_facts()
    err.print(f"{facts['cpu']}, {facts['cores']} cores, {facts['python']}: "
              f"{settings.repeats} rounds of {settings.budget:g} s per probe")
    rows, results = run(settings, args.only, lambda message: err.print(message, style="dim"))
    facts["load_at_end"] = load_average()
    settings_line = (f"median of {settings.repeats} interleaved rounds, {settings.budget:g} s of work per sample; "
                     "ratio = figure / anchor")
    render(rows, facts, settings_line, Console(soft_wrap=False, width=200))
    if args.json:
        args.json.write_text(json.dumps(report_json(rows, results, facts, settings), indent=2, default=str) + "\n")
    if args.markdown:
        args.markdown.write_text(markdown(rows, facts, settings_line) + "\n")
    return 1 if any(result.error for result in results.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
