"""The canonical encoding of log data (docs/log-format.md, "Canonical encoding").

``canonical(value)`` is the JSON text of FORMAT.md-shaped data with

* object keys sorted (by code point; every key of the format is ASCII),
* no whitespace between tokens,
* strings as ``JSON.stringify`` writes them: ``"`` and ``\\`` escaped, the control
  characters U+0000..U+001F escaped (``\\b \\f \\n \\r \\t`` short, the others as
  ``\\u00xx`` in lower-case hex), everything else as itself,
* integers in decimal (the format holds no other numbers), ``true``, ``false``, ``null``,

encoded as UTF-8. It is what ``JSON.stringify`` gives for the same value with sorted
keys, so a verifier in another language can reproduce it. A msgspec struct encodes to
the same bytes as its ``msgspec.to_builtins`` form (tag and renamed fields included),
which lets the service hash its event structs without converting them first.
"""

from __future__ import annotations

from typing import Any

import msgspec

_encoder = msgspec.json.Encoder(order="sorted")


def canonical(value: Any) -> bytes:
    """The canonical UTF-8 JSON bytes of ``value`` (plain data or msgspec structs)."""
    return _encoder.encode(value)
