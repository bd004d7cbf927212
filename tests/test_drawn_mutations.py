"""The drawn-game properties (tests/drawn.py) can fail, and a failure prints a short game.

Each game's property runs on the game's rules with one bug put in (a reducer that loses a card
on an event random play may reach late: a sweep, a dig, running the pack; a listing that offers
an illegal command; a view that shows another seat's card), under a small fixed Hypothesis
setting: it must fail with the check that catches that bug, shrunk to a game of a few commands
(no longer than the first failing game found: a Seep sweep is first found some 25 commands in,
and shrunk to 5), printed command by command in the failure.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from msgspec.structs import replace

from cardgames.engine.all_fours.events import PackRun
from cardgames.engine.contract_rummy.events import DiscardDug
from cardgames.engine.core.registry import get_game
from cardgames.engine.seep.events import SweepScored
from tests.all_fours.test_properties import drawn_matches
from tests.bots.games import HIDDEN
from tests.contract_rummy.test_properties import drawn_games
from tests.drawn import DrawnGame
from tests.seep.test_properties import drawn_deals
from tests.soundness import InjectedListing, illegal_command

#: game -> (its drawn property, the event after which the faulty reducer loses a card)
PROPERTIES: dict[str, tuple[Callable[..., None], type]] = {
    "seep": (drawn_deals, SweepScored),
    "contract_rummy": (drawn_games, DiscardDug),
    "all_fours": (drawn_matches, PackRun),
}
#: Generated and shrunk only (no explanation phase): the examples it takes to find each bug, and more.
FIND = settings(max_examples=100, derandomize=True, database=None, deadline=None, print_blob=False,
                report_multiple_bugs=False,
                phases=[Phase.generate, Phase.shrink], suppress_health_check=list(HealthCheck))


class Faulty:
    """A game's rules with one bug put in (``bug``: ``reducer``, ``listing`` or ``view``)."""

    def __init__(self, name: str, bug: str) -> None:
        self.name = name
        self.bug = bug
        rules = get_game(name)
        self._rules = InjectedListing(rules, illegal_command(name)) if bug == "listing" else rules

    def __getattr__(self, attribute: str) -> Any:
        return getattr(self._rules, attribute)

    def evolve(self, state: Any, event: Any) -> Any:
        """With the ``reducer`` bug: after the game's event of ``PROPERTIES``, a hand has lost a card."""
        after = self._rules.evolve(state, event)
        if self.bug != "reducer" or not isinstance(event, PROPERTIES[self.name][1]):
            return after
        hands = list(after.hands)
        holder = next((seat for seat, hand in enumerate(hands) if hand), None)
        if holder is None:
            return after
        hands[holder] = hands[holder][1:]
        return replace(after, hands=tuple(hands))

    def view(self, state: Any, viewer: Any) -> Any:
        """With the ``view`` bug: a seat's view shows the next seat's first card hidden from it."""
        view = self._rules.view(state, viewer)
        if self.bug != "view" or viewer is None:
            return view
        hidden = HIDDEN[self.name][0](state, viewer)
        neighbour = state.hands[(viewer + 1) % len(state.hands)]
        leaked = next((card for card in neighbour if card in hidden), None)
        return view if leaked is None else replace(view, hand=(*view.hand, leaked))


#: bug -> what the failure says (game -> the conservation check's words for the reducer), and the most
#: commands the shrunk game may have
CAUGHT: dict[str, tuple[str | dict[str, str], int]] = {
    "reducer": ({"seep": "F5: the 52 cards", "contract_rummy": "= conserved", "all_fours": "cards not conserved"}, 8),
    "listing": ("is rejected", 0),
    "view": ("shows hidden cards|changes with hidden cards", 0),
}


@pytest.mark.parametrize("bug", sorted(CAUGHT))
@pytest.mark.parametrize("name", sorted(PROPERTIES))
def test_a_bug_fails_the_drawn_property_with_a_short_game(name: str, bug: str) -> None:
    rules = Faulty(name, bug)
    game = DrawnGame()
    failing: list[int] = []  # the commands of every failing game, in the order they ran

    @FIND
    @given(data=st.data())
    def drawn(data: st.DataObject) -> None:
        game.moves.clear()
        try:
            PROPERTIES[name][0](data, rules, game)
        except AssertionError:
            failing.append(len(game.moves))
            raise

    message, most = CAUGHT[bug]
    with pytest.raises(AssertionError, match=message if isinstance(message, str) else message[name]) as caught:
        drawn()
    # the last run is the shrunk game, replayed: no longer than the first failing game found
    assert failing[-1] == len(game.moves) <= min(most, failing[0]), (failing, game.moves)
    # and the failure prints it, a command a line
    notes = "\n".join(getattr(caught.value, "__notes__", []))
    printed = re.findall(r"^Draw \d+ \(seat (\d)\): (.*)$", notes, re.MULTILINE)
    assert [(int(seat), command) for seat, command in printed] == [
        (seat, repr(command)) for seat, command in game.moves
    ], notes
