"""scripts/substrait_matrix.py's report plumbing without a server: connect_plan's cells taken
from the corpus census (``--connect-plan-from``) and reports of other consumers joined
(``--merge``). The script end to end runs in tests/integration/test_substrait_matrix.py."""

from __future__ import annotations

import importlib.util
import sys
from typing import Any

import pytest

from tests.conftest import ROOT


def _script() -> Any:
    spec = importlib.util.spec_from_file_location("substrait_matrix", ROOT / "scripts" / "substrait_matrix.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_census_outcomes_become_matrix_cells() -> None:
    m = _script()
    assert m.census_cell({"outcome": "equal", "seconds": 1.0}) == {"status": "equal"}
    wrong = m.census_cell({"outcome": "wrong", "details": ["3 rows, Spark SQL 2"]})
    assert wrong == {"status": "wrong", "error": "3 rows, Spark SQL 2"}
    refused = m.census_cell({"outcome": "refused", "codes": ["substrait_invalid"], "details": ["/relations/0: x"]})
    assert refused == {"status": "refused", "error": "substrait_invalid: /relations/0: x"}
    failed = m.census_cell({"outcome": "spark_error", "error_class": "CAST_INVALID_INPUT", "details": ["boom"]})
    assert failed == {"status": "refused", "error": "CAST_INVALID_INPUT: boom"}
    # a producer bug's plan: what it gave when it ran
    bug = {"outcome": "producer_bug", "bug": "why", "ran": {"outcome": "wrong", "details": ["1 columns, Spark SQL 3"]}}
    assert m.census_cell(bug)["status"] == "wrong"
    with pytest.raises(SystemExit, match="no_oracle"):
        m.census_cell({"outcome": "no_oracle", "details": ["x"]})


def _report(consumers: list[str], status: str) -> dict[str, Any]:
    cells = {"datafusion": {c: {"q01": {"status": status}} for c in consumers}}
    return {
        "producers": ["datafusion"],
        "consumers": consumers,
        "suites": {"tpch": {"plans": {"datafusion": ["q01"]}, "not_produced": {}, "producer_bugs": {}, "cells": cells}},
        "command": "python scripts/substrait_matrix.py --consumers " + ",".join(consumers),
        "date": "2026-11-29 11:00 UTC",
        "seconds": 10,
        "versions": {"spark": "4.3.0"},
    }


def test_merge_joins_consumers_and_refuses_overlaps() -> None:
    m = _script()
    merged = m.merge_reports([_report(["duckdb", "acero"], "refused"), _report(["connect_plan"], "equal")])
    assert merged["consumers"] == ["connect_plan", "duckdb", "acero"]
    cells = merged["suites"]["tpch"]["cells"]["datafusion"]
    assert list(cells) == ["connect_plan", "duckdb", "acero"]
    assert cells["connect_plan"]["q01"]["status"] == "equal" and cells["acero"]["q01"]["status"] == "refused"
    assert merged["seconds"] == 20 and "2 runs" in merged["note"]
    with pytest.raises(SystemExit, match="same consumer"):
        m.merge_reports([_report(["duckdb"], "equal"), _report(["duckdb"], "equal")])
    other = _report(["connect_plan"], "equal")
    other["suites"]["tpch"]["plans"]["datafusion"] = ["q02"]
    with pytest.raises(SystemExit, match="other plans"):
        m.merge_reports([_report(["duckdb"], "equal"), other])
