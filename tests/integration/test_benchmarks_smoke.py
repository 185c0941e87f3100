"""The benchmark suite (``python -m benchmarks``) is not part of the test run; this runs the
command itself, every scenario at tiny sizes, into a temporary directory, so that it keeps
working end to end: the report and the summary it writes, its exit status, and that the
clients it compares returned the same results. robin-sparkless's columns are checked when
it is installed (the ``bench`` extra)."""

from __future__ import annotations

import importlib.util
import json
import math
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from benchmarks.run import SCENARIOS, summary_markdown
from tests.conftest import ROOT, engine


@pytest.mark.slow
def test_the_benchmark_command_runs_every_scenario_at_tiny_sizes(spark_url: str, tmp_path: Path) -> None:
    out = tmp_path / "bench"
    command = [
        sys.executable,
        "-m",
        "benchmarks",
        "--remote",
        spark_url,
        "--engine",
        engine(),
        "--size",
        "tiny",
        "--repeat",
        "1",
        "--out",
        str(out),
    ]
    env = {k: v for k, v in os.environ.items() if k != "SPARK_REMOTE"}
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-4000:]
    report: dict[str, Any] = json.loads((out / "report.json").read_text())
    summary = (out / "summary.md").read_text()
    assert summary == summary_markdown(report) + "\n"
    assert done.stdout.strip() == summary.strip()  # the summary is printed too
    assert f"Measured with `{shlex.join(['python', '-m', 'benchmarks', *command[3:]])}`." in summary  # and its command
    assert f"wrote {out / 'report.json'}" in done.stderr
    assert report["size"] == "tiny" and report["server"]["engine"] == engine()
    assert report["command"][-6:] == ["--size", "tiny", "--repeat", "1", "--out", str(out)]
    assert report["code"]["commit"] and report["environment"]["load_average_before"]

    results: list[dict[str, Any]] = report["results"]
    # flight_sql needs the ADBC driver (the test extra; the thin install has none)
    left_out = set() if importlib.util.find_spec("adbc_driver_flightsql") else {"flight_sql"}
    assert {r["scenario"] for r in results} == set(SCENARIOS) - left_out
    for r in results:
        assert r.get("same_result", True), f"{r['scenario']} {r['case']}: the clients' results differ"
        for name, metric in r["metrics"].items():
            assert metric["samples"], f"{r['scenario']} {r['case']} {name}: no samples"
            # a marginal sample is a difference of two CPU timings of one round (n ops minus
            # the 0-op baseline): at tiny sizes a GC pause in the baseline makes it negative
            # (seen: -45 µs/op for 10 ops on a loaded machine); only its median is reported
            low = -math.inf if "marginal" in name else 0
            assert all(math.isfinite(v) and v >= low for v in metric["samples"]), (r["case"], name, metric)
        for key, value in r["ratios"].items():
            assert math.isfinite(value) and value > 0, (r["case"], key, value)
    small = next(r for r in results if r["scenario"] == "small_query")
    limit = 0.4 if engine() == "sail" else 0.9
    assert any(t["limit"] == limit and "PySpark Connect" in t["name"] for t in small["targets"])
    assert "## throughput" in summary
    if importlib.util.find_spec("robin_sparkless") is not None:
        assert report["environment"]["robin_sparkless"]
        assert "robin-sparkless (in-process)" in small["metrics"]
        upload = [r for r in results if r["scenario"] == "upload"]
        assert upload and all("robin-sparkless rows (in-process)" in r["metrics"] for r in upload)


@pytest.mark.slow
def test_the_allocator_state_ab_measures_both_clients_in_both_states(spark_url: str) -> None:
    # benchmarks/allocator_state.py is quoted by docs/performance.md, outside the suite: this keeps
    # it running (each worker checks its table's row count; the ratios come from real samples)
    from benchmarks import allocator_state

    samples = allocator_state.measure(spark_url, rows=20_000, pairs=1, runs=2)
    for state in allocator_state.STATES:
        for client in allocator_state.CLIENTS:
            runs = samples[state][client]
            assert len(runs) == 2, (state, client)
            assert all(r["cpu_ms_per_mib"] > 0 and r["wall_s"] > 0 and r["faults"] >= 0 for r in runs)
    table = allocator_state.summary(samples).splitlines()
    assert [line.split(" | ")[0] for line in table[2:]] == ["| emptied", "| steady"]


@pytest.mark.slow
def test_the_plan_quality_scenario_pairs_recorded_plans_with_spark_sql(spark_url: str, tmp_path: Path) -> None:
    # benchmarks/plan_quality.py runs outside the suite (TPC-H sf 1, TPC-DS): this runs its command
    # on TPC-H q06 at sf 0.01 (every producer that planned it, and the control: Spark SQL's text
    # against itself) so that it keeps working end to end
    pytest.importorskip("duckdb", reason="DuckDB makes the TPC-H data")
    out = tmp_path / "quality"
    command = [sys.executable, "-m", "benchmarks.plan_quality", "--remote", spark_url, "--suites", "tpch"]
    command += ["--tpch-scale", "0.01", "--only", "tpch:q06", "--repeat", "1", "--control", "--out", str(out)]
    env = {k: v for k, v in os.environ.items() if k != "SPARK_REMOTE"} | {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-4000:]
    report: dict[str, Any] = json.loads((out / "report.json").read_text())
    results = report["results"]
    assert sorted(r["producer"] for r in results) == ["datafusion", "duckdb", "ibis", "isthmus", "spark-sql"]
    for r in results:
        assert "problem" not in r, r
        assert r["query"] == "q06" and len(r["sql_seconds"]) == len(r["plan_seconds"]) == 1
        assert math.isfinite(r["ratio"]) and r["ratio"] > 0
    assert report["scales"] == {"tpch": 0.01}
    assert (tmp_path / "cache" / "connect_plan" / "bench-data" / "tpch-sf0.01" / "tables.json").exists()
    summary = (out / "summary.md").read_text()
    assert "| tpch | **all** | 4 |" in summary  # the control is apart
    assert "| tpch | spark-sql (control: Spark SQL against itself) | 1 |" in summary
    assert report["command"] == ["python", "-m", "benchmarks.plan_quality", *command[3:]]
    assert f"Measured with `python -m benchmarks.plan_quality --remote {spark_url} --suites tpch" in summary
    assert "load average" in summary.split("\n")[2]  # what the machine was doing, not a fixed phrase


@pytest.mark.slow
def test_plan_quality_with_statistics_reads_analyzed_catalog_tables(spark_url: str, tmp_path: Path) -> None:
    # --bind analyzed: each table written as a catalog table of the server with statistics of
    # every column, both sides on temp views of them, the cost-based optimizer on; the tables are
    # dropped after (other tests list the server's catalog)
    pytest.importorskip("duckdb", reason="DuckDB makes the TPC-H data")
    from pyspark.sql import SparkSession

    out = tmp_path / "analyzed"
    command = [sys.executable, "-m", "benchmarks.plan_quality", "--remote", spark_url, "--suites", "tpch"]
    command += ["--tpch-scale", "0.01", "--only", "tpch:datafusion:q06", "--repeat", "1", "--bind", "analyzed"]
    command += ["--out", str(out)]
    env = {k: v for k, v in os.environ.items() if k != "SPARK_REMOTE"} | {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    spark = SparkSession.builder.remote(spark_url).create()
    try:
        done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, done.stderr[-4000:]
        report: dict[str, Any] = json.loads((out / "report.json").read_text())
        assert "catalog tables with statistics" in report["tables"]
        [result] = report["results"]
        assert "problem" not in result and math.isfinite(result["ratio"]), result
        # the statistics are on the server's table: Spark's own row count of lineitem at sf 0.01
        described = spark.sql("DESCRIBE TABLE EXTENDED tpch_sf0_01_lineitem").toArrow().to_pylist()
        [stats] = [r["data_type"] for r in described if r["col_name"] == "Statistics"]
        assert stats.endswith(f"{spark.table('tpch_sf0_01_lineitem').count()} rows"), stats
    finally:
        for (name,) in spark.sql("SHOW TABLES LIKE 'tpch_sf0_01_*'").select("tableName").collect():
            spark.sql(f"DROP TABLE IF EXISTS {name}")  # the benchmark's own names
        spark.stop()
