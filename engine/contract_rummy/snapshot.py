"""The FORMAT.md Contract Rummy snapshot, and states read from one (A.13 "Reading a snapshot")."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from msgspec.structs import replace

from cardgames.engine.contract_rummy.config import DEALS, Config
from cardgames.engine.contract_rummy.deal import blocked_reason, deal_events, fold
from cardgames.engine.contract_rummy.melds import RUN, hand_code, make_meld
from cardgames.engine.contract_rummy.state import (
    DIG,
    DISCARD,
    DRAW,
    OVER,
    PLAY,
    STOCK,
    State,
    Turn,
    initial,
    winners_of,
)
from cardgames.engine.core.chance import Chance
from cardgames.engine.core.protocol import ScenarioError, Setup

KEYS = frozenset(
    {
        "deal",
        "dealer",
        "phase",
        "to_act",
        "hands",
        "stock",
        "discard",
        "melds",
        "contract_met",
        "scores",
        "turn",
        "last_deal_scores",
        "winners",
    }
)
DEAL_KEYS = frozenset({"hands", "stock", "discard", "melds"})


def snapshot(state: State) -> dict[str, Any]:
    turn = state.turn
    return {
        "deal": state.deal,
        "dealer": state.dealer,
        "phase": state.phase,
        "to_act": None if state.phase == OVER else state.to_act,
        "hands": [list(hand) for hand in state.hands],
        "stock": list(state.stock),
        "discard": list(state.discard),
        "melds": [{"owner": meld.owner, "kind": meld.kind, "cards": list(meld.cards)} for meld in state.melds],
        "contract_met": list(state.contract_met),
        "scores": list(state.scores),
        "turn": None if turn is None else {"drew": turn.drew, "taken": list(turn.taken), "went_down": turn.went_down},
        "last_deal_scores": None if state.last_deal_scores is None else list(state.last_deal_scores),
        "winners": None if state.winners is None else list(state.winners),
    }


def _int(value: Any, name: str, low: int, high: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise ScenarioError(f"{name} must be an integer {low}..{high}, got {value!r}")
    return value


def _ints(value: Any, name: str, players: int) -> tuple[int, ...]:
    if (
        not isinstance(value, list | tuple)
        or len(value) != players
        or not all(isinstance(item, int) and not isinstance(item, bool) for item in value)
    ):
        raise ScenarioError(f"{name} must list {players} integers, got {value!r}")
    return tuple(value)


def _cards(value: Any, name: str) -> tuple[str, ...]:
    if not isinstance(value, list | tuple) or not all(isinstance(card, str) for card in value):
        raise ScenarioError(f"{name} must be a list of card codes, got {value!r}")
    return tuple(value)


def _turn(raw: Any, state: State, seat: int) -> Turn:
    if raw is None:
        return Turn(drew=STOCK)
    if not isinstance(raw, Mapping) or raw.get("drew") not in (STOCK, DISCARD, DIG):
        raise ScenarioError(f"turn must be {{drew: stock|discard|dig, taken, went_down}}, got {raw!r}")
    drew = raw["drew"]
    taken = _cards(raw.get("taken", []), "turn.taken")
    went_down = raw.get("went_down", False)
    if not isinstance(went_down, bool):
        raise ScenarioError("turn.went_down must be true or false")
    if went_down and not state.contract_met[seat]:
        raise ScenarioError("turn.went_down is true but the seat to act has not met the contract")
    barred = None
    if drew == DISCARD:
        if len(taken) != 1:
            raise ScenarioError("a discard draw takes exactly one card")
        barred = taken[0]
        if state.config.top_discard_return_rule == "physical_card" and barred not in state.hands[seat]:
            barred = None
    return Turn(drew=drew, taken=taken, went_down=went_down, barred=barred)


def from_snapshot(config: Config, snap: Mapping[str, Any], setup: Setup) -> State:
    """A state from a (partial) snapshot; missing keys take a fresh deal's values."""
    unknown = set(snap) - KEYS
    if unknown:
        raise ScenarioError(f"unknown snapshot keys {sorted(unknown)}")
    players = config.players
    deal = _int(snap.get("deal", 1), "deal", 1, DEALS)
    dealer = _int(snap.get("dealer", 0), "dealer", 0, players - 1)
    phase = snap.get("phase", DRAW)
    if phase not in (DRAW, PLAY, OVER):
        raise ScenarioError(f"phase must be draw, play or over, got {phase!r}")
    scores = _ints(snap.get("scores", [0] * players), "scores", players)
    base = replace(initial(config), chance=Chance(seed=setup.seed, decks=setup.decks), scores=scores)
    if not DEAL_KEYS & set(snap):
        # No position given: the deal is shuffled and dealt afresh.
        return _finish(fold(base, deal_events(base, deal, dealer)), snap, DRAW, players)
    for key in ("hands", "stock", "discard"):
        if key not in snap:
            raise ScenarioError(f"a snapshot with a position needs '{key}'")
    hands_raw = snap["hands"]
    if not isinstance(hands_raw, list | tuple) or len(hands_raw) != players:
        raise ScenarioError(f"hands must list {players} hands")
    hands = tuple(_cards(hand, f"hands[{seat}]") for seat, hand in enumerate(hands_raw))
    stock = _cards(snap["stock"], "stock")
    discard = _cards(snap["discard"], "discard")
    contract_met = snap.get("contract_met", [False] * players)
    if (
        not isinstance(contract_met, list | tuple)
        or len(contract_met) != players
        or not all(isinstance(flag, bool) for flag in contract_met)
    ):
        raise ScenarioError(f"contract_met must list {players} booleans")
    melds = []
    for index, raw in enumerate(snap.get("melds", [])):
        if not isinstance(raw, Mapping):
            raise ScenarioError(f"melds[{index}] must be an object")
        owner = _int(raw.get("owner"), f"melds[{index}].owner", 0, players - 1)
        cards = _cards(raw.get("cards"), f"melds[{index}].cards")
        meld = make_meld(cards, owner, config.min_run_length, config.min_naturals_per_meld)
        if isinstance(meld, str):
            raise ScenarioError(f"melds[{index}] {list(cards)} is not a legal meld: {meld}")
        if raw.get("kind", meld.kind) != meld.kind:
            raise ScenarioError(f"melds[{index}] is a {meld.kind}, not a {raw.get('kind')}")
        if meld.kind == RUN and meld.cards != cards:
            raise ScenarioError(f"melds[{index}]: a run's cards are listed low to high")
        if not contract_met[owner]:
            raise ScenarioError(f"melds[{index}] belongs to seat {owner}, whose contract_met is false")
        melds.append(meld)
    everything = [*stock, *discard, *(card for hand in hands for card in hand)]
    everything += [hand_code(card) for meld in melds for card in meld.cards]
    if Counter(everything) != Counter(base.deck):
        extra = Counter(everything) - Counter(base.deck)
        short = Counter(base.deck) - Counter(everything)
        raise ScenarioError(
            f"the cards do not make up the deck: extra {sorted(extra.elements())}, missing {sorted(short.elements())}"
        )
    default_to_act = None if phase == OVER else (dealer + 1) % players
    to_act = snap.get("to_act", default_to_act)
    if phase == OVER:
        if to_act is not None:
            raise ScenarioError("to_act is null once the game is over")
    else:
        to_act = _int(to_act, "to_act", 0, players - 1)
    state = replace(
        base,
        pack=(),
        phase=phase,
        deal=deal,
        dealer=dealer,
        to_act=to_act,
        hands=hands,
        stock=stock,
        discard=discard,
        melds=tuple(melds),
        contract_met=tuple(contract_met),
    )
    return _finish(state, snap, phase, players)


def _finish(state: State, snap: Mapping[str, Any], phase: str, players: int) -> State:
    turn = None
    turn_no = 0
    met_turn = (0,) * players
    known: tuple[tuple[str, ...], ...] = ((),) * players
    if phase == PLAY:
        assert state.to_act is not None
        seat = state.to_act
        turn = _turn(snap.get("turn"), state, seat)
        turn_no = 1
        if turn.went_down:
            met_turn = (*met_turn[:seat], 1, *met_turn[seat + 1 :])
        if turn.drew != STOCK:
            known = (*known[:seat], turn.taken, *known[seat + 1 :])
    elif snap.get("turn") is not None:
        raise ScenarioError("turn is null outside phase play")
    last = snap.get("last_deal_scores")
    last_scores = None if last is None else _ints(last, "last_deal_scores", players)
    winners_raw = snap.get("winners")
    winners = None
    if phase == OVER:
        winners = winners_of(state.scores) if winners_raw is None else tuple(winners_raw)
    elif winners_raw is not None:
        raise ScenarioError("winners is null until the game is over")
    state = replace(
        state,
        phase=phase,
        turn=turn,
        turn_no=turn_no,
        met_turn=met_turn,
        known=known,
        last_deal_scores=last_scores,
        winners=winners,
        to_act=None if phase == OVER else state.to_act,
    )
    if phase == DRAW and blocked_reason(state) is not None:
        raise ScenarioError("the snapshot's deal is already blocked (empty stock that cannot be refilled, A.12)")
    return state
