"""The bots of bench/load.py: one client process drives its share of the concurrent matches.

A bot is a thin remote client: per move it calls GetView (who is to act), ListLegalCommands (that
seat's token) and SubmitCommand (a random legal command with ``expected_sequence``); a finished
match is replaced by a new one. The bots start at random times within the first half of the
warmup (a herd of thousands of CreateGame at one instant is another test). Every call carries a
seat token once the match has them (a real client holds one), so that each seat is a caller of
its own to the server's admission control.

A call refused with RESOURCE_EXHAUSTED is sent again after the server's hint, read and jittered as
the clients do it (RetryInfo, else ``grpc-retry-pushback-ms``, else 100 ms; x1 to x1.5), at most
``RETRIES`` times: under overload the bots slow down instead of failing. Refusals are counted by
code apart from errors; the latency figures are those of admitted calls (answered OK), each
attempt timed on its own.
"""

from __future__ import annotations

import asyncio
import os
import random
import time
from array import array
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: A match longer than this many moves is abandoned (a bound, never reached by the games here).
MOVE_CAP = 20_000
#: Deadline of every call, seconds.
CALL_DEADLINE = 30.0
#: Matches per gRPC connection within a client process.
MATCHES_PER_CHANNEL = 50
#: Times a refused call is sent again before the bot gives it up (an error then).
RETRIES = 200


@dataclass
class ClientStats:
    moves: int = 0
    calls: int = 0
    finished: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    refusals: dict[str, int] = field(default_factory=dict)
    details: list[str] = field(default_factory=list)
    submit_ms: array = field(default_factory=lambda: array("d"))
    call_ms: array = field(default_factory=lambda: array("d"))
    #: Milliseconds from sending to the error, per error code and method (why the errors came: e.g. a deadline).
    error_ms: dict[str, list[float]] = field(default_factory=dict)
    #: This client process's CPU seconds (user + system) over the run, and its threads' wait for a CPU.
    cpu_s: float = 0.0
    cpu_wait_s: float = 0.0
    #: How late this process's event loop woke from 20 ms sleeps in the measured window (s): the time a
    #: call waits in the client before it is sent or its answer read.
    lag_s: array = field(default_factory=lambda: array("d"))
    #: Refusals by method and reason (the message's first words).
    why: dict[str, int] = field(default_factory=dict)


def run_queue_seconds(pid: int | str) -> float:
    """Seconds a process's threads have waited for a CPU while ready to run (/proc/PID/task/*/schedstat)."""
    total = 0
    for stat in Path(f"/proc/{pid}/task").glob("*/schedstat"):
        try:
            total += int(stat.read_text().split()[1])
        except (OSError, IndexError, ValueError):
            continue
    return total / 1e9


def pushback_seconds(error: Any) -> float:
    """The wait a RESOURCE_EXHAUSTED refusal asks for, read as the clients read it (RetryInfo, else the
    pushback trailer), else 0.1 s."""
    from cardgames.clients.errors import RateLimited, from_rpc_error

    failure = from_rpc_error(error)
    return failure.retry_after if isinstance(failure, RateLimited) else 0.1


async def run_bots(target: str, matches: int, game: str, start: float, warmup: float, duration: float,
                   seed: int) -> ClientStats:
    import grpc

    from cardgames.clients.retries import Retry
    from cardgames.service.grpc_api import TOKEN_METADATA
    from cardgames.v1 import game_service_pb2 as pb
    from cardgames.v1 import game_service_pb2_grpc

    cpu_start, wait_start = sum(os.times()[:2]), run_queue_seconds("self")
    stats = ClientStats()
    errors: Counter[str] = Counter()
    refusals: Counter[str] = Counter()
    measure_from, stop_at = start + warmup, start + warmup + duration
    channels = [
        grpc.aio.insecure_channel(target, options=[("grpc.use_local_subchannel_pool", 1)])
        for _ in range(max(1, -(-matches // MATCHES_PER_CHANNEL)))
    ]
    stubs = [game_service_pb2_grpc.GameServiceStub(channel) for channel in channels]
    jitter = random.Random(seed)
    hints = Retry()  # a refused call waits its hint x [1, 1.5), as the clients do

    async def call(stub: Any, name: str, request: Any, token: str | None = None, submit: bool = False) -> Any:
        method = getattr(stub, name)
        metadata = ((TOKEN_METADATA, token),) if token else None
        for attempt in range(RETRIES + 1):
            began = time.monotonic()
            try:
                reply = await method(request, metadata=metadata, timeout=CALL_DEADLINE)
            except grpc.aio.AioRpcError as error:
                ended = time.monotonic()
                if ended >= measure_from and ended <= stop_at:
                    stats.error_ms.setdefault(f"{error.code().name} {name}", []).append((ended - began) * 1000)
                if error.code() is not grpc.StatusCode.RESOURCE_EXHAUSTED or attempt == RETRIES:
                    raise
                if measure_from <= ended <= stop_at:
                    refusals[error.code().name] += 1
                    why = (error.details() or "").split(":", 1)[0].split(" (", 1)[0]
                    stats.why[f"{name}: {why}"] = stats.why.get(f"{name}: {why}", 0) + 1
                wait = hints.pushback(pushback_seconds(error), jitter)
                if ended + wait >= stop_at:  # the run is over by then: stop here (not an error)
                    await asyncio.sleep(max(0.0, stop_at - ended))
                    raise
                await asyncio.sleep(wait)
                continue
            ended = time.monotonic()
            if began >= measure_from and ended <= stop_at:
                stats.calls += 1
                stats.call_ms.append((ended - began) * 1000)
                if submit:
                    stats.moves += 1
                    stats.submit_ms.append((ended - began) * 1000)
            return reply
        raise AssertionError("unreachable")

    async def bot(index: int) -> None:
        rng = random.Random(seed * 1_000_003 + index)
        stub = stubs[index % len(stubs)]
        await asyncio.sleep(rng.random() * warmup / 2)  # clients arrive over the warmup, not all at once
        while time.monotonic() < stop_at:
            try:
                created = await call(stub, "CreateGame", pb.CreateGameRequest(game=game))
                game_id, tokens = created.game_id, list(created.seat_tokens)
                seat = 0
                for _ in range(MOVE_CAP):
                    if time.monotonic() >= stop_at:
                        return
                    view = (await call(stub, "GetView", pb.GetViewRequest(game_id=game_id), tokens[seat])).view
                    if view.over:
                        if time.monotonic() <= stop_at and view.sequence:
                            stats.finished += 1
                        break
                    seat = rng.choice(list(view.to_act))
                    legal = await call(stub, "ListLegalCommands", pb.ListLegalCommandsRequest(game_id=game_id),
                                       tokens[seat])
                    command = rng.choice(list(legal.commands))
                    await call(stub, "SubmitCommand", pb.SubmitCommandRequest(
                        game_id=game_id, command=command, expected_sequence=legal.sequence), tokens[seat], True)
            except grpc.aio.AioRpcError as error:
                if time.monotonic() < stop_at:
                    errors[error.code().name] += 1
                    if len(stats.details) < 5:
                        stats.details.append(f"{error.code().name}: {error.details()}")
                    await asyncio.sleep(0.1)

    async def probe() -> None:
        while time.monotonic() < stop_at:
            began = time.monotonic()
            await asyncio.sleep(0.02)
            if began >= measure_from:
                stats.lag_s.append(time.monotonic() - began - 0.02)

    await asyncio.gather(probe(), *(bot(index) for index in range(matches)))
    for channel in channels:
        await channel.close()
    stats.errors = dict(errors)
    stats.refusals = dict(refusals)
    stats.cpu_s = sum(os.times()[:2]) - cpu_start
    stats.cpu_wait_s = run_queue_seconds("self") - wait_start
    return stats


def client(target: str, matches: int, game: str, start: float, warmup: float, duration: float, seed: int,
           out: Any) -> None:
    """A client process's body: its bots' stats go to ``out``."""
    out.put(asyncio.run(run_bots(target, matches, game, start, warmup, duration, seed)))
