"""The FORMAT.md state snapshot of Seep, and states built from (partial) snapshots."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from cardgames.engine.core.cards import STANDARD_PACK
from cardgames.engine.core.chance import Chance
from cardgames.engine.core.protocol import ScenarioError, Setup
from cardgames.engine.seep.cards import HOUSE_VALUES, PLAYS_PER_DEAL, VALUE
from cardgames.engine.seep.config import Config
from cardgames.engine.seep.rules import fallback_seed
from cardgames.engine.seep.state import BID, OVER, PLAY, START, House, LastDeal, State
from cardgames.engine.seep.turn import actor

KEYS = frozenset(
    {
        "dealer", "phase", "to_act", "bid", "plays", "redeals", "hands", "stock", "floor", "piles",
        "sweeps", "last_capture_team", "last_deal_points", "last_deal", "difference", "baazis",
    }
)  # fmt: skip
LAST_DEAL_KEYS = frozenset({"card_points", "sweeps", "leftover", "leftover_to", "baazi_winner"})


def _house(house: House) -> dict[str, Any]:
    return {
        "value": house.value,
        "components": [list(component) for component in house.components],
        "owners": list(house.owners),
    }


def snapshot(state: State) -> dict[str, Any]:
    last = state.last_deal
    return {
        "dealer": state.dealer,
        "phase": BID if state.phase == START else state.phase,
        "to_act": actor(state),
        "bid": state.bid,
        "plays": state.plays,
        "redeals": state.redeals,
        "hands": [list(hand) for hand in state.hands],
        "stock": list(state.stock),
        "floor": {"loose": list(state.loose), "houses": [_house(house) for house in state.houses]},
        "piles": [list(pile) for pile in state.piles],
        "sweeps": list(state.sweeps),
        "last_capture_team": state.last_capture_team,
        "last_deal_points": None if state.last_deal_points is None else list(state.last_deal_points),
        "last_deal": None
        if last is None
        else {
            "card_points": list(last.card_points),
            "sweeps": list(last.sweeps),
            "leftover": list(last.leftover),
            "leftover_to": last.leftover_to,
            "baazi_winner": last.baazi_winner,
        },
        "difference": state.difference,
        "baazis": list(state.baazis),
    }


# --------------------------------------------------------------------------- reading


def _fail(message: str) -> ScenarioError:
    return ScenarioError(f"Seep snapshot: {message}")


def _int(value: Any, name: str, low: int | None = None, high: int | None = None) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise _fail(f"{name} must be an integer, got {value!r}")
    if (low is not None and value < low) or (high is not None and value > high):
        raise _fail(f"{name} must be in {low}..{high}, got {value!r}")
    return value


def _optional_int(value: Any, name: str, low: int, high: int) -> int | None:
    return None if value is None else _int(value, name, low, high)


def _cards(value: Any, name: str) -> tuple[str, ...]:
    if not isinstance(value, list | tuple):
        raise _fail(f"{name} must be a list of cards, got {value!r}")
    for card in value:
        if card not in VALUE:
            raise _fail(f"{name}: unknown card code {card!r}")
    return tuple(value)


def _pair(value: Any, name: str) -> tuple[int, int]:
    if not isinstance(value, list | tuple) or len(value) != 2:
        raise _fail(f"{name} must be a pair of integers, got {value!r}")
    return (_int(value[0], name), _int(value[1], name))


def _houses(value: Any) -> tuple[House, ...]:
    if not isinstance(value, list | tuple):
        raise _fail(f"floor.houses must be a list, got {value!r}")
    houses = []
    for raw in value:
        if not isinstance(raw, Mapping) or set(raw) - {"value", "components", "owners"}:
            raise _fail(f"a house is {{value, components, owners}}, got {raw!r}")
        house_value = _int(raw.get("value"), "house value", 9, 13)
        components = tuple(_cards(part, f"{house_value}-house component") for part in raw.get("components", ()))
        owners = tuple(sorted(_int(owner, f"{house_value}-house owner", 0, 3) for owner in raw.get("owners", ())))
        for part in components:
            if not part or sum(VALUE[card] for card in part) != house_value:
                raise _fail(f"the {house_value}-house component {list(part)} does not add up to {house_value}")
        if sum(len(part) for part in components) < 2:
            raise _fail(f"the {house_value}-house holds fewer than two cards")
        if not owners or len(set(owners)) != len(owners):
            raise _fail(f"the {house_value}-house needs distinct owners, got {list(owners)}")
        if len(components) == 1 and len(owners) != 1:
            raise _fail(f"the ordinary {house_value}-house must have exactly one owner")
        houses.append(House(value=house_value, components=components, owners=owners))
    houses.sort(key=lambda house: house.value)
    if len({house.value for house in houses}) != len(houses):
        raise _fail("at most one house of each value (F1)")
    return tuple(houses)


def _last_deal(value: Any) -> LastDeal | None:
    if value is None:
        return None
    if not isinstance(value, Mapping) or set(value) - LAST_DEAL_KEYS:
        raise _fail(f"last_deal must be null or {{{', '.join(sorted(LAST_DEAL_KEYS))}}}, got {value!r}")
    return LastDeal(
        card_points=_pair(value.get("card_points", [0, 0]), "last_deal.card_points"),
        sweeps=_pair(value.get("sweeps", [0, 0]), "last_deal.sweeps"),
        leftover=_cards(value.get("leftover", []), "last_deal.leftover"),
        leftover_to=_optional_int(value.get("leftover_to"), "last_deal.leftover_to", 0, 1),
        baazi_winner=_optional_int(value.get("baazi_winner"), "last_deal.baazi_winner", 0, 1),
    )


def plays_made(dealer: int, plays: int, seat: int) -> int:
    """How many of plays #1..#plays seat ``seat`` made (play #k is seat d+k, A14)."""
    return sum(1 for k in range(1, plays + 1) if (dealer + k) % 4 == seat)


def from_snapshot(config: Config, snap: Mapping[str, Any], setup: Setup) -> State:
    """A state from a (partial) snapshot: missing keys take fresh-deal values (FORMAT.md).

    Raises ScenarioError when the position breaks the rules' invariants (A6 F1-F5, A14)."""
    if not isinstance(snap, Mapping):
        raise _fail("a snapshot is an object")
    unknown = set(snap) - KEYS
    if unknown:
        raise _fail(f"unknown keys {sorted(unknown)}")
    dealer = _int(snap.get("dealer", 0), "dealer", 0, 3)
    bid = _optional_int(snap.get("bid"), "bid", 9, 13)
    phase = snap.get("phase")
    if phase is None:
        phase = BID if bid is None and snap.get("plays", 0) == 0 else PLAY
    if phase not in (BID, PLAY, OVER):
        raise _fail(f"phase must be bid, play or over, got {phase!r}")
    plays = _int(snap.get("plays", PLAYS_PER_DEAL if phase == OVER else 0), "plays", 0, PLAYS_PER_DEAL)
    hands_raw = snap.get("hands", [[], [], [], []])
    if not isinstance(hands_raw, list | tuple) or len(hands_raw) != 4:
        raise _fail("hands must list 4 hands")
    hands = tuple(_cards(hand, f"hands[{seat}]") for seat, hand in enumerate(hands_raw))
    floor = snap.get("floor", {})
    if not isinstance(floor, Mapping) or set(floor) - {"loose", "houses"}:
        raise _fail(f"floor must be {{loose, houses}}, got {floor!r}")
    loose = _cards(floor.get("loose", []), "floor.loose")
    houses = _houses(floor.get("houses", []))
    piles_raw = snap.get("piles", [[], []])
    if not isinstance(piles_raw, list | tuple) or len(piles_raw) != 2:
        raise _fail("piles must list 2 piles")
    piles = (_cards(piles_raw[0], "piles[0]"), _cards(piles_raw[1], "piles[1]"))
    placed = [card for hand in hands for card in hand] + list(loose) + [c for h in houses for c in h.cards()]
    placed += list(piles[0]) + list(piles[1])
    if "stock" in snap:
        stock = _cards(snap["stock"], "stock")
    else:
        taken = set(placed)
        stock = tuple(card for card in STANDARD_PACK if card not in taken) if plays == 0 and phase != OVER else ()
    every = Counter(placed + list(stock))
    twice = sorted(card for card, count in every.items() if count > 1)
    if twice:
        raise _fail(f"cards named twice: {twice}")
    if len(every) != 52:
        raise _fail(f"hands, floor, piles and stock hold {len(every)} cards, not 52 (F5)")

    state = State(
        config=config,
        chance=Chance(seed=setup.seed or fallback_seed(dict(snap)), decks=setup.decks),
        phase=phase,
        dealer=dealer,
        bid=bid,
        plays=plays,
        redeals=_int(snap.get("redeals", 0), "redeals", 0),
        deal_no=1,
        hands=hands,
        stock=stock,
        loose=loose,
        houses=houses,
        piles=piles,
        sweeps=_pair(snap.get("sweeps", [0, 0]), "sweeps"),
        last_capture_team=_optional_int(snap.get("last_capture_team"), "last_capture_team", 0, 1),
        last_deal_points=None
        if snap.get("last_deal_points") is None
        else _pair(snap["last_deal_points"], "last_deal_points"),
        last_deal=_last_deal(snap.get("last_deal")),
        difference=_int(snap.get("difference", 0), "difference"),
        baazis=_pair(snap.get("baazis", [0, 0]), "baazis"),
    )
    _check_position(state)
    if "to_act" in snap and snap["to_act"] != actor(state):
        raise _fail(f"to_act is {snap['to_act']!r} but the position has seat {actor(state)!r} to act")
    return state


def _check_position(state: State) -> None:
    """The deal-stage invariants of FORMAT.md and A14; the floor invariants F1-F4."""
    dealer, plays, phase = state.dealer, state.plays, state.phase
    bidder = (dealer + 1) % 4
    sizes = [len(hand) for hand in state.hands]
    if phase == OVER:
        if plays != PLAYS_PER_DEAL or any(sizes) or state.loose or state.houses or state.stock:
            raise _fail("a finished match has 48 plays, empty hands, floor and stock")
        return
    if plays == 0:
        expected = [4 if seat == bidder else 0 for seat in range(4)]
        if sizes != expected or len(state.loose) != 4 or state.houses or len(state.stock) != 44:
            raise _fail("before play #1 the bidder holds 4 cards, the floor 4, the stock 44, the others none")
        held = [VALUE[card] for card in state.hands[bidder]]
        if phase == BID:
            if state.bid is not None:
                raise _fail("in phase bid the bid is null")
            if max(held) <= 8:
                raise _fail("in phase bid the bidder holds a card above 8 (else the deal is void)")
        elif state.bid is None or state.bid not in held:
            raise _fail("before play #1 in phase play the bid is a value the bidder holds")
    else:
        if phase == BID:
            raise _fail("phase bid has no plays")
        if plays >= PLAYS_PER_DEAL:
            raise _fail("a deal in play has made at most 47 plays")
        if state.stock:
            raise _fail("the stock is empty after play #1")
        expected = [12 - plays_made(dealer, plays, seat) for seat in range(4)]
        if sizes != expected:
            raise _fail(f"after {plays} plays with dealer {dealer} the hands hold {expected} cards, not {sizes}")
    values = {house.value for house in state.houses}
    clash = [card for card in state.loose if VALUE[card] in values]
    if clash:
        raise _fail(f"loose cards of a house's value (F2): {clash}")
    for house in state.houses:
        for owner in house.owners:
            if not any(VALUE[card] == house.value for card in state.hands[owner]):
                raise _fail(f"seat {owner} owns the {house.value}-house but holds no card of value {house.value} (F4)")
    assert set(values) <= set(HOUSE_VALUES)
