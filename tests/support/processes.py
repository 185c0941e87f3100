"""Doubles at the process level: the real ``connect-plan`` entry point (the console script
pip installs) run in a subprocess, as a user would, with an isolated local-server state
directory; and a Spark Connect server of a test's own, to pause, kill and start again
(:class:`FaultServer`)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from connect_plan.server import LocalServer, free_port

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def entry_point() -> list[str]:
    """The installed ``connect-plan`` script beside this Python (the venv's), else on PATH."""
    beside = Path(sys.executable).parent / "connect-plan"
    if beside.exists():
        return [str(beside)]
    found = shutil.which("connect-plan")
    if found is None:  # pragma: no cover - the package is installed for the tests
        raise RuntimeError("the connect-plan entry point is not installed (pip install -e .)")
    return [found]


def connect_plan(
    *args: str,
    remote: str | None = None,
    cwd: Path | str | None = None,
    stdin: str | None = None,
    env: dict[str, str] | None = None,
    state_dir: str = "/nonexistent/connect-plan-test",
    timeout: float = 300,
) -> subprocess.CompletedProcess[str]:
    """``connect-plan ARGS`` with ``SPARK_REMOTE=remote`` (none if not given)."""
    full = {
        "PATH": os.environ.get("PATH", os.defpath),
        "PYTHONPATH": str(ROOT),
        "HOME": os.environ.get("HOME", "/tmp"),
        "CONNECT_PLAN_STATE_DIR": state_dir,
        **(env or {}),
    }
    if remote:
        full["SPARK_REMOTE"] = remote
    return subprocess.run(
        [*entry_point(), *args], capture_output=True, text=True, input=stdin, env=full, cwd=cwd, timeout=timeout
    )


def no_traceback(out: subprocess.CompletedProcess[str]) -> None:
    text = out.stdout + out.stderr
    assert "Traceback" not in text and 'File "' not in text, text


def local_state_dir(url: str, base_temp: Path) -> str | None:
    """The state directory of the local server connect_plan started that serves ``url`` (the
    user's default one, or the one the test session started under ``base_temp``), or None
    when ``url`` is some other server."""
    from connect_plan.server import LocalServer, state_dir

    for directory in (state_dir(), *sorted(base_temp.glob("spark-connect*"))):
        info = LocalServer(directory).info()
        if info is not None and info.url == url:
            return str(directory)
    return None


class FaultServer:
    """A Spark Connect server of a test's own, to pause (SIGSTOP), kill (SIGKILL) and start
    again on the same port; ``inbound_limit`` is its gRPC inbound message limit."""

    def __init__(self, directory: Path, *, inbound_limit: int) -> None:
        self.inbound_limit = inbound_limit
        self.local = LocalServer(directory)
        self.port = free_port()
        self.starts = 0
        self.start()

    def start(self) -> None:
        t = time.monotonic()
        self.info = self.local.start(
            port=self.port,
            driver_memory="1g",
            conf={
                "spark.sql.shuffle.partitions": "2",
                "spark.connect.grpc.maxInboundMessageSize": str(self.inbound_limit),
            },
        )
        self.starts += 1
        print(f"\n[fault server] start #{self.starts} took {time.monotonic() - t:.1f} s")

    @property
    def url(self) -> str:
        return self.info.url

    def signal(self, sig: int) -> None:
        os.killpg(self.info.pid, sig)  # the JVM and its Python workers (one process group)

    def kill(self) -> None:
        self.signal(signal.SIGKILL)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and self.alive():
            time.sleep(0.05)
        assert not self.alive()

    def alive(self) -> bool:
        try:
            os.kill(self.info.pid, 0)
        except ProcessLookupError:
            return False
        with open(f"/proc/{self.info.pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"

    def stop(self) -> None:
        self.signal(signal.SIGCONT)
        self.local.stop()
