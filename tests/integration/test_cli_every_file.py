"""Every plan file of the repository through the installed ``connect-plan check``: the
process a user runs (pyarrow without NumPy, so no pandas; no PySpark package), where an
import the library's callers have and the command has not would be an internal error
(issue 35: a typed SQL parameter imported PySpark's literal builder, which needs pandas).

* every fixture under tests/fixtures/plans and every example plan: ``ok`` (exit 0), or, for
  a fixture that expects an invalid plan, exit 2 with its error code;
* every fixture under tests/fixtures/invalid: exit 2 and, on stderr, its golden error text
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


@pytest.fixture(scope="module")
def checked() -> dict[Path, CompletedProcess[str]]:
    """``connect-plan check FILE`` of every file, four processes at a time (no server)."""
    with ThreadPoolExecutor(4) as pool:
        outs = pool.map(lambda p: connect_plan("check", str(p.relative_to(ROOT)), cwd=ROOT), PLANS + INVALID + EXAMPLES)
        return dict(zip(PLANS + INVALID + EXAMPLES, outs))


def test_there_are_files_to_check() -> None:
    assert len(PLANS) >= 40 and len(INVALID) >= 20 and len(EXAMPLES) >= 3


def _said(out: CompletedProcess[str]) -> str:
    return f"exit {out.returncode}\nstdout: {out.stdout}\nstderr: {out.stderr}"


def test_every_plan_and_example_checks(checked: dict[Path, CompletedProcess[str]]) -> None:
    wrong = {}
    for path in PLANS + EXAMPLES:
        out = checked[path]
        expected = json.loads(path.read_text()).get("expected", {}).get("error", {})
        if expected.get("kind") == "plan":
            ok = out.returncode == 2 and f"[{expected['code']}]" in out.stderr
        else:
            ok = out.returncode == 0 and out.stdout == "ok\n" and not out.stderr
        if not ok or "Traceback" in out.stderr or "internal error" in out.stderr:
            wrong[path.name] = _said(out)
    assert not wrong, wrong


def test_every_invalid_fixture_says_its_golden_error(checked: dict[Path, CompletedProcess[str]]) -> None:
    wrong = {}
    for path in INVALID:
        out = checked[path]
        # the golden text ends its line
        golden = (ROOT / "tests" / "golden" / "errors" / f"{path.stem}.txt").read_text()
        if out.returncode != 2 or out.stdout or out.stderr != f"connect-plan: {golden}":
            wrong[path.name] = _said(out)
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
