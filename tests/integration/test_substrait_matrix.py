"""The interoperability-matrix script (scripts/substrait_matrix.py, which writes
docs/substrait-matrix.md) on two TPC-H queries with the two producers the test extra installs,
on every consumer, so that it keeps working end to end: it exits 0, fills every cell, writes both
files, and connect_plan's cells are all equal to Spark SQL's answers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

pytest.importorskip("duckdb", reason="DuckDB makes the TPC-H data and query texts")
pytest.importorskip("duckdb_extension_substrait", reason="a producer and a consumer of the matrix")
pytest.importorskip("datafusion", reason="a producer and a consumer of the matrix")

PRODUCERS = ("datafusion", "duckdb")
CONSUMERS = ("connect_plan", "duckdb", "datafusion", "acero")


@pytest.mark.slow
def test_the_matrix_script_runs_two_queries_on_every_consumer(spark_url: str, tmp_path: Path) -> None:
    out = tmp_path / "out"
    command = [
        sys.executable,
        str(ROOT / "scripts" / "substrait_matrix.py"),
        "--out",
        str(out),
        "--work",
        str(tmp_path / "work"),
        "--queries",
        "1,6",
        "--producers",
        ",".join(PRODUCERS),
    ]
    env = {**os.environ, "SPARK_REMOTE": spark_url}
    p = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, (p.stdout[-2000:], p.stderr[-3000:])
    report = json.loads((out / "substrait-matrix.json").read_text())
    assert report["queries"] == [1, 6]
    assert report["consumers"] == list(CONSUMERS)
    for producer in PRODUCERS:
        assert report["not_produced"][producer] == {}, report["not_produced"][producer]
        for consumer in CONSUMERS:
            cells = report["cells"][producer][consumer]
            assert sorted(cells) == ["1", "6"], (producer, consumer, cells)
            for cell in cells.values():
                assert cell["status"] in ("equal", "wrong", "refused", "crashed", "timeout"), cell
                assert cell["status"] == "equal" or cell["error"], cell
        assert {c["status"] for c in report["cells"][producer]["connect_plan"].values()} == {"equal"}, report["cells"][
            producer
        ]["connect_plan"]
    md = (out / "substrait-matrix.md").read_text()
    assert "| DataFusion | 2/2 | **2**/2 equal |" in md
    assert "| DuckDB | 2/2 | **2**/2 equal |" in md
    assert "--queries 1,6 --producers datafusion,duckdb" in md
    for version in ("spark", "datafusion", "duckdb", "pyarrow"):
        assert f"- {version}: " in md
