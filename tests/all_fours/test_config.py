"""Configuration keys (rules: the configuration table): defaults, validation, OptionsError."""

from __future__ import annotations

import pytest

from cardgames.engine.all_fours import make_config
from cardgames.engine.core.protocol import OptionsError

GOOD = {
    "target_score": 7,
    "deal_style": "ones",
    "kick_values": {"A": 1, "2": 2, "J": 3},
    "give_one_points": 0,
    "jack_scoring": "capture_only",
    "hang_jack_points": 0,
    "game_point_value": 2,
    "game_tie": "dealer_side",
    "void_must_trump": True,
    "no_undertrump": True,
    "out_of_turn_play": "reject",
    "callers": "any_other",
    "beg_phase_hand_visibility": "dealer_and_eldest_only",
    "stand_requires_trump": True,
    "give_one_requires_trump": True,
    "no_give_one_for_match": True,
}


def test_defaults_are_the_recommended_baseline() -> None:
    config = make_config({}, None)
    assert config.players == 4
    assert config.target_score == 14
    assert config.deal_style == "threes"
    assert config.kick_values == {"A": 1, "6": 2, "J": 3}
    assert config.give_one_points == 1
    assert config.jack_scoring == "hang_jack"
    assert config.hang_jack_points == 3
    assert config.game_point_value == 1
    assert config.game_tie == "none"
    assert config.out_of_turn_play == "expose"
    assert config.callers == "opponents"
    assert config.beg_phase_hand_visibility == "all"
    flags = ("void_must_trump", "no_undertrump", "stand_requires_trump", "give_one_requires_trump")
    assert not any(getattr(config, flag) for flag in (*flags, "no_give_one_for_match"))


def test_every_option_can_be_set() -> None:
    config = make_config(GOOD, 2)
    assert config.players == 2
    for key, value in GOOD.items():
        assert getattr(config, key) == value


@pytest.mark.parametrize("players", [2, 4])
def test_players_two_or_four(players: int) -> None:
    assert make_config({}, players).players == players
    assert make_config({"players": players}, None).players == players


@pytest.mark.parametrize("players", [0, 1, 3, 5, 6, True, "4"])
def test_other_player_counts_are_refused(players: object) -> None:
    with pytest.raises(OptionsError):
        make_config({}, players)  # type: ignore[arg-type]


def test_players_given_twice_must_agree() -> None:
    assert make_config({"players": 2}, 2).players == 2
    with pytest.raises(OptionsError):
        make_config({"players": 2}, 4)


def test_unknown_key_is_refused() -> None:
    with pytest.raises(OptionsError, match="unknown"):
        make_config({"targetScore": 14}, None)


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("target_score", 0),
        ("target_score", -3),
        ("target_score", 7.5),
        ("target_score", True),
        ("deal_style", "twos"),
        ("kick_values", {"Z": 1}),
        ("kick_values", {"A": -1}),
        ("kick_values", {"A": "1"}),
        ("kick_values", [("A", 1)]),
        ("give_one_points", -1),
        ("jack_scoring", "hang"),
        ("hang_jack_points", -1),
        ("game_point_value", -1),
        ("game_tie", "eldest_side"),
        ("void_must_trump", 1),
        ("no_undertrump", "yes"),
        ("out_of_turn_play", "ignore"),
        ("callers", "partners"),
        ("beg_phase_hand_visibility", "none"),
        ("stand_requires_trump", None),
        ("give_one_requires_trump", 0),
        ("no_give_one_for_match", "false"),
    ],
)
def test_bad_values_are_refused(key: str, value: object) -> None:
    with pytest.raises(OptionsError):
        make_config({key: value}, None)


def test_tobago_kick_table_and_empty_table() -> None:
    assert make_config({"kick_values": {"A": 1, "2": 2, "J": 3}}, None).kick_values["2"] == 2
    assert make_config({"kick_values": {}}, None).kick_values == {}
