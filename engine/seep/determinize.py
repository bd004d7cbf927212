"""What the search bot needs from Seep: determinization, its episode, its reward and its horizon.

``determinize`` builds a full :class:`State` from the public config and one viewer's
:class:`View` only: a seat's, or a spectator's (every hand is then unseen). Known: the
seat's own hand, the floor (loose cards and houses), the cards of the last capture while
its window is open, and the piles when the rules show them (or the memory has them).
Every other card (the unseen pool) is dealt at random to the hidden places: the other
hands, the face-down floor of the bid phase, the stock and the unseen part of each
team's pile (sizes are public). Rule F4 is kept: every other owner of a house is dealt a
key (a card of the house's value) first; so is, where the deal allows it, a card of
every value the memory says a seat still holds (its bid, the key of a house it owned).
The view does not say which cards the piles hold once the capture window has closed, so
captured cards may land in a hand of a determinization: the bot plays on what its view
shows, as a player who did not keep track would. A fresh random source replaces the
hidden one.
"""

from __future__ import annotations

import random
from collections.abc import Hashable

import msgspec

from cardgames.engine.core.cards import STANDARD_PACK
from cardgames.engine.core.chance import Chance
from cardgames.engine.core.dealing import deal
from cardgames.engine.seep.cards import PLAYS_PER_DEAL, VALUE, card_points
from cardgames.engine.seep.config import Config
from cardgames.engine.seep.heuristic import sweep_values
from cardgames.engine.seep.state import BID, OVER, PLAY, State
from cardgames.engine.seep.view import View

#: Plies searched past the root: two full rounds of the table, enough to see a sweep answered.
SEARCH_HORIZON = 8
#: Root commands searched: the heuristic's best few (a floor can offer dozens of builds).
SEARCH_CANDIDATES = 4


class Memory(msgspec.Struct, frozen=True):
    """What a seat saw during the current deal (every play is public, D).

    ``piles``: the cards of every capture, per team. ``lacking``: per seat, the card
    values it showed it does not hold: it had the turn on a floor that a card of that
    value would have swept, and did not sweep (hands only shrink once dealt, so this
    lasts the deal). ``pending``: the seat to act, the values that would sweep its
    floor, and the play count, until its move is seen. ``holding``: per seat, the card
    values the rules showed it still holds: the bid value (A5.4), and a key of every house
    it has owned after a play of its (A8.3, rule R), until it is seen to play a card of
    that value (a capture the view does not show forgets them all). ``floor``: the cards
    on the floor (loose and in houses) and ``mover`` the seat to act, as last seen.
    """

    dealer: int
    plays: int
    sweeps: tuple[int, int]
    piles: tuple[frozenset[str], frozenset[str]]
    lacking: tuple[frozenset[int], ...] = (frozenset(),) * 4
    pending: tuple[int, frozenset[int], int] | None = None
    holding: tuple[frozenset[int], ...] = (frozenset(),) * 4
    floor: frozenset[str] = frozenset()
    mover: int | None = None


def _floor(view: View) -> frozenset[str]:
    return frozenset(view.loose).union(*(house.cards() for house in view.houses))


def _holding(memory: Memory, view: View) -> tuple[frozenset[int], ...]:
    """``memory.holding`` after ``view``: what the play just seen showed, or the bid just made."""
    holding = list(memory.holding)
    if view.phase != PLAY:
        return tuple(holding)
    if view.plays == 0 and view.bid is not None:
        holding[view.bidder] = holding[view.bidder] | {view.bid}
    mover = memory.mover
    if view.plays != memory.plays + 1 or mover is None:
        return tuple(holding)
    shown = (_floor(view) | frozenset(view.last_capture)) - memory.floor
    if len(shown) == 1:  # the card it played: it may have been the key it had to keep
        holding[mover] = holding[mover] - {VALUE[next(iter(shown))]}
    else:  # a capture the view does not show (window never): the card is unknown
        holding[mover] = frozenset()
    holding[mover] = holding[mover] | {house.value for house in view.houses if mover in house.owners}
    return tuple(holding)


def remember(memory: Memory | None, view: View) -> Memory:
    """Add what ``view`` shows: the cards of the last capture (or the open piles), and a sweep not taken."""
    fresh = memory is None or view.dealer != memory.dealer or view.plays < memory.plays
    if memory is None or fresh:
        memory = Memory(dealer=view.dealer, plays=view.plays, sweeps=view.sweeps, piles=(frozenset(), frozenset()))
    piles = [set(memory.piles[0]), set(memory.piles[1])]
    if view.piles[0] or view.piles[1]:
        piles = [set(view.piles[0]), set(view.piles[1])]
    elif view.last_capture and view.last_capture_team is not None:
        piles[view.last_capture_team].update(view.last_capture)
    lacking = list(memory.lacking)
    pending = memory.pending
    if pending is not None and view.plays == pending[2] + 1:
        actor, values, _ = pending
        if view.sweeps == memory.sweeps:  # it could have swept with any of these values, and did not
            lacking[actor] = lacking[actor] | values
    pending = None
    mover = view.to_act
    if view.phase == PLAY and view.plays >= 1 and mover is not None and mover != view.viewer:
        values = frozenset(sweep_values(view.loose, view.houses))
        if values and view.plays + 1 < PLAYS_PER_DEAL:
            pending = (mover, values, view.plays)
    return Memory(
        holding=_holding(memory, view),
        floor=_floor(view),
        mover=view.to_act,
        dealer=view.dealer,
        plays=view.plays,
        sweeps=view.sweeps,
        piles=(frozenset(piles[0]), frozenset(piles[1])),
        lacking=tuple(lacking),
        pending=pending,
    )


def _piles_known(view: View, memory: Memory | None, elsewhere: set[str]) -> list[list[str]]:
    """The cards known to be in each pile: shown by the view, or remembered (when consistent with the view)."""
    known = [list(view.piles[0]), list(view.piles[1])]
    if any(known):
        return known
    remembered = [set(), set()] if memory is None else [set(memory.piles[0]), set(memory.piles[1])]
    if view.last_capture and view.last_capture_team is not None:
        remembered[view.last_capture_team].update(view.last_capture)
    consistent = (memory is None or (memory.dealer == view.dealer and memory.plays <= view.plays)) and all(
        len(remembered[t]) <= view.pile_sizes[t] and not remembered[t] & elsewhere for t in (0, 1)
    )
    if not consistent:
        return [[], []]
    return [sorted(remembered[0]), sorted(remembered[1])]


def _card_value(card: str) -> int:
    return VALUE[card]


def determinize(config: Config, view: View, rng: random.Random, memory: Memory | None = None) -> State:
    """A full state consistent with ``view`` (a seat's or a spectator's) and the viewer's memory, the unseen
    cards dealt at random."""
    seat = view.viewer
    known = set(view.hand)
    known.update(view.loose)
    for house in view.houses:
        known.update(house.cards())
    piles_known = _piles_known(view, memory, known)
    for pile in piles_known:
        known.update(pile)
    pool = [card for card in STANDARD_PACK if card not in known]
    rng.shuffle(pool)

    # places: 0..3 the hands, 4 the face-down floor, 5 the stock, 6 and 7 the unseen part of each pile
    needs = [0 if s == seat else view.hand_sizes[s] for s in range(4)]
    needs += [view.face_down, view.stock_size]
    needs += [view.pile_sizes[t] - len(piles_known[t]) for t in (0, 1)]
    if sum(needs) != len(pool) or min(needs) < 0:
        raise ValueError(f"the view does not add up: {len(pool)} unseen cards for places of {needs}")
    keys: list[list[str]] = [[] for _ in needs]
    # F4: every other owner holds a key of each house it owns
    for house in view.houses:
        for owner in house.owners:
            if owner == seat or any(VALUE[card] == house.value for card in keys[owner]):
                continue
            key = next((card for card in pool if VALUE[card] == house.value), None)
            if key is None or len(keys[owner]) >= needs[owner]:
                raise ValueError(f"no key of value {house.value} left for seat {owner}")
            pool.remove(key)
            keys[owner].append(key)
    # the values the rules showed a seat still holds (the memory's ``holding``), when the deal allows it
    if memory is not None and memory.dealer == view.dealer and memory.plays <= view.plays:
        for other in range(4):
            for value in sorted(memory.holding[other]):
                if other == seat or len(keys[other]) >= needs[other]:
                    continue
                if any(VALUE[card] == value for card in keys[other]):
                    continue
                key = next((card for card in pool if VALUE[card] == value), None)
                if key is not None:
                    pool.remove(key)
                    keys[other].append(key)
    # the values a seat showed it lacks (memory) stay out of its hand when the deal allows it
    barred: list[frozenset[int]] = [frozenset()] * len(needs)
    sweeps_count = config.sweeps_enabled and config.sweep_points > 0
    if sweeps_count and memory is not None and memory.dealer == view.dealer and memory.plays <= view.plays:
        for other in range(4):
            if other != seat:
                barred[other] = memory.lacking[other]
    dealt = deal(pool, [need - len(held) for need, held in zip(needs, keys, strict=True)], barred, _card_value, rng)
    out = [held + more for held, more in zip(keys, dealt, strict=True)]
    hands = tuple(tuple(view.hand) if s == seat else tuple(out[s]) for s in range(4))
    piles = (tuple(piles_known[0] + out[6]), tuple(piles_known[1] + out[7]))
    next_pack = list(STANDARD_PACK)
    rng.shuffle(next_pack)
    window = view.last_capture
    return State(
        config=config,
        chance=Chance(seed=rng.getrandbits(256).to_bytes(32, "big").hex(), decks=(tuple(next_pack),)),
        phase=view.phase,
        dealer=view.dealer,
        bid=view.bid,
        plays=view.plays,
        redeals=view.redeals,
        deal_no=1,
        hands=hands,
        stock=tuple(out[5]),
        loose=tuple(out[4]) if view.phase == BID else view.loose,
        houses=view.houses,
        piles=piles,
        sweeps=view.sweeps,
        last_capture_team=view.last_capture_team,
        window=window,
        window_team=view.last_capture_team if window else None,
        last_deal_points=view.last_deal_points,
        last_deal=view.last_deal,
        difference=view.difference,
        baazis=view.baazis,
    )


def search_episode(state: State) -> Hashable:
    """A search looks no further than the end of the current deal."""
    return state.deal_no


#: Points of a deal that count as a full reward (a sweep is 50).
REWARD_SCALE = 60.0
#: A search stopped inside a deal also counts what the floor promises: this share of a house's
#: points to its owners' team (they hold its key). Loose cards count for nobody: whoever plays
#: next has the first chance at them, and a share for them would favour the searcher whenever the
#: horizon ends on its own side's turn.
HOUSE_SHARE = 0.5


def _value(state: State, team: int) -> float:
    """What ``team`` holds in this deal: its piles and sweeps, and shares of the floor (see above)."""
    ten = state.config.ten_of_diamonds_points
    value: float = card_points(state.piles[team], ten) + state.sweeps[team]
    for house in state.houses:
        if any(owner % 2 == team for owner in house.owners):
            value += HOUSE_SHARE * card_points(house.cards(), ten)
    return value


def search_reward(root: State, leaf: State) -> tuple[float, ...]:
    """Per seat: 1 / -1 once its team has won / lost the baazi; else the team's net deal value since the root.

    Within the deal the value is the piles and sweeps plus shares of the floor
    (:func:`_value`); after the deal's end, the deal's score (leftovers and all) stands
    for the leaf's value.
    """
    if leaf.baazis != root.baazis or leaf.phase == OVER:
        won = [leaf.baazis[t] - root.baazis[t] for t in (0, 1)]
        net = 0.0 if won[0] == won[1] else (1.0 if won[0] > won[1] else -1.0)
    else:
        before = [_value(root, t) for t in (0, 1)]
        if leaf.deal_no != root.deal_no and leaf.last_deal_points is not None:
            after: list[float] = [float(points) for points in leaf.last_deal_points]
        else:
            after = [_value(leaf, t) for t in (0, 1)]
        net = max(-0.9, min(0.9, (after[0] - before[0] - after[1] + before[1]) / REWARD_SCALE))
    return (net, -net, net, -net)
