"""Every plan fixture under tests/fixtures/plans, and every example plan, runs on the server
through the installed ``connect-plan fixtures`` command and matches its hand-written expected
result (or expected error)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from connect_plan.fixtures import discover, load_fixture, run_fixture
from tests.support.processes import connect_plan, no_traceback

ROOT = Path(__file__).resolve().parent.parent.parent
PLANS = discover(ROOT / "tests" / "fixtures" / "plans")
EXAMPLES = discover(ROOT / "examples")


def test_there_are_at_least_forty_fixtures_covering_every_op() -> None:
    import connect_plan

    assert len(PLANS) >= 40
    used = {step["op"] for p in PLANS for step in load_fixture(p)["plan"] if isinstance(step, dict)}
    assert set(connect_plan.supported_plan_operations()) <= used


def test_every_fixture_runs_through_the_readmes_command(spark_url: str) -> None:
    """``connect-plan fixtures tests/fixtures/plans``, the README's line, as written (the
    installed command: lean pyarrow, no NumPy, no pandas): every fixture passes and the
    command ends with its summary, so no import the command's process lacks hides on any path
    (issue 35: it stopped after 76 fixtures with no summary)."""
    out = connect_plan(
        *"connect-plan fixtures tests/fixtures/plans".split()[1:], remote=spark_url, cwd=ROOT, timeout=600
    )
    no_traceback(out)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr
    passed = re.findall(r"^PASS  (\S+)  \(", out.stdout, re.M)
    assert sorted(passed) == sorted(str(p.relative_to(ROOT)) for p in PLANS)
    assert out.stdout.rstrip().endswith(f"{len(PLANS)} passed, 0 failed, {len(PLANS)} fixtures")


def test_every_example_runs_through_the_installed_command(spark_url: str) -> None:
    """The example plans, by ``connect-plan fixtures examples --json``, then as text with its summary."""
    out = connect_plan("fixtures", "examples", "--json", remote=spark_url, cwd=ROOT, timeout=600)
    no_traceback(out)
    results = json.loads(out.stdout)
    failed = {r["path"]: r["message"] for r in results if not r["ok"]}
    assert not failed and out.returncode == 0, (failed, out.stderr)
    assert sorted(r["path"] for r in results) == sorted(str(p.relative_to(ROOT)) for p in EXAMPLES)
    summary = connect_plan("fixtures", "examples", remote=spark_url, cwd=ROOT)
    n = len(EXAMPLES)
    assert summary.stdout.rstrip().endswith(f"{n} passed, 0 failed, {n} fixtures"), summary


def test_runner_reports_a_wrong_expectation(client: Any) -> None:
    """The comparison can fail: a fixture whose expected rows are wrong is reported."""
    doc = load_fixture(PLANS[0])
    broken = {**doc, "expected": {**doc["expected"], "rows": [[None] * len(doc["expected"]["schema"])]}}
    result = run_fixture(client, broken)
    assert not result.ok and "expected 1 rows" in result.message


def test_tmp_dir_puts_what_a_fixture_writes_where_the_server_sees_it(client: Any, tmp_path: Path) -> None:
    """For a remote server ``${tmp}`` must be a path the server's driver and executors see
    (docker/README.md: the compose cluster's shared volume). Here the suite's server shares
    this machine, so the files prove the fixture wrote, read back and checked under it."""
    path = ROOT / "examples" / "orders_pipeline.json"
    result = run_fixture(client, load_fixture(path), str(path), tmp_dir=str(tmp_path) + "/")
    assert result.ok, result.message
    (run,) = tmp_path.iterdir()  # one fresh directory for the run, left in place
    assert run.name.startswith("connect-plan-fixture-")
    assert {p.name for p in run.iterdir()} >= {"orders", "report"}
    assert any(p.suffix == ".parquet" for p in (run / "report").rglob("*"))
