"""The weakest bot: a uniformly random legal command (any game)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any


class RandomPolicy:
    """Picks any legal command with equal chance."""

    def choose(self, view: Any, legal: Sequence[Any], rng: random.Random) -> Any:
        return legal[0] if len(legal) == 1 else legal[rng.randrange(len(legal))]
