"""Each game's score sheet (``score_sheet(events)``) and the wording of the account's lines."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from cardgames.engine.all_fours.events import HandScored
from cardgames.engine.bots import get_policy
from cardgames.engine.core.protocol import Setup
from cardgames.engine.core.registry import GAME_MODULES, get_game
from cardgames.engine.core.replay import new_match
from cardgames.engine.core.wording import a_number, plural
from cardgames.engine.seep.events import Built
from cardgames.engine.seep.events import MatchCreated as SeepMatchCreated


def heuristic_match(name: str, seed: str, options: dict[str, Any] | None = None) -> tuple[Any, list[Any]]:
    """A whole match between the heuristic bots, in process: the final state and every event."""
    game = get_game(name)
    config = game.make_config(options or {}, None)
    state, events = new_match(game, config, Setup(seed=seed))
    events = list(events)
    policy = get_policy(name, "heuristic", config=config)
    rng = random.Random(seed)
    while not game.is_over(state):
        seat = next(seat for seat in game.to_act(state) if game.legal_commands(state, seat))
        command = policy.choose(game.view(state, seat), game.legal_commands(state, seat), rng)
        made = game.decide(state, seat, command)
        assert isinstance(made, list), made
        for event in made:
            state = game.evolve(state, event)
        events.extend(made)
    return state, events


@pytest.mark.parametrize("name", sorted(GAME_MODULES))
def test_the_sheet_adds_up_to_the_final_score(name: str) -> None:
    game = get_game(name)
    state, events = heuristic_match(name, "5e" * 32)
    sheet = game.score_sheet(events)
    final = game.view(state, None)
    assert sheet.rows and all(len(row.cells) == len(sheet.sides) for row in sheet.rows)
    seats = sorted(seat for side in sheet.sides for seat in side.seats)
    assert seats == list(range(len(game.outcome(state))))
    if name == "seep":  # the points of each deal, the baazis under them
        assert sheet.totals == tuple(map(str, final.baazis))
        assert any("baazi to team" in row.note for row in sheet.rows)
        return
    totals = final.scores
    assert sheet.totals == tuple(map(str, totals))
    added = [sum(int(row.cells[side].lstrip("+").replace("-", "0") or 0) for row in sheet.rows)
             for side in range(len(sheet.sides))]
    assert tuple(added) == tuple(totals)
    if name == "contract_rummy":
        out = sum(type(event).__name__ == "PlayerWentOut" for event in events)
        assert sum(bool(re.search(r"seat \d went out", row.note)) for row in sheet.rows) == out
        assert len(sheet.rows) == 7


def test_a_match_started_from_a_score_says_so() -> None:
    game = get_game("contract_rummy")
    config = game.make_config({}, None)
    _, events = new_match(game, config, Setup(seed="11" * 32, match={"deal": 7, "scores": [10, 0, 5, 0]}))
    sheet = game.score_sheet(events)
    assert sheet.rows[0].label == "start" and sheet.rows[0].cells == ("10", "0", "5", "0")
    assert sheet.totals == ("10", "0", "5", "0")


def test_numbers_take_the_article_they_are_read_with() -> None:
    assert [a_number(n) for n in (1, 8, 9, 10, 11, 12, 13, 18, 80, 100, 800, 11_000)] == [
        "a 1", "an 8", "a 9", "a 10", "an 11", "a 12", "a 13", "an 18", "an 80", "a 100", "an 800", "an 11000",
    ]  # fmt: skip
    assert (plural(1, "baazi"), plural(2, "baazi"), plural(0, "run")) == ("1 baazi", "2 baazis", "0 runs")


def test_seep_lines_read_as_english() -> None:
    seep = get_game("seep")
    built = Built(seat=1, play=3, card="3S", value=11, groups=(("3S", "8S"),), action="new", merged=(), owners=(1,))
    assert seep.describe(built) == "#3 seat 1 builds an 11-house with 3S: {3S 8S}; owners seat 1"
    cemented = Built(seat=1, play=3, card="JS", value=11, groups=(("5S", "6S"),), action="cement", merged=(),
                     owners=(1,))
    assert (seep.describe(cemented) or "").startswith("#3 seat 1 cements the 11-house with JS")
    for baazis, text in ((1, "1 baazi to play"), (3, "3 baazis to play")):
        created = SeepMatchCreated(config=seep.make_config({"baazis_to_play": baazis}, 4), players=4)
        assert text in (seep.describe(created) or "")


def test_all_fours_tells_what_became_of_the_jack() -> None:
    game = get_game("all_fours")
    holders = {"jack": 2, "hang_jack": 1, "captured": 1, "not_in_play": None, "not_scored": 3}
    lines = {
        outcome: game.describe(HandScored(game_totals=(20, 10), jack_outcome=outcome, jack_holder=holder,
                                          jack_taker=None if holder is None else 0))
        for outcome, holder in holders.items()
    }
    assert lines["jack"] == "Hand scored: Game 20-10, Jack kept by side 0 (seat 2)"
    assert lines["hang_jack"] == "Hand scored: Game 20-10, Jack of seat 1 hanged by side 0"
    assert all("jack: " not in (line or "") for line in lines.values())
