"""What the search bot needs from Contract Rummy: determinization, its episode, reward and horizon.

``determinize`` builds a full :class:`State` from the public config and one viewer's
:class:`View` only: a seat's, or a spectator's (every hand is then unseen). Known: the
seat's own hand, the discard pile, the melds, and the cards each seat publicly took from
the pile and still holds (``known``). The rest of
the deck (the unseen pool) is dealt at random to the hidden places: the unknown part
of every other hand (sizes are public) and the stock. A fresh random seed replaces the
hidden shuffle source (refills and the next deal).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Hashable

from cardgames.engine.contract_rummy.config import Config, deck_for
from cardgames.engine.contract_rummy.heuristic import POTENTIAL_WEIGHT, meld_potential
from cardgames.engine.contract_rummy.melds import hand_code, penalty
from cardgames.engine.contract_rummy.state import OVER, State, contract
from cardgames.engine.contract_rummy.view import View
from cardgames.engine.core.chance import Chance

#: Plies searched past the root: about two turns of every player at a four-player table.
SEARCH_HORIZON = 16
#: Root commands searched: the heuristic's best few (a hand offers up to a dozen discards).
SEARCH_CANDIDATES = 3
#: Rollouts play the heuristic: random players never go down, so random rollouts only measure
#: the noise of the cards (at 100 iterations: 8-8 against the heuristic, heuristic rollouts 11-5).
SEARCH_ROLLOUT = "heuristic"


def remember(memory: None, view: View) -> None:
    """Nothing beyond the view is kept (the view already holds what the determinization uses)."""
    return None


def determinize(config: Config, view: View, rng: random.Random, memory: None = None) -> State:
    """A full state consistent with ``view`` (a seat's or a spectator's), the unseen cards dealt at random."""
    seat = view.viewer
    players = view.players
    unseen = Counter(deck_for(config.deck_policy, players))
    seen = Counter(view.hand)
    seen.update(view.discard)
    for meld in view.melds:
        seen.update(hand_code(card) for card in meld.cards)
    for other in range(players):
        if other != seat:
            seen.update(view.known[other])
    unseen.subtract(seen)
    if any(count < 0 for count in unseen.values()):
        raise ValueError("the view shows more copies of a card than the deck holds")
    pool = list(unseen.elements())
    rng.shuffle(pool)
    needs = [0 if s == seat else view.hand_sizes[s] - len(view.known[s]) for s in range(players)]
    needs.append(view.stock_size)
    if sum(needs) != len(pool) or min(needs) < 0:
        raise ValueError(f"the view does not add up: {len(pool)} unseen cards for places of {needs}")
    at = 0
    dealt: list[tuple[str, ...]] = []
    for need in needs:
        dealt.append(tuple(pool[at : at + need]))
        at += need
    hands = tuple(view.hand if s == seat else view.known[s] + dealt[s] for s in range(players))
    return State(
        config=config,
        players=players,
        deck=deck_for(config.deck_policy, players),
        chance=Chance(seed=rng.getrandbits(256).to_bytes(32, "big").hex()),
        phase=view.phase,
        deal=view.deal,
        dealer=view.dealer,
        to_act=view.to_act,
        hands=hands,
        stock=dealt[players],
        discard=view.discard,
        melds=view.melds,
        contract_met=view.contract_met,
        met_turn=view.met_turn,
        turn_no=view.turn_no,
        turn=view.turn,
        scores=view.scores,
        last_deal_scores=view.last_deal_scores,
        winners=view.winners,
        refills=view.stock_refills,
        known=view.known,
    )


def search_episode(state: State) -> Hashable:
    """A search looks no further than the end of the current deal."""
    return state.deal


#: Penalty points that count as a full reward.
REWARD_SCALE = 40.0
#: A hand whose contract is down is expected to shed about half its penalty by lay-offs.
MET_SHARE = 0.5


def _expected_penalty(state: State, seat: int) -> float:
    """A hand's penalty as the deal's end may find it: halved once down (lay-offs shed about half);
    before, less the worth of its meld potential (the heuristic's trade-off: cards that are
    close to the contract are likely to leave the hand by going down)."""
    config = state.config
    hand = state.hands[seat]
    points = sum(penalty(card, config.ace_value, config.joker_value) for card in hand)
    if state.contract_met[seat]:
        return points * MET_SHARE
    sets, runs = contract(state)
    return points - POTENTIAL_WEIGHT * meld_potential(hand, sets, runs, config.min_run_length)


def search_reward(root: State, leaf: State) -> tuple[float, ...]:
    """Per seat: how much less penalty it took than the others on average since the root.

    A finished deal counts its real penalties (0 for the player who went out); a deal
    still running counts the hand's expected penalty (:func:`_expected_penalty`).
    """
    players = root.players
    before = [_expected_penalty(root, seat) for seat in range(players)]
    if (leaf.deal != root.deal or leaf.phase == OVER) and leaf.last_deal_scores is not None:
        after = [float(points) for points in leaf.last_deal_scores]
    else:
        after = [_expected_penalty(leaf, seat) for seat in range(players)]
    took = [after[seat] - before[seat] for seat in range(players)]
    total = sum(took)
    rewards = []
    for seat in range(players):
        others = (total - took[seat]) / (players - 1)
        rewards.append(max(-0.9, min(0.9, (others - took[seat]) / REWARD_SCALE)))
    return tuple(rewards)
