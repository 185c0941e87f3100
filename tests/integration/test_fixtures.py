"""Every plan fixture under tests/fixtures/plans runs on the server and matches its
hand-written expected result (or expected error)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from connect_plan.fixtures import discover, load_fixture, run_fixture

ROOT = Path(__file__).resolve().parent.parent.parent
PLANS = discover(ROOT / "tests" / "fixtures" / "plans")
EXAMPLES = discover(ROOT / "examples")


def test_there_are_at_least_forty_fixtures_covering_every_op() -> None:
    import connect_plan

    assert len(PLANS) >= 40
    used = {step["op"] for p in PLANS for step in load_fixture(p)["plan"] if isinstance(step, dict)}
    assert set(connect_plan.supported_plan_operations()) <= used


@pytest.mark.parametrize("path", PLANS + EXAMPLES, ids=[p.stem for p in PLANS + EXAMPLES])
def test_fixture(client: Any, path: Path) -> None:
    result = run_fixture(client, load_fixture(path), str(path))
    assert result.ok, result.message


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
