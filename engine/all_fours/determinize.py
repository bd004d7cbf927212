"""What the search bot needs from All Fours: determinization, its episode and its reward.

``determinize`` builds a full :class:`State` from the public config and one viewer's
:class:`View` only: a seat's, or a spectator's (every hand is then unseen). The seat's own
hand (once delivered, B-28), the played cards, the turn-up, the set-aside turn-ups and the
exposed cards are known; every other card (the unseen pool) is dealt at random to the
hidden places: the other hands (their sizes are public), the seat's own hand while it is
held back, and the stock. Voids that play revealed are respected: a player who neither followed the suit
led nor trumped has none of that suit left; one who did not follow a trump lead has no
trump. The view shows the cards of each side's won tricks (one block of N cards per
trick, in play order) but not who played them: the seat's ``Memory`` (``remember``,
fed every view the seat is shown) keeps each trick with its seats. Without a complete
memory the seats of past tricks are re-derived: the winning card of a block belongs to
the side that took it, and the most recent trick was won by the current leader; the
rest is a random but consistent guess. The seats feed the voids and the original
holders (``in_play``) that High, Low and the jack score by. A fresh random source
replaces the hidden one: the next shuffle is a stacked order drawn from ``rng``
(cheaper than the seeded shuffle), later ones come from a random seed.
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Sequence

import msgspec

from cardgames.engine.all_fours.cards import count_points, side_of
from cardgames.engine.all_fours.config import Config
from cardgames.engine.all_fours.state import PLAY, Played, State
from cardgames.engine.all_fours.tricks import trick_winner
from cardgames.engine.all_fours.view import View
from cardgames.engine.core.cards import STANDARD_PACK
from cardgames.engine.core.chance import Chance
from cardgames.engine.core.dealing import deal


def _suit(card: str) -> str:
    return card[-1]


def _void_after(trick: Sequence[Played], trump: str | None, voids: list[set[str]]) -> None:
    """Record the voids a (partial) trick shows: no card of the suit led, and not a trump either (A10)."""
    if not trick:
        return
    led = trick[0].card[-1]
    for played in trick[1:]:
        suit = played.card[-1]
        if led == trump:
            if suit != trump:
                voids[played.seat].add(led)
        elif suit != led and suit != trump:
            voids[played.seat].add(led)


def _past_tricks(view: View, rng: random.Random, voids: list[set[str]]) -> list[list[str]]:
    """The cards each seat played in the finished tricks of this deal (a consistent guess, see the module)."""
    players = view.players
    played: list[list[str]] = [[] for _ in range(players)]
    if view.trump is None or view.phase != PLAY:
        return played
    leader = view.trick[0].seat if view.trick else view.to_act
    for side, won in enumerate(view.tricks_won):
        blocks = [won[i : i + players] for i in range(0, len(won), players)]
        for number, block in enumerate(blocks):
            position = trick_winner([Played(i, card) for i, card in enumerate(block)], view.trump)
            latest = leader is not None and side == side_of(leader) and number == len(blocks) - 1
            members = [seat for seat in range(players) if side_of(seat) == side]
            if latest:
                assert leader is not None
                winner = leader
            else:
                winner = members[rng.randrange(len(members))]
            first = (winner - position) % players
            trick = [Played((first + i) % players, card) for i, card in enumerate(block)]
            for entry in trick:
                played[entry.seat].append(entry.card)
            if latest or len(members) == 1:  # who played what is certain: its voids are real
                _void_after(trick, view.trump, voids)
    return played


class Memory(msgspec.Struct, frozen=True):
    """Every trick of the current deal as the seat saw it played, with the seats (public, D).

    ``complete`` is false when a trick ended unseen (the seat was not shown every play):
    the determinization then falls back to its guess.
    """

    deal: tuple[int, int]
    tricks: tuple[tuple[Played, ...], ...]
    current: tuple[Played, ...]
    complete: bool


def remember(memory: Memory | None, view: View) -> Memory:
    """Add the plays ``view`` shows: the trick in progress, and the trick it completed since the last view."""
    deal = (view.hand_no, view.redeal_no)
    if memory is None or memory.deal != deal:
        memory = Memory(deal=deal, tricks=(), current=(), complete=True)
    if view.phase != PLAY or view.trump is None:
        return memory
    tricks, complete = memory.tricks, memory.complete
    finished = view.trick_no - 1
    if finished == len(tricks) + 1:
        # the trick just completed: the plays seen so far, then the rest of its block (the winner's side)
        leader = view.trick[0].seat if view.trick else view.to_act
        seen = memory.current
        if leader is None or not seen:
            complete = False
        else:
            block = view.tricks_won[side_of(leader)][-view.players :]
            first = seen[0].seat
            tricks = (*tricks, tuple(Played((first + i) % view.players, card) for i, card in enumerate(block)))
    elif finished != len(tricks):
        complete = False
    return Memory(deal=deal, tricks=tricks, current=view.trick, complete=complete)


def _remembered_tricks(view: View, memory: Memory | None, voids: list[set[str]]) -> list[list[str]] | None:
    """The cards each seat played in the finished tricks, from the memory when it saw them all."""
    if (
        memory is None
        or not memory.complete
        or memory.deal != (view.hand_no, view.redeal_no)
        or len(memory.tricks) != max(0, view.trick_no - 1)
        or view.phase != PLAY
    ):
        return None
    played: list[list[str]] = [[] for _ in range(view.players)]
    for trick in memory.tricks:
        for entry in trick:
            played[entry.seat].append(entry.card)
        _void_after(trick, view.trump, voids)
    return played


def determinize(config: Config, view: View, rng: random.Random, memory: Memory | None = None) -> State:
    """A full state consistent with ``view`` (a seat's or a spectator's), the unseen cards dealt at random."""
    seat = view.viewer
    players = view.players
    known = set(view.hand)
    for cards in view.exposed:
        known.update(cards)
    for cards in view.tricks_won:
        known.update(cards)
    known.update(played.card for played in view.trick)
    known.update(view.set_aside)
    if view.turn_up is not None:
        known.add(view.turn_up)
    pool = [card for card in STANDARD_PACK if card not in known]

    voids: list[set[str]] = [set() for _ in range(players)]
    past = _remembered_tricks(view, memory, voids)
    if past is None:
        past = _past_tricks(view, rng, voids)
    _void_after(view.trick, view.trump, voids)
    # places 0..N-1: the unseen part of each hand (a seat's own hand is seen unless held back); N: the stock
    holding = [list(view.exposed[s]) if s != seat else list(view.hand) for s in range(players)]
    needs = [view.hand_sizes[s] - len(holding[s]) for s in range(players)] + [view.stock_size]
    if sum(needs) != len(pool) or min(needs) < 0:
        raise ValueError(f"the view does not add up: {len(pool)} unseen cards for places of {needs}")
    place_voids: list[set[str]] = [*voids, set()]
    if seat is not None:
        place_voids[seat] = set()
    dealt = deal(pool, needs, place_voids, _suit, rng)
    hands = tuple(tuple(holding[s] + dealt[s]) for s in range(players))
    stock = dealt[players]
    rng.shuffle(stock)
    next_pack = list(STANDARD_PACK)
    rng.shuffle(next_pack)
    in_play: tuple[tuple[str, ...], ...] = tuple(() for _ in range(players))
    if view.trump is not None and view.phase == PLAY:
        in_trick: list[list[str]] = [[] for _ in range(players)]
        for played in view.trick:
            in_trick[played.seat].append(played.card)
        in_play = tuple(hands[s] + tuple(past[s]) + tuple(in_trick[s]) for s in range(players))
    return State(
        config=config,
        players=players,
        phase=view.phase,
        dealer=view.dealer,
        turn=view.to_act,
        hand_no=view.hand_no,
        redeal_no=view.redeal_no,
        hand_size=view.hand_size,
        hands=hands,
        stock=tuple(stock),
        turn_up=view.turn_up,
        trump=view.trump,
        set_aside=view.set_aside,
        run_no=len(view.set_aside),
        trick=view.trick,
        trick_no=view.trick_no,
        tricks_won=view.tricks_won,
        exposed=view.exposed,
        scores=view.scores,
        last_hand=view.last_hand,
        in_play=in_play,
        winner=view.winner,
        chance=Chance(seed=rng.getrandbits(256).to_bytes(32, "big").hex(), decks=(tuple(next_pack),)),
    )


def search_episode(state: State) -> Hashable:
    """A search looks to the end of the current hand (a redeal after the pack runs out is the same hand)."""
    return state.hand_no


#: Points of one hand that count as a full reward (High + Low + Hang Jack + Game is 6 at most).
REWARD_SCALE = 4.0
#: Points per counting point of the Game totals (A11), a tie-breaker between hands of equal points.
COUNT_SHARE = 0.01


def search_reward(root: State, leaf: State) -> tuple[float, ...]:
    """Per seat: 1 / -1 once the match is won / lost; else the side's net points of the hand, scaled, within ±0.9.

    The next hand's kick, dealt by the same command that scores a hand, is left out; a
    small share of the hand's Game count difference breaks ties between equal points.
    """
    players = root.players
    if leaf.winner is not None:
        return tuple(1.0 if side_of(seat) == leaf.winner else -1.0 for seat in range(players))
    gains = [leaf.scores[side] - root.scores[side] for side in range(2)]
    counts = [count_points(cards) for cards in leaf.tricks_won]
    if leaf.hand_no != root.hand_no:
        for award in leaf.hand_awards:
            gains[award.side] -= award.points
        if leaf.last_hand is not None:
            counts = list(leaf.last_hand.game_totals)
    net = gains[0] - gains[1] + COUNT_SHARE * (counts[0] - counts[1])
    net = max(-0.9, min(0.9, net / REWARD_SCALE))
    return tuple(net if side_of(seat) == 0 else -net for seat in range(players))
