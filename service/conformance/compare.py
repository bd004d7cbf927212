"""Partial comparison of state snapshots, with FORMAT.md's rules for each kind of list.

Lists of cards compare as multisets and other lists in order, with the same length, each
element partially, except the lists the game's
:class:`~cardgames.engine.core.protocol.Comparison` names: card lists in order (a stock,
a discard pile), lists of objects matched by a key (Seep's ``houses`` by ``value``), lists of
card lists as a multiset of card multisets (a house's ``components``), lists as sets (its
``owners``), and card lists in order when their object says so (a Contract Rummy run's
``cards``, where a set's are a multiset).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from cardgames.engine.core.protocol import Comparison


def _is_card_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _multiset(cards: list[str]) -> Counter[str]:
    return Counter(cards)


def mismatch(
    expected: Any, actual: Any, path: str = "", key: str = "", context: Any = None, rules: Comparison = Comparison()
) -> str | None:
    """None when ``actual`` satisfies the partial ``expected`` under the game's ``rules``; else where and how it
    differs."""
    where = path or "state"
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return f"{where}: expected an object, got {actual!r}"
        for name, wanted in expected.items():
            if name not in actual:
                return f"{where}.{name}: missing from the engine's snapshot"
            problem = mismatch(wanted, actual[name], f"{path}.{name}" if path else name, name, actual, rules)
            if problem:
                return problem
        return None
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return f"{where}: expected a list, got {actual!r}"
        keyed = dict(rules.keyed)
        if key in keyed:
            return _keyed(expected, actual, where, keyed[key], rules)
        if key in rules.sets:
            return None if set(expected) == set(actual) else f"{where}: expected {expected}, got {actual}"
        if key in rules.groups:
            want: list[list[tuple[str, int]]] = sorted(sorted(Counter(group).items()) for group in expected)
            got: list[list[tuple[str, int]]] = sorted(sorted(Counter(group).items()) for group in actual)
            return None if want == got else f"{where}: expected {expected}, got {actual}"
        if _is_card_list(expected) and _is_card_list(actual) and expected and _looks_like_cards(expected):
            same = expected == actual if _ordered(key, context, rules) else _multiset(expected) == _multiset(actual)
            return None if same else f"{where}: expected {expected}, got {actual}"
        if len(expected) != len(actual):
            return f"{where}: expected {len(expected)} entries {expected}, got {len(actual)}: {actual}"
        for index, (wanted, got_item) in enumerate(zip(expected, actual, strict=True)):
            problem = mismatch(wanted, got_item, f"{where}[{index}]", key, context, rules)
            if problem:
                return problem
        return None
    if expected != actual or (type(expected) is not type(actual) and not _numbers(expected, actual)):
        return f"{where}: expected {expected!r}, got {actual!r}"
    return None


def _ordered(key: str, context: Any, rules: Comparison) -> bool:
    """Whether the card list ``key`` (a field of the object ``context``) compares in order."""
    if key in rules.ordered:
        return True
    return isinstance(context, dict) and any(
        key == name and context.get(field) == value for name, field, value in rules.ordered_when
    )


def _numbers(a: Any, b: Any) -> bool:
    return (
        isinstance(a, int | float)
        and isinstance(b, int | float)
        and not isinstance(a, bool)
        and not isinstance(b, bool)
    )


def _looks_like_cards(items: list[str]) -> bool:
    return all(item[-1:] in "SHDC" or item.startswith("JK") for item in items)


def _keyed(expected: list[Any], actual: list[Any], where: str, by: str, rules: Comparison) -> str | None:
    """A list of objects compared as a set, each matched by its value of the field ``by``."""
    if len(expected) != len(actual):
        return f"{where}: expected {len(expected)} entries {expected}, got {len(actual)}: {actual}"
    found = {item.get(by): item for item in actual if isinstance(item, dict)}
    for item in expected:
        value = item.get(by)
        if value not in found:
            return f"{where}: no entry of {by} {value} in {actual}"
        problem = mismatch(item, found[value], f"{where}[{by}={value}]", rules=rules)
        if problem:
            return problem
    return None
