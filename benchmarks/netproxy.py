"""An emulated network link for the benchmarks: a user-space TCP proxy on loopback.

This kernel has no ``netem``, so a real link's two costs are built in user space: every
byte forwarded through :class:`LinkProxy` is delivered ``delay`` seconds after it arrived
(per direction: a round trip costs ``2 × delay``), and each direction carries at most
``bandwidth`` bytes per second (a serialisation queue, as a link's bottleneck has: a
chunk leaves when the link has finished sending the chunks before it). Clients connect to
:attr:`LinkProxy.url` instead of the server's; the proxy runs in a thread of its own (an
asyncio loop), so the code measured needs no changes.

Backpressure is kept: each direction holds at most a bandwidth-delay product (plus a
little) of bytes in flight, so a fast sender is slowed down by TCP as it would be by a real
link, and the proxy never buffers a whole result.

    with LinkProxy("127.0.0.1", 15102, rtt=0.020, mbit=100) as link:
        client = connect_plan.connect(link.url)

:attr:`LinkProxy.stats` counts connections and bytes per direction.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import threading
import time
from dataclasses import dataclass, field
from typing import Any

__all__ = ["LinkProxy", "LinkStats"]

#: bytes read (and paced) at a time
CHUNK = 16 * 1024


@dataclass
class LinkStats:
    connections: int = 0
    #: bytes client → server, server → client
    up: int = 0
    down: int = 0
    #: times the traffic turned from client→server to server→client (a lower bound of the
    #: round trips: a request/answer exchange turns once; pipelined requests turn once in all)
    turns: int = 0
    _last: str = field(default="", repr=False)

    def note(self, direction: str, n: int) -> None:
        if direction == "up":
            self.up += n
        else:
            self.down += n
            if self._last == "up":
                self.turns += 1
        self._last = direction


class LinkProxy:
    """A TCP proxy from ``127.0.0.1:<port>`` to ``host:port`` with a one-way delay of
    ``rtt / 2`` per direction and a cap of ``mbit`` megabits per second per direction
    (None: unlimited). Use as a context manager, or :meth:`start` / :meth:`stop`."""

    def __init__(self, host: str, port: int, *, rtt: float = 0.0, mbit: float | None = None) -> None:
        if rtt < 0 or (mbit is not None and mbit <= 0):
            raise ValueError(f"rtt must be ≥ 0 and mbit > 0, got rtt={rtt!r}, mbit={mbit!r}")
        self.host, self.target_port = host, port
        self.delay = rtt / 2
        self.rate = None if mbit is None else mbit * 1e6 / 8  # bytes per second
        self.stats = LinkStats()
        self.port = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: asyncio.base_events.Server | None = None
        self._thread: threading.Thread | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._lock = threading.Lock()

    @property
    def url(self) -> str:
        """The Spark Connect URL of the server through this link."""
        return f"sc://127.0.0.1:{self.port}"

    # ---------------------------------------------------------------- lifecycle

    def start(self) -> LinkProxy:
        ready = threading.Event()
        failure: list[BaseException] = []

        def run() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            try:
                self._server = loop.run_until_complete(asyncio.start_server(self._accept, "127.0.0.1", 0))
                self.port = self._server.sockets[0].getsockname()[1]
            except BaseException as exc:  # reported to start()'s caller
                failure.append(exc)
                ready.set()
                return
            ready.set()
            try:
                loop.run_forever()
            finally:
                loop.close()

        self._thread = threading.Thread(target=run, name="netproxy", daemon=True)
        self._thread.start()
        ready.wait()
        if failure:
            raise failure[0]
        return self

    def stop(self) -> None:
        loop = self._loop
        if loop is None or self._thread is None:
            return

        async def shutdown() -> None:
            if self._server is not None:
                self._server.close()
            for task in list(self._tasks):
                task.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)
            loop.stop()

        asyncio.run_coroutine_threadsafe(shutdown(), loop)
        self._thread.join(timeout=5)
        self._loop = self._thread = None

    def __enter__(self) -> LinkProxy:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ---------------------------------------------------------------- forwarding

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            up_r, up_w = await asyncio.open_connection(self.host, self.target_port)
        except OSError:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()
            return
        with self._lock:
            self.stats.connections += 1
        try:
            await asyncio.gather(self._pipe(reader, up_w, "up"), self._pipe(up_r, writer, "down"))
        except asyncio.CancelledError:
            pass  # the proxy stops
        finally:
            # close and wait: a transport left to close after the loop stops leaks its socket
            for w in (writer, up_w):
                with contextlib.suppress(Exception):
                    w.close()
            for w in (writer, up_w):
                with contextlib.suppress(Exception):
                    await w.wait_closed()
            if task is not None:
                self._tasks.discard(task)

    async def _pipe(self, src: asyncio.StreamReader, dst: asyncio.StreamWriter, direction: str) -> None:
        """Read from ``src``, deliver to ``dst`` after the delay, at most at the rate."""
        # in flight at most: one bandwidth-delay product, and a few chunks besides
        bdp = (self.rate or 1e9) * max(self.delay * 2, 0.001)
        queue: asyncio.Queue[tuple[float, bytes] | None] = asyncio.Queue(maxsize=max(8, math.ceil(bdp / CHUNK) + 4))
        free_at = 0.0  # when the link has sent everything queued before

        async def deliver() -> None:
            while True:
                item = await queue.get()
                if item is None:
                    break
                due, data = item
                wait = due - time.monotonic()
                if wait > 0:
                    await asyncio.sleep(wait)
                dst.write(data)
                await dst.drain()
            with contextlib.suppress(Exception):
                if dst.can_write_eof():
                    dst.write_eof()

        sender = asyncio.ensure_future(deliver())
        try:
            while True:
                data = await src.read(CHUNK)
                if not data:
                    break
                now = time.monotonic()
                with self._lock:
                    self.stats.note(direction, len(data))
                sent = now
                if self.rate is not None:
                    sent = max(now, free_at) + len(data) / self.rate
                    free_at = sent
                await queue.put((sent + self.delay, data))
            await queue.put(None)  # the end, delivered after what came before it
            await sender
        except ConnectionError:
            pass
        finally:
            if not sender.done():
                sender.cancel()
                with contextlib.suppress(BaseException):
                    await sender
