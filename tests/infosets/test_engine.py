"""No answer depends on an unseen card: information-set invariance, on the engine (docs/threat-model.md).

At random positions of random matches under random option sets (1,000 per game), for every
seat and a spectator, the cards that viewer cannot see are dealt anew in ways consistent
with everything it saw (tests/infosets/worlds.py says how), and in every such world the
viewer must be told exactly the same:

* its view, its listing of legal commands, and its log (every event as the service's
  GetLog and Watch show it to that viewer);
* the answer, accepted or rejected with its code, rule and message, to a battery of
  commands naming every card, other seats', the stock's and played ones alike
  (tests/infosets/batteries.py), plus a sample of its listed commands.

The one exception is what the rules disclose themselves (worlds.disclosed). All Fours A14:
a call of an exposed card, by a seat allowed to call it, on its owner's turn in trick play,
is accepted exactly when the card is in the owner's legal set, and that depends on the
owner's other cards (whether it can follow suit or trump, and under ``no_undertrump``
whether it holds a card that is not a trump), as the table would learn when the owner
refused the call by playing another card. For those commands only, a world may accept
where another rejects; every rejection must still be the same (code, rule, message), and
the listing may differ only by those calls, listed exactly where they are accepted. Any
other call, whoever holds its card, gets one answer in every world.

The redeals keep everything the viewer saw; what play revealed of the hidden cards (All Fours
voids, Seep keys) the determinizers keep, and the history staying legal checks: a redeal
under which a command of the history is rejected is discarded. In a Contract
Rummy two-pack deck a card whose twin the viewer has seen stays where it is (a shuffle's
order names codes, not copies).

Everything is seeded: a failure prints the game, the option set, the seed and the whole
command history of the position, the viewer, and what it was told in two worlds.
"""

from __future__ import annotations

import os
import random

import pytest

import cardgames.engine.all_fours as all_fours
from cardgames.engine.core.protocol import Rejection
from tests.infosets.check import baseline, check, viewers
from tests.infosets.old_rules import old_decide
from tests.infosets.worlds import (
    GAMES,
    Stats,
    determinization,
    determinized,
    places_of,
    plausible,
    positions,
    replay,
    unseen_places,
)

#: Positions per game (the CI floor is 1,000).
POSITIONS = int(os.environ.get("CARDGAMES_INFOSET_POSITIONS", "1000"))

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("game_name", GAMES)
def test_no_answer_depends_on_an_unseen_card(game_name: str) -> None:
    stats = Stats()
    case = check(positions(game_name, POSITIONS, seed=f"infosets/{game_name}"), f"infosets/{game_name}", stats)
    print(stats.line(game_name))
    assert case is None, str(case)
    assert stats.positions == POSITIONS
    # the worlds were really other worlds: most viewers got a redeal, hardly any left every card in place
    players = {"all_fours": 3, "seep": 5, "contract_rummy": 4}[game_name]  # viewers per position, at least
    assert stats.redeals >= POSITIONS * players * 0.7, stats
    assert stats.unchanged <= stats.redeals * 0.1, stats
    if game_name != "contract_rummy":  # a deal's unseen cards were dealt by the game's determinizer
        assert stats.undeterminized == 0 and stats.determinized >= stats.redeals, stats
    if game_name == "all_fours":  # the A14 exception was met, and every command of its battery besides
        assert stats.disclosed > 0, stats


# --- the check finds the leaks it is for (All Fours before rules version 2) ------------------
def test_the_check_finds_the_old_call_leak(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(all_fours, "decide", old_decide(call=True))
    case = check(positions("all_fours", 20, seed="old-call"), "old-call", Stats())
    assert case is not None and case.channel == "answer" and "'call'" in case.detail, case
    assert "does not hold" in case.detail


def test_the_check_finds_the_old_held_back_hand_leak(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(all_fours, "decide", old_decide(play=True))
    held_back = {"players": 4, "beg_phase_hand_visibility": "dealer_and_eldest_only", "out_of_turn_play": "expose"}
    case = check(positions("all_fours", 40, seed="old-play", overrides=held_back), "old-play", Stats())
    assert case is not None, "the check did not find a seat reading its undelivered hand"
    state = case.position.state
    assert case.viewer is not None and state.trump is None and case.viewer not in (state.dealer, state.eldest), case
    assert "'play'" in case.detail


# --- the worlds are what the check takes them for -------------------------------------------


@pytest.mark.parametrize("game_name", GAMES)
def test_a_replay_from_the_deal_is_a_replay_from_the_start(game_name: str) -> None:
    """A world replayed from the step that dealt the deal (its state with other orders in its
    chance source) is the world replayed from the match's start with those orders."""
    rng = random.Random(game_name)
    for number, position in enumerate(positions(game_name, 30, seed=f"replays/{game_name}")):
        deal, first = baseline(position, whole=False)
        start, _ = baseline(position, whole=True)
        assert deal.events == start.events[len(start.events) - len(deal.events) :]
        viewer = viewers(position.match.config.players)[number % (position.match.config.players + 1)]
        last = len(position.shuffles) - 1
        orders = [s.order for s in position.shuffles]
        places = unseen_places(position, viewer, last)
        cards = [orders[last][place] for place in places]
        rng.shuffle(cards)
        changed = list(orders[last])
        for place, card in zip(places, cards, strict=True):
            changed[place] = card
        orders[last] = tuple(changed)
        if not plausible(position, orders):
            continue
        one, two = replay(position, orders, first), replay(position, orders, -1)
        if isinstance(one, Rejection):
            assert isinstance(two, Rejection) and two == one
            continue
        assert not isinstance(two, Rejection)
        rules = position.match.rules
        assert rules.snapshot(one.state) == rules.snapshot(two.state)
        assert one.events == two.events[len(two.events) - len(one.events) :]


@pytest.mark.parametrize("game_name", GAMES)
def test_a_determinized_redeal_deals_the_cards_where_the_determinizer_put_them(game_name: str) -> None:
    """The orders built from a determinization, replayed, put every unseen card of the deal in
    progress in the place (a hand, the stock, the face-down floor) the determinizer dealt it to."""
    checked = 0
    # Contract Rummy: one pack (with two, an order names a card's code, not which copy went where)
    one_pack = {"deck_policy": "baseline", "players": 4} if game_name == "contract_rummy" else None
    for number, position in enumerate(positions(game_name, 400, seed=f"determinized/{game_name}", overrides=one_pack)):
        if checked == 20:
            break
        match = position.match
        viewer = viewers(match.config.players)[number % (match.config.players + 1)]
        last = len(position.shuffles) - 1
        if position.deal_of(last) != last:
            continue  # a Contract Rummy deal after a refill: its redeals are not the determinizer's
        places = unseen_places(position, viewer, last)
        sample = determinization(position, viewer, random.Random(number))
        order = determinized(position, last, places, sample)
        assert order is not None
        orders = [s.order for s in position.shuffles]
        orders[last] = order
        if not plausible(position, orders):
            continue
        world = replay(position, orders, position.shuffles[last].step)
        if isinstance(world, Rejection):
            continue
        checked += 1
        unseen = {position.shuffles[last].order[place] for place in places}
        assert [sorted(card for card in place if card in unseen) for place in places_of(game_name, world.state)] == [
            sorted(card for card in place if card in unseen) for place in places_of(game_name, sample)
        ]
    assert checked == 20
