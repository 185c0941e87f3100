"""The fixture format's own keys (expected, setup, then, cleanup) are checked with located
errors; malformed ones never reach the runner as TypeError/IndexError/AttributeError."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from connect_plan import PlanError
from connect_plan.fixtures import check_fixture, compare_result, load_fixture, run_fixture

PLAN = {"input": {"schema": [{"name": "a", "type": "int"}], "rows": [[1]]}, "plan": []}

MALFORMED: list[tuple[dict[str, Any], list[tuple[str, str]]]] = [
    ({"expected": {"rows": 5}}, [("fixture_expected", "/expected/rows")]),
    ({"expected": {"rows": [5]}}, [("fixture_expected", "/expected/rows/0")]),
    ({"expected": {"schema": 5}}, [("fixture_expected", "/expected/schema")]),
    ({"expected": {"schema": [5]}}, [("fixture_expected", "/expected/schema/0")]),
    ({"expected": {"schema": "a int"}}, [("fixture_expected", "/expected/schema")]),
    ({"expected": {"schema": [{"name": "a", "type": "nope"}]}}, [("fixture_expected", "/expected/schema/0/type")]),
    ({"expected": {"schema": [["a", 5]]}}, [("fixture_expected", "/expected/schema/0/1")]),
    ({"expected": {"schema": [{"type": "int"}]}}, [("fixture_expected", "/expected/schema/0/name")]),
    ({"expected": 5}, [("fixture_expected", "/expected")]),
    ({"expected": {"error": 5}}, [("fixture_expected", "/expected/error")]),
    ({"expected": {"error": {"code": 5}}}, [("fixture_expected", "/expected/error/code")]),
    ({"expected": {"error": {"kind": "client"}}}, [("fixture_expected", "/expected/error/kind")]),
    ({"expected": {"error": {"codes": "x"}}}, [("fixture_expected", "/expected/error/codes")]),
    ({"expected": {"rows": [], "error": {}}}, [("fixture_expected", "/expected/error")]),
    ({"expected": {"row": []}}, [("fixture_expected", "/expected/row")]),
    ({"cleanup": ["t"]}, [("fixture_field", "/cleanup")]),
    ({"cleanup": "t"}, [("fixture_field", "/cleanup")]),
    ({"cleanup": {"tables": "t"}}, [("fixture_field", "/cleanup/tables")]),
    ({"cleanup": {"tables": [1]}}, [("fixture_field", "/cleanup/tables")]),
    ({"cleanup": {"files": []}}, [("fixture_field", "/cleanup/files")]),
    ({"setup": {"plan": []}}, [("fixture_field", "/setup")]),
    ({"setup": [5]}, [("fixture_field", "/setup/0")]),
    ({"then": [{"plan": [], "expected": {"rows": 5}}]}, [("fixture_expected", "/then/0/expected/rows")]),
    ({"name": 5}, [("fixture_field", "/name")]),
]


@pytest.mark.parametrize("extra,want", MALFORMED, ids=[json.dumps(m[0])[:60] for m in MALFORMED])
def test_malformed_fixture_keys_are_located(tmp_path: Path, extra: dict[str, Any], want: list[tuple[str, str]]) -> None:
    doc = {**PLAN, **extra}
    assert [(d.code, d.loc) for d in check_fixture(doc)] == want
    path = tmp_path / "f.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(PlanError) as info:
        load_fixture(path)
    assert [(d.code, d.loc) for d in info.value.details] == want
    # the runner reports it as a failure without touching the client
    result = run_fixture(None, doc, str(path))  # type: ignore[arg-type]
    assert not result.ok and "malformed fixture" in result.message and want[0][1] in result.message


def test_well_formed_fixtures_have_no_problems() -> None:
    root = Path(__file__).resolve().parent.parent / "fixtures" / "plans"
    for path in sorted(root.glob("*.json")):
        assert check_fixture(json.loads(path.read_text())) == [], path.name


@pytest.mark.parametrize(
    "expected", [{"rows": 5}, {"rows": [5]}, {"schema": 5}, {"schema": [5]}, {"schema": "a int"}, 5]
)
def test_compare_result_reports_a_malformed_expected(expected: Any) -> None:
    table = pa.table({"a": pa.array([1], pa.int32())})
    message = compare_result(table, expected, ordered=False)
    assert message is not None and message.startswith("malformed expected")


def test_compare_result_still_compares() -> None:
    table = pa.table({"a": pa.array([1], pa.int32())})
    assert compare_result(table, {"schema": [["a", "int"]], "rows": [[1]]}, ordered=False) is None
    assert "differ" in (compare_result(table, {"rows": [[2]]}, ordered=False) or "")


# ---------------------------------------------------------------- ordered comparison

#: the rule the runner used on the raw JSON before the IR answered it (fixtures._sorts): its
#: op names, kept here as the oracle that ir.ends_ordered answers the same for every fixture
_RAW_UNORDERING = frozenset(
    "groupBy rollup cube agg join union unionByName distinct crossJoin cross_join groupingSets intersect "
    "intersectAll except exceptAll subtract unionAll repartition coalesce minusPrimary intersectPrimary "
    "sortWithinPartitions".split()
)


def _raw_sorts(doc: dict[str, Any]) -> bool:
    ordered = False
    for step in doc.get("plan") or []:
        op = step.get("op") if isinstance(step, dict) else None
        if op in ("orderBy", "sort"):
            ordered = True
        elif op in _RAW_UNORDERING:
            ordered = False
    return ordered


FIXTURE_PLANS = sorted((Path(__file__).resolve().parents[1] / "fixtures" / "plans").glob("*.json"))
SORT = {"op": "orderBy", "payload": {"columns": ["a"]}}
EXTRA = [
    [SORT],
    [SORT, {"op": "filter", "payload": {"op": "gt", "left": "a", "right": 0}}, {"op": "limit", "payload": {"n": 1}}],
    [SORT, {"op": "distinct"}],
    [SORT, {"op": "repartition", "payload": {"n": 2}}],
    [{"op": "sortWithinPartitions", "payload": {"columns": ["a"]}}],
    [SORT, {"op": "union", "payload": {"other": PLAN}}],
    [{"op": "distinct"}, SORT, {"op": "select", "payload": ["a"]}],
]


@pytest.mark.parametrize(
    "doc",
    [json.loads(p.read_text()) for p in FIXTURE_PLANS] + [{**PLAN, "plan": steps} for steps in EXTRA],
    ids=[p.stem for p in FIXTURE_PLANS] + [f"extra{i}" for i in range(len(EXTRA))],
)
def test_a_plan_ends_ordered_as_the_raw_rule_said(doc: dict[str, Any]) -> None:
    from connect_plan import ir
    from connect_plan.fixtures import plan_document
    from connect_plan.formats import load_plan

    try:
        plan = load_plan(plan_document(doc))
    except PlanError:
        return  # an invalid plan is compared with nothing
    assert ir.ends_ordered(plan) == _raw_sorts(doc)
