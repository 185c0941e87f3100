"""Every plan file of the repository through the installed ``connect-plan check``: the
process a user runs (pyarrow without NumPy, so no pandas; no PySpark package), where an
import the library's callers have and the command has not would be an internal error
(issue 35: a typed SQL parameter imported PySpark's literal builder, which needs pandas).
The files are checked together (``check FILE...``, two processes: an interpreter start and
pyarrow's import per file cost more than the checks), each file's words compared with what
``check FILE`` alone says:

* every fixture under tests/fixtures/plans and every example plan: ``ok`` (exit 0), or, for
  a fixture that expects an invalid plan, exit 2 with its error code;
* every fixture under tests/fixtures/invalid: on stderr, its golden error text
  (tests/golden/errors), located, with no traceback.

The run path of the same files (``connect-plan fixtures``) is tests/integration/test_fixtures.py."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from subprocess import CompletedProcess

import pytest

from tests.support.processes import connect_plan

ROOT = Path(__file__).resolve().parents[2]
PLANS = sorted((ROOT / "tests" / "fixtures" / "plans").glob("*.json"))
INVALID = sorted((ROOT / "tests" / "fixtures" / "invalid").glob("*.json"))
EXAMPLES = sorted((ROOT / "examples").glob("*.json"))


ALL = PLANS + INVALID + EXAMPLES


def _rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


def _each(files: list[Path], out: CompletedProcess[str]) -> dict[Path, tuple[str, str]]:
    """``check FILE...``'s output split per file: (what it printed on stdout, on stderr), as
    ``check FILE`` alone prints them (``ok``, or ``connect-plan: <errors>``)."""
    said: dict[Path, list[str]] = {}
    by_name = {_rel(p): p for p in files}
    current: list[str] | None = None
    for line in out.stderr.splitlines(keepends=True):
        head, sep, rest = line.partition(": ")
        name, sep2, message = rest.partition(": ")
        if head == "connect-plan" and sep and sep2 and name in by_name and by_name[name] not in said:
            current = said[by_name[name]] = [f"connect-plan: {message}"]
        else:
            assert current is not None, out.stderr[:2000]  # nothing is said outside a file's block
            current.append(line)
    oks = {by_name[line.removesuffix(": ok")] for line in out.stdout.splitlines()[:-1]}
    assert out.stdout.splitlines()[-1] == f"{len(oks)} of {len(files)} files ok", out.stdout[-500:]
    assert not oks & set(said) and oks | set(said) == set(files)
    return {p: ("ok\n", "") if p in oks else ("", "".join(said[p])) for p in files}


def _fails(path: Path) -> bool:
    return path in INVALID or json.loads(path.read_text()).get("expected", {}).get("error", {}).get("kind") == "plan"


@pytest.fixture(scope="module")
def checked() -> dict[Path, tuple[str, str]]:
    """``connect-plan check FILE...`` of every file (no server), split per file: what ``check
    FILE`` alone says (test_one_file_alone_and_among_others_says_the_same). Two processes at
    once: the files that are valid (exit 0), and those that are not (exit 2: invalid plans)."""
    valid, invalid = [p for p in ALL if not _fails(p)], [p for p in ALL if _fails(p)]
    with ThreadPoolExecutor(2) as pool:
        outs = list(pool.map(lambda fs: connect_plan("check", *map(_rel, fs), cwd=ROOT), (valid, invalid)))
    assert outs[0].returncode == 0 and outs[1].returncode == 2, [_said(out)[-3000:] for out in outs]
    return _each(valid, outs[0]) | _each(invalid, outs[1])


def test_one_file_alone_and_among_others_says_the_same() -> None:
    """``check FILE`` alone: ``ok`` (exit 0) or its errors (exit 2 for an invalid plan).
    Among others: the same words after the file's name, a count, and the first failing file's
    exit status (a file that cannot be read: 4)."""
    good, bad = EXAMPLES[0], INVALID[0]
    alone = {p: connect_plan("check", _rel(p), cwd=ROOT) for p in (good, bad)}
    assert (alone[good].returncode, alone[good].stdout, alone[good].stderr) == (0, "ok\n", ""), _said(alone[good])
    assert alone[bad].returncode == 2 and not alone[bad].stdout and alone[bad].stderr.startswith("connect-plan: ")
    together = connect_plan("check", _rel(good), _rel(bad), cwd=ROOT)
    assert together.returncode == 2, _said(together)
    assert together.stdout == f"{_rel(good)}: ok\n1 of 2 files ok\n", _said(together)
    assert together.stderr == alone[bad].stderr.replace("connect-plan: ", f"connect-plan: {_rel(bad)}: ", 1)
    assert _each([good, bad], together) == {good: ("ok\n", ""), bad: ("", alone[bad].stderr)}
    unreadable_first = connect_plan("check", "missing.json", _rel(bad), cwd=ROOT)
    assert unreadable_first.returncode == 4 and unreadable_first.stdout == "0 of 2 files ok\n", _said(unreadable_first)
    assert unreadable_first.stderr.startswith(
        "connect-plan: missing.json: cannot read missing.json: No such file or directory\n"
        f"connect-plan: {_rel(bad)}: invalid plan: "
    ), _said(unreadable_first)


def test_there_are_files_to_check() -> None:
    assert len(PLANS) >= 40 and len(INVALID) >= 20 and len(EXAMPLES) >= 3


def _said(out: CompletedProcess[str]) -> str:
    return f"exit {out.returncode}\nstdout: {out.stdout}\nstderr: {out.stderr}"


def test_every_plan_and_example_checks(checked: dict[Path, tuple[str, str]]) -> None:
    wrong = {}
    for path in PLANS + EXAMPLES:
        stdout, stderr = checked[path]
        expected = json.loads(path.read_text()).get("expected", {}).get("error", {})
        if expected.get("kind") == "plan":  # an invalid plan (exit 2 alone) says "invalid plan"
            ok = stderr.startswith("connect-plan: invalid plan: ") and f"[{expected['code']}]" in stderr
        else:
            ok = stdout == "ok\n" and not stderr
        if not ok or "Traceback" in stderr or "internal error" in stderr:
            wrong[path.name] = f"stdout: {stdout}\nstderr: {stderr}"
    assert not wrong, wrong


def test_every_invalid_fixture_says_its_golden_error(checked: dict[Path, tuple[str, str]]) -> None:
    wrong = {}
    for path in INVALID:
        stdout, stderr = checked[path]
        # the golden text ends its line; each starts "invalid plan: " (exit 2 alone)
        golden = (ROOT / "tests" / "golden" / "errors" / f"{path.stem}.txt").read_text()
        if stdout or stderr != f"connect-plan: {golden}" or not golden.startswith("invalid plan: "):
            wrong[path.name] = f"stdout: {stdout}\nstderr: {stderr}"
    assert not wrong, wrong


def test_a_policy_reports_the_plans_own_values() -> None:
    """``--policy strict`` on the example that fills ``${tmp}``/``${run}``: what is refused is
    said as the user wrote it (``${tmp}/orders``), not as the stand-ins the check filled in,
    and the verdict is the one a run gets (a local path: its scheme refused, not its braces)."""
    out = connect_plan("check", "examples/orders_pipeline.json", "--policy", "strict", cwd=ROOT)
    assert out.returncode == 2 and not out.stdout, _said(out)
    assert (
        "/input/files/0: scheme '(none)' is not one this policy allows [policy_path] (got '${tmp}/orders')"
        in out.stderr
    )
    assert "(got 'example_stores_${run}')" in out.stderr and "(got '${tmp}/report')" in out.stderr
    assert "0c0c0c0c0c" not in out.stderr and "Traceback" not in out.stderr
