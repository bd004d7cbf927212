"""Expensive engine work in worker processes, with a deadline: one game cannot starve the others.

The service answers every call on one event loop. Most engine work is microseconds, but
some is not: under the option to throw a card that could capture (Seep B-7) seats that throw
everything crowd the floor to 51 loose cards, and counting its groupings takes up to about a
second (compiled; ten times that in a pure install), a command deep into such a listing tens
of milliseconds, a built-in bot's decision there seconds, and a search bot's decision is
hundreds of milliseconds anywhere. Compiled code holds the interpreter lock throughout, so a
thread would not free the loop: that work runs here, in processes of its own.

:class:`Workers` is the pool. Each worker is a child process (``python -c`` running
service/worker_process.py) that reads tasks from its stdin and writes answers to its stdout, one at
a time, as length-prefixed pickles. It runs at the lowest priority (``nice`` + ``NICENESS``) and as a
batch process (Linux ``SCHED_BATCH``: a worker woken by a task does not preempt the server that
sent it), so that it takes only the CPU the server leaves: on two cores, with the workers at
``nice`` +10, another game's SubmitCommand p99 was 1.9-3.4 times its p99 alone while a worker
counted (the server's own threads waited for the core the worker held), at +19 about the same as
alone (``bench/beside_throwing.py``); and with ``nice`` alone, writing a task to an idle worker
held the event loop up to 5 ms now and then. On a machine saturated by other work, a costly
request then waits (up to its deadline) rather than the server.

What a task carries (measured: docs/seep_legal_commands.md): the game's name, the game's own
state (a frozen msgspec struct: 0.6-0.85 KB pickled, 6-18 microseconds each way; the seat-event
wrapper, a class made at run time, stays behind), the seat, and for a decision the seat's view,
the policy (with its memory) and its ``random.Random``. A worker keeps the last
``LISTINGS_KEPT`` listings it made, by (game, sequence, seat), and the pool sends a task to
the idle worker that holds its listing, so the pages of one position and the command a bot picks
by index cost one count.

Every task has a deadline: it may run ``deadline`` seconds. A task past it fails with
:class:`TimedOut`, and its worker is killed (SIGKILL: a count in compiled code answers no gentler
signal) and replaced, so it does not keep burning CPU. A worker that dies otherwise (killed from
outside, out of memory) is replaced too, and its task is run once more on another. Waiting tasks
are served round robin by game, so one game's flood of requests waits behind its own, and a task
of another game starts once a worker is done with the task it runs (``deadline`` at most); a
task that waited ``deadline`` for a worker without starting fails with :class:`Busy`, and so does
a call when :data:`QUEUED_PER_GAME` tasks of its game, or :data:`QUEUED_PER_WORKER` per worker in
all, wait already. A caller waits about twice the deadline at most. Workers start when first needed;
:meth:`Workers.close` kills them and reaps them.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import pickle
import sys
from collections import OrderedDict, deque
from collections.abc import Hashable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cardgames.service.worker_process import FRAME, LISTINGS_KEPT

log = logging.getLogger(__name__)

#: Seconds a task may run (``cardgames serve --work-deadline``); it may wait as long for a worker.
DEFAULT_DEADLINE = 10.0
#: Tasks that may wait: of one game, and per worker in all.
QUEUED_PER_GAME = 4
QUEUED_PER_WORKER = 16
#: Times a task is sent to a worker: once more after a worker died under it (not for a deadline).
ATTEMPTS = 2
#: Seconds without workers after one could not even start (no loop of processes that die at once).
START_AGAIN_AFTER = 5.0
#: What a worker process runs.
WORKER_MAIN = "from cardgames.service.worker_process import main; main()"
_ROOT = str(Path(__file__).resolve().parent.parent)


def default_size() -> int:
    """Workers by default: one less than the CPUs this process may use (one core is the event
    loop's), at least one, at most four. A 2-core machine gets one."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count() or 1
    return max(1, min(4, cpus - 1))


class WorkError(Exception):
    """A task the pool could not do."""


class TimedOut(WorkError):
    """The task did not finish within its deadline (its worker, if it ran, was replaced)."""


class Busy(WorkError):
    """Too many tasks are waiting already (of the game, or in all)."""


class Failed(WorkError):
    """The task raised, its workers died twice, or the pool is closing."""


# ---------------------------------------------------------------------------
# The pool (in the server's process, on its event loop).


@dataclass(eq=False)
class _Task:
    kind: str
    args: tuple[Any, ...]
    owner: Hashable  #: the game: waiting tasks are served round robin by owner
    key: Hashable | None  #: the listing the task reads, for the worker that holds it
    waits_until: float  #: when it gives up waiting for a worker (on the loop's clock)
    future: asyncio.Future[Any]
    number: int = 0
    attempts: int = 0
    worker: _Worker | None = None
    deadline: float = 0.0  #: when it must be done, once a worker runs it


@dataclass(eq=False)
class _Worker:
    process: asyncio.subprocess.Process
    ready: bool = False
    task: _Task | None = None
    overran: bool = False
    timer: asyncio.TimerHandle | None = None
    keys: OrderedDict[Hashable, None] = field(default_factory=OrderedDict)
    reader: asyncio.Task[None] | None = None
    listings: int = 0  #: listings it has made


class Workers:
    """A pool of worker processes for expensive engine work (see the module's docstring)."""

    def __init__(self, size: int | None = None, deadline: float | None = None) -> None:
        self.size = size if size else default_size()
        self.deadline = deadline if deadline else DEFAULT_DEADLINE
        if self.size < 1 or self.deadline <= 0:
            raise ValueError(f"a pool has 1 worker or more and a positive deadline, not {size} and {deadline}")
        self._workers: list[_Worker] = []
        self._starting: set[asyncio.Task[None]] = set()
        self._queues: OrderedDict[Hashable, deque[_Task]] = OrderedDict()
        self._queued = 0
        self._numbers = 0
        self._closed = False
        self._start_again = 0.0  #: after a worker failed to start, none is started before this time
        #: Workers replaced so far (after a deadline, or a death), for operators and tests.
        self.replaced = 0

    @property
    def pids(self) -> list[int]:
        """The process ids of the workers now running."""
        return [worker.process.pid for worker in self._workers]

    @property
    def listings_made(self) -> int:
        """How many listings the workers now running have made (a position's pages share one)."""
        return sum(worker.listings for worker in self._workers)

    @property
    def running(self) -> int:
        """How many tasks the workers are running now."""
        return sum(worker.task is not None for worker in self._workers)

    async def start(self) -> None:
        """Start every worker now and wait until each is ready (otherwise they start when first needed)."""
        self._fill()
        while self._starting or not all(worker.ready for worker in self._workers):
            await asyncio.sleep(0.01)

    async def run(self, kind: str, *args: Any, owner: Hashable, key: Hashable | None = None) -> Any:
        """Run the task ``kind`` (``worker_process.TASKS``) with ``args`` in a worker; its answer, or a WorkError."""
        if self._closed:
            raise Failed("the service is stopping")
        queue = self._queues.get(owner)
        if queue is not None and len(queue) >= QUEUED_PER_GAME:
            raise Busy(f"{len(queue)} expensive requests of this game are waiting already")
        if self._queued >= QUEUED_PER_WORKER * self.size:
            raise Busy(f"{self._queued} expensive requests are waiting already")
        loop = asyncio.get_running_loop()
        self._fill()
        self._numbers += 1
        task = _Task(kind, args, owner, key, loop.time() + self.deadline, loop.create_future(), self._numbers)
        self._queues.setdefault(owner, deque()).append(task)
        self._queued += 1
        self._dispatch()
        try:
            while True:
                until = task.deadline if task.worker is not None else task.waits_until
                try:
                    return await asyncio.wait_for(asyncio.shield(task.future), max(0.0, until - loop.time()))
                except TimeoutError:
                    now = loop.time()
                    if task.worker is not None and now >= task.deadline:
                        raise TimedOut(f"the work took longer than its deadline of {self.deadline:g} s") from None
                    if task.worker is None and now >= task.waits_until:
                        raise Busy(f"no engine worker was free for {self.deadline:g} s") from None
                    # it started (or went back to waiting, its worker dead) meanwhile: wait on
        finally:
            if not task.future.done():  # timed out, or the caller went away
                task.future.cancel()
                self._unqueue(task)
                if task.worker is not None and loop.time() >= task.deadline:
                    self._overrun(task.worker, task)

    async def close(self) -> None:
        """Fail what waits, kill every worker and reap it: no process is left behind."""
        self._closed = True
        self._fail_waiting(Failed("the service is stopping"))
        if self._starting:
            await asyncio.gather(*self._starting, return_exceptions=True)
        readers = []
        for worker in list(self._workers):
            with contextlib.suppress(ProcessLookupError):
                worker.process.kill()
            if worker.reader is not None:
                readers.append(worker.reader)
        await asyncio.gather(*readers, return_exceptions=True)
        for worker in list(self._workers):  # (a reader that never ran)
            await worker.process.wait()
        self._workers.clear()

    # -- workers -------------------------------------------------------------------------

    def _fill(self) -> None:
        """Start workers until there are ``size`` (running or starting)."""
        loop = asyncio.get_running_loop()
        if loop.time() < self._start_again:
            if not self._workers and not self._starting:
                raise Failed("the engine workers do not start")
            return
        while not self._closed and len(self._workers) + len(self._starting) < self.size:
            starting = loop.create_task(self._spawn())
            self._starting.add(starting)
            starting.add_done_callback(self._starting.discard)

    async def _spawn(self) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [_ROOT, env.get("PYTHONPATH")]))
        try:
            process = await asyncio.create_subprocess_exec(
                sys.executable, "-c", WORKER_MAIN,
                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, env=env,
            )
        except OSError as error:
            log.error("cannot start an engine worker: %s", error)
            return
        worker = _Worker(process)
        self._workers.append(worker)
        if self._closed:
            process.kill()
        worker.reader = asyncio.get_running_loop().create_task(self._read(worker))

    async def _read(self, worker: _Worker) -> None:
        """The worker's answers, until its stdout closes (it ended); then it is replaced."""
        stdout = worker.process.stdout
        assert stdout is not None
        try:
            while True:
                (size,) = FRAME.unpack(await stdout.readexactly(FRAME.size))
                message = pickle.loads(await stdout.readexactly(size))
                if not worker.ready:
                    worker.ready = True
                else:
                    self._answered(worker, message)
                self._dispatch()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            await self._lost(worker)

    def _answered(self, worker: _Worker, message: tuple[int, bool, Any, int]) -> None:
        number, ok, value, worker.listings = message
        task = worker.task
        worker.task = None
        if worker.timer is not None:
            worker.timer.cancel()
            worker.timer = None
        if task is None or task.number != number:
            return
        if task.key is not None:
            worker.keys[task.key] = None
            if len(worker.keys) > LISTINGS_KEPT:
                worker.keys.popitem(last=False)
        if not task.future.done():
            if ok:
                task.future.set_result(value)
            else:
                task.future.set_exception(Failed(value))

    async def _lost(self, worker: _Worker) -> None:
        """The worker ended: reap it, run its task once more elsewhere (unless it overran), replace it."""
        if worker.timer is not None:
            worker.timer.cancel()
        await worker.process.wait()
        if worker in self._workers:
            self._workers.remove(worker)
        if self._closed:
            return
        if not worker.ready:  # it could not even start (a broken installation): do not spin
            log.error("an engine worker exited at start (status %s): no workers for %g s",
                      worker.process.returncode, START_AGAIN_AFTER)
            self._start_again = asyncio.get_running_loop().time() + START_AGAIN_AFTER
            if not self._workers and not self._starting:
                self._fail_waiting(Failed("the engine workers do not start"))
            return
        self.replaced += 1
        task = worker.task
        if worker.overran:
            log.warning("engine worker %d killed: its task ran past the %g s deadline", worker.process.pid,
                        self.deadline)
        else:
            log.warning("engine worker %d ended (exit status %s): replaced", worker.process.pid,
                        worker.process.returncode)
        if task is not None and not task.future.done():
            if worker.overran or task.attempts >= ATTEMPTS:
                task.future.set_exception(Failed("the engine worker running it died"))
            else:
                task.worker = None
                task.waits_until = asyncio.get_running_loop().time() + self.deadline
                self._queues.setdefault(task.owner, deque()).appendleft(task)
                self._queues.move_to_end(task.owner, last=False)
                self._queued += 1
        self._fill()
        self._dispatch()

    def _overrun(self, worker: _Worker, task: _Task) -> None:
        """The task's deadline passed while ``worker`` ran it: kill the worker (it is replaced)."""
        if worker.task is task and not worker.overran:
            worker.overran = True
            with contextlib.suppress(ProcessLookupError):
                worker.process.kill()

    # -- tasks ---------------------------------------------------------------------------

    def _fail_waiting(self, error: WorkError) -> None:
        for queue in self._queues.values():
            for task in queue:
                if not task.future.done():
                    task.future.set_exception(error)
        self._queues.clear()
        self._queued = 0

    def _unqueue(self, task: _Task) -> None:
        queue = self._queues.get(task.owner)
        if queue is not None and task in queue:
            queue.remove(task)
            self._queued -= 1
            if not queue:
                del self._queues[task.owner]

    def _next(self) -> _Task | None:
        """The next task to send: the first waiting one of the game served least recently."""
        while self._queues:
            owner, queue = next(iter(self._queues.items()))
            task = queue.popleft()
            self._queued -= 1
            if queue:
                self._queues.move_to_end(owner)
            else:
                del self._queues[owner]
            if not task.future.done():
                return task
        return None

    def _dispatch(self) -> None:
        """Send waiting tasks to idle workers, each to the worker holding its listing when that one is idle."""
        loop = asyncio.get_running_loop()
        while True:
            idle = [worker for worker in self._workers if worker.ready and worker.task is None
                    and not worker.overran and worker.process.returncode is None]
            if not idle:
                return
            task = self._next()
            if task is None:
                return
            worker = next((worker for worker in idle if task.key in worker.keys), idle[0])
            stdin = worker.process.stdin
            assert stdin is not None
            payload = pickle.dumps((task.number, task.kind, task.args), protocol=pickle.HIGHEST_PROTOCOL)
            stdin.write(FRAME.pack(len(payload)) + payload)
            task.attempts += 1
            task.worker = worker
            task.deadline = loop.time() + self.deadline
            worker.task = task
            worker.timer = loop.call_at(task.deadline, self._overrun, worker, task)
