"""The local server launcher without Spark: launched processes (real ones) are reaped
once they end, whoever ended them; bad ``server start`` arguments are usage errors before
anything is launched."""

from __future__ import annotations

import gc
import json
import os
import signal
import sys
import time
import warnings
from pathlib import Path

import pytest

from connect_plan import server as launcher
from connect_plan.cli import main
from connect_plan.errors import LocalServerError
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


BAD_SERVER_ARGS = [
    (["--cluster", "-1"], "--cluster needs a whole number of at least 1, got -1"),
    (["--cluster", "0"], "--cluster needs a whole number of at least 1, got 0"),
    (["--cluster", "two"], "--cluster needs a whole number of at least 1, got 'two'"),
    (["--cluster", "1", "--worker-cores", "0"], "--worker-cores needs a whole number of at least 1, got 0"),
    (["--cluster", "1", "--master", "spark://127.0.0.1:7077"], "not both"),
    (["--port", "70000"], "--port must be between 1 and 65535"),
]


@pytest.mark.parametrize("args,message", BAD_SERVER_ARGS, ids=lambda a: " ".join(a) if isinstance(a, list) else "")
def test_server_start_refuses_bad_cluster_arguments(
    args: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A usage error (exit 4) before anything is launched: ``--cluster -1`` used to start
    no worker, wait for at least -1 of them and set spark.cores.max=-1."""
    launched = set(launcher._LAUNCHED)
    assert main(["server", "start", "--state-dir", str(tmp_path), *args]) == 4
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert set(launcher._LAUNCHED) == launched and not (tmp_path / "server.json").exists()


def test_the_launcher_refuses_bad_counts_too(tmp_path: Path) -> None:
    for kwargs in ({"cluster": -1}, {"cluster": 1, "worker_cores": 0}, {"cluster": True}, {"cluster": 1.5}):
        with pytest.raises(LocalServerError, match="must be a whole number"):
            LocalServer(tmp_path).start(**kwargs)  # type: ignore[arg-type]
    assert not (tmp_path / "server.json").exists()
