"""The benchmarks' emulated link (benchmarks/netproxy.py) really delays and really caps:
measured through it against a loopback echo server."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import pytest

from benchmarks.netproxy import LinkProxy


@pytest.fixture
def echo() -> Iterator[int]:
    """A TCP server that echoes what it receives (one thread per connection)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.settimeout(0.05)  # accept() polls, so the fixture can stop the thread and join it
    stop = threading.Event()
    threads: list[threading.Thread] = []

    def serve(conn: socket.socket) -> None:
        conn.settimeout(None)
        with conn:
            while data := conn.recv(65536):
                conn.sendall(data)

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            t = threading.Thread(target=serve, args=(conn,), daemon=True)
            threads.append(t)
            t.start()

    acceptor = threading.Thread(target=accept, daemon=True)
    acceptor.start()
    yield server.getsockname()[1]
    stop.set()
    acceptor.join(timeout=5)
    server.close()
    for t in threads:  # every client has closed by now: each connection ends with its EOF
        t.join(timeout=5)


def recv_exactly(sock: socket.socket, n: int) -> bytes:
    out = bytearray()
    while len(out) < n:
        data = sock.recv(min(65536, n - len(out)))
        if not data:
            break
        out += data
    return bytes(out)


def round_trip(port: int, payload: bytes) -> float:
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        s.sendall(b"x")  # the connection is up and warm
        assert recv_exactly(s, 1) == b"x"
        t0 = time.perf_counter()
        s.sendall(payload)
        assert recv_exactly(s, len(payload)) == payload
        return time.perf_counter() - t0


def test_a_round_trip_takes_the_links_rtt(echo: int) -> None:
    direct = min(round_trip(echo, b"ping") for _ in range(3))
    with LinkProxy("127.0.0.1", echo, rtt=0.08) as link:
        delayed = [round_trip(link.port, b"ping") for _ in range(3)]
        assert link.stats.connections == 3 and link.stats.turns >= 6
    assert direct < 0.02
    # each direction waits 40 ms: a round trip is 80 ms, and not much more
    assert all(0.08 <= t < 0.08 + 0.1 for t in delayed), delayed


def test_the_bandwidth_is_capped_per_direction(echo: int) -> None:
    payload = bytes(range(256)) * 1024  # 256 KiB
    with LinkProxy("127.0.0.1", echo, mbit=16) as link:  # 2 MB/s each way
        took = round_trip(link.port, payload)
        assert link.stats.up == link.stats.down == len(payload) + 1
    # up and down overlap (the echo answers as it reads): ~ size / rate, plus a chunk's time
    expected = len(payload) / 2e6
    assert expected * 0.9 <= took < expected * 2 + 0.1, took


def test_delay_and_cap_add_up(echo: int) -> None:
    payload = b"y" * 100_000
    with LinkProxy("127.0.0.1", echo, rtt=0.05, mbit=8) as link:  # 1 MB/s each way
        took = round_trip(link.port, payload)
    assert 0.05 + 0.1 * 0.9 <= took < 0.05 + 0.1 * 2 + 0.1, took


def test_bad_parameters_are_refused() -> None:
    with pytest.raises(ValueError):
        LinkProxy("127.0.0.1", 1, rtt=-1)
    with pytest.raises(ValueError):
        LinkProxy("127.0.0.1", 1, mbit=0)
