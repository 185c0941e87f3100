"""The thin CI job's "no Java" logic (scripts/nojava.sh), in isolation: the job itself
builds a venv and runs the whole suite on Sail, too long for here."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
SCRIPTS = ROOT / "scripts"

pytestmark = pytest.mark.skipif(
    shutil.which("bash") is None or not Path("/proc/self/comm").exists(), reason="needs bash and Linux /proc"
)


def bash(script: str, env: dict[str, str] | None = None) -> str:
    out = subprocess.run(
        ["bash", "-c", f'. "{SCRIPTS}/nojava.sh"\n{script}'],
        capture_output=True,
        text=True,
        timeout=60,
        env=env if env is not None else dict(os.environ),
    )
    assert out.returncode == 0, out.stderr
    return out.stdout


def executable(path: Path, text: str = "#!/bin/sh\nexit 0\n") -> Path:
    path.write_text(text)
    path.chmod(0o755)
    return path


def test_hide_java_removes_java_from_path_and_keeps_everything_else(tmp_path: Path) -> None:
    a, b, c = (tmp_path / n for n in "abc")
    for d in (a, b, c):
        d.mkdir()
    executable(a / "java"), executable(a / "tool_a"), executable(a / "shared")
    executable(b / "tool_b"), executable(b / "shared")
    (c / "java").symlink_to(tmp_path / "nowhere")  # a dangling alternatives-style link counts too
    executable(c / "tool_c")
    shadow = tmp_path / "shadow"
    shadow.mkdir()
    env = {
        **os.environ,
        "PATH": f"{a}::{b}:{c}:/usr/bin:/bin",
        "JAVA_HOME": "/opt/jdk",
        "JDK_HOME": "/opt/jdk",
        "SPARK_HOME": "/opt/spark",
    }
    out = bash(
        f'''hide_java "{shadow}"
echo "java=$(command -v java || echo none)"
for t in tool_a tool_b tool_c shared ps bash; do echo "$t=$(command -v $t)"; done
echo "homes=${{JAVA_HOME-unset}},${{JDK_HOME-unset}},${{SPARK_HOME-unset}}"
echo "path=$PATH"
"{sys.executable}" -c 'import shutil; print("python sees", shutil.which("java"))'
''',
        env,
    )
    found = dict(line.split("=", 1) for line in out.splitlines() if "=" in line and not line.startswith("python"))
    assert found["java"] == "none" and "python sees None" in out
    assert found["homes"] == "unset,unset,unset"
    assert Path(found["tool_a"]).resolve() == (a / "tool_a").resolve() and Path(found["tool_a"]).parent != a
    assert found["tool_b"] == str(b / "tool_b") and Path(found["tool_c"]).resolve() == (c / "tool_c").resolve()
    assert Path(found["shared"]).resolve() == (a / "shared").resolve()  # the order of PATH is kept
    assert found["ps"] and found["bash"]
    dirs = found["path"].split(":")
    assert str(b) in dirs and str(a) not in dirs and str(c) not in dirs and "" not in dirs


def test_hide_java_on_this_machines_path(tmp_path: Path) -> None:
    """Whatever this machine has (here: /usr/bin/java, an alternatives link, beside every
    other tool in /usr/bin): no java after, the launcher finds none, the rest is there."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = bash(
        f'''hide_java "{tmp_path}"
command -v java || echo "no java"
command -v ps > /dev/null && command -v hostname > /dev/null && echo "tools ok"
"{sys.executable}" -c '
from connect_plan.errors import LocalServerError
from connect_plan.server import find_java
try:
    find_java()
except LocalServerError:
    print("launcher finds no java")
'
''',
        env,
    )
    assert out.splitlines() == ["no java", "tools ok", "launcher finds no java"]


def test_java_processes_marked_finds_only_this_jobs_java(tmp_path: Path) -> None:
    """The watcher's test: a process named java carrying the job's marker is found, one
    without it (another user's JVM) is not, whichever session it runs in."""
    fake_java = tmp_path / "java"
    fake_java.symlink_to(shutil.which("sleep") or "/bin/sleep")  # its process name is 'java'
    ours = subprocess.Popen(
        [str(fake_java), "30"], env={**os.environ, "CONNECT_PLAN_CI_THIN": "m-123"}, start_new_session=True
    )
    theirs = subprocess.Popen([str(fake_java), "30"], env={**os.environ, "CONNECT_PLAN_CI_THIN": "other"})
    try:
        time.sleep(0.2)
        assert Path(f"/proc/{ours.pid}/comm").read_text().strip() == "java"
        found = bash("java_processes_marked m-123").split()
        assert found == [str(ours.pid)]
        assert bash("java_processes_marked nobody").split() == []
    finally:
        for p in (ours, theirs):
            p.kill()
            p.wait()


def test_the_ci_scripts_parse() -> None:
    for script in ("ci-thin.sh", "nojava.sh"):
        assert subprocess.run(["bash", "-n", str(SCRIPTS / script)], capture_output=True).returncode == 0
    if shutil.which("shellcheck"):
        out = subprocess.run(
            ["shellcheck", "-x", "scripts/ci-thin.sh", "scripts/nojava.sh"], cwd=ROOT, capture_output=True, text=True
        )
        assert out.returncode == 0, out.stdout
