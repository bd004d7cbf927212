"""Prometheus metrics and JSON log lines (service/metrics.py, service/logs.py, ``cardgames serve``).

A real server (gRPC and metrics both on port 0) plays a whole match while a watcher follows it;
the ``/metrics`` endpoint, scraped over HTTP, then shows the calls by method and code, the
latencies, the commands by game and outcome, a rules rejection, a rate-limit refusal, the live
games, the watchers and the store's calls. ``cardgames serve --log-format json`` writes one JSON
object per line; a bad ``--metrics`` address is one line and a non-zero exit.
"""

from __future__ import annotations

import asyncio
import io
import json
import logging
import random
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterable
from concurrent.futures import Future
from typing import Any
from uuid import uuid4

import grpc
import pytest
from cardgames.service.guards import Limits
from cardgames.service.logs import JsonFormatter, configure
from cardgames.service.metrics import Metrics
from cardgames.service.server import AddressError, CannotListen, Running, start
from cardgames.service.spawn import ROOT, spawn_server
from cardgames.service.store import EventStore, GameNotFound, StaleSequence
from cardgames.v1 import game_service_pb2, game_service_pb2_grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from prometheus_client.core import Metric
from prometheus_client.parser import text_string_to_metric_families

from tests.service.helpers import GAME, needs_game
from tests.service.test_grpc import SEED, auth, play_one, refused
from tests.service.test_store import HEADER, START

pytestmark = needs_game
pb = game_service_pb2
GAME_SERVICE = "cardgames.v1.GameService"

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def scrape(port: int) -> tuple[str, Samples]:
    """GET /metrics over HTTP: the text, and every sample by (name, labels)."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as answer:
        assert answer.status == 200
        text = answer.read().decode()
    return text, samples_of(text_string_to_metric_families(text))


def samples_of(families: Iterable[Metric]) -> Samples:
    """Every sample of the metric families by (name, labels)."""
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in families
        for sample in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


def calls(samples: Samples, method: str, code: str) -> float:
    return value(samples, "cardgames_rpc_calls_total", service=GAME_SERVICE, method=method, code=code)


async def scraped(running: Running) -> Samples:
    assert running.metrics_port is not None
    return (await asyncio.to_thread(scrape, running.metrics_port))[1]


async def test_a_scrape_after_a_whole_match_shows_its_calls_commands_watchers_and_store() -> None:
    limits = Limits(rate=10_000, burst=20_000, max_streams=1)  # a second open Watch of one caller is refused
    running = await start("127.0.0.1:0", EventStore.from_url("memory:"), limits=limits, metrics="127.0.0.1:0")
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            stub = game_service_pb2_grpc.GameServiceStub(channel)
            created = await stub.CreateGame(pb.CreateGameRequest(game=GAME, seed=SEED))
            game_id, tokens = created.game_id, list(created.seat_tokens)
            watcher = stub.Watch(pb.WatchRequest(game_id=game_id))
            first = await anext(watcher.__aiter__())
            assert not first.view.over
            code, reason, _, _ = await refused(anext(stub.Watch(pb.WatchRequest(game_id=game_id)).__aiter__()))
            assert (code, reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "RATE_LIMITED")

            during = await scraped(running)
            assert value(during, "cardgames_watchers") == 1
            assert value(during, "cardgames_live_games", state="playing") == 1
            assert value(during, "cardgames_rate_limit_refusals_total", service=GAME_SERVICE, method="Watch") == 1
            assert calls(during, "Watch", "RESOURCE_EXHAUSTED") == 1

            # A rules rejection: the seat not to act sends the acting seat's command.
            view = (await stub.GetView(pb.GetViewRequest(game_id=game_id))).view
            seat = view.to_act[0]
            request = pb.ListLegalCommandsRequest(game_id=game_id)
            legal = await stub.ListLegalCommands(request, metadata=auth(tokens[seat]))
            other = tokens[(seat + 1) % len(tokens)]
            code, reason, _, _ = await refused(
                stub.SubmitCommand(
                    pb.SubmitCommandRequest(game_id=game_id, command=legal.commands[0]), metadata=auth(other)
                )
            )
            assert (code, reason) == (grpc.StatusCode.FAILED_PRECONDITION, "NOT_YOUR_TURN")

            rng, accepted = random.Random(1), 0
            while await play_one(stub, game_id, tokens, rng):
                accepted += 1
            updates = [message async for message in watcher]
            assert updates[-1].view.over
            code, reason, _, _ = await refused(
                stub.SubmitCommand(
                    pb.SubmitCommandRequest(game_id=game_id, command=legal.commands[0]), metadata=auth(tokens[seat])
                )
            )
            assert (code, reason) == (grpc.StatusCode.FAILED_PRECONDITION, "GAME_OVER")

        after = await scraped(running)
        assert accepted > 10
        assert calls(after, "CreateGame", "OK") == 1
        assert calls(after, "SubmitCommand", "OK") == accepted
        assert calls(after, "SubmitCommand", "FAILED_PRECONDITION") == 2
        assert calls(after, "ListLegalCommands", "OK") == accepted + 1
        assert calls(after, "Watch", "OK") == 1  # the stream ended with the match
        submits = value(after, "cardgames_rpc_seconds_count", service=GAME_SERVICE, method="SubmitCommand")
        assert submits == accepted + 2
        assert (
            value(after, "cardgames_rpc_seconds_bucket", service=GAME_SERVICE, method="SubmitCommand", le="+Inf")
            == submits
        )
        assert value(after, "cardgames_rpc_seconds_sum", service=GAME_SERVICE, method="SubmitCommand") > 0
        assert value(after, "cardgames_commands_total", game=GAME, outcome="accepted") == accepted
        assert value(after, "cardgames_commands_total", game=GAME, outcome="NOT_YOUR_TURN") == 1
        assert value(after, "cardgames_commands_total", game=GAME, outcome="GAME_OVER") == 1
        assert value(after, "cardgames_watchers") == 0
        assert value(after, "cardgames_live_games", state="over") == 1
        assert value(after, "cardgames_live_games", state="playing") == 0
        assert value(after, "cardgames_store_seconds_count", operation="create") == 1
        assert value(after, "cardgames_store_seconds_count", operation="append") == accepted
        assert value(after, "cardgames_store_errors_total", operation="append") == 0
        assert value(after, "cardgames_engine_workers_size") == running.games.pool.size
        assert value(after, "process_resident_memory_bytes") > 0

        # A second server in the same process has metrics of its own.
        second = await start("127.0.0.1:0", EventStore.from_url("memory:"), metrics="127.0.0.1:0")
        try:
            assert second.metrics_port != running.metrics_port
            theirs = await scraped(second)
            assert calls(theirs, "CreateGame", "OK") == 0 and value(theirs, "cardgames_live_games", state="over") == 0
        finally:
            await second.stop(grace=None)
    finally:
        await running.stop(grace=None)


async def test_start_refuses_a_bad_or_held_metrics_address() -> None:
    with pytest.raises(AddressError):
        await start("127.0.0.1:0", EventStore.from_url("memory:"), metrics="127.0.0.1:65536")
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        with pytest.raises(CannotListen, match=f"cannot serve metrics on 127.0.0.1:{port}: Address already in use"):
            await start("127.0.0.1:0", EventStore.from_url("memory:"), metrics=f"127.0.0.1:{port}")


def run_serve(*args: str) -> subprocess.CompletedProcess[str]:
    """``cardgames serve --store memory: ARGS`` that must exit by itself (a refused address)."""
    return subprocess.run(
        [
            sys.executable,
            "-c",
            "from cardgames.service.cli import main; main()",
            "serve",
            "--address",
            "127.0.0.1:0",
            "--store",
            "memory:",
            *args,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize(
    ("metrics", "code", "says"),
    [
        ("nonsense", 2, "cardgames serve: --metrics: the address must be HOST:PORT"),
        ("127.0.0.1:65536", 2, "cardgames serve: --metrics: the port must be a number in 0..65535"),
        ("127.0.0.1:-1", 2, "cardgames serve: --metrics: the port must be a number in 0..65535"),
        ("::1:9100", 2, "cardgames serve: --metrics: an IPv6 host goes in brackets"),
        ("held", 1, "cardgames serve: cannot serve metrics on 127.0.0.1:{port}: Address already in use"),
    ],
)
def test_a_bad_metrics_address_is_one_line_and_a_non_zero_exit(metrics: str, code: int, says: str) -> None:
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        done = run_serve("--metrics", f"127.0.0.1:{port}" if metrics == "held" else metrics)
    assert done.returncode == code, done.stderr
    assert "Traceback" not in done.stderr and "serving GameService" not in done.stdout
    lines = [line for line in done.stderr.splitlines() if not line.startswith("cardgames serve: engine:")]
    assert len(lines) == 1 and lines[0].startswith(says.format(port=port)), done.stderr


def announcement(lines: list[str], start: str) -> str:
    """The line of stdout that starts with ``start`` (it follows the serving line: wait a little for it)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        found = [line for line in lines if line.startswith(start)]
        if found:
            return found[0]
        time.sleep(0.05)
    raise AssertionError(f"no line starting with {start!r} in {lines}")


def test_serve_with_json_logs_writes_one_json_object_per_line_and_serves_metrics() -> None:
    server = spawn_server("memory:", args=["--metrics", "127.0.0.1:0", "--log-format", "json", "--workers", "1"])
    try:
        announced = announcement(server.lines, "cardgames: metrics on http://127.0.0.1:")
        port = int(announced.rsplit(":", 1)[1].split("/")[0])
        text, _ = scrape(port)
        assert 'cardgames_live_games{state="playing"} 0.0' in text
    finally:
        assert server.stop() == 0
    lines = [json.loads(line) for line in server.log().splitlines() if line.strip()]
    assert lines and all({"time", "level", "logger", "message"} <= line.keys() for line in lines)
    by_message = {line["message"].split(" on ")[0]: line for line in lines}
    serving = by_message["serving GameService"]
    assert serving["level"] == "info" and serving["logger"] == "cardgames.service.server"
    assert serving["address"] == f"127.0.0.1:{server.port}" and serving["store"] == "memory"
    assert serving["time"].endswith("Z") and isinstance(serving["pid"], int)
    assert by_message["metrics"]["metrics"] == f"http://127.0.0.1:{port}/metrics"
    assert "stopping" in by_message
    assert any(line["message"].startswith("engine: ") for line in lines)


def test_a_json_log_line_carries_its_fields_and_its_exception() -> None:
    stream = io.StringIO()
    logger = logging.getLogger("cardgames.test.json")
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    logger.addHandler(handler)
    try:
        try:
            raise OSError("disk full")
        except OSError:
            logger.warning("store failure: %s", "disk full", exc_info=True, extra={"game_id": "g-1", "n": 3})
    finally:
        logger.removeHandler(handler)
    [line] = stream.getvalue().splitlines()
    record: dict[str, Any] = json.loads(line)
    assert record["level"] == "warning" and record["logger"] == "cardgames.test.json"
    assert record["message"] == "store failure: disk full" and record["game_id"] == "g-1" and record["n"] == 3
    assert record["error"].startswith("Traceback") and "OSError: disk full" in record["error"]
    configure("text")  # text: Python's own lines, left as they are
    with pytest.raises(ValueError):
        configure("yaml")


async def test_health_watch_and_reflection_streams_are_served_and_counted() -> None:
    running = await start("127.0.0.1:0", EventStore.from_url("memory:"), metrics="127.0.0.1:0")
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            reflection = reflection_pb2_grpc.ServerReflectionStub(channel)
            answers = reflection.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(list_services="")]))
            assert [answer async for answer in answers]
            # health's Watch writes with context.write (a coroutine, not an async generator)
            watch = health_pb2_grpc.HealthStub(channel).Watch(health_pb2.HealthCheckRequest(service=""))
            first = await anext(watch.__aiter__())
            assert first.status == health_pb2.HealthCheckResponse.SERVING
            watch.cancel()
            for _ in range(100):
                samples = await scraped(running)
                health = {"service": "grpc.health.v1.Health", "method": "Watch", "code": "CANCELLED"}
                if value(samples, "cardgames_rpc_calls_total", **health):
                    break
                await asyncio.sleep(0.05)
            else:
                pytest.fail("the health Watch stream's end was not counted")
        reflected = {"service": "grpc.reflection.v1alpha.ServerReflection", "method": "ServerReflectionInfo"}
        assert value(samples, "cardgames_rpc_calls_total", code="OK", **reflected) == 1
        assert value(samples, "cardgames_watchers") == 0  # (GameService's Watch only)
    finally:
        await running.stop(grace=None)


def test_store_calls_are_timed_and_only_failures_count_as_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    metrics = Metrics()
    store = metrics.watch_store(EventStore.from_url("memory:"))
    game_id = uuid4()
    store.create(game_id, HEADER, START)
    assert store.append.__name__ == "append"  # (the application layer picks its thread pool by name)
    with pytest.raises(StaleSequence):
        store.append(game_id, "core", 0, START[1:])  # a taken sequence: an answer
    with pytest.raises(GameNotFound):
        store.header(uuid4())  # a missing game: an answer

    def full(records: Any) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(store.recorder, "insert_events", full)
    with pytest.raises(OSError):
        store.append(game_id, "core", 2, START[1:])
    written: Future[Any] = Future()
    monkeypatch.setattr(store.recorder, "submit", lambda records: written, raising=False)  # as group commit's
    later = store.append_later(game_id, "core", 2, START[1:])
    samples = samples_of(metrics.registry.collect())
    assert value(samples, "cardgames_store_seconds_count", operation="append_later") == 0  # not written yet
    written.set_exception(OSError("database down"))
    assert isinstance(later.exception(), OSError)
    samples = samples_of(metrics.registry.collect())
    assert value(samples, "cardgames_store_seconds_count", operation="create") == 1
    assert value(samples, "cardgames_store_seconds_count", operation="append") == 2
    assert value(samples, "cardgames_store_seconds_count", operation="header") == 1
    assert value(samples, "cardgames_store_seconds_count", operation="append_later") == 1
    assert value(samples, "cardgames_store_errors_total", operation="append") == 1
    assert value(samples, "cardgames_store_errors_total", operation="header") == 0
    assert value(samples, "cardgames_store_errors_total", operation="append_later") == 1
