"""Small pieces of English for the games' lines and messages: counts with their nouns, "a" or "an"."""

from __future__ import annotations


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """``1 baazi``, ``2 baazis`` (``nouns``: the plural when it is not ``noun + "s"``)."""
    return f"{count} {noun if count == 1 else nouns or noun + 's'}"


def a_number(number: int) -> str:
    """The number with its article as it is read aloud: ``a 10``, ``an 11``, ``an 8``, ``a 100``, ``an 800``."""
    leading = f"{abs(number):,}".split(",")[0]  # eleven thousand, eighteen million, eight hundred...
    vowel = number >= 0 and (leading in ("11", "18") or leading.startswith("8"))
    return f"{'an' if vowel else 'a'} {number}"
