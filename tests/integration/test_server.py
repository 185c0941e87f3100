"""The local server launcher, for real: start/status/stop through the CLI in a private
state directory, readiness means a query answers, stop verifies the pid."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

import connect_plan
from connect_plan.errors import LocalServerError
from connect_plan.server import LocalServer, ServerInfo
from tests.support.processes import connect_plan as connect_plan_entry

ROOT = Path(__file__).resolve().parent.parent.parent
pytestmark = pytest.mark.spark_only


def _non_loopback_ipv4() -> list[str]:
    try:
        out = subprocess.run(["hostname", "-I"], capture_output=True, text=True, timeout=10).stdout.split()
    except OSError:
        return []
    return [a for a in out if a.count(".") == 3 and not a.startswith("127.")]


def test_stale_state_never_signals_a_foreign_process(tmp_path: Path) -> None:
    """A state file naming a live pid that is not our server is treated as stale."""
    with subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"]) as other:
        try:
            info = ServerInfo(other.pid, 45678, "127.0.0.1", str(tmp_path / "log"), time.time(), "/x")
            (tmp_path / "server.json").write_text(json.dumps(info.__dict__))
            server = LocalServer(tmp_path)
            assert server.info() is None
            assert not (tmp_path / "server.json").exists()
            assert server.stop() is False
            assert other.poll() is None  # still running: never signalled
        finally:
            other.kill()


def test_port_in_use_is_a_clear_error(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        with pytest.raises(LocalServerError, match="already in use"):
            LocalServer(tmp_path).start(port=s.getsockname()[1])


@pytest.mark.slow
def test_run_starts_a_local_server_that_status_start_explain_and_stop_then_use(tmp_path: Path) -> None:
    """Neither --remote nor SPARK_REMOTE: ``run`` starts a local server (in the state
    directory CONNECT_PLAN_STATE_DIR names) and uses it; ``server status`` reports it (ready
    means a query answers right away), ``server start`` reuses it, ``explain --analyzed``
    uses the same one; plain ``explain`` needs none. It listens on loopback only. ``server
    stop`` ends it (the pid is verified) and ``status`` then exits 4.

    One server start for what were two tests (``server start`` then status, query, stop; and
    ``run`` starting one): ``server start`` launching a server itself, with --port,
    --driver-memory and --conf, is test_cluster.py's start of its cluster."""
    doc = tmp_path / "plan.json"
    doc.write_text(
        json.dumps(
            {
                "input": {"schema": [{"name": "a", "type": "int"}], "rows": [[1], [2]]},
                "plan": [{"op": "filter", "payload": {"op": "gt", "left": "a", "right": 1}}],
            }
        )
    )
    state = tmp_path / "state"
    env = {k: v for k, v in os.environ.items() if k not in ("SPARK_REMOTE", "SPARK_CONNECT_MODE_ENABLED")}
    env.update({"PYTHONPATH": str(ROOT), "CONNECT_PLAN_STATE_DIR": str(state)})

    def connect_plan_cli(*args: str) -> subprocess.CompletedProcess[str]:
        return connect_plan_entry(*args, env=env)

    offline = connect_plan_cli("explain", str(doc))
    assert offline.returncode == 0 and "starting a local" not in offline.stderr and not state.exists()
    t0 = time.monotonic()
    ran = connect_plan_cli("run", str(doc), "--format", "json")
    took = time.monotonic() - t0
    info: ServerInfo | None = None
    try:
        assert ran.returncode == 0, ran.stderr
        assert json.loads(ran.stdout) == [{"a": 2}]
        assert "starting a local Spark Connect server" in ran.stderr and "server ready at sc://127.0.0.1:" in ran.stderr
        info = LocalServer(state).info()
        assert info is not None and info.url in ran.stderr
        status = json.loads(connect_plan_cli("server", "status").stdout)
        assert status["pid"] == info.pid and status["port"] == info.port and status["url"] == info.url
        assert connect_plan.execute_plan([[1]], [("a", "int")], [], remote=status["url"]).num_rows == 1
        # starting again reuses the running server
        again = connect_plan_cli("server", "start")
        assert again.returncode == 0 and "already running" in again.stdout and str(info.pid) in again.stdout
        # bound to loopback only: the machine's other addresses refuse the port
        for address in _non_loopback_ipv4():
            with pytest.raises(ConnectionRefusedError):
                socket.create_connection((address, info.port), timeout=2).close()
        explained = connect_plan_cli("explain", str(doc), "--analyzed")
        assert explained.returncode == 0, explained.stderr
        assert "== Analyzed Logical Plan ==" in explained.stdout and "starting a local" not in explained.stderr
        assert LocalServer(state).info() == info  # the same server
    finally:
        stopped = connect_plan_cli("server", "stop")
    assert stopped.returncode == 0 and "stopped" in stopped.stdout, stopped.stderr
    assert info is not None
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and Path(f"/proc/{info.pid}").exists():
        time.sleep(0.2)
    assert not Path(f"/proc/{info.pid}").exists()
    assert connect_plan_cli("server", "status").returncode == 4
    print(f"\n[auto-start] run with no server given took {took:.1f} s (the start included)")
