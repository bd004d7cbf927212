"""Load FORMAT.md scenarios, run them through the engine, and report PASS / FAIL lines."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from cardgames.engine.core.commands import parse_command
from cardgames.engine.core.protocol import GameRules, OptionsError, Rejection, ScenarioError, Setup
from cardgames.engine.core.registry import UnknownGame, get_game
from cardgames.engine.core.replay import fold, new_match
from cardgames.engine.core.shuffle import seed_from_text
from cardgames.service.conformance.compare import mismatch

TOP_LEVEL_KEYS = frozenset(
    {"format", "id", "title", "game", "players", "options", "start", "steps", "expect_state", "refs"}
)
START_KEYS = frozenset({"deck", "dealer", "decks", "seed", "match", "state"})
STEP_KEYS = frozenset({"seat", "command", "expect", "reason", "expect_state", "refs", "note", "title"})


class ScenarioFailure(Exception):
    """The engine did not do what the scenario says (or the scenario itself is broken)."""


def scenario_files(paths: Iterable[Path]) -> list[Path]:
    """Every ``*.json`` file named, or found recursively in a named folder, in a stable order."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found.extend(sorted(path.rglob("*.json")))
        elif path.exists():
            found.append(path)
        else:
            raise FileNotFoundError(f"no such file or folder: {path}")
    return found


def _setup(start: Mapping[str, Any], scenario_id: str) -> Setup:
    seed_text = start.get("seed", scenario_id)
    decks: list[tuple[str, ...]] = []
    if "deck" in start:
        decks.append(tuple(start["deck"]))
    decks.extend(tuple(deck) for deck in start.get("decks", []))
    return Setup(
        seed=seed_from_text(seed_text).hex(),
        decks=tuple(decks),
        dealer=start.get("dealer"),
        match=dict(start.get("match", {})),
    )


def _start_state(game: GameRules, config: Any, start: Mapping[str, Any], scenario_id: str) -> Any:
    unknown = set(start) - START_KEYS
    if unknown:
        raise ScenarioFailure(f"scenario error: unknown start keys {sorted(unknown)}")
    setup = _setup(start, scenario_id)
    if "state" in start:
        if "deck" in start:
            raise ScenarioFailure("scenario error: a start has either 'deck' or 'state'")
        try:
            return game.from_snapshot(config, start["state"], setup)
        except ScenarioError as error:
            raise ScenarioFailure(f"scenario error: {error}") from error
    if "deck" not in start:
        raise ScenarioFailure("scenario error: a start needs 'deck' or 'state'")
    state, _events = new_match(game, config, setup)
    return state


def _check_state(game: GameRules, state: Any, expected: Mapping[str, Any], where: str) -> None:
    problem = mismatch(expected, game.snapshot(state), rules=game.TRAITS.comparison)
    if problem:
        raise ScenarioFailure(f"{where}: {problem}")


def run_scenario(scenario: Mapping[str, Any]) -> None:
    """Run one scenario; raise :class:`ScenarioFailure` saying why it fails."""
    unknown = set(scenario) - TOP_LEVEL_KEYS
    if unknown:
        raise ScenarioFailure(f"scenario error: unknown top-level keys {sorted(unknown)}")
    if scenario.get("format") != 1:
        raise ScenarioFailure(f"scenario error: format {scenario.get('format')!r} is not 1")
    scenario_id = str(scenario.get("id", "?"))
    try:
        game = get_game(str(scenario.get("game")))
        config = game.make_config(scenario.get("options", {}), scenario.get("players"))
    except (UnknownGame, OptionsError) as error:
        raise ScenarioFailure(f"scenario error: {error}") from error
    players = int(config.players)
    state = _start_state(game, config, scenario.get("start", {}), scenario_id)

    for number, step in enumerate(scenario.get("steps", []), start=1):
        where = f"step {number}"
        if set(step) - STEP_KEYS:
            raise ScenarioFailure(f"scenario error: {where} has unknown keys {sorted(set(step) - STEP_KEYS)}")
        seat = step.get("seat")
        if not isinstance(seat, int) or not 0 <= seat < players:
            raise ScenarioFailure(f"scenario error: {where} names seat {seat!r} of {players}")
        before = game.snapshot(state)
        outcome = game.decide(state, seat, parse_command(game, step.get("command", {})))
        wanted = step.get("expect")
        if isinstance(outcome, Rejection):
            if wanted != "rejected":
                raise ScenarioFailure(f"{where} ({step.get('command')}) was rejected: {outcome}")
            reason = step.get("reason")
            if reason is not None and reason != outcome.code.value:
                raise ScenarioFailure(f"{where} rejected as {outcome.code.value}, expected {reason}: {outcome}")
            if game.snapshot(state) != before:
                raise ScenarioFailure(f"{where}: a rejected command changed the state")
        else:
            if wanted != "accepted":
                raise ScenarioFailure(f"{where} ({step.get('command')}) was accepted, expected a rejection")
            state = fold(game, state, outcome)
        if "expect_state" in step:
            _check_state(game, state, step["expect_state"], f"after {where}")
    if "expect_state" in scenario:
        _check_state(game, state, scenario["expect_state"], "at the end")


def run_paths(paths: Iterable[Path], emit: Callable[[str], Any]) -> int:
    """Run every scenario under ``paths``, emitting one line each and a summary; the number failed."""
    passed = failed = 0
    try:
        files = scenario_files(paths)
    except FileNotFoundError as error:
        emit(f"FAIL {error}")
        files, failed = [], 1
    for path in files:
        label = path.stem
        try:
            scenario = json.loads(path.read_text(encoding="utf-8"))
            label = str(scenario.get("id", label))
            run_scenario(scenario)
        except ScenarioFailure as error:
            failed += 1
            emit(f"FAIL {label}: {error}")
            continue
        except json.JSONDecodeError as error:
            failed += 1
            emit(f"FAIL {label}: not valid JSON: {error}")
            continue
        except Exception as error:  # an engine crash is a failure of that scenario, not of the run
            failed += 1
            emit(f"FAIL {label}: the engine raised {type(error).__name__}: {error}")
            continue
        passed += 1
        emit(f"PASS {label}")
    emit(f"{passed} passed, {failed} failed")
    return failed
