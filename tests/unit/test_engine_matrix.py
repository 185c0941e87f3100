"""scripts/engine_matrix.py renders docs/engines.md from JUnit XML: counts per test file,
known differences with their reasons, the feature table."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

SPARK_XML = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest" tests="4" timestamp="2026-11-23T04:12:33.120511+00:00">
  <testcase classname="tests.integration.test_ops" name="test_op[union]" time="0.1"/>
  <testcase classname="tests.integration.test_ops" name="test_op[cross]" time="0.1"/>
  <testcase classname="tests.integration.test_cluster" name="test_two_workers" time="9"/>
  <testcase classname="tests.unit.test_parse" name="test_ok" time="0.1"/>
</testsuite></testsuites>"""

SAIL_XML = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest" tests="4">
  <testcase classname="tests.integration.test_ops" name="test_op[union]" time="0.1"/>
  <testcase classname="tests.integration.test_ops" name="test_op[cross]" time="0.1">
    <skipped type="pytest.xfail" message="Sail differs: no cross join with a condition"/></testcase>
  <testcase classname="tests.integration.test_cluster" name="test_two_workers" time="0">
    <skipped type="pytest.skip" message="needs Apache Spark (JVM launcher or cluster)"/></testcase>
  <testcase classname="tests.unit.test_parse" name="test_ok" time="0.1">
    <failure message="AssertionError: boom">trace</failure></testcase>
  <testcase classname="" name="tests.integration.test_serve" time="0">
    <skipped type="pytest.skip" message="collection skipped"/></testcase>
</testsuite></testsuites>"""


def _script() -> Any:
    spec = importlib.util.spec_from_file_location("engine_matrix", ROOT / "scripts" / "engine_matrix.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_renders_counts_differences_and_features(tmp_path: Path) -> None:
    m = _script()
    (tmp_path / "spark.xml").write_text(SPARK_XML)
    (tmp_path / "sail").mkdir()
    (tmp_path / "sail" / "ops.xml").write_text(SAIL_XML)  # a directory of per-file results
    spark, sail = m.read_junit([tmp_path / "spark.xml"]), m.read_junit([tmp_path / "sail"])
    assert {(o.file, o.test, o.status) for o in sail} == {
        ("tests/integration/test_ops.py", "test_op[union]", "passed"),
        ("tests/integration/test_ops.py", "test_op[cross]", "xfailed"),
        ("tests/integration/test_cluster.py", "test_two_workers", "skipped"),
        ("tests/unit/test_parse.py", "test_ok", "failed"),
        ("tests/integration/test_serve.py", "tests.integration.test_serve", "skipped"),  # skipped whole
    }
    families = {"Relational operators": {"test_ops.py::test_op[cross]": "no cross join with a condition"}}
    measured = m.measured_line(m.run_dates([tmp_path / "spark.xml"]), m.run_dates([tmp_path / "sail"]), "c5fb5fd")
    assert measured.startswith("Measured 2026-11-23 (Spark) and an undated run (Sail) at commit `c5fb5fd`: ")
    text = m.render(
        spark,
        sail,
        spark_version="Spark 9.9",
        sail_version="Sail 0.0",
        families=families,
        notes=["A note."],
        measured=measured,
    )
    lines = text.splitlines()
    assert "| `tests/integration/test_ops.py` | 2 / 2 | 1 | 1 | 0 | 0 | 0 |" in lines
    assert "| `tests/integration/test_cluster.py` | 1 / 1 | 0 | 0 | 1 | 0 | 0 |" in lines
    assert "| `tests/unit/test_parse.py` | 1 / 1 | 0 | 0 | 0 | 0 | **1** |" in lines
    assert "| `tests/integration/test_serve.py` | not run | 0 | 0 | 0 | 1 | 0 |" in lines  # not a nameless row
    assert "| **total** | 4 / 4 | 1 | 1 | 1 | 1 | 1 |" in lines
    assert "### Relational operators" in lines
    assert "* `test_ops.py::test_op[cross]` — no cross join with a condition" in lines
    assert "* `test_parse.py::test_ok`" in lines  # a failure no entry explains is listed
    assert measured in lines  # when and how the counts were measured, beside them
    assert "**Spark 9.9**" in text and "**Sail 0.0**" in text and "A note." in lines
    assert (
        "| `chunked_cached_local_relation` | `Relation.chunked_cached_local_relation` | 4.1+ | not used |" in text
    )  # connect_plan/versions.py
    assert "| `with_columns_renamed_renames` | `WithColumnsRenamed.renames` | 4.0+ | refused |" in text
    assert "Apache Spark Connect 4.0 and later" in text


def test_the_published_matrix_says_when_its_counts_were_measured() -> None:
    """docs/engines.md's counts carry the day of their runs and the commands (issue 35), in the
    line the script writes just above the table."""
    lines = (ROOT / "docs" / "engines.md").read_text().splitlines()
    table = next(i for i, line in enumerate(lines) if line.startswith("| test file |"))
    assert re.fullmatch(
        r"Measured 20\d\d-\d\d-\d\d.* \(Spark\) and 20\d\d-\d\d-\d\d.* \(Sail\).*`python scripts/engine_matrix\.py`.*",
        lines[table - 2],
    )
