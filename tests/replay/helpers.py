"""Logs to replay (real matches, tests/audit/helpers.py) and the check that a viewer saw no hidden card."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

from cardgames.service.audit.logfile import to_bytes
from cardgames.service.replay.layout import is_card_code
from cardgames.service.replay.steps import Replay
from tests.audit.helpers import GAMES, played_log

__all__ = ["GAMES", "card_codes", "hidden_from", "log_bytes", "page_data", "replay_of", "visible_codes"]


#: Per game, the ``rng_seed`` of a short match with a seed given at creation (the same match every run).
SEEDS = {"all_fours": 3, "seep": 3, "contract_rummy": 3}


@cache
def log_bytes(game: str) -> bytes:
    """A whole match's log, the same bytes every run but the game id."""
    return to_bytes(played_log(game, "given_seed", SEEDS[game]))


@cache
def replay_of(game: str) -> Replay:
    return Replay.from_bytes(log_bytes(game))


def write_log(game: str, folder: Path) -> Path:
    path = folder / f"{game}.ndjson"
    path.write_bytes(log_bytes(game))
    return path


def card_codes(value: Any) -> Iterator[str]:
    """Every card code anywhere in plain data (a string made only of a card code)."""
    if isinstance(value, str):
        if is_card_code(value):
            yield value
    elif isinstance(value, list | tuple):
        for item in value:
            yield from card_codes(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from card_codes(item)


CARD_IN_TEXT = re.compile(r"(?<![\w=])(?:JK=(?:10|[2-9AJQK])[SHDC]|JK|(?:10|[2-9AJQK])[SHDC])(?!\w)")


def visible_codes(step: dict[str, Any]) -> set[str]:
    """The card codes a page's step shows about the current deal: its view and table (history fields aside),
    the game's table text and the event line."""
    view = {key: value for key, value in step["view"].items() if not key.startswith("last_")}
    table = dict(step["table"])
    table["areas"] = [area for area in table["areas"] if not area["label"].startswith(("last hand", "last deal"))]
    table["facts"] = [fact for fact in table["facts"] if not fact[0].startswith("last")]
    codes = set(card_codes(view)) | set(card_codes(table))
    for text in (step.get("text") or "", step["line"]):
        codes |= set(CARD_IN_TEXT.findall(text))
    return codes


def hidden_from(replay: Replay, seq: int, viewer: int | None) -> Counter[str]:
    """The card codes whose every copy in the state at ``seq`` is in other seats' hands, unseen.

    A copy is unseen when it is in another seat's hand and not among that seat's publicly
    known cards (Contract Rummy's ``known``). With several packs a code that also lies
    somewhere else (a discard pile, the viewer's hand) may show, so it is not counted.
    """
    snapshot = replay.rules.snapshot(replay.states[seq])
    hands = snapshot.get("hands") or []
    known = getattr(replay.rules.view(replay.states[seq], None), "known", None) or [[] for _ in hands]
    unseen: Counter[str] = Counter()
    for seat, hand in enumerate(hands):
        if seat == viewer:
            continue
        unseen.update(Counter(hand) - Counter(known[seat] if seat < len(known) else []))
    everywhere = Counter(code for key, value in snapshot.items() if not key.startswith("last_")
                         for code in card_codes(value))
    return Counter({code: count for code, count in unseen.items() if count >= everywhere[code]})


def page_data(html: str) -> dict[str, Any]:
    match = re.search(r'<script type="application/json" id="replay-data">(.*?)</script>', html, re.S)
    assert match, "the page has no replay data"
    data: dict[str, Any] = json.loads(match.group(1))
    return data
