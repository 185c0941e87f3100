"""Every code block of the README, run as written (issue 35), against the suite's server.

* ``console`` blocks: each ``$ connect-plan ...`` line runs through the installed entry point;
  what follows it, up to the next ``$``, is its output (stdout, then stderr), exactly;
* ``python`` blocks run as written in a fresh interpreter; the ``text`` block right after one
  is what it prints, exactly;
* ``bash`` blocks: every ``connect-plan`` command runs through the installed entry point and must
  succeed without a traceback (``connect-plan fixtures tests/fixtures/plans`` is the command
  tests/integration/test_fixtures.py runs and checks, fixture by fixture); the setup
  commands of the Try-it and test lines (a venv, ``pip install``) are what a new user runs once,
  and the test line (``python -m pytest``) is the suite itself: ``.ci/run`` runs that same line.

The commands run in a scratch directory shaped like a clone (``examples/``,
``tests/fixtures/``, an empty ``docs/images/``), so what they write lands there; the picture the
README shows must be byte for byte what its command draws. They reach the server as the README
says a user does: the local server's state (``connect-plan server status``) when the suite's
server is the local one connect-plan started, else ``SPARK_REMOTE``."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.processes import connect_plan, local_state_dir, no_traceback

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
BLOCK = re.compile(r"^```(\w*)\n(.*?)^```$", re.M | re.S)
#: the README line tests/integration/test_fixtures.py runs (every fixture, with its summary)
FIXTURES_LINE = "connect-plan fixtures tests/fixtures/plans"
#: the commands a new user runs once (venv, install): not repeated inside the suite
SETUP = re.compile(r"python3 -m venv \.venv|\. \.venv/bin/activate|pip install -e (\.|'\.\[dev\]')")
TEST_LINE = "python3 -m venv .venv && . .venv/bin/activate && pip install -e '.[dev]' && python -m pytest"

pytestmark = pytest.mark.spark_only("the README shows Spark's answers (Sail's differ: docs/engines.md)")


def blocks() -> list[tuple[str, str]]:
    return [(lang, body) for lang, body in BLOCK.findall(README.read_text())]


def test_the_readme_is_read_in_ten_minutes() -> None:
    """At most 200 lines, and every block is of a kind this module runs."""
    assert len(README.read_text().splitlines()) <= 200
    kinds = [lang for lang, _ in blocks()]
    assert set(kinds) <= {"bash", "console", "python", "text"}, kinds
    for i, kind in enumerate(kinds):  # a text block is the output of the python block before it
        assert kind != "text" or (i > 0 and kinds[i - 1] == "python"), (i, kinds)


def test_the_test_line_is_what_ci_runs() -> None:
    """The README's test line is one line, and .ci/run runs its commands (in its own venv),
    installing nothing else: no apt-get, no extra pip packages."""
    bash = [body for lang, body in blocks() if lang == "bash"]
    assert any(body.strip() == TEST_LINE for body in bash)
    ci = (ROOT / ".ci" / "run").read_text()
    commands = [c.strip() for line in ci.splitlines() if not line.lstrip().startswith("#") for c in line.split("&&")]
    wanted = [c.strip().replace(".venv", ".ci-venv") for c in TEST_LINE.split("&&")]
    at = [commands.index(c) for c in wanted]
    assert at == sorted(at), commands  # in the README's order
    assert "apt" not in ci and [c for c in commands if c.startswith("pip ")] == ["pip install -e '.[dev]'"]


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory shaped like a clone, for the commands to run (and write) in."""
    where = tmp_path_factory.mktemp("readme")
    (where / "examples").symlink_to(ROOT / "examples")
    (where / "tests" / "fixtures").mkdir(parents=True)
    (where / "tests" / "fixtures" / "invalid").symlink_to(ROOT / "tests" / "fixtures" / "invalid")
    (where / "tests" / "fixtures" / "plans").symlink_to(ROOT / "tests" / "fixtures" / "plans")
    (where / "docs" / "images").mkdir(parents=True)
    return where


@pytest.fixture(scope="module")
def reach(spark_url: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """How a command finds the server: the local server's state, else SPARK_REMOTE."""
    state = local_state_dir(spark_url, tmp_path_factory.getbasetemp())
    return {"state_dir": state} if state is not None else {"remote": spark_url}


def run_line(line: str, cwd: Path, reach: dict[str, str]) -> subprocess.CompletedProcess[str]:
    argv = shlex.split(line)
    assert argv[0] == "connect-plan", line
    return connect_plan(*argv[1:], cwd=cwd, **reach)  # type: ignore[arg-type]


def console_steps() -> Iterator[tuple[str, str]]:
    for lang, body in blocks():
        if lang == "console":
            for chunk in re.split(r"^\$ ", body, flags=re.M)[1:]:
                line, _, said = chunk.partition("\n")
                yield line, said


def test_every_console_line_says_what_the_readme_shows(scratch: Path, reach: dict[str, str]) -> None:
    steps = list(console_steps())
    assert len(steps) >= 3
    for line, said in steps:
        out = run_line(line, scratch, reach)
        no_traceback(out)
        assert out.stdout + out.stderr == said, line


def bash_lines() -> list[str]:
    return [line for lang, body in blocks() if lang == "bash" for line in body.strip().splitlines()]


def test_every_command_line_runs(scratch: Path, reach: dict[str, str]) -> None:
    ran = []
    for line in bash_lines():
        for command in (c.strip() for c in line.split("&&")):
            if SETUP.fullmatch(command) or command == "python -m pytest":
                continue
            if command == FIXTURES_LINE:  # run and checked by test_fixtures.py
                assert FIXTURES_LINE in (ROOT / "tests" / "integration" / "test_fixtures.py").read_text()
                continue
            out = run_line(command, scratch, reach)
            no_traceback(out)
            assert out.returncode == 0, (command, out.stderr)
            ran.append(command)
    assert any(c.startswith("connect-plan run examples/sales_by_region.json") for c in ran)  # the Try-it line
    assert (scratch / "people.csv").read_text().startswith('"who","age","group"\n"CAROL",52,')
    drawn = (scratch / "docs" / "images" / "sales_by_region.svg").read_bytes()
    assert drawn == (ROOT / "docs" / "images" / "sales_by_region.svg").read_bytes()  # the README's picture


def python_blocks() -> list[tuple[str, str]]:
    """Each python block with the text block after it (what it prints)."""
    found = blocks()
    return [
        (body, found[i + 1][1] if i + 1 < len(found) and found[i + 1][0] == "text" else "")
        for i, (lang, body) in enumerate(found)
        if lang == "python"
    ]


@pytest.mark.parametrize("index", range(2))
def test_every_python_block_prints_what_the_readme_shows(index: int, scratch: Path, reach: dict[str, str]) -> None:
    found = python_blocks()
    assert len(found) == 2  # the parametrization's count
    code, prints = found[index]
    env = {"PATH": os.environ.get("PATH", os.defpath), "HOME": os.environ.get("HOME", "/tmp"), "PYTHONPATH": str(ROOT)}
    if "state_dir" in reach:
        env["CONNECT_PLAN_STATE_DIR"] = reach["state_dir"]
    else:
        env["SPARK_REMOTE"] = reach["remote"]
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=scratch, env=env, timeout=300
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout == prints
