"""The commands each viewer tries at a position: well-formed commands naming every card.

A battery is built from what the viewer sees (its view, its listing) and a random source
of its own, never from the state, so it is the same in every world of the viewer. All Fours
gets every command naming every card (its commands are few); Seep and Contract Rummy, whose
commands name several cards, random commands of every kind, each card drawn from the whole
pack (other seats' cards, the stock's and the played ones alike), so that over the test's
positions every card is named in every role; and a sample of the viewer's listed commands.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from cardgames.engine.contract_rummy.config import deck_for
from cardgames.engine.core.cards import JOKER, STANDARD_PACK
from cardgames.engine.core.commands import to_dict

#: How many commands of the pool Seep and Contract Rummy try per viewer and position, and how
#: many of the viewer's listed commands besides.
SAMPLE = 40
LISTED = 8


def _listed(listing: Sequence[Any], rng: random.Random) -> list[dict[str, Any]]:
    if not listing:
        return []
    if isinstance(listing[0], int):  # a long listing's sample: [length, command, ...]
        listing = listing[1:]
    return [to_dict(command) for command in rng.sample(list(listing), min(LISTED, len(listing)))]


def all_fours(players: int) -> list[dict[str, Any]]:
    """Every decision, every play and every call of every card for every owner (and a few malformed):
    the listed commands are among them."""
    commands: list[dict[str, Any]] = [{"type": kind} for kind in ("stand", "beg", "give_one", "run_pack")]
    commands += [{"type": "play", "card": card} for card in STANDARD_PACK]
    for owner in range(players):
        commands += [{"type": "call", "owner": owner, "card": card} for card in STANDARD_PACK]
    commands += [
        {"type": "play", "card": "ZZ"},
        {"type": "call", "owner": players, "card": "AS"},
        {"type": "call", "owner": 0, "card": "1X"},
    ]
    return commands


def _sample(templates: Sequence[Callable[[], dict[str, Any]]], rng: random.Random) -> list[dict[str, Any]]:
    return [rng.choice(templates)() for _ in range(SAMPLE)]


def seep(view: Any, listing: Sequence[Any], rng: random.Random) -> list[dict[str, Any]]:
    """Bids, and throws, captures, builds and breaks of any card, with groups naming any card."""
    pack = list(STANDARD_PACK)
    loose = list(view.loose) or pack
    houses = [house.value for house in view.houses] or [9, 10, 11, 12, 13]

    def card() -> str:
        return rng.choice(pack)

    templates: list[Callable[[], dict[str, Any]]] = [
        lambda: {"type": "bid", "value": rng.randrange(8, 15)},
        lambda: {"type": "throw", "card": card()},
        lambda: {"type": "capture", "card": card(), "groups": []},
        lambda: {"type": "capture", "card": card(), "groups": [[card()]]},
        lambda: {"type": "capture", "card": card(), "groups": [[rng.choice(loose)], [card(), card()]]},
        lambda: {"type": "build", "card": (x := card()), "value": rng.randrange(9, 14), "groups": [[x, card()]]},
        lambda: {
            "type": "build",
            "card": (played := card()),
            "value": rng.randrange(9, 14),
            "groups": [[played, rng.choice(loose)], [card()]],
        },
        lambda: {"type": "break", "card": card(), "house": rng.choice(houses)},
    ]
    return _sample(templates, rng) + _listed(listing, rng)


def contract_rummy(view: Any, listing: Sequence[Any], rng: random.Random, deck_policy: str) -> list[dict[str, Any]]:
    """Draws, digs, discards, melds, lay-offs and joker swaps naming any card of the deck."""
    cards = sorted(set(deck_for(deck_policy, view.players)) - {JOKER})
    melds = len(view.melds)

    def card() -> str:
        return rng.choice(cards)

    def meld() -> int:
        return rng.randrange(melds + 1)

    def dug() -> tuple[int, str]:
        depth = rng.randrange(2, len(view.discard) + 3)
        return depth, view.discard[depth - 1] if depth <= len(view.discard) else card()

    def same_rank() -> list[str]:
        rank = card()[:-1]
        return [f"{rank}{suit}" for suit in rng.sample("SHDC", 3)]

    templates: list[Callable[[], dict[str, Any]]] = [
        lambda: {"type": "draw_stock"},
        lambda: {"type": "draw_discard"},
        lambda: {"type": "discard", "card": rng.choice([*cards[:4], JOKER, card()])},
        lambda: {"type": "discard", "card": card()},
        lambda: {"type": "meld", "melds": [[card(), card(), card()]]},
        lambda: {"type": "meld", "melds": [same_rank(), [card(), card(), card()]]},
        lambda: {"type": "meld", "melds": [[card(), f"{JOKER}={card()}", card()]]},
        lambda: {"type": "lay_off", "card": card(), "meld": meld()},
        lambda: {"type": "swap_joker", "card": card(), "meld": meld(), "joker_to": {"meld": meld(), "as": card()}},
        lambda: {"type": "dig", "depth": (d := dug())[0], "then": [{"type": "meld", "melds": [[d[1], card(), "JK"]]}]},
        lambda: {"type": "dig", "depth": (d := dug())[0], "then": [{"type": "lay_off", "card": d[1], "meld": meld()}]},
    ]
    return _sample(templates, rng) + _listed(listing, rng)


def battery(game_name: str, config: Any, view: Any, listing: Sequence[Any], rng: random.Random) -> list[dict[str, Any]]:
    """The viewer's commands at a position (FORMAT.md dicts)."""
    if game_name == "all_fours":
        return all_fours(config.players)
    if game_name == "seep":
        return seep(view, listing, rng)
    return contract_rummy(view, listing, rng, config.deck_policy)
