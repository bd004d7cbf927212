"""Partial comparison of state snapshots, with FORMAT.md's rules for each kind of list.

Lists of cards compare as multisets, except ``stock``, ``discard`` and ``set_aside``
(in order). ``houses`` compare as a set matched by ``value``; their ``components`` as
a multiset of card multisets; ``owners`` as a set. Other lists of objects compare in
order, with the same length, each element partially. A run's ``cards`` are in order,
a set's are a multiset.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

ORDERED_CARD_LISTS = frozenset({"stock", "discard", "set_aside"})


def _is_card_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _multiset(cards: list[str]) -> Counter[str]:
    return Counter(cards)


def mismatch(expected: Any, actual: Any, path: str = "", key: str = "", context: Any = None) -> str | None:
    """None when ``actual`` satisfies the partial ``expected``; else where and how it differs."""
    where = path or "state"
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return f"{where}: expected an object, got {actual!r}"
        for name, wanted in expected.items():
            if name not in actual:
                return f"{where}.{name}: missing from the engine's snapshot"
            problem = mismatch(wanted, actual[name], f"{path}.{name}" if path else name, name, actual)
            if problem:
                return problem
        return None
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return f"{where}: expected a list, got {actual!r}"
        if key == "houses":
            return _houses(expected, actual, where)
        if key == "owners":
            return None if set(expected) == set(actual) else f"{where}: expected {expected}, got {actual}"
        if key == "components":
            want: list[list[tuple[str, int]]] = sorted(sorted(Counter(group).items()) for group in expected)
            got: list[list[tuple[str, int]]] = sorted(sorted(Counter(group).items()) for group in actual)
            return None if want == got else f"{where}: expected {expected}, got {actual}"
        if _is_card_list(expected) and _is_card_list(actual) and expected and _looks_like_cards(expected):
            ordered = key in ORDERED_CARD_LISTS or (
                key == "cards" and isinstance(context, dict) and context.get("kind") == "run"
            )
            same = expected == actual if ordered else _multiset(expected) == _multiset(actual)
            return None if same else f"{where}: expected {expected}, got {actual}"
        if len(expected) != len(actual):
            return f"{where}: expected {len(expected)} entries {expected}, got {len(actual)}: {actual}"
        for index, (wanted, got) in enumerate(zip(expected, actual, strict=True)):
            problem = mismatch(wanted, got, f"{where}[{index}]", key, context)
            if problem:
                return problem
        return None
    if expected != actual or (type(expected) is not type(actual) and not _numbers(expected, actual)):
        return f"{where}: expected {expected!r}, got {actual!r}"
    return None


def _numbers(a: Any, b: Any) -> bool:
    return (
        isinstance(a, int | float)
        and isinstance(b, int | float)
        and not isinstance(a, bool)
        and not isinstance(b, bool)
    )


def _looks_like_cards(items: list[str]) -> bool:
    return all(item[-1:] in "SHDC" or item.startswith("JK") for item in items)


def _houses(expected: list[Any], actual: list[Any], where: str) -> str | None:
    if len(expected) != len(actual):
        return f"{where}: expected {len(expected)} houses {expected}, got {len(actual)}: {actual}"
    by_value = {house.get("value"): house for house in actual if isinstance(house, dict)}
    for house in expected:
        value = house.get("value")
        if value not in by_value:
            return f"{where}: no house of value {value} in {actual}"
        problem = mismatch(house, by_value[value], f"{where}[value={value}]")
        if problem:
            return problem
    return None
