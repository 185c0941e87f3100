"""Column references checked before the network (issue 13), without a server: where each
check looks, what it lets through and how it reports (the differential proof against
PySpark is tests/integration/test_column_references.py)."""

from __future__ import annotations

from typing import Any

import pytest

import connect_plan
from connect_plan import PlanError

SCHEMA = [{"name": "id", "type": "bigint"}, {"name": "Name", "type": "string"}]
ROWS = [[1, "x"]]
OTHER = {"other_data": [[1, "y"]], "other_schema": [{"name": "ID", "type": "bigint"}, {"name": "c", "type": "string"}]}


def problems(plan: Any, rows: Any = ROWS, schema: Any = SCHEMA) -> list[tuple[str, str]]:
    try:
        connect_plan.validate(rows, schema, plan)
    except PlanError as err:
        return [(d.code, d.loc) for d in err.details]
    return []


def col(name: str, side: str | None = None) -> dict[str, Any]:
    return {"col": name, **({"side": side} if side else {})}


def join(on: Any, how: str = "inner") -> list[dict[str, Any]]:
    return [{"op": "join", "payload": {**OTHER, "on": on, "how": how}}]


def test_a_join_condition_names_columns_of_either_input() -> None:
    assert problems(join({"op": "eq", "left": col("id"), "right": col("id")})) == []
    assert problems(join({"op": "eq", "left": col("NAME"), "right": col("C")})) == []
    assert problems(join({"op": "eq", "left": col("idd"), "right": col("cc")}, "left_semi")) == [
        ("unknown_column", "/plan/0/payload/on/left/col"),
        ("unknown_column", "/plan/0/payload/on/right/col"),
    ]


def test_a_pinned_side_must_have_the_column() -> None:
    assert problems(join({"op": "eq", "left": col("id", "left"), "right": col("id", "right")})) == []
    assert problems(join({"op": "eq", "left": col("c", "left"), "right": col("Name", "right")})) == [
        ("unknown_column", "/plan/0/payload/on/left/col"),
        ("unknown_column", "/plan/0/payload/on/right/col"),
    ]


def test_a_join_message_says_where_it_looked() -> None:
    with pytest.raises(PlanError) as info:
        connect_plan.validate(ROWS, SCHEMA, join({"op": "eq", "left": col("id"), "right": col("cc", "right")}))
    (detail,) = info.value.details
    assert (
        "in the join's right input (columns: ['ID', 'c'])" in detail.message and "did you mean 'c'?" in detail.message
    )


def test_union_by_name_needs_each_inputs_columns_when_none_may_be_missing() -> None:
    def union(schema: list[dict[str, str]], allow: bool | None) -> list[dict[str, Any]]:
        payload: dict[str, Any] = {"other_data": [], "other_schema": schema}
        if allow is not None:
            payload["allowMissingColumns"] = allow
        return [{"op": "unionByName", "payload": payload}]

    other_case = [{"name": "name", "type": "string"}, {"name": "ID", "type": "bigint"}]
    assert problems(union(other_case, False)) == []
    narrow = [{"name": "id", "type": "bigint"}, {"name": "c", "type": "string"}]
    assert problems(union(narrow, None)) == [] and problems(union(narrow, True)) == []
    assert problems(union(narrow, False)) == [("unknown_column", "/plan/0/payload")]
    wide = [*SCHEMA, {"name": "c", "type": "string"}]
    assert problems(union(wide, False)) == [("column_count", "/plan/0/payload")]


def test_the_plans_own_case_rule_applies_offline() -> None:
    doc = {"input": {"schema": SCHEMA, "rows": ROWS}, "plan": [{"op": "select", "payload": ["ID", "Name"]}]}
    assert problems(doc, None, None) == []
    strict = {**doc, "conf": {"spark.sql.caseSensitive": True}}
    assert problems(strict, None, None) == [("unknown_column", "/plan/0/payload/0")]
    assert problems({**doc, "conf": {"spark.sql.caseSensitive": "false"}}, None, None) == []
    # the argument is the client's setting; the document's own conf wins over it
    connect_plan.translate(None, None, {**doc, "conf": {"spark.sql.caseSensitive": "false"}}, case_sensitive=True)
    with pytest.raises(PlanError):
        connect_plan.translate(None, None, doc, case_sensitive=True)


def test_lambda_parameters_shadow_and_bodies_are_checked() -> None:
    def transform(param: str, body: Any) -> list[dict[str, Any]]:
        expr = {
            "fn": "transform",
            "args": [{"fn": "array", "args": [col("id")]}, {"lambda": {"params": [param], "body": body}}],
        }
        return [{"op": "withColumn", "payload": {"name": "t", "expr": expr}}]

    assert problems(transform("zz", {"op": "add", "left": col("zz"), "right": col("ID")})) == []
    assert problems(transform("zz", {"op": "add", "left": col("zz"), "right": col("nope")})) == [
        ("unknown_column", "/plan/0/payload/expr/args/1/lambda/body/right/col")
    ]
