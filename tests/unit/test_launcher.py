"""The local server launcher without Spark: launched processes (real ones) are reaped
once they end, whoever ended them."""

from __future__ import annotations

import gc
import json
import os
import signal
import sys
import time
import warnings
from pathlib import Path

from connect_plan import server as launcher
from connect_plan.server import LocalServer, ServerInfo


def test_a_launched_process_killed_by_someone_else_is_reaped(tmp_path: Path) -> None:
    """As a fault test does to its server: SIGKILL, then the state is looked at again. The
    Popen must learn of the exit, or it warns 'subprocess N is still running' when it is
    collected (at the end of the test run, where the warning was seen)."""
    local = LocalServer(tmp_path)
    proc = local._spawn([sys.executable, "-c", "import time; time.sleep(60)"], tmp_path / "log", dict(os.environ))
    assert launcher._LAUNCHED[proc.pid] is proc
    info = ServerInfo(proc.pid, 45678, "127.0.0.1", str(tmp_path / "log"), time.time(), "/x")
    (tmp_path / "server.json").write_text(json.dumps(info.__dict__))
    os.kill(proc.pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and Path(f"/proc/{proc.pid}/stat").read_text().split(")")[-1].split()[0] != "Z":
        time.sleep(0.05)
    assert local.info() is None  # the recorded process is gone: stale state, and it is reaped
    assert proc.returncode == -signal.SIGKILL
    assert proc.pid not in launcher._LAUNCHED
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        del proc
        gc.collect()
    assert not [w for w in caught if issubclass(w.category, ResourceWarning)], [str(w.message) for w in caught]

