"""``cardgames serve`` on a held port, a malformed address or a port out of range, with real processes.

Each is one line on stderr and a non-zero exit: never a traceback, never a wrapped port, and
never a second listener beside a running server (gRPC sets SO_REUSEPORT by default; the kernel
would then split the connections between the two processes).
"""

from __future__ import annotations

import http.client
import socket
import subprocess
import sys
import time
from pathlib import Path

import grpc
import pytest
from cardgames.service.spawn import ROOT, spawn_server
from cardgames.v1 import game_service_pb2, game_service_pb2_grpc

pb = game_service_pb2


def serve(*addresses: str, http: str = "off") -> list[subprocess.CompletedProcess[str]]:
    """Run ``cardgames serve --address A --http HTTP`` for each address at once; each must exit by itself."""
    processes = [
        subprocess.Popen([sys.executable, "-c", "from cardgames.service.cli import main; main()",
                          "serve", "--address", address, "--http", http, "--store", "memory:"],
                         cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for address in addresses
    ]
    done = []
    for address, process in zip(addresses, processes, strict=True):
        try:
            out, err = process.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            out, err = process.communicate()
            pytest.fail(f"cardgames serve --address {address} did not exit: it listens ({out!r})")
        done.append(subprocess.CompletedProcess(process.args, process.returncode, out, err))
    return done


def errors_of(done: subprocess.CompletedProcess[str]) -> list[str]:
    """The error lines on stderr (the engine's build line is information)."""
    assert "Traceback" not in done.stderr, done.stderr
    assert "serving GameService" not in done.stdout
    return [line for line in done.stderr.splitlines() if not line.startswith("cardgames serve: engine:")]


async def test_a_port_held_by_a_server_or_another_program_is_refused_and_the_server_keeps_every_connection(
    tmp_path: Path,
) -> None:
    running = spawn_server("memory:")
    other = socket.socket()
    other.bind(("127.0.0.1", 0))
    other.listen()
    try:
        held = other.getsockname()[1]
        second, third, fourth = serve(f"127.0.0.1:{running.port}", f"localhost:{running.port}", f"127.0.0.1:{held}")
        for done, port in ((second, running.port), (third, running.port), (fourth, held)):
            assert done.returncode == 1
            [line] = errors_of(done)
            assert line.startswith("cardgames serve: cannot listen on ") and f":{port}: " in line, line
            assert "Address already in use (another program, or another server, holds it)" in line
        async with grpc.aio.insecure_channel(running.target) as channel:
            created = await game_service_pb2_grpc.GameServiceStub(channel).CreateGame(pb.CreateGameRequest(game="seep"))
        for _ in range(20):  # new connections all reach the one server that holds the game
            options = [("grpc.use_local_subchannel_pool", 1)]
            async with grpc.aio.insecure_channel(running.target, options=options) as channel:
                stub = game_service_pb2_grpc.GameServiceStub(channel)
                await stub.GetView(pb.GetViewRequest(game_id=created.game_id))
    finally:
        other.close()
        assert running.stop() == 0


@pytest.mark.parametrize(
    ("address", "says"),
    [
        ("nonsense", "the address must be HOST:PORT"),
        (":50051", "the address must be HOST:PORT"),
        ("127.0.0.1:", "the port must be a number in 0..65535"),
        ("127.0.0.1:65536", "the port must be a number in 0..65535"),
        ("127.0.0.1:99999", "(0: any free port), not '99999'"),
        ("127.0.0.1:-1", "the port must be a number in 0..65535"),
        ("::1:50051", "an IPv6 host goes in brackets"),
        ("127.0.0.1:" + "9" * 100_000, "(100,000 characters)"),
    ],
)
def test_a_malformed_address_or_a_port_out_of_range_is_one_line_and_exit_code_2(address: str, says: str) -> None:
    [done] = serve(address)
    assert done.returncode == 2
    [line] = errors_of(done)
    assert line.startswith("cardgames serve: ") and says in line and len(line) < 200, line


def test_a_host_that_does_not_resolve_is_one_line_and_exit_code_1() -> None:
    [done] = serve("no-such-host.invalid:0")
    assert done.returncode == 1
    [line] = errors_of(done)
    assert "cannot listen on no-such-host.invalid:0: cannot resolve the host 'no-such-host.invalid'" in line


@pytest.mark.parametrize(
    ("http", "says"),
    [
        ("nonsense", "--http: the address must be HOST:PORT"),
        ("127.0.0.1:65536", "--http: the port must be a number in 0..65535"),
        ("127.0.0.1:-1", "--http: the port must be a number in 0..65535"),
        ("::1:8080", "--http: an IPv6 host goes in brackets"),
    ],
)
def test_a_malformed_http_address_is_one_line_and_exit_code_2(http: str, says: str) -> None:
    [done] = serve("127.0.0.1:0", http=http)
    assert done.returncode == 2
    [line] = errors_of(done)
    assert line.startswith("cardgames serve: ") and says in line and len(line) < 200, line


def test_a_held_http_port_is_one_line_and_exit_code_1() -> None:
    other = socket.socket()
    other.bind(("127.0.0.1", 0))
    other.listen()
    try:
        held = other.getsockname()[1]
        [done] = serve("127.0.0.1:0", http=f"127.0.0.1:{held}")
    finally:
        other.close()
    assert done.returncode == 1
    [line] = errors_of(done)
    assert line.startswith(f"cardgames serve: cannot listen on 127.0.0.1:{held} (HTTP): "), line
    assert "Address already in use (another program, or another server, holds it)" in line


def test_http_is_served_beside_grpc_and_can_be_turned_off() -> None:
    both = spawn_server("memory:")
    try:
        assert both.http_port is not None and both.http_port != both.port
        connection = http.client.HTTPConnection("127.0.0.1", both.http_port, timeout=10)
        connection.request("POST", "/cardgames.v1.GameService/CreateGame", body=b'{"game": "seep"}',
                           headers={"content-type": "application/json"})
        assert connection.getresponse().status == 200
        connection.close()
    finally:
        assert both.stop() == 0
    alone = spawn_server("memory:", http="off")
    try:
        assert alone.http_port is None
        assert not any("gRPC-Web" in line for line in alone.lines)
        time.sleep(1)  # (the SIGTERM handler is installed just after the serving line)
    finally:
        assert alone.stop() == 0
