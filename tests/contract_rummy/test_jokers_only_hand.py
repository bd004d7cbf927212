"""A hand of jokers alone under ``discard_jokers = false`` (A.8: a turn can always end).

A stock draw cannot be refused, so a seat that is down holding one joker it cannot lay off
may draw a second: the hand then discards a joker, and only then.
"""

from __future__ import annotations

from typing import Any

from cardgames.engine.contract_rummy.commands import Discard
from cardgames.engine.contract_rummy.events import Discarded
from cardgames.engine.core.protocol import Rejection
from tests.contract_rummy.helpers import game, position

SETS = [{"owner": 0, "kind": "set", "cards": ["KS", "KH", "KD"]},
        {"owner": 0, "kind": "set", "cards": ["QS", "QH", "QD"]}]
NO_JOKER_DISCARDS = {"discard_jokers": False, "deck_policy": "pagat"}  # two packs, two jokers


def _after_stock_draw(hand: list[str]) -> Any:
    """Seat 0 is down (two sets, no run for a joker to go on) and has just drawn from the stock."""
    return position([hand, ["3C"], ["4C"], ["5C"]], deal=1, dealer=3, phase="play", to_act=0,
                    melds=SETS, options=NO_JOKER_DISCARDS, contract_met=[True, False, False, False])


def test_a_hand_of_jokers_alone_discards_a_joker() -> None:
    state = _after_stock_draw(["JK", "JK"])
    assert game.legal_commands(state, 0) == [Discard(card="JK")]
    outcome = game.decide(state, 0, Discard(card="JK"))
    assert not isinstance(outcome, Rejection), outcome
    assert outcome[0] == Discarded(seat=0, card="JK")


def test_a_joker_beside_a_natural_card_still_may_not_go() -> None:
    state = _after_stock_draw(["JK", "7C"])
    assert Discard(card="JK") not in game.legal_commands(state, 0)
    outcome = game.decide(state, 0, Discard(card="JK"))
    assert isinstance(outcome, Rejection) and "discard_jokers" in outcome.message
