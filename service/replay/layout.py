"""A generic table drawn from any game's view (FORMAT.md-shaped data), for both renderers.

Nothing here names a game. The view's fields are sorted by their shape:

* per seat: ``hand`` (the viewer's own cards; every other seat is ``hand_sizes`` face-down
  cards), any list of card lists with one entry per seat (an All Fours view's ``exposed``)
  and any list of values with one entry per seat (``scores``);
* roles: the fields the game's :class:`~cardgames.engine.core.protocol.Layout` names as
  roles (``dealer`` and ``to_act`` in every game) are badges on their seat;
* on the table: a card, a list of cards, a list of card lists (by side, in the game's word
  for a side), objects holding cards (each object's other fields making its caption); the
  game's ``always`` areas are drawn even when empty;
* facts: every other value (phase, stock size, the last deal's account...).

A :class:`Table` is plain data (``msgspec.to_builtins`` gives the JSON the HTML page
draws); the terminal draws the same structure with rich.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

from cardgames.engine.core.cards import is_card, is_card_or_joker
from cardgames.engine.core.protocol import Layout

#: Fields drawn elsewhere or not worth showing.
SKIP = {"viewer", "hand", "hand_sizes", "hand_hidden", "players"}
SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


class Group(msgspec.Struct, frozen=True):
    """Cards shown together, with a caption (``"seat 1"``, ``"run, owner 2"``); ``parts`` splits them."""

    caption: str
    cards: tuple[str, ...]
    #: Where the cards split into parts (a house's components), as lengths; empty: one part.
    parts: tuple[int, ...] = ()


class Area(msgspec.Struct, frozen=True):
    label: str
    groups: tuple[Group, ...]


class Seat(msgspec.Struct, frozen=True):
    seat: int
    you: bool
    badges: tuple[str, ...]
    #: The seat's cards when the viewer may see them (its own hand), else None.
    cards: tuple[str, ...] | None
    count: int
    #: Per-seat card lists (``known``, ``exposed``) and values (``score``), by label.
    extras: tuple[Area, ...]
    facts: tuple[tuple[str, str], ...]
    #: A note instead of the hand (the game's ``held_back``, when the view hides the viewer's hand).
    note: str = ""


class Table(msgspec.Struct, frozen=True):
    seats: tuple[Seat, ...]
    areas: tuple[Area, ...]
    facts: tuple[tuple[str, str], ...]


def is_card_code(value: Any) -> bool:
    """A card code: ``AS``, ``10D``, ``JK``, or a joker with its declared face ``JK=7H``."""
    return is_card_or_joker(value) or (isinstance(value, str) and value.startswith("JK=") and is_card(value[3:]))


def _label(key: str) -> str:
    return key.replace("_", " ")


def _cards(value: Any) -> bool:
    return isinstance(value, list) and all(is_card_code(item) for item in value)


def _card_lists(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(_cards(item) for item in value)


def _holds_cards(value: Any) -> bool:
    """An object with a card, a list of cards or a list of card lists among its fields."""
    return isinstance(value, dict) and any(
        is_card_code(item) or (_cards(item) and item) or _card_lists(item) for item in value.values()
    )


def text(value: Any, key: str = "") -> str:
    """A short text for a plain value (a suit letter of a ``trump``/``suit`` field as its symbol)."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str) and value in SUIT_SYMBOLS and ("suit" in key or "trump" in key):
        return SUIT_SYMBOLS[value]
    if isinstance(value, list):
        return " | ".join(text(item, key) for item in value) if value else "-"
    if isinstance(value, dict):
        return ", ".join(f"{_label(name)} {text(item, name)}" for name, item in value.items() if item not in ([], None))
    return str(value)


def _group(item: Mapping[str, Any], players: int) -> Group:
    """One object holding cards: its cards (in field order) and a caption from its other fields."""
    cards: list[str] = []
    parts: list[int] = []
    caption = []
    for key, value in item.items():
        if is_card_code(value) and key == "card":
            cards.append(value)
            parts.append(1)
        elif is_card_code(value):
            caption.append(f"{_label(key)} {value}")
        elif _cards(value):
            cards.extend(value)
            parts.append(len(value))
        elif _card_lists(value):
            for component in value:
                cards.extend(component)
                parts.append(len(component))
        elif key in ("seat", "owner") and isinstance(value, int):
            caption.append(f"seat {value}")
        elif key == "kind" and isinstance(value, str):
            caption.append(value)
        elif key == "owners" and isinstance(value, list):
            caption.append(("owners " if len(value) > 1 else "owner ") + " ".join(map(str, value)))
        elif value not in (None, "", [], False) and key != "placed_by":
            caption.append(_label(key) if value is True else f"{_label(key)} {text(value, key)}")
    return Group(", ".join(caption), tuple(cards), tuple(parts) if len(parts) > 1 else ())


def _indexed(lists: Sequence[Sequence[str]], players: int, side: str) -> tuple[Group, ...]:
    who = "seat" if len(lists) == players else side
    return tuple(Group(f"{who} {index}", tuple(cards)) for index, cards in enumerate(lists))


def layout(view: Mapping[str, Any], hints: Layout = Layout()) -> Table:
    """The table of one view (plain data, as ``msgspec.to_builtins`` gives it), with the game's
    :class:`~cardgames.engine.core.protocol.Layout`."""
    roles = dict(hints.roles)
    always = hints.always
    viewer = view.get("viewer")
    sizes = view.get("hand_sizes")
    players = len(sizes) if isinstance(sizes, list) else int(view.get("players") or 0)
    badges: dict[int, list[str]] = {seat: [] for seat in range(players)}
    extras: dict[int, list[Area]] = {seat: [] for seat in range(players)}
    seat_facts: dict[int, list[tuple[str, str]]] = {seat: [] for seat in range(players)}
    areas: list[Area] = []
    facts: list[tuple[str, str]] = []
    for key, value in view.items():
        if key in SKIP:
            continue
        if key in roles:
            if isinstance(value, int) and value in badges:
                badges[value].append(roles[key])
            continue
        label = _label(key)
        per_seat = isinstance(value, list) and players > 1 and len(value) == players
        if is_card_code(value):
            areas.append(Area(label, (Group("", (value,)),)))
        elif _cards(value) and (value or key in always):
            areas.append(Area(label, (Group("", tuple(value)),)))
        elif _card_lists(value):
            if per_seat:
                for seat, cards in enumerate(value):
                    if cards:
                        extras[seat].append(Area(label, (Group("", tuple(cards)),)))
            elif any(value):
                areas.append(Area(label, _indexed(value, players, hints.side)))
        elif isinstance(value, list) and value and all(_holds_cards(item) for item in value):
            areas.append(Area(label, tuple(_group(item, players) for item in value)))
        elif isinstance(value, list) and not value and key in always:
            areas.append(Area(label, ()))
        elif _holds_cards(value):
            areas.append(Area(label, (_group(value, players),)))
        elif per_seat and all(not isinstance(item, list | dict) for item in value):
            for seat, item in enumerate(value):
                seat_facts[seat].append((label, text(item, key)))
        elif value is not None and value != []:
            facts.append((label, text(value, key)))
    hand = view.get("hand")
    hidden = bool(view.get("hand_hidden"))
    seats = tuple(
        Seat(
            seat=seat,
            you=seat == viewer,
            badges=tuple(badges[seat]),
            cards=tuple(hand) if seat == viewer and isinstance(hand, list) and not hidden else None,
            count=int(sizes[seat]) if isinstance(sizes, list) else 0,
            extras=tuple(extras[seat]),
            facts=tuple(seat_facts[seat]),
            note=hints.held_back if seat == viewer and hidden else "",
        )
        for seat in range(players)
    )
    return Table(seats, tuple(areas), tuple(facts))


def card_text(code: str) -> tuple[str, str]:
    """A card's face and colour: ``("10♥", "red")``, ``("A♠", "black")``, ``("JK", "joker")``."""
    if code.startswith("JK"):
        face = code[3:]
        return ("JK" + (f"={face[:-1]}{SUIT_SYMBOLS[face[-1]]}" if face else ""), "joker")
    suit = code[-1]
    return code[:-1] + SUIT_SYMBOLS.get(suit, suit), "red" if suit in "HD" else "black"
