"""Running the real ``connect-plan`` entry point (the console script pip installs) in a
subprocess, as a user would, with an isolated local-server state directory."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
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
