"""Rows of the table: each figure next to its anchor, the ratio, the target, the verdict."""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

from rich.console import Console
from rich.table import Table

from bench.harness import Result


@dataclass(frozen=True)
class Target:
    """A ratio the figure must reach: ``ratio >= value`` (throughput) or ``<=`` (latency)."""

    value: float
    at_least: bool = True

    def __str__(self) -> str:
        return f"{'>=' if self.at_least else '<='} {self.value:g}x"

    def met(self, ratio: float) -> bool:
        compare = operator.ge if self.at_least else operator.le
        return bool(compare(ratio, self.value))


@dataclass(frozen=True)
class Row:
    name: str
    figure: float | None
    unit: str
    anchor: str = ""
    ratio: float | None = None
    target: str = ""
    verdict: str = ""
    note: str = ""


def fmt(value: float | None) -> str:
    if value is None:
        return "-"
    if abs(value) >= 100:
        return f"{value:,.0f}"
    return f"{value:.3g}"


def fmt_ratio(ratio: float | None) -> str:
    if ratio is None:
        return "-"
    return f"{ratio:,.0f}x" if ratio >= 100 else f"{ratio:.2f}x"


def missing_row(name: str, unit: str, result: Result, target: str = "") -> Row:
    """The row of a figure that could not be measured, saying why."""
    if result.unavailable is not None:
        return Row(name, None, unit, target=target, verdict="not available", note=result.unavailable)
    return Row(name, None, unit, target=target, verdict="error", note=str(result.error))


def anchor_row(name: str, result: Result, key: str, unit: str, note: str = "") -> Row:
    if not result.ok:
        return missing_row(name, unit, result)
    return Row(name, result.medians[key], unit, verdict="anchor", note=note)


def compared_row(
    name: str,
    result: Result,
    key: str,
    unit: str,
    anchor: Result,
    anchor_key: str,
    anchor_label: str,
    target: Target | None = None,
    note: str = "",
) -> Row:
    """A figure divided by its anchor's figure, judged against ``target`` when one is given."""
    target_text = str(target) if target else ""
    if not result.ok:
        return missing_row(name, unit, result, target_text)
    figure = result.medians[key]
    if not anchor.ok:
        why = f"anchor {anchor.name}: {anchor.unavailable or anchor.error}"
        return Row(name, figure, unit, anchor_label, None, target_text, "no anchor", f"{note}; {why}" if note else why)
    reference = anchor.medians[anchor_key]
    ratio = figure / reference if reference else None
    label = f"{anchor_label} {fmt(reference)}"
    if target is None or ratio is None:
        return Row(name, figure, unit, label, ratio, target_text, "info", note)
    verdict = "met" if target.met(ratio) else f"MISSED ({ratio / target.value:,.2f} of target)"
    return Row(name, figure, unit, label, ratio, target_text, verdict, note)


RowBuilder = Callable[[Mapping[str, Result]], list[Row]]


def render(rows: list[Row], facts: Mapping[str, Any], settings_line: str, console: Console) -> None:
    versions = ", ".join(f"{name} {version}" for name, version in facts["versions"].items())
    title = (
        f"cardgames benchmarks - {facts['cpu']}, {facts['cores']} cores "
        f"({facts['usable_cores']} usable), {facts['python']}, commit {facts['commit']}"
    )
    load = f"load average {facts.get('load_at_start')} at the start, {facts.get('load_at_end')} at the end"
    build = facts.get("engine_build", "")
    table = Table(title=title, caption=f"{settings_line}; {load}\n{versions}; {build}", title_justify="left")
    table.add_column("name", no_wrap=True)
    table.add_column("figure", justify="right")
    table.add_column("unit")
    table.add_column("anchor")
    table.add_column("ratio", justify="right")
    table.add_column("target", justify="right")
    table.add_column("verdict")
    for row in rows:
        ratio = fmt_ratio(row.ratio)
        verdict = row.verdict
        if verdict == "met":
            verdict = "[green]met[/green]"
        elif verdict.startswith("MISSED"):
            verdict = f"[red]{verdict}[/red]"
        elif verdict.startswith(("not available", "error", "no anchor")):
            verdict = f"[yellow]{verdict}[/yellow]"
        table.add_row(row.name, fmt(row.figure), row.unit, row.anchor, ratio, row.target, verdict)
    console.print(table)
    for note in notes(rows):
        console.print(f"  {note}", highlight=False)


def notes(rows: list[Row]) -> list[str]:
    """Each distinct note once, after the first row that carries it."""
    seen: set[str] = set()
    lines = []
    for row in rows:
        if row.note and row.note not in seen:
            seen.add(row.note)
            lines.append(f"{row.name}: {row.note}")
    return lines


def markdown(rows: list[Row], facts: Mapping[str, Any] | None = None, settings_line: str = "") -> str:
    """The table as GitHub markdown (for docs/benchmarks.md), after the machine facts when given."""
    lines = []
    if facts is not None:
        versions = ", ".join(f"{name} {version}" for name, version in facts["versions"].items())
        lines += [
            f"Machine: {facts['cpu']}, {facts['cores']} cores ({facts['usable_cores']} usable), {facts['python']}, "
            f"{facts['platform']}; commit {facts['commit']}; 1-minute load average {facts.get('load_at_start')} at "
            f"the start, {facts.get('load_at_end')} at the end. {versions}. {facts.get('engine_build', '')}.",
            "",
            f"{settings_line}.",
            "",
        ]
    lines += ["| name | figure | unit | anchor | ratio | target | verdict |", "|---|---:|---|---|---:|---:|---|"]
    for row in rows:
        ratio = fmt_ratio(row.ratio)
        cells = [row.name, fmt(row.figure), row.unit, row.anchor, ratio, row.target, row.verdict]
        lines.append("| " + " | ".join(cell.replace("|", "/") for cell in cells) + " |")
    lines.append("")
    lines.extend(f"* {note}" for note in notes(rows))
    return "\n".join(lines)


def as_dict(row: Row) -> dict[str, Any]:
    return asdict(row)
