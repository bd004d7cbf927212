"""How long a call waited before the server's code saw it, estimated from its deadline, per caller.

gRPC sets a call's deadline when its transport reads it, so the time the call then waits for the
event loop to take it (gRPC's backlog, a CPU) comes off its ``time_remaining()``. A caller mostly
sends the same timeout: the most time to its deadline one of its recent calls had is the
reference, and a call waited what it has less, but for the precision of the timeout's encoding on
the wire (``QUANTUM``: gRPC rounds 29.5 s up to 30 s, 30 s to 30.1 s). Admission control
(service/admission.py) refuses calls when these waits grow.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Final

from cardgames.service.guards import Key

#: The precision of a timeout as gRPC sends it, a fraction of it: differences within are no wait.
QUANTUM: Final = 0.005
#: Callers whose deadline slack is kept (the least recently seen go first): about 10 MB full.
MAX_CALLERS: Final = 100_000
#: Seconds after its last call that a caller's deadline slack is forgotten (a finished match's seats
#: call no more: without this the table would only shrink at ``MAX_CALLERS``). A seat that plays calls
#: every few seconds; one that comes back later starts a new reference (its first call: no wait).
CALLER_MEMORY: Final = 120.0


class DeadlineSlack(OrderedDict[Key, tuple[float, float]]):
    """Per caller, the most time to its deadline one of its recent calls had on arrival, and when it
    last called (the clock's seconds); least recently seen first."""

    def waited(self, caller: Key, remaining: float, now: float) -> float:
        """How long this call of ``caller``, with ``remaining`` seconds to its deadline, waited (estimated).

        The reference follows a caller whose timeouts shrink (1% of the difference a call) or grow (a
        ``QUANTUM`` a call at most); a caller is forgotten ``CALLER_MEMORY`` seconds after its last
        call, and at most ``MAX_CALLERS`` are kept.
        """
        seen = self.get(caller)
        best = None if seen is None else seen[0]
        waited = 0.0 if best is None else max(0.0, best - remaining - best * QUANTUM)
        if best is None:
            reference = remaining
        elif remaining > best:  # up slowly: one call sent with a timeout rounded up a second is no reference
            reference = min(remaining, best * (1 + QUANTUM))
        else:
            reference = best - (best - remaining) * 0.01
        self[caller] = (reference, now)
        self.move_to_end(caller)
        self._forget(now)
        return waited

    def _forget(self, now: float) -> None:
        """Drop the callers not seen for ``CALLER_MEMORY`` seconds, and the least recent beyond ``MAX_CALLERS``."""
        while len(self) > MAX_CALLERS:
            self.popitem(last=False)
        while self:
            oldest = next(iter(self.values()))
            if now - oldest[1] <= CALLER_MEMORY:
                return
            self.popitem(last=False)
