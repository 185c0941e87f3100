"""The command line against the real server: run (every format), explain --analyzed,
fixtures (pass and fail), and server errors printed readably."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pyarrow.parquet as pq

from tests.support.processes import connect_plan

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "fixtures" / "plans" / "groupby_sum_count.json"


def cli(spark_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    return connect_plan(*args, remote=spark_url)


def test_run_table_json_csv_parquet(spark_url: str, tmp_path: Path) -> None:
    out = cli(spark_url, "run", str(FIXTURE))
    assert out.returncode == 0, out.stderr
    assert "| dept | sum(salary) | count(salary) |" in out.stdout and "(3 rows)" in out.stdout
    js = cli(spark_url, "run", str(FIXTURE), "--format", "json")
    assert sorted(json.loads(js.stdout), key=lambda r: r["dept"]) == [
        {"dept": "HR", "sum(salary)": 80, "count(salary)": 1},
        {"dept": "IT", "sum(salary)": 220, "count(salary)": 2},
        {"dept": "Ops", "sum(salary)": 90, "count(salary)": 1},
    ]
    csv = cli(spark_url, "run", str(FIXTURE), "--format", "csv")
    assert csv.stdout.splitlines()[0] == '"dept","sum(salary)","count(salary)"'
    target = tmp_path / "out.parquet"
    pq_out = cli(spark_url, "run", str(FIXTURE), "--format", "parquet", "--output", str(target))
    assert pq_out.returncode == 0, pq_out.stderr
    assert pq.read_table(target).num_rows == 3


def test_explain_analyzed(spark_url: str) -> None:
    out = cli(spark_url, "explain", str(FIXTURE), "--analyzed")
    assert out.returncode == 0, out.stderr
    assert "aggregate {" in out.stdout and "== Analyzed Logical Plan ==" in out.stdout


def test_fixtures_command_pass_and_fail(spark_url: str, tmp_path: Path) -> None:
    ok = cli(spark_url, "fixtures", str(FIXTURE))
    assert ok.returncode == 0 and "1 passed, 0 failed" in ok.stdout
    doc = json.loads(FIXTURE.read_text())
    doc["expected"]["rows"][0][1] = 999
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    failed = cli(spark_url, "fixtures", str(tmp_path))
    assert failed.returncode == 1 and "FAIL" in failed.stdout and "0 passed, 1 failed" in failed.stdout


def test_fixtures_command_reports_malformed_fixture_files_and_goes_on(spark_url: str, tmp_path: Path) -> None:
    good = json.loads(FIXTURE.read_text())
    (tmp_path / "0_good.json").write_text(json.dumps(good))
    malformed = {
        "rows_5": {"expected": {"rows": 5}},
        "row_5": {"expected": {"rows": [5]}},
        "schema_5": {"expected": {"schema": 5}},
        "schema_item_5": {"expected": {"schema": [5]}},
        "schema_ddl": {"expected": {"schema": "a int"}},
        "cleanup_list": {"cleanup": ["t"]},
        "error_5": {"expected": {"error": 5}},
    }
    for name, extra in malformed.items():
        (tmp_path / f"{name}.json").write_text(json.dumps({**good, **extra}))
    (tmp_path / "z_good.json").write_text(json.dumps(good))
    out = cli(spark_url, "fixtures", str(tmp_path))
    assert out.returncode == 1, out.stderr
    assert "Traceback" not in out.stderr + out.stdout
    assert f"2 passed, {len(malformed)} failed" in out.stdout
    assert out.stdout.count("malformed fixture") == len(malformed)
    for loc in (
        "/expected/rows",
        "/expected/rows/0",
        "/expected/schema",
        "/expected/schema/0",
        "/cleanup",
        "/expected/error",
    ):
        assert f"{loc}: " in out.stdout


def test_server_error_is_readable(spark_url: str, tmp_path: Path) -> None:
    doc = {
        "input": {"sql": "SELECT 1 AS a"},  # columns only the server knows: its error, not a PlanError
        "plan": [
            {"op": "select", "payload": ["a"]},
            {"op": "filter", "payload": {"op": "gt", "left": "missing", "right": 1}},
        ],
    }
    path = tmp_path / "p.json"
    path.write_text(json.dumps(doc))
    out = cli(spark_url, "run", str(path))
    assert out.returncode == 3
    assert "plan step 1 (filter)" in out.stderr and "UNRESOLVED_COLUMN" in out.stderr
    assert "Traceback" not in out.stderr and "JVM stacktrace" not in out.stderr
