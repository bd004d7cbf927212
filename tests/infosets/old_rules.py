"""All Fours as it was before rules version 2, to show that the information-set checks find its leaks.

Before rules version 2 a call of a card the owner does not hold was invalid_command
("seat 1 does not hold AS"), any other refused call illegal_move; a seat whose hand was held
back could expose the cards it had not received, and was told invalid_command for the others.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import cardgames.engine.all_fours.rules as all_fours_rules
from cardgames.engine.all_fours.cards import POWER, side_of
from cardgames.engine.all_fours.commands import Call, Play
from cardgames.engine.all_fours.events import CardExposed, ExposedCardCalled
from cardgames.engine.all_fours.state import OVER, PLAY
from cardgames.engine.core.protocol import Malformed, Rejection, reject


def old_not_held(state: Any, seat: int, card: str) -> Rejection | None:
    if card not in POWER:
        return reject(all_fours_rules.INVALID, f"unknown card {card!r}", "A17")
    if card not in state.hands[seat]:
        return reject(all_fours_rules.INVALID, f"seat {seat} does not hold {card}", "A17")
    return None


def old_call(state: Any, caller: int, command: Any) -> Any:
    owner, card = command.owner, command.card
    if not (0 <= owner < state.players):
        return reject(all_fours_rules.INVALID, f"owner {owner} is not a seat", "A17")
    invalid = old_not_held(state, owner, card)
    if invalid:
        return invalid
    if caller == owner:
        return reject(all_fours_rules.ILLEGAL, "a player may not call its own card", "A14")
    if state.config.callers == "opponents" and side_of(caller) == side_of(owner):
        return reject(all_fours_rules.ILLEGAL, "only an opponent of the owner may call", "A14")
    if state.phase != PLAY or state.turn != owner:
        return reject(all_fours_rules.ILLEGAL, "a card may be called only on its owner's turn in trick play", "A14")
    if card not in state.exposed[owner]:
        return reject(all_fours_rules.ILLEGAL, f"{card} of seat {owner} is not exposed", "A14")
    called = ExposedCardCalled(caller=caller, owner=owner, card=card)
    return all_fours_rules._play_in_turn(state, owner, card, [called])


def old_play(state: Any, seat: int, card: str) -> Any:
    invalid = old_not_held(state, seat, card)
    if invalid:
        return invalid
    if state.phase == PLAY and seat == state.turn:
        return all_fours_rules._play_in_turn(state, seat, card, [])
    if state.config.out_of_turn_play == "reject":
        return reject(all_fours_rules.NOT_YOUR_TURN, f"seat {seat} may not play now", "A14")
    if card in state.exposed[seat]:
        return reject(all_fours_rules.NOT_YOUR_TURN, f"{card} is already exposed", "A14")
    return [CardExposed(seat=seat, card=card)]



def old_decide(*, play: bool = False, call: bool = False) -> Callable[[Any, int, Any], Any]:
    """The game's ``decide`` with the old ``play`` and/or ``call``. Patched on the game's module
    (what the registry hands out), it works whether or not the rules module is compiled (a
    compiled module's own calls to ``_call`` would not see a patch of its global)."""

    def decide(state: Any, seat: int, command: Any) -> Any:
        if state.phase == OVER or isinstance(command, Malformed) or not 0 <= seat < state.players:
            return all_fours_rules.decide(state, seat, command)
        if play and isinstance(command, Play):
            return old_play(state, seat, command.card)
        if call and isinstance(command, Call):
            return old_call(state, seat, command)
        return all_fours_rules.decide(state, seat, command)

    return decide
