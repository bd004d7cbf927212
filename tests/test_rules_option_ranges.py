"""The rules pages state each integer option's range exactly as the engine enforces it.

docs/rules/<game>.md is the reader's reference and ``engine/<game>/config.py`` the check at
CreateGame; this keeps the two from drifting apart (a bound changed in one place fails here).
"""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = {"all_fours": "all-fours.md", "seep": "seep.md", "contract_rummy": "contract-rummy.md"}


def option_rows(page: str) -> dict[str, str]:
    """The option table's rows of a rules page, by option name."""
    rows: dict[str, str] = {}
    for line in (ROOT / "docs" / "rules" / page).read_text().splitlines():
        cells = [cell.strip() for cell in line.split("|")]
        if len(cells) > 2 and cells[1].startswith("`") and cells[1].endswith("`"):
            rows.setdefault(cells[1].strip("`"), line)
    return rows


@pytest.mark.parametrize("game", sorted(PAGES))
def test_every_bounded_option_states_its_range(game: str) -> None:
    bounds = importlib.import_module(f"cardgames.engine.{game}.config").BOUNDS
    rows = option_rows(PAGES[game])
    assert bounds, game
    for option, allowed in bounds.items():
        assert option in rows, f"docs/rules/{PAGES[game]} has no row for {option}"
        assert f"{allowed}" in rows[option], f"docs/rules/{PAGES[game]}: {option} should say {allowed}"
