"""``start`` and ``decide``: what a command causes, with the rejection codes of A17."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from cardgames.engine.all_fours.cards import POWER, side_of
from cardgames.engine.all_fours.commands import Beg, Call, GiveOne, Play, RunPack, Stand
from cardgames.engine.all_fours.config import Config
from cardgames.engine.all_fours.deal import cut_for_dealer, deal, fix_trump, run_pack
from cardgames.engine.all_fours.events import (
    Begged,
    CardExposed,
    CardPlayed,
    ExposedCardCalled,
    GaveOne,
    MatchCreated,
    Stood,
    TrickWon,
)
from cardgames.engine.all_fours.legal import give_one_forbidden, stand_forbidden
from cardgames.engine.all_fours.scoring import award, score_hand, win
from cardgames.engine.all_fours.state import BEG, DEALER_CHOICE, OVER, PLAY, SIDES, Played, State
from cardgames.engine.all_fours.tricks import legal_cards, trick_winner
from cardgames.engine.all_fours.view import hand_hidden
from cardgames.engine.core.events import match_seeded
from cardgames.engine.core.protocol import Malformed, Rejection, RejectionCode, ScenarioError, Setup, reject

GAME_OVER = RejectionCode.GAME_OVER
NOT_YOUR_TURN = RejectionCode.NOT_YOUR_TURN
INVALID = RejectionCode.INVALID_COMMAND
ILLEGAL = RejectionCode.ILLEGAL_MOVE


def start_scores(config: Config, match: dict[str, Any]) -> tuple[int, ...]:
    """Scores in force before the first deal (a deck start's ``match.scores``)."""
    unknown = set(match) - {"scores"}
    if unknown:
        raise ScenarioError(f"unknown All Fours match keys: {', '.join(sorted(unknown))}")
    scores = match.get("scores", [0] * SIDES)
    if (
        not isinstance(scores, Sequence)
        or len(scores) != SIDES
        or not all(isinstance(s, int) and not isinstance(s, bool) and 0 <= s < config.target_score for s in scores)
    ):
        raise ScenarioError(f"match.scores must give {SIDES} scores, each from 0 to below the target")
    return tuple(scores)


def start(config: Config, setup: Setup) -> list[Any]:
    """MatchCreated, the chance source, the cut for dealer (A4) unless given, the first deal."""
    players = config.players
    if setup.dealer is not None and not (isinstance(setup.dealer, int) and 0 <= setup.dealer < players):
        raise ScenarioError(f"dealer must be a seat 0..{players - 1}, got {setup.dealer!r}")
    scores = start_scores(config, setup.match)
    sides = tuple(tuple(seat for seat in range(players) if side_of(seat) == side) for side in range(SIDES))
    seeded = match_seeded(setup.seed, setup.decks)
    events: list[Any] = [
        MatchCreated(config=config, players=players, sides=sides, scores=scores, dealer=setup.dealer),
        seeded,
    ]
    chance = seeded.chance()
    dealer = setup.dealer
    if dealer is None:
        dealer, chance = cut_for_dealer(events, players, chance)
    deal(events, config, chance, scores, dealer, 1, 0)
    return events


def decide(state: State, seat: int, command: Any) -> list[Any] | Rejection:
    """The events ``command`` from ``seat`` causes, or the first rejection of A17 that applies."""
    if state.phase == OVER:
        return reject(GAME_OVER, "the match is over", "A3")
    if isinstance(command, Malformed):
        return reject(INVALID, command.reason, "A17")
    if not (0 <= seat < state.players):
        return reject(NOT_YOUR_TURN, f"seat {seat} is not at this table", "A1")
    kind = type(command)
    if kind is Play:
        return _play(state, seat, command.card)
    if kind is Call:
        return _call(state, seat, command)
    if kind in _DECISIONS:
        phase, name = _DECISIONS[kind]
        if seat != state.turn:
            return reject(NOT_YOUR_TURN, f"seat {seat} may not {name}: seat {state.turn} is to act", "A7")
        if state.phase != phase:
            return reject(ILLEGAL, f"no {name} now (phase {state.phase}); one beg per deal", "A7")
        return _DECIDE[kind](state, seat)
    return reject(INVALID, f"unknown command {command!r}", "A17")


def _stand(state: State, seat: int) -> list[Any] | Rejection:
    dealer, turn_up = state.dealer, state.turn_up
    assert dealer is not None and turn_up is not None
    forbidden = stand_forbidden(state, seat)
    if forbidden:
        return reject(ILLEGAL, forbidden, "A7")
    events: list[Any] = [Stood(seat=seat)]
    fix_trump(events, state.config, dealer, turn_up, state.hands)
    return events


def _beg(state: State, seat: int) -> list[Any] | Rejection:
    return [Begged(seat=seat)]


def _give_one(state: State, seat: int) -> list[Any] | Rejection:
    config = state.config
    dealer, turn_up = state.dealer, state.turn_up
    assert dealer is not None and turn_up is not None
    forbidden = give_one_forbidden(state, seat)
    if forbidden:
        return reject(ILLEGAL, forbidden, "A7")
    beggars = side_of(dealer + 1)
    events: list[Any] = [GaveOne(dealer=seat)]
    fix_trump(events, config, dealer, turn_up, state.hands)
    scores, won = award(events, config, state.scores, beggars, config.give_one_points, "give_one")
    if won:
        win(events, scores, beggars, "give_one")
    return events


def _run_pack(state: State, seat: int) -> list[Any] | Rejection:
    events: list[Any] = []
    run_pack(events, state)
    return events


#: The stand/beg and dealer's decisions (A7): the phase each belongs to, its name, its events.
_DECISIONS: dict[type, tuple[str, str]] = {
    Stand: (BEG, "stand"),
    Beg: (BEG, "beg"),
    GiveOne: (DEALER_CHOICE, "give one"),
    RunPack: (DEALER_CHOICE, "run the pack"),
}
_DECIDE: dict[type, Callable[[State, int], list[Any] | Rejection]] = {
    Stand: _stand,
    Beg: _beg,
    GiveOne: _give_one,
    RunPack: _run_pack,
}


def _unknown(card: str) -> Rejection | None:
    """invalid_command for a card code that names no card (A17 rule 2)."""
    if card not in POWER:
        return reject(INVALID, f"unknown card {card!r}", "A17")
    return None


def _play(state: State, seat: int, card: str) -> list[Any] | Rejection:
    unknown = _unknown(card)
    if unknown:
        return unknown
    # A seat that has not received its cards is answered the same whatever card it names
    # (A17 rule 3, before "does not hold"): it cannot see its own hand yet (B-28, D).
    if hand_hidden(state, seat):
        return reject(NOT_YOUR_TURN, f"seat {seat} may not play before its cards are delivered", "A17")
    if card not in state.hands[seat]:
        return reject(INVALID, f"seat {seat} does not hold {card}", "A17")
    if state.phase == PLAY and seat == state.turn:
        return _play_in_turn(state, seat, card, [])
    # out of turn (A14)
    if state.config.out_of_turn_play == "reject":
        return reject(NOT_YOUR_TURN, f"seat {seat} may not play now: seat {state.turn} is to act", "A14")
    if card in state.exposed[seat]:
        return reject(NOT_YOUR_TURN, f"{card} is already exposed: it is not seat {seat}'s turn", "A14")
    return [CardExposed(seat=seat, card=card)]


def _call(state: State, caller: int, command: Call) -> list[Any] | Rejection:
    """A call (A14). No answer depends on the owner's unexposed cards: a card it does not hold is
    "not exposed" like one it holds face down (A17 rule 2); only an exposed card's legality for the
    owner, which the table learns as soon as the owner plays, tells anything of its hand."""
    owner, card = command.owner, command.card
    if not (0 <= owner < state.players):
        return reject(INVALID, f"owner {owner} is not a seat", "A17")
    unknown = _unknown(card)
    if unknown:
        return unknown
    if caller == owner:
        return reject(ILLEGAL, "a player may not call its own card", "A14")
    if state.config.callers == "opponents" and side_of(caller) == side_of(owner):
        return reject(ILLEGAL, "only an opponent of the owner may call (callers = opponents)", "A14")
    if state.phase != PLAY or state.turn != owner:
        return reject(ILLEGAL, "a card may be called only on its owner's turn in trick play", "A14")
    if card not in state.exposed[owner]:
        return reject(ILLEGAL, f"{card} is not an exposed card of seat {owner}", "A14")
    return _play_in_turn(state, owner, card, [ExposedCardCalled(caller=caller, owner=owner, card=card)])


def _play_in_turn(state: State, seat: int, card: str, events: list[Any]) -> list[Any] | Rejection:
    """A play by the seat to act (A10): legality, the trick, and what follows a full trick."""
    trick = state.trick
    trump = state.trump
    if card not in legal_cards(state.hands[seat], trick, trump, state.config):
        return reject(ILLEGAL, f"{card} is not a legal play now: follow suit or trump", "A10")
    trick_no = state.trick_no
    events.append(CardPlayed(seat=seat, card=card, trick_no=trick_no))
    if len(trick) + 1 < state.players:
        return events
    full = (*trick, Played(seat, card))
    winner = trick_winner(full, trump)
    cards = tuple(played.card for played in full)
    events.append(TrickWon(seat=winner, trick_no=trick_no, cards=cards))
    if trick_no < state.hand_size:
        return events
    _end_of_hand(state, events, winner, cards)
    return events


def _end_of_hand(state: State, events: list[Any], winner: int, last: tuple[str, ...]) -> None:
    """Score the hand (A11, A12); with no winner, the deal passes to the right (A13)."""
    dealer = state.dealer
    assert dealer is not None and state.trump is not None
    side = side_of(winner)
    tricks_won = tuple(cards + last if index == side else cards for index, cards in enumerate(state.tricks_won))
    scores, won = score_hand(events, state.config, state.scores, dealer, state.trump, state.in_play, tricks_won)
    if not won:
        deal(events, state.config, state.chance, scores, (dealer + 1) % state.players, state.hand_no + 1, 0)
