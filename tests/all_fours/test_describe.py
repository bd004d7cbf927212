"""describe (one line per event), outcome, and the GameRules protocol through the registry."""

from __future__ import annotations

import random

import msgspec

from cardgames.engine.all_fours.events import CardPlayed, HandScored, MatchWon, PointsScored, Stood
from cardgames.engine.core.events import Shuffled
from cardgames.engine.core.protocol import Setup
from cardgames.engine.core.registry import get_game
from cardgames.engine.core.replay import new_match
from tests.all_fours.helpers import GAME, act, make_deck, random_match, start


def test_describe_lines() -> None:
    assert GAME.describe(CardPlayed(seat=2, card="KD", trick_no=1)) == "Seat 2 plays KD"
    line = GAME.describe(PointsScored(side=0, amount=1, reason="high", totals=(1, 0), card="KD"))
    assert line is not None and line.startswith("Side 0 scores High (KD): 1")
    assert GAME.describe(Stood(seat=0)) == "Seat 0 stands"
    assert GAME.describe(MatchWon(side=1, reason="hang_jack", scores=(10, 15))) == (
        "Side 1 wins the match 10-15 (Hang Jack)"
    )
    assert "Game 24-17" in (GAME.describe(HandScored(game_totals=(24, 17))) or "")
    assert GAME.describe(Shuffled(shuffle_no=0, size=52, order=())) is None


def test_every_event_of_random_matches_describes_or_is_chance() -> None:
    for match in range(5):
        for _b, event, _a, _e in random_match(random.Random(match), {}, 4, f"{match + 9:064x}", 0.2):
            line = GAME.describe(event)
            tag = msgspec.to_builtins(event)["type"]
            assert (line is None) == (tag in ("match_seeded", "shuffled")), tag
            redacted = GAME.describe(GAME.redact(event, None))
            assert (redacted is None) == (line is None)


def test_outcome_winners_zero_losers_one() -> None:
    state = start(make_deck({}, "JD"), options={"target_score": 3})
    assert GAME.outcome(state) == [1, 0, 1, 0]
    state = start(make_deck({}, "JD", dealer=0, players=2), dealer=0, players=2, options={"target_score": 3})
    assert GAME.outcome(state) == [0, 1]


def test_the_registry_gives_the_package_with_the_whole_protocol() -> None:
    game = get_game("all_fours")
    for name in (
        "NAME", "TITLE", "DEFAULT_PLAYERS", "PLAYER_COUNTS", "Config", "Command", "Event", "View", "make_config",
        "start", "initial", "decide", "evolve", "view", "legal_commands", "to_act", "is_over", "audience",
        "redact", "snapshot", "from_snapshot", "describe", "outcome",
    ):  # fmt: skip
        assert hasattr(game, name), name
    assert game.NAME == "all_fours" and game.DEFAULT_PLAYERS == 4 and game.PLAYER_COUNTS == (2, 4)
    state, events = new_match(game, game.make_config({}, None), Setup(seed="11" * 32))
    assert game.to_act(state) and not game.is_over(state)
    assert all(msgspec.convert(msgspec.to_builtins(e), game.Event) == e for e in events)


def test_commands_parse_from_format_md_dicts() -> None:
    from cardgames.engine.core.commands import parse_command

    for raw in ({"type": "stand"}, {"type": "beg"}, {"type": "give_one"}, {"type": "run_pack"},
                {"type": "play", "card": "10D"}, {"type": "call", "owner": 1, "card": "KD", "extra": 1}):  # fmt: skip
        command = parse_command(GAME, raw)
        assert msgspec.to_builtins(command) == {k: v for k, v in raw.items() if k != "extra"}
    state = act(start(make_deck({}, "4H")), 0, {"type": "stand"})
    assert state.trump == "H"
