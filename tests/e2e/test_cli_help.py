"""``cardgames ... --help``: flags read as flags, arguments by name, the games by their names."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from cardgames.service.cli import app

COMMANDS = sorted(info.name or "" for info in app.registered_commands)


def help_of(*args: str) -> str:
    result = CliRunner().invoke(app, [*args, "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    return result.output


def test_every_command_is_listed() -> None:
    assert {"serve", "play", "conformance", "export", "verify", "replay", "tournament", "bridge"} <= set(COMMANDS)


@pytest.mark.parametrize("command", ["", *COMMANDS])
def test_no_flag_shows_a_value_type_and_no_argument_reads_as_a_set(command: str) -> None:
    text = help_of(*([command] if command else []))
    assert "<bool>" not in text
    usage = next(line for line in text.splitlines() if "Usage:" in line)
    assert "{" not in usage and "}" not in usage
    assert re.search(r"--help\s+Show this message", text)


def test_play_names_its_argument_and_the_games() -> None:
    text = help_of("play")
    assert "Usage: cardgames play [OPTIONS] GAME" in text
    assert "<all_fours|contract_rummy|seep>" in text
    assert re.search(r"--quiet\s+-q\s+Print only the result", text)
    assert re.search(r"--option\s+-o\s+KEY=VALUE", text)
    assert "--bots" in text and "[default: heuristic]" in text
    assert "Usage: cardgames conformance [OPTIONS] PATHS..." in help_of("conformance")
    assert "Usage: cardgames bridge [OPTIONS] COMMAND..." in help_of("bridge")


def test_an_unknown_game_is_refused_with_the_list() -> None:
    for args in (["play", "chess"], ["tournament", "--game", "chess", "--entrants", "random,random"]):
        result = CliRunner().invoke(app, args, env={"COLUMNS": "200"})
        assert result.exit_code == 2
        assert "'chess' is not one of 'all_fours', 'contract_rummy', 'seep'" in result.output


def test_serve_shows_the_defaults_it_applies() -> None:
    """A 0 that means "derived from the rate" is shown as what it means, not as 0.0."""
    text = help_of("serve")
    assert "[default: 0.0]" not in text
    assert "[default: (twice the rate)]" in text and "[default: (4 x the rate)]" in text
