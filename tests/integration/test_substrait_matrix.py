"""The interoperability-matrix script (scripts/substrait_matrix.py, which writes
docs/substrait-matrix.md) on two recorded TPC-H plans of two producers and one features plan of
each producer, on every consumer, so that it keeps working end to end: it exits 0, fills every
cell, writes both files, and connect_plan's cells are all equal to Spark SQL's answers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

pytest.importorskip("duckdb", reason="DuckDB makes the TPC-H data and is a consumer of the matrix")
pytest.importorskip("duckdb_extension_substrait", reason="a consumer of the matrix")
pytest.importorskip("datafusion", reason="a consumer of the matrix")

PRODUCERS = ("datafusion", "duckdb")
CONSUMERS = ("connect_plan", "duckdb", "datafusion", "acero")


@pytest.mark.slow
def test_the_matrix_script_runs_recorded_plans_on_every_consumer(spark_url: str, tmp_path: Path) -> None:
    out = tmp_path / "out"
    command = [
        sys.executable,
        str(ROOT / "scripts" / "substrait_matrix.py"),
        "--out",
        str(out),
        "--work",
        str(tmp_path / "work"),
        "--suites",
        "tpch,features",
        "--only",
        "q01,q06,agg_empty_input",
        "--producers",
        ",".join(PRODUCERS),
    ]
    env = {**os.environ, "SPARK_REMOTE": spark_url}
    p = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, (p.stdout[-2000:], p.stderr[-3000:])
    report = json.loads((out / "substrait-matrix.json").read_text())
    assert report["consumers"] == list(CONSUMERS)
    assert list(report["suites"]) == ["tpch", "features"]
    for suite, ids in (("tpch", ["q01", "q06"]), ("features", ["agg_empty_input"])):
        part = report["suites"][suite]
        for producer in PRODUCERS:
            assert part["plans"][producer] == ids, (suite, producer)
            for consumer in CONSUMERS:
                cells = part["cells"][producer][consumer]
                assert sorted(cells) == ids, (suite, producer, consumer, cells)
                for cell in cells.values():
                    assert cell["status"] in ("equal", "wrong", "refused", "crashed", "timeout"), cell
                    assert cell["status"] == "equal" or cell["error"], cell
            statuses = {c["status"] for c in part["cells"][producer]["connect_plan"].values()}
            assert statuses == {"equal"}, part["cells"][producer]["connect_plan"]
    # the features suite's empty table (e) reaches DataFusion's consumer too: it answers
    assert report["suites"]["features"]["cells"]["datafusion"]["datafusion"]["agg_empty_input"]["status"] == "equal"
    md = (out / "substrait-matrix.md").read_text()
    assert "| DataFusion | 3/3 | **3**/3 equal |" in md
    assert "| DuckDB | 3/3 | **3**/3 equal |" in md
    assert "--suites tpch,features --only q01,q06,agg_empty_input --producers datafusion,duckdb" in md
    for version in ("spark", "datafusion (consumer)", "duckdb (consumer)", "pyarrow (Acero)"):
        assert f"- {version}: " in md
    # the same report split by consumer (one run each) and joined again with --merge: the same cells
    halves = []
    for k, consumers in enumerate((["connect_plan"], ["duckdb", "datafusion", "acero"])):
        half = {
            **report,
            "consumers": consumers,
            "suites": {
                s: {**part, "cells": {p: {c: by_c[c] for c in consumers} for p, by_c in part["cells"].items()}}
                for s, part in report["suites"].items()
            },
        }
        halves.append(tmp_path / f"half{k}.json")
        halves[-1].write_text(json.dumps(half))
    merged_out = tmp_path / "merged"
    command = [sys.executable, str(ROOT / "scripts" / "substrait_matrix.py"), "--out", str(merged_out), "--merge"]
    p = subprocess.run([*command, *map(str, halves)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr[-3000:]
    merged = json.loads((merged_out / "substrait-matrix.json").read_text())
    assert merged["consumers"] == list(CONSUMERS)
    assert merged["suites"] == report["suites"]
    assert "measured in 2 runs of the same script" in (merged_out / "substrait-matrix.md").read_text()
