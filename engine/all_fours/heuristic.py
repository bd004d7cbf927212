"""The rules-of-thumb All Fours player (the middle bot strength); it reads only its seat's view.

* Stand or beg (A7): stand with a fair trump holding (the ace or king of the turn-up
  suit, the jack with another trump, or three trumps); beg with less, unless the
  dealer's side is so close to the target that the kicks of a run could end the match.
* Give one or run the pack (A7, A9): never give the point that wins the match; give
  one with a fair holding in the turn-up suit, run the pack with a weak one.
* Lead: the master trump (no unseen trump beats it) while the jack of trumps or other
  trumps are still out, to capture the jack and the Game count; otherwise a low,
  non-counting card of a plain suit.
* Follow: on a partner's trick that cannot be beaten, throw counting cards (the jack of
  trumps first); against an opponent, win with the cheapest card that wins when the
  trick is worth it and the win is safe (last to play, or a master trump); otherwise
  throw the cheapest card, keeping tens, high trumps and the jack.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Final

from cardgames.engine.all_fours.cards import COUNT, POWER, side_of
from cardgames.engine.all_fours.commands import BEG, GIVE_ONE, RUN_PACK, STAND, Beg, GiveOne, Play, RunPack, Stand
from cardgames.engine.all_fours.config import Config
from cardgames.engine.all_fours.state import Played
from cardgames.engine.all_fours.tricks import trick_winner
from cardgames.engine.all_fours.view import View
from cardgames.engine.core.cards import STANDARD_PACK, SUITS

#: The 13 cards of each suit.
SUIT_CARDS: Final[dict[str, tuple[str, ...]]] = {
    suit: tuple(card for card in STANDARD_PACK if card[-1] == suit) for suit in SUITS
}
#: Powers (2 = 0 .. A = 12) of the ranks that matter for the trump holding.
JACK, QUEEN, KING = POWER["JS"], POWER["QS"], POWER["KS"]


def trump_holding_is_fair(hand: Sequence[str], suit: str) -> bool:
    """Ace or king of ``suit``, the jack with another card of it, or three cards of it."""
    powers = sorted((POWER[card] for card in hand if card[-1] == suit), reverse=True)
    if not powers:
        return False
    return powers[0] >= KING or (JACK in powers and len(powers) >= 2) or len(powers) >= 3


class AllFoursHeuristic:
    """See the module docstring."""

    def __init__(self, config: Config) -> None:
        self.config = config

    def __reduce__(self) -> tuple[Any, tuple[Config]]:
        """Made again from its config in another process (the compiled class has no pickled form of its own)."""
        return (type(self), (self.config,))

    def choose(self, view: View, legal: Sequence[Any], rng: random.Random) -> Any:
        if len(legal) == 1:
            return legal[0]
        kinds = {type(command) for command in legal}
        if kinds & {Stand, Beg}:
            return self._stand_or_beg(view, legal)
        if kinds & {GiveOne, RunPack}:
            return self._give_or_run(view, legal)
        plays = [command for command in legal if type(command) is Play]
        if not plays:
            return legal[0]
        return self._play(view, plays)

    # --- the beg (A7) ----------------------------------------------------------------------

    def _stand_or_beg(self, view: View, legal: Sequence[Any]) -> Any:
        """Both are legal here (a single legal command was returned before)."""
        assert view.turn_up is not None and view.dealer is not None
        kicks_could_win = view.scores[side_of(view.dealer)] + 3 >= view.target_score
        return STAND if trump_holding_is_fair(view.hand, view.turn_up[-1]) or kicks_could_win else BEG

    def _give_or_run(self, view: View, legal: Sequence[Any]) -> Any:
        """Both are legal here (a single legal command was returned before)."""
        assert view.turn_up is not None and view.dealer is not None
        beggars = side_of(view.dealer + 1)
        if view.scores[beggars] + self.config.give_one_points >= view.target_score:
            return RUN_PACK
        return GIVE_ONE if trump_holding_is_fair(view.hand, view.turn_up[-1]) else RUN_PACK

    # --- trick play (A10) ------------------------------------------------------------------

    def _play(self, view: View, plays: list[Play]) -> Play:
        trump = view.trump
        seat = view.viewer
        assert seat is not None
        seen = set(view.hand) | {p.card for p in view.trick} | set(view.set_aside)
        for group in (*view.tricks_won, *view.exposed):
            seen.update(group)
        if view.turn_up is not None:
            seen.add(view.turn_up)
        unseen_trumps = [card for card in SUIT_CARDS.get(trump or "", ()) if card not in seen]
        top_unseen = max((POWER[card] for card in unseen_trumps), default=-1)
        jack = f"J{trump}"

        def master(card: str) -> bool:
            return card[-1] == trump and POWER[card] > top_unseen

        def cost(card: str) -> float:
            """How much it hurts to give the card away (or spend it)."""
            value = 3.0 * COUNT[card] + POWER[card] / 13
            if card[-1] == trump:
                value += 4 + POWER[card] / 2
                if card == jack:
                    value += 30
                if master(card):
                    value += 10
            return value

        cards: list[str] = [play.card for play in plays]
        by_card = {play.card: play for play in plays}
        if not view.trick:
            return by_card[self._lead(cards, trump, jack, master, cost, unseen_trumps)]
        trick = list(view.trick)
        winner = trick_winner(trick, trump)
        last = len(trick) == view.players - 1
        trick_value = sum(COUNT[p.card] for p in trick) + (8 if any(p.card == jack for p in trick) else 0)
        if side_of(winner) == side_of(seat) and winner != seat:
            winning_card = next(p.card for p in trick if p.seat == winner)
            if last or master(winning_card):
                # feed the partner: the jack of trumps, then counting cards that are not master trumps
                feed = max(cards, key=lambda c: (c == jack, COUNT[c] if not master(c) else -1, -POWER[c]))
                if feed == jack or (COUNT[feed] > 0 and not master(feed)):
                    return by_card[feed]
            return by_card[min(cards, key=cost)]
        wins = [card for card in cards if trick_winner([*trick, Played(seat, card)], trump) == seat]
        safe = [card for card in wins if last or master(card)]
        if safe:
            card = min(safe, key=cost)
            if trick_value + COUNT[card] > 0 or card[-1] != trump or card == jack:
                return by_card[card]
        risky = [card for card in wins if card != jack and card[-1] != trump]
        if risky and trick_value >= 4 and not last:
            return by_card[min(risky, key=cost)]
        return by_card[min(cards, key=cost)]

    @staticmethod
    def _lead(cards: list[str], trump: str | None, jack: str, master: Any, cost: Any, unseen: list[str]) -> str:
        masters = [card for card in cards if master(card)]
        if masters and unseen:
            # draw trumps with the master: the jack and the Game count fall to it
            return max(masters, key=lambda c: (c != jack, POWER[c]))
        plain = [card for card in cards if card[-1] != trump]
        if plain:
            return min(plain, key=cost)
        return min(cards, key=cost)


def heuristic_policy(config: Config) -> AllFoursHeuristic:
    """The rules-of-thumb player for a match with ``config``."""
    return AllFoursHeuristic(config)
