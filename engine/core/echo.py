"""Repeating a client's input in a message: a short prefix of it, never the whole of it.

An error that quotes what it refuses helps its sender, but a message that quotes a
4 MB card code is a 4 MB message (and over gRPC a trailer past the peer's metadata limit,
which replaces the typed error with RESOURCE_EXHAUSTED). :func:`echo` quotes at most
:data:`ECHO_CHARS` characters of a value, in ASCII, and says how long the rest was;
:func:`clip` is the last guard on a whole message (the service applies it to every
error it sends).
"""

from __future__ import annotations

from typing import Final

#: The most characters of a client's value an error message quotes.
ECHO_CHARS: Final = 40
#: The most bytes (UTF-8) of one error text the service sends (message, metadata value).
MESSAGE_BYTES: Final = 512
_SIZED = (str, bytes, list, tuple, dict, set, frozenset)


def echo(value: object, limit: int = ECHO_CHARS) -> str:
    """``value`` as :func:`ascii` writes it, cut after ``limit`` characters with its length.

    ``echo("AS") == "'AS'"``; ``echo("x" * 10**6) == "'xxx...xxx...' (1,000,000 characters)"``.
    Non-ASCII characters are escaped, so the result is as many bytes as characters.
    """
    if isinstance(value, str | bytes):
        if len(value) <= limit:
            return ascii(value)
        quoted = ascii(value[:limit])
        unit = "characters" if isinstance(value, str) else "bytes"
        return f"{quoted[:-1]}...{quoted[-1]} ({len(value):,} {unit})"
    if isinstance(value, list | tuple):
        text = ascii(value[:limit])  # never the whole of a long list
    elif isinstance(value, dict | set | frozenset):
        items = list(value.items() if isinstance(value, dict) else value)[:limit]
        text = ascii(dict(items) if isinstance(value, dict) else items)
    elif isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 128:
        return f"an integer of {value.bit_length():,} bits"  # str() of a huge int is slow, or refused
    else:
        text = ascii(value)
    if len(text) <= limit:
        return text
    size = f" ({len(value):,} items)" if isinstance(value, _SIZED) else ""
    return f"{text[:limit]}...{size}"


def clip(text: str, limit: int = MESSAGE_BYTES) -> str:
    """``text`` cut to at most ``limit`` bytes of UTF-8 (at a character boundary), marked ``...``."""
    if len(text) * 4 <= limit:  # short enough whatever its characters
        return text
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    return data[: limit - 3].decode("utf-8", "ignore") + "..."
