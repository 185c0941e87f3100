"""Column references checked before the network (issue 13), proven against PySpark: every
edge case Spark accepts is accepted with PySpark's result, and what connect_plan refuses
Spark refuses too."""

from __future__ import annotations

from typing import Any

import pytest
from pyspark.sql import functions as F

import connect_plan

from .conftest import Differential

pytestmark = pytest.mark.integration

SCHEMA = [
    {"name": "id", "type": "bigint"},
    {"name": "Name", "type": "string"},
    {"name": "s", "type": "struct<x:int,y:string>"},
    {"name": "a.b", "type": "int"},
]
ROWS = [[1, "x", {"x": 10, "y": "p"}, 5], [2, "y", {"x": 20, "y": "q"}, 6], [3, "z", None, None]]


def _filter(col: str, op: str = "gt", value: Any = 0) -> dict[str, Any]:
    return {"op": "filter", "payload": {"op": op, "left": {"col": col}, "right": {"lit": value}}}


ACCEPTED: list[tuple[str, list[dict[str, Any]], Any]] = [
    ("case_insensitive", [_filter("ID", "gt", 1)], lambda df: df.filter(F.col("ID") > 1)),
    ("case_insensitive_select", [{"op": "select", "payload": ["name", "ID"]}], lambda df: df.select("name", "ID")),
    ("struct_field", [_filter("s.x", "gt", 15)], lambda df: df.filter(F.col("s.x") > 15)),
    ("struct_field_select", [{"op": "select", "payload": ["s.y", "id"]}], lambda df: df.select("s.y", "id")),
    ("backticked_dotted_name", [_filter("`a.b`", "gt", 5)], lambda df: df.filter(F.col("`a.b`") > 5)),
    ("star", [{"op": "select", "payload": ["*"]}], lambda df: df.select("*")),
    (
        "filter_on_column_the_projection_dropped",
        [{"op": "select", "payload": ["Name"]}, _filter("id", "gt", 1)],
        lambda df: df.select("Name").filter(F.col("id") > 1),
    ),
    (
        "sort_on_column_the_projection_dropped",
        [
            {"op": "select", "payload": ["Name"]},
            {"op": "orderBy", "payload": {"columns": ["id"], "ascending": [False]}},
        ],
        lambda df: df.select("Name").orderBy(F.col("id").desc()),
    ),
    (
        "lateral_alias",
        [
            {
                "op": "select",
                "payload": [
                    {"name": "k", "expr": {"op": "add", "left": {"col": "id"}, "right": {"lit": 1}}},
                    {"name": "k2", "expr": {"op": "mul", "left": {"col": "k"}, "right": {"lit": 2}}},
                ],
            }
        ],
        lambda df: df.select((F.col("id") + 1).alias("k"), (F.col("k") * 2).alias("k2")),
    ),
    (
        "renamed_then_filtered",
        [{"op": "withColumnRenamed", "payload": {"old": "id", "new": "key"}}, _filter("KEY", "gt", 1)],
        lambda df: df.withColumnRenamed("id", "key").filter(F.col("KEY") > 1),
    ),
    (
        "grouped",
        [{"op": "groupBy", "payload": {"group_by": ["NAME"], "aggs": [{"agg": "sum", "column": "ID", "alias": "t"}]}}],
        lambda df: df.groupBy("NAME").agg(F.sum("ID").alias("t")),
    ),
]


@pytest.mark.parametrize("plan,oracle", [c[1:] for c in ACCEPTED], ids=[c[0] for c in ACCEPTED])
def test_spark_resolves_it_so_it_is_accepted(plan: list[dict[str, Any]], oracle: Any, diff: Differential) -> None:
    connect_plan.validate(ROWS, SCHEMA, plan)
    diff.check(ROWS, SCHEMA, plan, oracle)


#: references Spark resolves that the pre-network check must let through, though
#: connect_plan's lowering of them fails on the server today (found while writing these
#: tests; not part of issue 13): a struct's "s.*" in select and a lambda parameter's field
#: "e.x" (sent as a column reference, not as the lambda variable's field)
NOT_REFUSED: list[tuple[str, list[dict[str, Any]], Any]] = [
    ("struct_star", [{"op": "select", "payload": ["s.*"]}], lambda df: df.select("s.*")),
    (
        "lambda_parameter_field",
        [
            {
                "op": "withColumn",
                "payload": {
                    "name": "xs",
                    "expr": {
                        "fn": "transform",
                        "args": [
                            {"fn": "array", "args": [{"col": "s"}]},
                            {"lambda": {"params": ["e"], "body": {"col": "e.x"}}},
                        ],
                    },
                },
            }
        ],
        lambda df: df.withColumn("xs", F.transform(F.array("s"), lambda e: e["x"])),
    ),
]


@pytest.mark.parametrize("plan", [c[1] for c in NOT_REFUSED], ids=[c[0] for c in NOT_REFUSED])
def test_spark_resolves_it_so_the_check_lets_it_through(plan: list[dict[str, Any]], diff: Differential) -> None:
    connect_plan.validate(ROWS, SCHEMA, plan)


REFUSED: list[tuple[str, list[dict[str, Any]], Any, list[str]]] = [
    ("missing", [_filter("idd")], lambda df: df.filter(F.col("idd") > 0), ["/plan/0/payload/left/col"]),
    (
        "two_at_once",
        [_filter("aa"), {"op": "select", "payload": {"columns": [{"col": "bb"}]}}],
        lambda df: df.filter(F.col("aa") > 0).select("bb"),
        ["/plan/0/payload/left/col", "/plan/1/payload/columns/0/col"],
    ),
    (
        "group_key",
        [{"op": "groupBy", "payload": {"group_by": ["zz"], "aggs": [{"agg": "count", "alias": "n"}]}}],
        lambda df: df.groupBy("zz").agg(F.count("*").alias("n")),
        ["/plan/0/payload/group_by/0"],
    ),
    (
        "with_column_on_column_the_projection_dropped",
        [{"op": "select", "payload": ["Name"]}, {"op": "withColumn", "payload": {"name": "k", "expr": {"col": "id"}}}],
        lambda df: df.select("Name").withColumn("k", F.col("id")),
        ["/plan/1/payload/expr/col"],
    ),
    (
        "dotted_name_without_backticks_is_not_the_column",
        [{"op": "select", "payload": [{"col": "a.c"}]}],
        lambda df: df.select("a.c"),
        ["/plan/0/payload/0/col"],
    ),
]


@pytest.mark.parametrize("plan,oracle,locs", [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED])
def test_spark_refuses_it_so_it_is_refused_first(
    plan: list[dict[str, Any]], oracle: Any, locs: list[str], diff: Differential
) -> None:
    with pytest.raises(connect_plan.PlanError) as info:
        connect_plan.validate(ROWS, SCHEMA, plan)
    assert [(d.code, d.loc) for d in info.value.details] == [("unknown_column", loc) for loc in locs]
    with pytest.raises(Exception, match=r"UNRESOLVED_COLUMN|cannot be resolved|FIELD_NOT_FOUND|does not exist"):
        oracle(diff.df(ROWS, SCHEMA)).toArrow()


def test_case_sensitive_sessions_follow_their_rule() -> None:
    plan = [_filter("ID", "gt", 1)]
    connect_plan.translate(ROWS, SCHEMA, plan)
    with pytest.raises(connect_plan.PlanError) as info:
        connect_plan.translate(ROWS, SCHEMA, plan, case_sensitive=True)
    assert info.value.details[0].code == "unknown_column"
