"""Admission control's bookkeeping (service/admission.py), without gRPC: slots, fairness, deadlines."""

from __future__ import annotations

import asyncio

import pytest

from cardgames.service.admission import Admission, Bounds, Kind, Refused, kind_of
from cardgames.service.deadline_slack import CALLER_MEMORY


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


async def settle() -> None:
    """Let the tasks that can run run (a waiting call's wake-up takes a few loop turns)."""
    for _ in range(10):
        await asyncio.sleep(0)


def admission(**settings: float) -> tuple[Admission, Clock]:
    clock = Clock()
    return Admission(Bounds(**settings), clock), clock  # type: ignore[arg-type]


def test_methods_are_classified() -> None:
    assert kind_of("/cardgames.v1.GameService/GetView") is Kind.READ
    assert kind_of("/cardgames.v1.GameService/ListLegalCommands") is Kind.READ
    assert kind_of("/cardgames.v1.GameService/Watch") is Kind.STREAM
    assert kind_of("/cardgames.v1.GameService/SubmitCommand") is Kind.WRITE
    assert kind_of("/cardgames.v1.GameService/CreateGame") is Kind.READ  # new work waits for the matches under way


async def test_a_greedy_caller_gets_its_share_and_no_more() -> None:
    gate, _ = admission(max_in_flight=8, caller_share=0.25, max_wait=0.0)
    for _ in range(2):
        await gate.enter("greedy", Kind.WRITE)
    with pytest.raises(Refused) as refused:
        await gate.enter("greedy", Kind.WRITE)
    assert "this caller" in refused.value.message and refused.value.seconds > 0
    for caller in ("a", "b", "c"):  # everyone else still gets in
        await gate.enter(caller, Kind.WRITE)
    assert gate.in_flight == 5


async def test_a_greedy_caller_cannot_starve_another_in_the_queue() -> None:
    gate, _ = admission(max_in_flight=4, caller_share=0.5, max_wait=10.0)
    started = [await gate.enter("greedy", Kind.WRITE) for _ in range(2)]
    await gate.enter("x", Kind.WRITE)
    await gate.enter("y", Kind.WRITE)
    # Full: the greedy caller holds its share and more of its calls are refused at once, while
    # another caller's call waits for a slot and gets the first one that comes free.
    with pytest.raises(Refused):
        await gate.enter("greedy", Kind.WRITE)
    other = asyncio.ensure_future(gate.enter("other", Kind.WRITE))
    await settle()
    assert gate.queued == 1 and not other.done()
    gate.leave("greedy", started[0])
    await settle()
    assert other.done() and gate.in_flight == 4 and gate.queued == 0


async def busy(gate: Admission, clock: Clock) -> list[float]:
    """Both slots of ``gate`` taken (by "a" and "b"), after a history of calls that took 0.1 s each."""
    started = [await gate.enter(caller, Kind.WRITE) for caller in ("a", "b")]
    for _ in range(20):
        clock.now += 0.1
        gate.leave("a", started[0])
        started[0] = await gate.enter("a", Kind.WRITE)
    return started


async def test_a_call_waits_only_while_it_can_meet_its_deadline() -> None:
    gate, clock = admission(max_in_flight=2, max_wait=5.0)
    started = await busy(gate, clock)
    # A wait of about 0.1 s: fine with 5 s left, refused at once with 50 ms left.
    with pytest.raises(Refused):
        await gate.enter("c", Kind.WRITE, remaining=0.05)
    assert gate.queued == 0 and "c" not in gate.callers
    waiting = asyncio.ensure_future(gate.enter("d", Kind.WRITE, remaining=5.0))
    await settle()
    assert gate.queued == 1
    gate.leave("a", started[0])
    await settle()
    assert waiting.done() and waiting.exception() is None


async def test_a_waiting_call_is_refused_when_its_wait_runs_out() -> None:
    gate, clock = admission(max_in_flight=2, max_wait=0.05)
    await busy(gate, clock)  # a wait of about 0.03 s is expected: the call waits, but none comes free
    with pytest.raises(Refused) as refused:
        await gate.enter("c", Kind.WRITE)
    assert "in time" in refused.value.message
    assert gate.queued == 0 and gate.callers == {"a": 1, "b": 1} and gate.in_flight == 2


async def test_a_cancelled_waiter_leaves_the_queue() -> None:
    gate, _ = admission(max_in_flight=1, max_wait=10.0)
    started = await gate.enter("a", Kind.WRITE)
    waiting = asyncio.ensure_future(gate.enter("b", Kind.WRITE))
    await settle()
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    assert gate.queued == 0 and "b" not in gate.callers
    gate.leave("a", started)
    assert gate.in_flight == 0 and not gate.callers


async def test_reads_degrade_before_writes() -> None:
    gate, _ = admission(max_in_flight=4, read_share=0.5, caller_share=1.0, max_wait=10.0)
    await gate.enter("r1", Kind.READ)
    await gate.enter("r2", Kind.READ)
    # The read slots are taken: a read waits (or is refused), a write still gets in at once.
    read = asyncio.ensure_future(gate.enter("r3", Kind.READ))
    await settle()
    assert not read.done()
    started = await gate.enter("w1", Kind.WRITE)
    await gate.enter("w2", Kind.WRITE)
    write = asyncio.ensure_future(gate.enter("w3", Kind.WRITE))
    await settle()
    # A slot frees: the waiting write goes first, and the read still waits (reads stay below their share).
    gate.leave("w1", started)
    await settle()
    assert write.done() and not read.done()
    read.cancel()
    with pytest.raises(asyncio.CancelledError):
        await read


async def test_new_streams_are_refused_first() -> None:
    gate, _ = admission(max_in_flight=4, read_share=0.5, max_watches=2, caller_share=1.0)
    await gate.enter("s", Kind.STREAM)
    await gate.enter("s", Kind.STREAM)
    with pytest.raises(Refused):  # at the streams' bound
        await gate.enter("s", Kind.STREAM)
    gate.close_stream("s")
    await gate.enter("w", Kind.WRITE)
    await gate.enter("w", Kind.WRITE)
    with pytest.raises(Refused):  # reads would queue: no new stream
        await gate.enter("t", Kind.STREAM)
    await gate.enter("w", Kind.WRITE)  # writes still get in


async def test_the_pushback_grows_while_refusals_pour_in() -> None:
    gate, clock = admission(max_in_flight=1, max_wait=0.0, min_pushback=0.02)
    await gate.enter("a", Kind.WRITE)
    waits = []
    for _ in range(30):
        clock.now += 0.1
        for _ in range(20):  # 200 refusals a second against about 1 completion a second
            with pytest.raises(Refused) as refused:
                await gate.enter("b", Kind.WRITE)
        waits.append(refused.value.seconds)
    assert waits[-1] == gate.bounds.max_pushback and waits[0] < waits[-1] / 5


async def test_calls_that_waited_to_reach_the_server_make_it_refuse_reads_then_writes() -> None:
    gate, _ = admission(max_in_flight=8, max_delay=0.25)
    assert gate.waited("a", 30.0) == 0.0  # a caller's first call: nothing to compare with
    assert gate.waited("a", 29.9) == 0.0  # within the precision of a 30 s timeout on the wire
    gate.waited("a", 31.0)  # one call whose timeout was rounded up a second: not the reference at once
    assert gate.slack["a"][0] < 30.2
    for _ in range(30):  # its calls arrive with a second less than the best of them: they waited a second
        assert gate.waited("a", 29.0) == pytest.approx(1.0, abs=0.5)
    with pytest.raises(Refused) as refused:
        await gate.enter("a", Kind.READ, remaining=29.0)
    assert "wait" in refused.value.message and refused.value.seconds >= gate.delay
    gate.delay = 0.3  # between the two bounds: reads are refused, writes still admitted
    with pytest.raises(Refused):
        await gate.enter("b", Kind.READ)
    await gate.enter("b", Kind.WRITE)
    for _ in range(100):  # the waits end: the estimate falls back and reads are admitted again
        gate.waited("c", 30.0)
    await gate.enter("b", Kind.READ)


def test_callers_that_stopped_calling_are_forgotten() -> None:
    """The seats of finished matches call no more: their deadline slack leaves the table (flat memory)."""
    gate, clock = admission(max_in_flight=8)
    for match in range(100):
        for seat in range(4):
            gate.waited(f"{match}/{seat}", 30.0)
        clock.now += CALLER_MEMORY / 50  # fifty matches' seats within the memory
    assert 50 * 4 <= len(gate.slack) <= 51 * 4
    gate.waited("99/0", 30.0)  # a caller that calls again keeps its reference
    clock.now += CALLER_MEMORY - 1
    gate.waited("late", 30.0)
    assert set(gate.slack) == {"99/0", "late"}
