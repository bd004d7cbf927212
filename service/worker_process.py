"""What an engine worker process does: the tasks of service/workers.py's pool, in the child process.

A worker (``python -c``, :func:`main`) reads tasks from its stdin and writes answers to its stdout,
one at a time, each a pickle after its length (:data:`FRAME`), at the lowest priority
(:data:`NICENESS`, and ``SCHED_BATCH`` on Linux). It keeps the last :data:`LISTINGS_KEPT` listings it
made, so the pages of one position and the command a bot picks by index cost one count. Its tasks
(:data:`TASKS`): a page of a seat's legal commands (``page``) and a policy's decision (``choose``).
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import struct
import sys
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from typing import IO, Any

from cardgames.engine.core.lazy_listing import page as make_page

#: How much lower a worker's scheduling priority is than the server's (19: the lowest).
NICENESS = 19
#: Listings a worker keeps for the pages and picks that follow (a crowded count's memo is megabytes).
LISTINGS_KEPT = 16
#: A message's length before its pickle, on the pipes between the pool and a worker.
FRAME = struct.Struct("!Q")


def page_of(commands: Sequence[Any], offset: int, end: int, seconds: float) -> list[Any]:
    """``commands[offset:end]``, stopping once they have taken ``seconds`` of CPU time (one command at
    least). A lazy listing makes a run of commands in one walk over its counts
    (:func:`cardgames.engine.core.lazy_listing.page`), where making one costs a walk: the first
    command is made alone, and each further run is as long as the time left allows at that first
    command's cost (on any floor of the default rules, the whole page at once). (CPU time, not the
    wall clock: a worker runs at a lower priority, and on a busy machine waits.)"""
    clock = time.thread_time
    began = clock()
    deadline = began + seconds
    page = make_page(commands, offset, min(end, offset + 1))
    first = clock() - began  # what a walk costs at most: a longer run costs less a command
    while offset + len(page) < end:
        now = clock()
        if now > deadline:
            break
        start = offset + len(page)
        left = deadline - now  # (infinite when the caller sets no limit)
        stop = end if left >= first * (end - start) else start + max(1, int(left / first))
        more = make_page(commands, start, stop)
        if not more:
            break  # (``end`` past the listing's end)
        page += more
    return page


_LISTINGS: OrderedDict[Hashable, Sequence[Any]] = OrderedDict()
#: Listings this worker has made (sent with every answer: the pool's ``Workers.listings_made``).
_MADE = [0]


def _listing(game: str, key: Hashable, state: Any, seat: int) -> Sequence[Any]:
    listing = _LISTINGS.get(key)
    if listing is None:
        from cardgames.engine.core.registry import get_game

        listing = _LISTINGS[key] = get_game(game).legal_commands(state, seat)
        _MADE[0] += 1
        if len(_LISTINGS) > LISTINGS_KEPT:
            _LISTINGS.popitem(last=False)
    else:
        _LISTINGS.move_to_end(key)
    return listing


def _page(game: str, key: Hashable, state: Any, seat: int, offset: int, size: int, seconds: float,
          wire: int) -> tuple[int, list[Any] | tuple[int, bytes]]:
    """How many commands the seat has, and those from ``offset`` (``size`` at most; see :func:`page_of`);
    with ``wire`` (a field number), already on the wire: how many, and the bytes of as many entries
    of that ``repeated cardgames.v1.Command`` field, ready to follow a response's other fields
    (putting 1,000 Seep builds on the wire takes 36 ms, which the event loop need not spend)."""
    listing = _listing(game, key, state, seat)
    total = len(listing)
    page = page_of(listing, offset, min(total, offset + size), seconds)
    if wire:
        import msgspec

        from cardgames.wire import wrap_command

        tag = varint(wire << 3 | 2)  # a length-delimited field
        entries = (wrap_command(game, msgspec.to_builtins(command)).SerializeToString() for command in page)
        return total, (len(page), b"".join(tag + varint(len(entry)) + entry for entry in entries))
    return total, page


def varint(value: int) -> bytes:
    """``value`` (0 or more) as a protobuf varint."""
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _choose(game: str, key: Hashable, state: Any, seat: int, view: Any, policy: Any, rng: Any) -> Any:
    """The policy's choice among the seat's legal commands (None: it has none)."""
    listing = _listing(game, key, state, seat)
    return policy.choose(view, listing, rng) if len(listing) else None


TASKS: dict[str, Callable[..., Any]] = {"page": _page, "choose": _choose}


def write_message(stream: IO[bytes], message: Any) -> None:
    """Write one message: its pickle, after its length (:data:`FRAME`)."""
    payload = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(FRAME.pack(len(payload)) + payload)
    stream.flush()


def read_message(stream: IO[bytes]) -> Any:
    """Read one message (None once the stream is closed)."""
    header = stream.read(FRAME.size)
    if len(header) < FRAME.size:
        return None  # the server closed the pipe (or is gone): stop
    (size,) = FRAME.unpack(header)
    return pickle.loads(stream.read(size))


def main() -> None:
    """A worker: answer tasks from stdin on stdout until stdin closes."""
    answers = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # whatever prints goes to stderr, never into the answers
    sys.stdout = sys.stderr
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a terminal's Ctrl-C is for the server, which stops us
    with contextlib.suppress(OSError, AttributeError):  # (AttributeError: not on Linux)
        os.nice(NICENESS)
        os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))
    from cardgames.engine.core.registry import available_games

    available_games()  # every game imported now, not in the first task's time
    with contextlib.suppress(ImportError):
        import cardgames.engine.bots  # noqa: F401  (the policies of decisions)
    tasks = sys.stdin.buffer
    with contextlib.suppress(BrokenPipeError):  # the server is gone: so are we
        write_message(answers, ("ready", os.getpid()))
        while (request := read_message(tasks)) is not None:
            number, kind, args = request
            try:
                answer = (number, True, TASKS[kind](*args), _MADE[0])
            except Exception as error:
                answer = (number, False, f"{type(error).__name__}: {error}", _MADE[0])
            write_message(answers, answer)
