"""Column references checked before the network (issue 13), proven against PySpark on the
same server. For every edge case: a plan Spark runs passes ``connect_plan.validate`` and
gives PySpark's result; a plan Spark refuses with UNRESOLVED_COLUMN (or its by-name union
form) is refused locally with a located ``PlanError`` listing every problem at once, and
no RPC is sent (counted by a recording gRPC proxy). Cases the check leaves to the server
(it only refuses what no reading could resolve) are listed too, each with Spark's answer."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from pyspark.sql import functions as F
from pyspark.sql.window import Window as W

import connect_plan
from tests.conftest import engine
from tests.support.proxies import GrpcTlsProxy, settle

from .conftest import Differential, assert_same

pytestmark = pytest.mark.integration

SCHEMA = [
    {"name": "id", "type": "bigint"},
    {"name": "Name", "type": "string"},
    {"name": "s", "type": "struct<x:int,y:string>"},
    {"name": "a.b", "type": "int"},
    {"name": "arr", "type": "array<bigint>"},
]
ROWS = [
    [1, "x", {"x": 10, "y": "p"}, 5, [1, 2]],
    [2, "y", {"x": 20, "y": "q"}, 6, [3]],
    [3, "z", None, None, []],
]
OTHER_SCHEMA = [{"name": "ID", "type": "bigint"}, {"name": "c", "type": "string"}]
OTHER_ROWS = [[1, "one"], [3, "three"], [4, "four"]]
#: the same columns as the input in another order and case (unionByName)
SAME_SCHEMA = [
    {"name": "arr", "type": "array<bigint>"},
    {"name": "ID", "type": "bigint"},
    {"name": "name", "type": "string"},
    {"name": "S", "type": "struct<x:int,y:string>"},
    {"name": "a.b", "type": "int"},
]
SAME_ROWS = [[[9], 9, "w", {"x": 90, "y": "r"}, 9]]

Oracle = Callable[[Any, Any], Any]  # (the input's DataFrame, the other input's) -> DataFrame


def _filter(col: str, op: str = "gt", value: Any = 0) -> dict[str, Any]:
    return {"op": "filter", "payload": {"op": op, "left": {"col": col}, "right": {"lit": value}}}


def _join(on: Any, how: str = "inner") -> dict[str, Any]:
    return {"op": "join", "payload": {"other_data": OTHER_ROWS, "other_schema": OTHER_SCHEMA, "on": on, "how": how}}


def _union_by_name(rows: Any = SAME_ROWS, schema: Any = SAME_SCHEMA, allow_missing: bool = False) -> dict[str, Any]:
    payload = {"other_data": rows, "other_schema": schema, "allowMissingColumns": allow_missing}
    return {"op": "unionByName", "payload": payload}


def _eq(left: Any, right: Any) -> dict[str, Any]:
    return {"op": "eq", "left": left, "right": right}


def _transform(body: Any, param: str = "e") -> dict[str, Any]:
    return {"fn": "transform", "args": [{"col": "arr"}, {"lambda": {"params": [param], "body": body}}]}


def _transform_structs(body: Any) -> dict[str, Any]:
    """``transform(array(s), e -> body)``: a lambda over structs (fields x, y)."""
    return {
        "fn": "transform",
        "args": [{"fn": "array", "args": [{"col": "s"}]}, {"lambda": {"params": ["e"], "body": body}}],
    }


def _row_number(partition: str, order: str) -> dict[str, Any]:
    return {"fn": "row_number", "window": {"partition_by": [partition], "order_by": [order]}}


# ------------------------------------------------------------ accepted: Spark runs them

ACCEPTED: list[tuple[str, list[dict[str, Any]], Oracle]] = [
    ("case_insensitive_filter", [_filter("ID", "gt", 1)], lambda df, o: df.filter(F.col("ID") > 1)),
    ("case_insensitive_select", [{"op": "select", "payload": ["name", "ID"]}], lambda df, o: df.select("name", "ID")),
    (
        "case_insensitive_with_column",
        [
            {
                "op": "withColumn",
                "payload": {"name": "k", "expr": {"op": "add", "left": {"col": "ID"}, "right": {"lit": 1}}},
            }
        ],
        lambda df, o: df.withColumn("k", F.col("ID") + 1),
    ),
    ("struct_field_filter", [_filter("s.x", "gt", 15)], lambda df, o: df.filter(F.col("s.x") > 15)),
    ("struct_field_other_case", [_filter("S.X", "gt", 15)], lambda df, o: df.filter(F.col("S.X") > 15)),
    ("struct_field_select", [{"op": "select", "payload": ["s.y", "id"]}], lambda df, o: df.select("s.y", "id")),
    ("backticked_dotted_name", [_filter("`a.b`", "gt", 5)], lambda df, o: df.filter(F.col("`a.b`") > 5)),
    ("dotted_name_that_is_a_column", [{"op": "select", "payload": ["a.b"]}], lambda df, o: df.select("`a.b`")),
    ("backticked_plain_name", [{"op": "select", "payload": ["`Name`"]}], lambda df, o: df.select("`Name`")),
    ("star", [{"op": "select", "payload": ["*"]}], lambda df, o: df.select("*")),
    (
        "star_and_an_expression",
        [{"op": "select", "payload": ["*", {"name": "k", "expr": {"col": "ID"}}]}],
        lambda df, o: df.select("*", F.col("ID").alias("k")),
    ),
    (
        "filter_on_column_the_projection_dropped",
        [{"op": "select", "payload": ["Name"]}, _filter("id", "gt", 1)],
        lambda df, o: df.select("Name").filter(F.col("id") > 1),
    ),
    (
        "sort_on_column_the_projection_dropped",
        [
            {"op": "select", "payload": ["Name"]},
            {"op": "orderBy", "payload": {"columns": ["id"], "ascending": [False]}},
        ],
        lambda df, o: df.select("Name").orderBy(F.col("id").desc()),
    ),
    (
        "filter_on_column_the_projection_renamed",
        [{"op": "select", "payload": [{"name": "k", "expr": {"col": "id"}}]}, _filter("id", "gt", 1)],
        lambda df, o: df.select(F.col("id").alias("k")).filter(F.col("id") > 1),
    ),
    (
        "lateral_alias",
        [
            {
                "op": "select",
                "payload": [
                    {"name": "k", "expr": {"op": "add", "left": {"col": "id"}, "right": {"lit": 1}}},
                    {"name": "k2", "expr": {"op": "mul", "left": {"col": "K"}, "right": {"lit": 2}}},
                ],
            }
        ],
        lambda df, o: df.select((F.col("id") + 1).alias("k"), (F.col("K") * 2).alias("k2")),
    ),
    (
        "renamed_then_filtered",
        [{"op": "withColumnRenamed", "payload": {"old": "id", "new": "key"}}, _filter("KEY", "gt", 1)],
        lambda df, o: df.withColumnRenamed("id", "key").filter(F.col("KEY") > 1),
    ),
    (
        "grouped",
        [{"op": "groupBy", "payload": {"group_by": ["NAME"], "aggs": [{"agg": "sum", "column": "ID", "alias": "t"}]}}],
        lambda df, o: df.groupBy("NAME").agg(F.sum("ID").alias("t")),
    ),
    (
        "grouped_then_sorted_by_its_aggregate",
        [
            {
                "op": "groupBy",
                "payload": {"group_by": ["Name"], "aggs": [{"agg": "sum", "column": "id", "alias": "t"}]},
            },
            {"op": "orderBy", "payload": {"columns": ["T", "name"]}},
        ],
        lambda df, o: df.groupBy("Name").agg(F.sum("id").alias("t")).orderBy("T", "name"),
    ),
    (
        "window_partition_and_order",
        [{"op": "withColumn", "payload": {"name": "r", "expr": _row_number("NAME", "ID")}}],
        lambda df, o: df.withColumn("r", F.row_number().over(W.partitionBy("NAME").orderBy("ID"))),
    ),
    (
        "lambda_variable_and_column",
        [
            {
                "op": "withColumn",
                "payload": {
                    "name": "t",
                    "expr": _transform({"op": "add", "left": {"col": "e"}, "right": {"col": "id"}}),
                },
            }
        ],
        lambda df, o: df.withColumn("t", F.transform("arr", lambda e: e + F.col("id"))),
    ),
    (
        "lambda_variable_named_like_no_column",
        [
            {
                "op": "withColumn",
                "payload": {
                    "name": "t",
                    "expr": _transform({"op": "mul", "left": {"col": "zz"}, "right": {"lit": 2}}, "zz"),
                },
            }
        ],
        lambda df, o: df.withColumn("t", F.transform("arr", lambda zz: zz * 2)),
    ),
    ("join_on_list_other_case", [_join(["id"])], lambda df, o: df.join(o, ["id"])),
    (
        "join_condition_both_sides_same_name",
        [
            _join(_eq({"col": "id", "side": "left"}, {"col": "ID", "side": "right"})),
            {"op": "select", "payload": ["Name", "c"]},
        ],
        lambda df, o: df.join(o, df["id"] == o["ID"]).select("Name", "c"),
    ),
    (
        "join_condition_bare_names",
        [_join(_eq({"col": "id"}, {"col": "id"}), "left"), {"op": "select", "payload": ["Name", "C"]}],
        lambda df, o: df.join(o, df["id"] == o["ID"], "left").select("Name", "C"),
    ),
    ("union_by_name_other_order_and_case", [_union_by_name()], lambda df, o: df.unionByName(o)),
    # a struct's fields (PySpark's select("s.*"): an unresolved star with its target, not a column)
    ("struct_star", [{"op": "select", "payload": ["s.*"]}], lambda df, o: df.select("s.*")),
    (
        "struct_star_column_item_then_a_field",
        [{"op": "select", "payload": [{"col": "S.*"}, "id"]}, _filter("x", "gt", 15)],
        lambda df, o: df.select("S.*", "id").filter(F.col("x") > 15),
    ),
    (
        "struct_star_in_an_expression_list",
        [{"op": "select", "payload": [{"expr": {"col": "s.*"}}, {"name": "n", "expr": {"col": "Name"}}]}],
        lambda df, o: df.select(F.col("s.*"), F.col("Name").alias("n")),
    ),
    # a lambda parameter's field (PySpark's lambda e: e.x: the lambda variable's field, not a column)
    (
        "lambda_parameter_field",
        [{"op": "withColumn", "payload": {"name": "xs", "expr": _transform_structs({"col": "e.x"})}}],
        lambda df, o: df.withColumn("xs", F.transform(F.array("s"), lambda e: e.x)),
    ),
    (
        "lambda_parameter_field_other_case_in_an_expression",
        [
            {
                "op": "withColumn",
                "payload": {
                    "name": "xs",
                    "expr": _transform_structs({"op": "add", "left": {"col": "E.X"}, "right": {"col": "id"}}),
                },
            }
        ],
        lambda df, o: df.withColumn("xs", F.transform(F.array("s"), lambda e: e["X"] + F.col("id"))),
    ),
    (
        "lambda_parameter_field_beside_a_struct_column_field",
        [
            {
                "op": "withColumn",
                "payload": {
                    "name": "xs",
                    "expr": _transform_structs({"op": "add", "left": {"col": "e.x"}, "right": {"col": "s.x"}}),
                },
            }
        ],
        lambda df, o: df.withColumn("xs", F.transform(F.array("s"), lambda e: e.x + F.col("s.x"))),
    ),
    (
        "union_by_name_missing_columns_allowed",
        [_union_by_name(OTHER_ROWS, OTHER_SCHEMA, True)],
        lambda df, o: df.unionByName(o, allowMissingColumns=True),
    ),
]


def _other(diff: Differential, case: str) -> Any:
    if case.startswith("union_by_name_other"):
        return diff.df(SAME_ROWS, SAME_SCHEMA)
    return diff.df(OTHER_ROWS, OTHER_SCHEMA)


@pytest.mark.parametrize("case,plan,oracle", ACCEPTED, ids=[c[0] for c in ACCEPTED])
def test_spark_resolves_it_so_it_is_accepted(
    case: str, plan: list[dict[str, Any]], oracle: Oracle, diff: Differential
) -> None:
    connect_plan.validate(ROWS, SCHEMA, plan)
    diff.check(ROWS, SCHEMA, plan, lambda df: oracle(df, _other(diff, case)))


# ------------------------------------------------------------ refused: Spark refuses them too


def refused_without_a_call(proxy: GrpcTlsProxy, client: Any, run: Callable[[], Any]) -> connect_plan.PlanError:
    settle(client)
    before = len(proxy.calls)
    with pytest.raises(connect_plan.PlanError) as info:
        run()
    assert proxy.calls[before:] == []  # not one RPC
    return info.value


#: Spark's error classes for these refusals (Sail's errors carry none: that it refuses is the proof)
UNRESOLVED = (
    r"UNRESOLVED_COLUMN|CANNOT_RESOLVE_STAR_EXPAND|CANNOT_RESOLVE_DATAFRAME_COLUMN|UNRESOLVED_USING_COLUMN|FIELD_NOT_FOUND"
    if engine() == "spark"
    else None
)
SPARKLESS_FILTER = {
    "op": "filter",
    "payload": {
        "condition": {
            "type": "op",
            "op": "==",
            "left": {"type": "column", "name": "Name"},
            "right": {"type": "column", "name": "IT"},
        }
    },
}

REFUSED: list[tuple[str, list[dict[str, Any]], Oracle, list[str]]] = [
    ("missing", [_filter("idd")], lambda df, o: df.filter(F.col("idd") > 0), ["/plan/0/payload/left/col"]),
    (
        "every_problem_at_once",
        [
            _filter("aa"),
            {"op": "select", "payload": {"columns": [{"col": "bb"}, "id"]}},
            {"op": "orderBy", "payload": {"columns": ["cc"]}},
        ],
        lambda df, o: df.filter(F.col("aa") > 0).select("bb", "id").orderBy("cc"),
        ["/plan/0/payload/left/col", "/plan/1/payload/columns/0/col", "/plan/2/payload/columns/0"],
    ),
    (
        "with_column",
        [{"op": "withColumn", "payload": {"name": "k", "expr": {"fn": "upper", "args": [{"col": "nme"}]}}}],
        lambda df, o: df.withColumn("k", F.upper("nme")),
        ["/plan/0/payload/expr/args/0/col"],
    ),
    (
        "group_key",
        [{"op": "groupBy", "payload": {"group_by": ["zz"], "aggs": [{"agg": "count", "alias": "n"}]}}],
        lambda df, o: df.groupBy("zz").agg(F.count("*").alias("n")),
        ["/plan/0/payload/group_by/0"],
    ),
    (
        "aggregate_column",
        [{"op": "groupBy", "payload": {"group_by": ["Name"], "aggs": [{"agg": "sum", "column": "idd", "alias": "t"}]}}],
        lambda df, o: df.groupBy("Name").agg(F.sum("idd").alias("t")),
        ["/plan/0/payload/aggs/0/column"],
    ),
    (
        "sort_key_nowhere",
        [{"op": "select", "payload": ["Name"]}, {"op": "orderBy", "payload": {"columns": ["idd"]}}],
        lambda df, o: df.select("Name").orderBy("idd"),
        ["/plan/1/payload/columns/0"],
    ),
    (
        "with_column_on_column_the_projection_dropped",
        [{"op": "select", "payload": ["Name"]}, {"op": "withColumn", "payload": {"name": "k", "expr": {"col": "id"}}}],
        lambda df, o: df.select("Name").withColumn("k", F.col("id")),
        ["/plan/1/payload/expr/col"],
    ),
    (
        "select_of_a_column_the_aggregation_dropped",
        [
            {
                "op": "groupBy",
                "payload": {"group_by": ["Name"], "aggs": [{"agg": "sum", "column": "id", "alias": "t"}]},
            },
            {"op": "select", "payload": ["Name", "id"]},
        ],
        lambda df, o: df.groupBy("Name").agg(F.sum("id").alias("t")).select("Name", "id"),
        ["/plan/1/payload/1"],
    ),
    (
        "dotted_name_without_backticks_is_not_the_column",
        [{"op": "select", "payload": [{"col": "a.c"}]}],
        lambda df, o: df.select("a.c"),
        ["/plan/0/payload/0/col"],
    ),
    (
        "star_of_no_column",
        [{"op": "select", "payload": ["t.*"]}],
        lambda df, o: df.select("t.*"),
        ["/plan/0/payload/0"],
    ),
    (
        "window_partition",
        [{"op": "withColumn", "payload": {"name": "r", "expr": _row_number("dept", "id")}}],
        lambda df, o: df.withColumn("r", F.row_number().over(W.partitionBy("dept").orderBy("id"))),
        ["/plan/0/payload/expr/window/partition_by/0"],
    ),
    (
        "lambda_body",
        [
            {
                "op": "withColumn",
                "payload": {
                    "name": "t",
                    "expr": _transform({"op": "add", "left": {"col": "e"}, "right": {"col": "nope"}}),
                },
            }
        ],
        lambda df, o: df.withColumn("t", F.transform("arr", lambda e: e + F.col("nope"))),
        ["/plan/0/payload/expr/args/1/lambda/body/right/col"],
    ),
    (
        "join_condition_either_side",
        [_join(_eq({"col": "idd"}, {"col": "cc"}))],
        lambda df, o: df.join(o, F.col("idd") == F.col("cc")),
        ["/plan/0/payload/on/left/col", "/plan/0/payload/on/right/col"],
    ),
    (
        "join_condition_pinned_side",
        [_join(_eq({"col": "id", "side": "left"}, {"col": "Name", "side": "right"}))],
        lambda df, o: df.join(o, df["id"] == o["Name"]),
        ["/plan/0/payload/on/right/col"],
    ),
    ("join_on_list", [_join(["Name"])], lambda df, o: df.join(o, ["Name"]), ["/plan/0/payload/on"]),
    (
        "union_by_name",
        [_union_by_name(OTHER_ROWS, OTHER_SCHEMA)],
        lambda df, o: df.unionByName(o),
        ["/plan/0/payload", "/plan/0/payload", "/plan/0/payload", "/plan/0/payload"],
    ),
    (
        "sparkless_string_operand",
        [SPARKLESS_FILTER],
        lambda df, o: df.filter(F.col("Name") == F.col("IT")),
        ["/plan/0/payload/condition/right/name"],
    ),
]


@pytest.mark.parametrize("case,plan,oracle,locs", REFUSED, ids=[c[0] for c in REFUSED])
def test_spark_refuses_it_so_it_is_refused_before_the_network(
    case: str,
    plan: list[dict[str, Any]],
    oracle: Oracle,
    locs: list[str],
    diff: Differential,
    proxy: GrpcTlsProxy,
    counted: Any,
) -> None:
    with pytest.raises(connect_plan.PlanError) as info:
        connect_plan.validate(ROWS, SCHEMA, plan)
    assert [(d.code, d.loc) for d in info.value.details] == [("unknown_column", loc) for loc in locs]
    err = refused_without_a_call(proxy, counted, lambda: counted.execute(plan, data=ROWS, schema=SCHEMA))
    assert [d.loc for d in err.details] == locs
    with pytest.raises(Exception, match=UNRESOLVED):
        oracle(diff.df(ROWS, SCHEMA), diff.df(OTHER_ROWS, OTHER_SCHEMA)).toArrow()


def test_a_new_clients_first_plan_refused_sends_nothing(proxy: GrpcTlsProxy) -> None:
    """Before its first plan a session asks the server's version: a plan refused anyway is
    checked before that too."""
    before = len(proxy.calls)
    with connect_plan.connect(f"sc://127.0.0.1:{proxy.port}") as fresh:
        with pytest.raises(connect_plan.PlanError) as info:
            fresh.execute([_filter("idd"), {"op": "select", "payload": ["nme"]}], data=ROWS, schema=SCHEMA)
        assert [d.loc for d in info.value.details] == ["/plan/0/payload/left/col", "/plan/1/payload/0"]
        assert proxy.calls[before:] == []
        fresh.execute([_filter("id")], data=ROWS, schema=SCHEMA)  # the proxy does pass calls on
        assert proxy.calls[before:] != []


def test_a_sparkless_string_operand_gets_the_literal_spelling(counted: Any, proxy: GrpcTlsProxy) -> None:
    err = refused_without_a_call(proxy, counted, lambda: counted.execute([SPARKLESS_FILTER], data=ROWS, schema=SCHEMA))
    (detail,) = err.details
    assert "Sparkless writes a plain string operand as a column reference" in detail.message
    assert '{"lit": "IT"}' in detail.message and "F.lit('IT')" in detail.message


def test_union_by_name_with_more_columns_on_the_other_side(
    counted: Any, proxy: GrpcTlsProxy, diff: Differential
) -> None:
    """Spark's NUM_COLUMNS_MISMATCH: every column of this side is there, the other has more."""
    wider = [*SCHEMA, {"name": "extra", "type": "int"}]
    plan = [_union_by_name([[*r, 1] for r in ROWS], wider)]
    err = refused_without_a_call(proxy, counted, lambda: counted.execute(plan, data=ROWS, schema=SCHEMA))
    assert [(d.code, d.loc) for d in err.details] == [("column_count", "/plan/0/payload")]
    with pytest.raises(Exception, match="NUM_COLUMNS_MISMATCH" if engine() == "spark" else None):
        diff.df(ROWS, SCHEMA).unionByName(diff.df([[*r, 1] for r in ROWS], wider)).toArrow()


# ------------------------------------------------------------ spark.sql.caseSensitive


def _doc(plan: list[dict[str, Any]], rows: Any = ROWS) -> dict[str, Any]:
    return {"conf": {"spark.sql.caseSensitive": True}, "input": {"schema": SCHEMA, "rows": rows}, "plan": plan}


def test_a_case_sensitive_plan_refuses_another_case(
    counted: Any, proxy: GrpcTlsProxy, spark: Any, diff: Differential
) -> None:
    plan = [_filter("ID", "gt", 1), {"op": "select", "payload": ["name", "S.x"]}]
    with pytest.raises(connect_plan.PlanError) as info:
        connect_plan.validate(None, None, _doc(plan))
    locs = ["/plan/0/payload/left/col", "/plan/1/payload/0", "/plan/1/payload/1"]
    assert [(d.code, d.loc) for d in info.value.details] == [("unknown_column", loc) for loc in locs]
    err = refused_without_a_call(proxy, counted, lambda: counted.execute(_doc(plan)))
    assert [d.loc for d in err.details] == locs
    connect_plan.translate(ROWS, SCHEMA, plan)  # without the conf: one name in any case
    spark.conf.set("spark.sql.caseSensitive", "true")
    try:
        for refused in (
            lambda df: df.filter(F.col("ID") > 1),
            lambda df: df.select("name"),
            lambda df: df.select("S.x"),
        ):
            with pytest.raises(Exception, match=UNRESOLVED):
                refused(diff.df(ROWS, SCHEMA)).toArrow()
    finally:
        spark.conf.unset("spark.sql.caseSensitive")


def test_a_case_sensitive_plan_runs_in_the_exact_case(client: Any, spark: Any, diff: Differential) -> None:
    plan = [_filter("id", "gt", 1), {"op": "select", "payload": ["Name", "s.x", "`a.b`"]}]
    connect_plan.validate(None, None, _doc(plan))
    ours = client.execute(_doc(plan))
    spark.conf.set("spark.sql.caseSensitive", "true")
    try:
        theirs = diff.df(ROWS, SCHEMA).filter(F.col("id") > 1).select("Name", "s.x", "`a.b`").toArrow()
    finally:
        spark.conf.unset("spark.sql.caseSensitive")
    assert_same(ours, theirs, ordered=False)


def test_row_keys_follow_the_plans_case_rule() -> None:
    rows = [{"id": 1, "name": "x"}]
    schema = [{"name": "id", "type": "bigint"}, {"name": "Name", "type": "string"}]
    plain = {"input": {"schema": schema, "rows": rows}, "plan": []}
    connect_plan.validate(None, None, plain)  # any unambiguous case
    with pytest.raises(connect_plan.PlanError) as info:
        connect_plan.validate(None, None, {**plain, "conf": {"spark.sql.caseSensitive": True}})
    assert [(d.code, d.loc) for d in info.value.details] == [("row_key", "/input/rows/0/name")]
    assert "spark.sql.caseSensitive" in info.value.details[0].message


# ------------------------------------------------------------ left to Spark

#: the check only refuses what no reading could resolve; these pass it and Spark decides:
#: a sort on a column the aggregation below it dropped is refused by Spark (UNRESOLVED_COLUMN,
#: so the server's error, located at the step), one the distinct below it dropped is run
#: (Spark adds the column back through the distinct)
LEFT_TO_SPARK: list[tuple[str, list[dict[str, Any]], Oracle]] = [
    (
        "sort_below_an_aggregation",
        [
            {
                "op": "groupBy",
                "payload": {"group_by": ["Name"], "aggs": [{"agg": "sum", "column": "id", "alias": "t"}]},
            },
            {"op": "orderBy", "payload": {"columns": ["id"]}},
        ],
        lambda df, o: df.groupBy("Name").agg(F.sum("id").alias("t")).orderBy("id"),
    ),
    (
        "sort_below_a_distinct",
        [{"op": "select", "payload": ["Name"]}, {"op": "distinct"}, {"op": "orderBy", "payload": {"columns": ["id"]}}],
        lambda df, o: df.select("Name").distinct().orderBy("id"),
    ),
]


@pytest.mark.parametrize("case,plan,oracle", LEFT_TO_SPARK, ids=[c[0] for c in LEFT_TO_SPARK])
def test_what_the_check_leaves_to_spark(
    case: str, plan: list[dict[str, Any]], oracle: Oracle, client: Any, diff: Differential
) -> None:
    connect_plan.validate(ROWS, SCHEMA, plan)
    try:
        theirs = oracle(diff.df(ROWS, SCHEMA), None).toArrow()
    except Exception:
        with pytest.raises(connect_plan.ServerError):
            client.execute(plan, data=ROWS, schema=SCHEMA)
    else:
        assert_same(client.execute(plan, data=ROWS, schema=SCHEMA), theirs, ordered=True)
