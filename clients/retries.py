"""When the clients and the bots send a call again: an unreachable service, or a refusal with a retry hint.

Two kinds of waiting, both bounded and jittered:

* the service cannot be reached (UNAVAILABLE, DEADLINE_EXCEEDED): exponential backoff
  (:meth:`Retry.delays`), for reads and watches only, up to :attr:`Retry.timeout` seconds;
* the service refused the call with RESOURCE_EXHAUSTED and a retry hint (a
  ``google.rpc.RetryInfo``, or the ``grpc-retry-pushback-ms`` trailer): it did nothing, so
  the same call may be sent again, never before the hint and a little after it (a random
  ``hint x [1, 1 + jitter)``: clients refused at the same moment do not all come back at the
  same moment), at most :attr:`Retry.refusals` times in a row and within
  :attr:`Retry.timeout` seconds (:class:`Refusals`). A RESOURCE_EXHAUSTED without a hint
  is not resent.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import grpc

from cardgames.clients.errors import RateLimited, from_rpc_error


@dataclass(frozen=True)
class Retry:
    """How the client waits for an unreachable service (exponential backoff with jitter) and for a
    refusal with a retry hint (the hint, jittered upwards).

    ``timeout`` bounds how long one call or one watch keeps trying (unreachable, or refused)
    before it raises :class:`ServiceUnavailable` (or the last :class:`RateLimited`);
    ``call_timeout`` bounds one attempt; ``refusals`` is how many refusals in a row of one call
    (or of one watch's opening) are answered by sending it again; ``jitter``: a resend waits a
    random ``hint x [1, 1 + jitter)``.
    """

    timeout: float = 60.0
    initial: float = 0.05
    maximum: float = 1.0
    multiplier: float = 2.0
    call_timeout: float = 30.0
    refusals: int = 10
    jitter: float = 0.5

    def delays(self, rng: random.Random) -> Iterator[float]:
        """The pauses between attempts: initial, x multiplier, ... capped at maximum, each jittered."""
        delay = self.initial
        while True:
            yield delay * (0.5 + rng.random() / 2)
            delay = min(self.maximum, delay * self.multiplier)

    def pushback(self, hint: float, rng: random.Random) -> float:
        """The pause before resending a call refused with ``hint`` seconds: never less than the hint."""
        return hint * (1.0 + self.jitter * rng.random())


class Refusals:
    """The refusals in a row of one call (or one stream's opening), and the pause before each resend.

    ``wait(error)`` is None when the call is not to be sent again: it was not refused with a
    retry hint, or it was refused ``retry.refusals`` times already, or the pause would take it
    past ``retry.timeout`` seconds after its first refusal. ``reset()`` after an answer.
    """

    def __init__(self, retry: Retry, rng: random.Random, clock: Callable[[], float] = time.monotonic) -> None:
        self.retry = retry
        self.rng = rng
        self.clock = clock
        self.count = 0
        self.since: float | None = None
        self.last: RateLimited | None = None

    def reset(self) -> None:
        self.count, self.since, self.last = 0, None, None

    def pause(self, refused: RateLimited) -> float | None:
        """The pause before resending the call ``refused`` answered; None: give up (``refused.refusals`` says
        how many refusals in a row that makes)."""
        now = self.clock()
        self.since = now if self.since is None else self.since
        self.count += 1
        self.last = refused
        refused.refusals = self.count
        if self.count > self.retry.refusals:
            return None
        pause = self.retry.pushback(refused.retry_after, self.rng)
        return pause if now + pause - self.since <= self.retry.timeout else None

    def wait(self, error: grpc.aio.AioRpcError) -> float | None:
        """:meth:`pause` for a failed gRPC call (None when it is no refusal with a retry hint)."""
        failure = from_rpc_error(error)
        return self.pause(failure) if isinstance(failure, RateLimited) else None
