"""The FORMAT.md All Fours state snapshot, both ways."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from cardgames.engine.all_fours.config import Config
from cardgames.engine.all_fours.state import BEG, DEALER_CHOICE, OVER, PLAY, SIDES, LastHand, Played, State
from cardgames.engine.core.cards import STANDARD_CARDS, STANDARD_PACK
from cardgames.engine.core.chance import Chance
from cardgames.engine.core.protocol import ScenarioError, Setup

KEYS = (
    "dealer", "phase", "to_act", "hand_size", "hands", "stock", "turn_up", "trump", "set_aside",
    "trick", "tricks_won", "exposed", "scores", "hand_no", "redeal_no", "last_hand",
)  # fmt: skip


def snapshot(state: State) -> dict[str, Any]:
    """The snapshot of FORMAT.md: every key, cards as codes, the trick in play order."""
    over = state.phase == OVER
    return {
        "dealer": state.dealer,
        "phase": state.phase,
        "to_act": None if over else state.turn,
        "hand_size": state.hand_size,
        "hands": [list(hand) for hand in state.hands],
        "stock": list(state.stock),
        "turn_up": state.turn_up,
        "trump": state.trump,
        "set_aside": list(state.set_aside),
        "trick": [{"seat": played.seat, "card": played.card} for played in state.trick],
        "tricks_won": [list(cards) for cards in state.tricks_won],
        "exposed": [list(cards) for cards in state.exposed],
        "scores": list(state.scores),
        "hand_no": state.hand_no,
        "redeal_no": state.redeal_no,
        "last_hand": _last_hand(state.last_hand),
    }


def _last_hand(last: LastHand | None) -> dict[str, Any] | None:
    """``last_hand`` with ``card`` left out where it has none (give_one, game: A17)."""
    if last is None:
        return None
    awards = [
        {key: value for key, value in msgspec.to_builtins(award).items() if value is not None} for award in last.awards
    ]
    return {"awards": awards, "game_totals": list(last.game_totals)}


def _get(snap: Mapping[str, Any], key: str, kind: Any, default: Any) -> Any:
    if key not in snap:
        return default
    try:
        return msgspec.convert(snap[key], kind, strict=True)
    except msgspec.ValidationError as error:
        raise ScenarioError(f"snapshot key {key!r}: {error}") from None


def _seat(value: int | None, players: int, key: str) -> None:
    if value is not None and not 0 <= value < players:
        raise ScenarioError(f"snapshot {key} {value} is not a seat")


def from_snapshot(config: Config, snap: Mapping[str, Any], setup: Setup) -> State:
    """A state from a (partial) snapshot; missing keys take their fresh-deal values.

    The stock, when left out, holds the cards found nowhere else in canonical order.
    The holders of cards already in ``tricks_won`` are not part of the snapshot: they
    are taken to be the first seat of the side that won them (for Low and the jack).
    """
    unknown = set(snap) - set(KEYS)
    if unknown:
        raise ScenarioError(f"unknown snapshot keys: {', '.join(sorted(unknown))}")
    n = config.players
    cards = tuple[str, ...]
    dealer = _get(snap, "dealer", int, setup.dealer if setup.dealer is not None else 0)
    _seat(dealer, n, "dealer")
    eldest = (dealer + 1) % n
    phase = _get(snap, "phase", str, BEG)
    if phase not in (BEG, DEALER_CHOICE, PLAY, OVER):
        raise ScenarioError(f"unknown phase {phase!r}")
    hands = _get(snap, "hands", tuple[cards, ...], ((),) * n)
    turn_up = _get(snap, "turn_up", str | None, None)
    trump = _get(snap, "trump", str | None, turn_up[-1] if phase == PLAY and turn_up else None)
    set_aside = _get(snap, "set_aside", cards, ())
    trick = _get(snap, "trick", tuple[Played, ...], ())
    tricks_won = _get(snap, "tricks_won", tuple[cards, ...], ((),) * SIDES)
    exposed = _get(snap, "exposed", tuple[cards, ...], ((),) * n)
    scores = _get(snap, "scores", tuple[int, ...], (0,) * SIDES)
    if len(hands) != n or len(exposed) != n or len(tricks_won) != SIDES or len(scores) != SIDES:
        raise ScenarioError(f"hands and exposed need {n} entries, tricks_won and scores {SIDES}")
    placed = [card for hand in hands for card in hand]
    placed += [card for card in (turn_up,) if card]
    placed += [*set_aside, *(played.card for played in trick), *(card for won in tricks_won for card in won)]
    stock = _get(snap, "stock", cards, tuple(card for card in STANDARD_PACK if card not in set(placed)))
    everything = placed + list(stock)
    bad = [card for card in everything if card not in STANDARD_CARDS]
    if bad or len(everything) != 52 or len(set(everything)) != 52:
        raise ScenarioError(
            "a snapshot must hold each of the 52 cards exactly once" + (f" (bad: {bad})" if bad else "")
        )
    for seat in range(n):
        if not set(exposed[seat]) <= set(hands[seat]):
            raise ScenarioError(f"seat {seat} has exposed cards it does not hold")
    if trump is not None and trump not in "SHDC":
        raise ScenarioError(f"unknown trump suit {trump!r}")
    if phase in (BEG, DEALER_CHOICE) and (trump is not None or turn_up is None):
        raise ScenarioError(f"phase {phase} needs a turn-up and no trump yet")
    if phase == PLAY and trump is None:
        raise ScenarioError("phase play needs a trump suit")
    for index, played in enumerate(trick):
        _seat(played.seat, n, "trick seat")
        if index and played.seat != (trick[index - 1].seat + 1) % n:
            raise ScenarioError("the trick's cards are not in play order")
    completed, rest = divmod(sum(len(won) for won in tricks_won), n)
    if rest or len(trick) >= n:
        raise ScenarioError("tricks_won and trick do not add up to whole tricks")
    played_now = {played.seat for played in trick}
    sizes = {len(hands[seat]) + completed + (seat in played_now) for seat in range(n)}
    hand_size = _get(snap, "hand_size", int, max(sizes))
    if sizes != {hand_size}:
        raise ScenarioError(f"the hands do not fit hand_size {hand_size}")
    if (hand_size - 6) % 3 or hand_size < 6:
        raise ScenarioError(f"hand_size {hand_size} is not 6 plus 3 per run")
    if phase == PLAY:
        default_turn: int | None = (trick[-1].seat + 1) % n if trick else eldest
    elif phase == BEG:
        default_turn = eldest
    elif phase == DEALER_CHOICE:
        default_turn = dealer
    else:
        default_turn = None
    turn = _get(snap, "to_act", int | None, default_turn)
    _seat(turn, n, "to_act")
    if phase != PLAY and turn != default_turn:
        raise ScenarioError(f"in phase {phase} to_act must be {default_turn}")
    winner = None
    if phase == OVER:
        winner = max(range(SIDES), key=lambda side: scores[side])
    in_play = [list(hand) for hand in hands]
    for played in trick:
        in_play[played.seat].append(played.card)
    for side, won in enumerate(tricks_won):
        in_play[side].extend(won)  # seat `side` is the first seat of that side
    return State(
        config=config,
        players=n,
        phase=phase,
        dealer=dealer,
        turn=turn,
        hand_no=_get(snap, "hand_no", int, 1),
        redeal_no=_get(snap, "redeal_no", int, 0),
        hand_size=hand_size,
        hands=hands,
        stock=stock,
        turn_up=turn_up,
        trump=trump,
        set_aside=set_aside,
        run_no=(hand_size - 6) // 3,
        trick=trick,
        trick_no=completed + 1 if phase == PLAY else 0,
        tricks_won=tricks_won,
        exposed=exposed,
        scores=scores,
        last_hand=_get(snap, "last_hand", LastHand | None, None),
        in_play=tuple(tuple(hand) for hand in in_play),
        winner=winner,
        chance=Chance(seed=setup.seed, decks=setup.decks),
    )
