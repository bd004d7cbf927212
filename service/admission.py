"""Admission control: a bound on the calls one process works on at once, fair per caller.

Past its capacity a server that takes every call only makes every call slower: on 2 cores,
2,000 concurrent matches left each call seconds in the event loop's queue, callers gave up
(their deadline passed) while the server still worked for them, and goodput halved
(docs/operations.md, "Overload"). :class:`Admission` decides, before any work, whether a call
runs now, waits a little, or is refused at once:

* At most ``max_in_flight`` calls run at once. Writes (SubmitCommand, CreateGame, ...) may take
  every slot; reads (GetView, ListLegalCommands, GetLog) only ``read_share`` of them, and a
  waiting write goes before any waiting read: reads degrade first.
* A call that finds no slot waits in a queue only as long as it can still be served in time:
  its estimated wait (its place in the queue over the recent completion rate) must be within
  ``max_wait`` (half that for a read) and leave room, before its deadline, for a call's recent
  service time. Otherwise, or when its wait runs out, it is refused.
* A caller (a seat token, or a client address for calls without one; with rate limits on, the
  same key as :class:`cardgames.service.guards.RateLimit`'s) holds at most ``caller_share`` of
  the slots, running and queued together: one greedy client cannot take them all.
* ``Watch`` streams are counted apart (at most ``max_watches``) and a new one is refused as soon
  as reads would queue.
* Waits before the server's code count too: a call's wait in gRPC's backlog (estimated from its
  deadline: :meth:`Admission.waited`) or the event loop's lag past ``max_delay`` / ``max_lag``
  refuse reads and CreateGame at once, writes past twice that.

A refusal is RESOURCE_EXHAUSTED with ``ErrorInfo.reason`` ``OVERLOADED``, a ``google.rpc.RetryInfo``
and the ``grpc-retry-pushback-ms`` trailer (as the rate limits': guards.limited_status). The
pushback adapts: it grows while refusals outnumber ``refusal_budget`` x the completions (retries
would otherwise cost as much as the work) and shrinks when they do not. A call whose deadline has
passed, or whose client cancelled it, is never started.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any, Final

import grpc

from cardgames.service.deadline_slack import DeadlineSlack
from cardgames.service.grpc_api import SERVICE_NAME
from cardgames.service.guards import (
    Key,
    RateLimit,
    ServiceGuard,
    address_of,
    limited_status,
    token_digest,
    wait_ms,
    wrap_handler,
)

#: The ErrorInfo reason of a call refused for overload.
OVERLOADED: Final = "OVERLOADED"
#: Methods that only read, and CreateGame (new work: the matches under way go first): they get fewer
#: slots and are refused first.
READS: Final = frozenset(f"/{SERVICE_NAME}/{name}" for name in ("GetView", "ListLegalCommands", "GetLog",
                                                                   "CreateGame"))
STREAMS: Final = frozenset({f"/{SERVICE_NAME}/Watch"})


class Kind(Enum):
    WRITE = "write"
    READ = "read"
    STREAM = "stream"


def kind_of(method: str) -> Kind:
    return Kind.READ if method in READS else Kind.STREAM if method in STREAMS else Kind.WRITE


@dataclass(frozen=True)
class Bounds:
    """The settings of :class:`Admission` (see the module's docstring)."""

    max_in_flight: int = 64
    read_share: float = 0.75
    caller_share: float = 0.25
    #: Seconds a write may wait for a slot (a read: half that).
    max_wait: float = 0.25
    max_watches: int = 10_000
    refusal_budget: float = 0.1
    min_pushback: float = 0.02
    max_pushback: float = 30.0
    #: Seconds of event-loop lag (a ready callback's wait) past which reads are refused (writes: past twice that).
    max_lag: float = 0.1
    #: Seconds calls recently waited before they reached admission (in gRPC's backlog, for a CPU), past which
    #: reads are refused (writes: past twice that). Estimated from deadlines: see :meth:`Admission.waited`.
    max_delay: float = 0.25

    @property
    def read_limit(self) -> int:
        return max(1, int(self.max_in_flight * self.read_share))

    @property
    def caller_limit(self) -> int:
        return max(2, int(self.max_in_flight * self.caller_share))


class Refused(Exception):
    """A call not admitted: why, and the seconds to wait before trying again."""

    def __init__(self, message: str, seconds: float) -> None:
        super().__init__(message)
        self.message = message
        self.seconds = seconds


class _Rate:
    """Events per second, exponentially decaying with time constant ``tau`` seconds."""

    __slots__ = ("stamp", "tau", "value")

    def __init__(self, tau: float = 1.0) -> None:
        self.tau, self.value, self.stamp = tau, 0.0, 0.0

    def read(self, now: float) -> float:
        return self.value * math.exp(-max(0.0, now - self.stamp) / self.tau)

    def add(self, now: float) -> None:
        self.value = self.read(now) + 1.0 / self.tau
        self.stamp = now


@dataclass(slots=True, eq=False)
class _Waiter:
    caller: Key
    future: asyncio.Future[None]


class Admission:
    """The bookkeeping of admission control (no gRPC here: :class:`AdmissionControl` applies it)."""

    def __init__(self, bounds: Bounds, clock: Callable[[], float] = time.monotonic) -> None:
        self.bounds = bounds
        self.clock = clock
        self.in_flight = 0
        self.watches = 0
        #: Calls running or queued (and streams open) per caller; only callers that have some.
        self.callers: dict[Key, int] = {}
        self.writes: deque[_Waiter] = deque()
        self.reads: deque[_Waiter] = deque()
        #: Seconds an admitted call took, recent average.
        self.service = 0.0
        self.completions = _Rate()
        self.refusals = _Rate()
        self.pushback = bounds.min_pushback
        self._tuned = 0.0
        #: The event loop's recent lag, seconds (set by :meth:`watch_lag`): the calls that wait in the
        #: loop and in gRPC before they reach admission are work in hand too.
        self.lag = 0.0
        #: How long calls recently waited before they reached admission (seconds, estimated).
        self.delay = 0.0
        #: Per caller, the reference of :meth:`waited` (service/deadline_slack.py).
        self.slack = DeadlineSlack()

    @property
    def queued(self) -> int:
        return len(self.writes) + len(self.reads)

    def rate(self, now: float) -> float:
        """Completions per second to expect: the recent rate, or what the running calls promise."""
        promised = self.in_flight / max(self.service, 0.005)
        return max(self.completions.read(now), promised, 1.0)

    async def enter(self, caller: Key, kind: Kind, remaining: float | None = None) -> float:
        """Admit a call of ``caller`` (``remaining``: seconds to its deadline, None: none), waiting in
        the queue if it may; its start time (give it to :meth:`leave`), else :class:`Refused`."""
        bounds, now = self.bounds, self.clock()
        held = self.callers.get(caller, 0)
        if held >= bounds.caller_limit:
            raise self._refuse(now, f"this caller has {held} calls running or waiting here (at most "
                                    f"{bounds.caller_limit})")
        if kind is Kind.STREAM:
            if self.watches >= bounds.max_watches:
                raise self._refuse(now, f"{self.watches} streams are open (at most {bounds.max_watches})")
            if self.in_flight >= bounds.read_limit or self.queued or self.lag > bounds.max_lag:
                raise self._refuse(now, "the server is busy: new streams wait until it is not")
            self.watches += 1
            self.callers[caller] = held + 1
            return now
        read = kind is Kind.READ
        if remaining is not None:
            self.waited(caller, remaining)
        if self.lag > (bounds.max_lag if read else 2 * bounds.max_lag):
            raise self._refuse(now, f"the server is busy (its event loop lags {self.lag * 1000:.0f} ms)")
        if self.delay > (bounds.max_delay if read else 2 * bounds.max_delay):
            raise self._refuse(now, f"the server is busy (calls wait {self.delay * 1000:.0f} ms to reach it)")
        queue = self.reads if read else self.writes
        if self.in_flight < (bounds.read_limit if read else bounds.max_in_flight) and not queue \
                and not (read and self.writes):
            self.in_flight += 1
            self.callers[caller] = held + 1
            return now
        place = (self.queued if read else len(self.writes)) + 1
        patience = bounds.max_wait / 2 if read else bounds.max_wait
        if remaining is not None:
            patience = min(patience, remaining - self.service)
        if place / self.rate(now) > patience:
            raise self._refuse(now, f"the server is busy ({self.in_flight} calls running, {self.queued} waiting)")
        waiter = _Waiter(caller, asyncio.get_running_loop().create_future())
        queue.append(waiter)
        self.callers[caller] = held + 1
        try:
            await asyncio.wait_for(asyncio.shield(waiter.future), patience)
        except BaseException as error:
            if waiter.future.done() and not waiter.future.cancelled():
                self.leave(caller, now)  # admitted just as it gave up: give the slot back
            else:
                waiter.future.cancel()
                with contextlib.suppress(ValueError):
                    queue.remove(waiter)
                self._forget(caller)
            if isinstance(error, TimeoutError):
                raise self._refuse(self.clock(), "the server is busy: no slot came free in time") from None
            raise
        return self.clock()

    def waited(self, caller: Key, remaining: float) -> float:
        """How long this call waited before it reached admission, estimated from its deadline
        (service/deadline_slack.py); the recent mean is kept in :attr:`delay`."""
        waited = self.slack.waited(caller, remaining, self.clock())
        self.delay += (waited - self.delay) * 0.05  # the mean: a few late calls are no overload
        return waited

    async def watch_lag(self, every: float = 0.02) -> None:
        """Measure the event loop's lag for ever (a task's body): how late a sleep of ``every`` wakes."""
        while True:
            began = self.clock()
            await asyncio.sleep(every)
            late = max(0.0, self.clock() - began - every)
            self.lag += (late - self.lag) * (0.5 if late > self.lag else 0.2)

    def leave(self, caller: Key, started: float) -> None:
        """A call admitted at ``started`` is done: its slot goes to the next waiting call."""
        now = self.clock()
        self.in_flight -= 1
        self._forget(caller)
        self.service += (max(0.0, now - started) - self.service) * 0.05
        self.completions.add(now)
        self._dispatch()

    def close_stream(self, caller: Key) -> None:
        self.watches -= 1
        self._forget(caller)

    def _forget(self, caller: Key) -> None:
        left = self.callers.get(caller, 1) - 1
        if left > 0:
            self.callers[caller] = left
        else:
            self.callers.pop(caller, None)

    def _dispatch(self) -> None:
        bounds = self.bounds
        for queue, limit in ((self.writes, bounds.max_in_flight), (self.reads, bounds.read_limit)):
            while queue and self.in_flight < limit:
                waiter = queue.popleft()
                if not waiter.future.done():
                    self.in_flight += 1
                    waiter.future.set_result(None)
            if queue:
                return  # writes wait: reads too

    def _refuse(self, now: float, why: str) -> Refused:
        """A refusal, its pushback tuned to the refusals' recent rate."""
        self.refusals.add(now)
        bounds, rate = self.bounds, self.rate(now)
        if now - self._tuned >= 0.1:
            ratio = self.refusals.read(now) / (bounds.refusal_budget * rate)
            factor = min(2.0, max(0.5, ratio))
            self.pushback = min(bounds.max_pushback, max(bounds.min_pushback, self.pushback * factor))
            self._tuned = now
        backlog = (self.in_flight + self.queued) / rate + self.lag + self.delay  # to work through what is in hand
        return Refused(why, min(bounds.max_pushback, max(self.pushback, backlog)))


class AdmissionControl(ServiceGuard):
    """Applies :class:`Admission` to the calls of ``services`` (GameService by default).

    ``rate_limit``: when given, a call's caller is its key there (a seat token once proven, else the
    client address); else the token's digest, or the address for calls without one. ``registry``: a
    prometheus registry to count refusals and show the slots on.
    """

    def __init__(self, admission: Admission, *, rate_limit: RateLimit | None = None,
                 services: tuple[str, ...] = (SERVICE_NAME,), registry: Any = None) -> None:
        super().__init__(services)
        self.admission = admission
        self.rate_limit = rate_limit
        self.gone = 0  #: calls not started because their caller had gone
        self._probe: asyncio.Task[None] | None = None
        self._refusals: Any = None
        if registry is not None:
            self._register(registry)

    def _register(self, registry: Any) -> None:
        from prometheus_client import Counter, Gauge

        self._refusals = Counter("cardgames_overload_refusals", "Calls refused by admission control, by method.",
                                 ("method",), registry=registry)
        admission = self.admission
        for name, text, read in (
            ("cardgames_calls_in_flight", "Calls running (admitted, not done).", lambda: admission.in_flight),
            ("cardgames_calls_queued", "Calls waiting for a slot.", lambda: admission.queued),
            ("cardgames_event_loop_lag_seconds", "How late the event loop runs what is ready (recent).",
             lambda: admission.lag),
            ("cardgames_call_delay_seconds", "How long calls waited before they reached admission (recent, "
             "estimated from their deadlines).", lambda: admission.delay),
        ):
            Gauge(name, text, registry=registry).set_function(read)

    def caller(self, token: str | None, peer: str) -> Key:
        address = address_of(peer)
        if self.rate_limit is not None:
            return self.rate_limit.caller(token, address)[0]
        return token_digest(token) if token else address

    def close(self) -> None:
        """Stop measuring the event loop's lag."""
        if self._probe is not None:
            self._probe.cancel()
            self._probe = None

    async def _enter(self, context: Any, key: Key, kind: Kind, method: str) -> float:
        if self._probe is None:
            self._probe = asyncio.get_running_loop().create_task(self.admission.watch_lag())
        remaining = context.time_remaining()  # (the HTTP bridge's context has it too)
        if context.cancelled() or (remaining is not None and remaining <= 0):
            self.gone += 1
            await context.abort(grpc.StatusCode.DEADLINE_EXCEEDED, "the call's deadline passed before it started")
        try:
            return await self.admission.enter(key, kind, remaining)
        except Refused as refusal:
            millis = wait_ms(refusal.seconds)
            if self._refusals is not None:
                self._refusals.labels(method.rpartition("/")[2]).inc()
            await context.abort_with_status(limited_status(f"{refusal.message}: retry in {millis} ms", millis,
                                                           reason=OVERLOADED))
            raise  # (abort raises)

    def guard(self, handler: grpc.RpcMethodHandler, method: str, token: str | None) -> grpc.RpcMethodHandler:
        kind = kind_of(method)
        admission = self.admission

        def unary(behaviour: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
            async def admitted(request: Any, context: grpc.aio.ServicerContext) -> Any:
                key = self.caller(token, context.peer() or "")
                started = await self._enter(context, key, kind, method)
                try:
                    if context.cancelled():
                        await context.abort(grpc.StatusCode.CANCELLED, "the caller has gone")
                    return await behaviour(request, context)
                finally:
                    admission.leave(key, started)

            return admitted

        def stream(behaviour: Callable[..., AsyncIterator[Any]]) -> Callable[..., AsyncIterator[Any]]:
            async def admitted(request: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
                key = self.caller(token, context.peer() or "")
                await self._enter(context, key, Kind.STREAM, method)
                try:
                    async for response in behaviour(request, context):
                        yield response
                finally:
                    admission.close_stream(key)

            return admitted

        return wrap_handler(handler, unary, stream)
