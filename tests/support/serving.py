"""``connect-plan serve`` as a user runs it: the installed entry point in a subprocess (listening
on a free loopback port, whose URL it prints), stopped with SIGTERM by the test; and the Flight
SQL clients the tests talk to it with (ADBC's DB-API, pyarrow.flight) with a bearer token."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

from tests.support.processes import ROOT, entry_point

#: three callers: two trusted ones (their sessions must not leak into each other) and a strict one
TOKENS = {
    "trusted-a-token-0123456789": {"policy": "trusted", "name": "alice"},
    "trusted-b-token-0123456789": {"policy": "trusted", "name": "bob"},
    "strict-token-0123456789abc": {"policy": "strict", "name": "stranger"},
}
ALICE, BOB, STRANGER = TOKENS


def write_tokens(directory: Path, tokens: dict[str, Any] | None = None) -> Path:
    path = directory / "tokens.json"
    path.write_text(json.dumps({"tokens": tokens or TOKENS}))
    return path


class ServeProcess:
    """``connect-plan serve ARGS --listen grpc://127.0.0.1:0 --remote REMOTE``, running until
    :meth:`stop` (SIGTERM); ``url`` is where it listens, ``stderr`` what it wrote there."""

    def __init__(self, remote: str, *args: str, env: dict[str, str] | None = None, ready_seconds: float = 120) -> None:
        full = {
            "PATH": os.environ.get("PATH", os.defpath),
            "PYTHONPATH": str(ROOT),
            "HOME": os.environ.get("HOME", "/tmp"),
            "CONNECT_PLAN_STATE_DIR": "/nonexistent/connect-plan-test",
            **(env or {}),
        }
        self.argv = [*entry_point(), "serve", "--listen", "grpc://127.0.0.1:0", "--remote", remote, *args]
        self.process = subprocess.Popen(
            self.argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=full, start_new_session=True
        )
        self._err: list[str] = []
        self._drain = threading.Thread(target=self._read_stderr, daemon=True)
        self._drain.start()
        assert self.process.stdout is not None
        deadline = time.monotonic() + ready_seconds
        line = ""
        while time.monotonic() < deadline:
            line = self.process.stdout.readline()
            if line.startswith("serving ") or not line:
                break
        if not line.startswith("serving "):
            self.stop()
            raise AssertionError(f"connect-plan serve did not start: {line!r}\n{self.stderr[-3000:]}")
        self.url = line.split()[1]

    def _read_stderr(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self._err.append(line)

    @property
    def stderr(self) -> str:
        return "".join(self._err)

    @property
    def pid(self) -> int:
        return self.process.pid

    def rss_mib(self) -> float:
        """The server process's resident memory now (MiB)."""
        with open(f"/proc/{self.process.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        raise AssertionError("no VmRSS")

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(30)
        self._drain.join(5)
        for pipe in (self.process.stdout, self.process.stderr):
            if pipe is not None:
                pipe.close()
        return int(self.process.returncode)

    def __enter__(self) -> ServeProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def adbc(url: str, token: str | None = None) -> Any:
    """An ADBC DB-API connection (the PyPI ``adbc-driver-flightsql``: Arrow's Go driver)."""
    import adbc_driver_flightsql.dbapi as flightsql

    kwargs: dict[str, str] = {}
    if token is not None:
        kwargs["adbc.flight.sql.authorization_header"] = f"Bearer {token}"
    return flightsql.connect(url, db_kwargs=kwargs, autocommit=True)


def flight(url: str) -> Any:
    import pyarrow.flight as fl

    return fl.connect(url)


def options(token: str | None) -> Any:
    import pyarrow.flight as fl

    headers = [(b"authorization", f"Bearer {token}".encode())] if token else []
    return fl.FlightCallOptions(headers=headers)


def command(name: str, **fields: Any) -> bytes:
    """A Flight SQL command packed in ``Any`` (the messages of connect_plan.flightsql)."""
    from connect_plan.flightsql.messages import SQL, message, pack

    return pack(message(f"{SQL}.{name}")(**fields))


def read_all(url: str, token: str | None, cmd: bytes) -> Any:
    """GetFlightInfo of ``cmd`` then DoGet of its ticket, with pyarrow.flight's client."""
    import pyarrow.flight as fl

    client = flight(url)
    try:
        info = client.get_flight_info(fl.FlightDescriptor.for_command(cmd), options(token))
        [endpoint] = info.endpoints
        table = client.do_get(endpoint.ticket, options(token)).read_all()
        return info, table
    finally:
        client.close()


def spark_calls(proxy: Any, since: int = 0) -> list[str]:
    """The Spark Connect methods the recording proxy saw since call number ``since``."""
    return [m.rsplit("/", 1)[1] for m, _ in proxy.calls[since:]]


def released_all(proxy: Any, since: int, session_id: str) -> bool:
    """Whether a ReleaseExecute of a whole execution of the session reached Spark since unary
    request number ``since``: Spark interrupts an execution released whole (ExecuteHolder.close),
    and the client sends it in the background, after the call that ended the execution returned."""
    from connect_plan.spark_proto import pb

    for method, raw in proxy.requests[since:]:
        if method.endswith("/ReleaseExecute"):
            req = pb.ReleaseExecuteRequest.FromString(raw)
            if req.HasField("release_all") and req.session_id == session_id:
                return True
    return False


def wait_until(check: Any, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)
