"""Window expressions (PLAN_FORMAT.md §3.6) with Spark's full semantics, against PySpark's
``Column.over(Window...)`` on the same server: partitioning, several order columns with
directions and null placement, frames (rows/range, markers, camelCase), ranking and
analytic functions, aggregates over windows, robin's and Sparkless' shapes."""

from __future__ import annotations

from typing import Any

import pytest
from pyspark.sql import functions as F
from pyspark.sql.window import Window as W

from connect_plan.errors import PlanError
from connect_plan.formats.json_plan import parse_plan

from .exprdiff import X, check_cases

# PySpark's oracle warns about windows without a partition; the plans have some on purpose
pytestmark = pytest.mark.filterwarnings("ignore:WARN WindowExpression:UserWarning")

SCHEMA = [("id", "bigint"), ("dept", "string"), ("salary", "double"), ("age", "int")]
ROWS = [
    [1, "IT", 5200.0, 34],
    [2, "HR", 4100.5, 45],
    [3, "IT", 6100.0, 29],
    [4, "Sales", 3900.0, None],
    [5, "HR", None, 52],
    [6, "IT", 5200.0, 38],
    [7, "Sales", 4800.0, 29],
    [8, None, 4500.0, 41],
]


def win(fn: str, args: list[Any] | None = None, **spec: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"fn": fn, "window": spec}
    if args is not None:
        out["args"] = args
    return out


# windows are built lazily, inside the oracles: PySpark needs a session to build them
def by_dept() -> Any:
    return W.partitionBy("dept")


UNBOUNDED = (W.unboundedPreceding, W.unboundedFollowing)

CASES = [
    # robin's defaults: a ranking function without order_by is ordered by the partition columns
    X(
        "row_number_robin_default_order",
        win("row_number", partition_by=["dept"]),
        lambda: F.row_number().over(by_dept().orderBy("dept")),
    ),
    X(
        "rank_sparkless_order_item",
        {
            "type": "window",
            "fn": "rank",
            "args": [],
            "window": {"partition_by": ["dept"], "order_by": [{"col": "salary", "asc": True}]},
        },
        lambda: F.rank().over(by_dept().orderBy(F.col("salary").asc())),
    ),
    X(
        "dense_rank_desc_string_item",
        win("dense_rank", [], partition_by=["dept"], order_by=["salary DESC"]),
        lambda: F.dense_rank().over(by_dept().orderBy(F.col("salary").desc())),
    ),
    X(
        "percent_rank_two_keys_nulls_last",
        win(
            "percent_rank", partition_by=["dept"], order_by=[{"col": "salary", "desc": True, "nulls_last": True}, "id"]
        ),
        lambda: F.percent_rank().over(by_dept().orderBy(F.col("salary").desc_nulls_last(), "id")),
    ),
    X(
        "cume_dist_ascending_list",
        {
            "fn": "cume_dist",
            "window": {"partition_by": ["dept"], "order_by": ["age", "id"], "ascending": [False, True]},
        },
        lambda: F.cume_dist().over(by_dept().orderBy(F.col("age").desc(), F.col("id").asc())),
    ),
    X(
        "row_number_sort_functions",
        win("row_number", order_by=[{"fn": "desc_nulls_first", "args": ["age"]}, {"fn": "asc", "args": ["id"]}]),
        lambda: F.row_number().over(W.orderBy(F.col("age").desc_nulls_first(), F.col("id").asc())),
    ),
    X(
        "ntile_bare",
        win("ntile", [2], partition_by=["dept"], order_by=["id"]),
        lambda: F.ntile(2).over(by_dept().orderBy("id")),
    ),
    X(
        "lag_offset_default",
        win("lag", ["salary", 2, 0.0], partition_by=["dept"], order_by=["id"]),
        lambda: F.lag("salary", 2, 0.0).over(by_dept().orderBy("id")),
    ),
    X(
        "lead_fill_offset",
        win("lead", ["salary"], partition_by=["dept"], order_by=["id"]),
        lambda: F.lead("salary").over(by_dept().orderBy("id")),
    ),
    X(
        "lag_robin_no_order",
        win("lag", ["id"], partition_by=["dept"]),
        lambda: F.lag("id").over(by_dept().orderBy("dept")),
    ),
    X(
        "nth_value",
        win("nth_value", ["id", 2], partition_by=["dept"], order_by=["id"], rows_between=[None, None]),
        lambda: F.nth_value("id", 2).over(by_dept().orderBy("id").rowsBetween(*UNBOUNDED)),
    ),
    X(
        "first_value_ignore_nulls",
        win("first_value", ["age", True], partition_by=["dept"], order_by=["id"]),
        lambda: F.first_value("age", F.lit(True)).over(by_dept().orderBy("id")),
    ),
    X(
        "last_value_whole_frame",
        win(
            "last_value",
            ["id"],
            partition_by=["dept"],
            order_by=["id"],
            rowsBetween=["unboundedPreceding", "unboundedFollowing"],
        ),
        lambda: F.last_value("id").over(by_dept().orderBy("id").rowsBetween(*UNBOUNDED)),
    ),
    X("sum_whole_partition", win("sum", ["salary"], partition_by=["dept"]), lambda: F.sum("salary").over(by_dept())),
    X(
        "sum_running_default_frame",
        win("sum", ["salary"], partition_by=["dept"], order_by=["id"]),
        lambda: F.sum("salary").over(by_dept().orderBy("id")),
    ),
    X(
        "avg_rows_between_offsets",
        win("avg", ["salary"], partition_by=["dept"], order_by=["id"], rows_between=[-1, 1]),
        lambda: F.avg("salary").over(by_dept().orderBy("id").rowsBetween(-1, 1)),
    ),
    X(
        "mean_rows_frame_object",
        win("mean", ["age"], order_by=["id"], rows_between={"start": -2, "end": "currentRow"}),
        lambda: F.mean("age").over(W.orderBy("id").rowsBetween(-2, W.currentRow)),
    ),
    X(
        "count_range_between",
        win("count", ["*"], order_by=["salary"], range_between=[-1000, 1000]),
        lambda: F.count("*").over(W.orderBy("salary").rangeBetween(-1000, 1000)),
    ),
    X(
        "max_range_frame_key",
        win(
            "max",
            ["age"],
            partition_by=["dept"],
            order_by=["salary"],
            frame={"type": "range", "start": "unbounded_preceding", "end": "current_row"},
        ),
        lambda: F.max("age").over(by_dept().orderBy("salary").rangeBetween(W.unboundedPreceding, W.currentRow)),
    ),
    X(
        "min_pyspark_sentinels",
        win("min", ["salary"], partition_by=["dept"], order_by=["id"], rowsBetween=[-(2**63), 2**63 - 1]),
        lambda: F.min("salary").over(by_dept().orderBy("id").rowsBetween(*UNBOUNDED)),
    ),
    X(
        "collect_list_frame",
        win("collect_list", ["id"], partition_by=["dept"], order_by=["id"], rows_between=[0, 1]),
        lambda: F.collect_list("id").over(by_dept().orderBy("id").rowsBetween(0, 1)),
    ),
    X(
        "approx_count_distinct_partition",
        win("approx_count_distinct", ["age"], partition_by=["dept"]),
        lambda: F.approx_count_distinct("age").over(by_dept()),
    ),
    X(
        "camel_case_and_expression_partition",
        {
            "fn": "dense_rank",
            "window": {
                "partitionBy": [{"fn": "upper", "args": ["dept"]}],
                "orderBy": [{"col": "age", "ascending": False}],
            },
        },
        lambda: F.dense_rank().over(W.partitionBy(F.upper("dept")).orderBy(F.col("age").desc())),
    ),
    X(
        "sparkless_function_key",
        {"type": "window", "function": "row_number", "window": {"partition_by": [{"col": "dept"}], "order_by": ["id"]}},
        lambda: F.row_number().over(by_dept().orderBy("id")),
    ),
    X(
        "sparkless_function_expression",
        {"type": "window", "function": {"fn": "sum", "args": ["age"]}, "window": {"partition_by": ["dept"]}},
        lambda: F.sum("age").over(by_dept()),
    ),
    X(
        "window_inside_arithmetic",
        {
            "op": "add",
            "left": {"type": "window", "fn": "row_number", "window": {"partition_by": ["dept"], "order_by": ["id"]}},
            "right": {"lit": 10},
        },
        lambda: F.row_number().over(by_dept().orderBy("id")) + 10,
    ),
    X("no_partition_no_order_constant", win("row_number"), lambda: F.row_number().over(W.orderBy(F.lit(1)))),
]


def test_windows_in_select(diff: Any) -> None:
    check_cases(diff, ROWS, SCHEMA, [X("id", "id", lambda: F.col("id")), *CASES])


def test_windows_in_with_column(diff: Any) -> None:
    check_cases(diff, ROWS, SCHEMA, CASES[:8], step="withColumn")


def test_robin_fixture_window_row_number(diff: Any) -> None:
    """robin's fixture `window_row_number`: no args, no order_by."""
    plan = [
        {
            "op": "withColumn",
            "payload": {"name": "rn", "expr": {"fn": "row_number", "window": {"partition_by": ["dept"]}}},
        },
        {"op": "select", "payload": ["dept", "rn"]},
    ]
    table = diff.check(
        ROWS,
        SCHEMA,
        plan,
        lambda df: df.withColumn("rn", F.row_number().over(by_dept().orderBy("dept"))).select("dept", "rn"),
    )
    counts: dict[Any, list[int]] = {}
    for dept, rn in zip(table.column("dept").to_pylist(), table.column("rn").to_pylist()):
        counts.setdefault(dept, []).append(rn)
    assert {k: sorted(v) for k, v in counts.items()} == {"IT": [1, 2, 3], "HR": [1, 2], "Sales": [1, 2], None: [1]}


@pytest.mark.parametrize(
    ("expr", "code", "loc"),
    [
        ({"fn": "row_number", "args": []}, "window_required", "/plan/0/payload/0/expr"),
        ({"fn": "lag", "args": ["id"]}, "window_required", "/plan/0/payload/0/expr"),
        (win("upper", ["dept"], partition_by=["dept"]), "not_window_function", "/plan/0/payload/0/expr/fn"),
        (
            win("rank", partition_by=["dept"], order_by=["id"], sortBy=["id"]),
            "window_spec",
            "/plan/0/payload/0/expr/window/sortBy",
        ),
        (
            win("sum", ["age"], order_by=["id"], rows_between=["unboundedFollowing", 0]),
            "window_frame",
            "/plan/0/payload/0/expr/window/rows_between/0",
        ),
        (
            win("sum", ["age"], order_by=["id"], rows_between=[2, -2]),
            "window_frame",
            "/plan/0/payload/0/expr/window/rows_between",
        ),
        (
            win("sum", ["age"], order_by=["id"], rows_between=[0, "tomorrow"]),
            "window_frame",
            "/plan/0/payload/0/expr/window/rows_between/1",
        ),
        (
            win("sum", ["age"], order_by=["id"], rows_between=[0, 1], range_between=[0, 1]),
            "window_frame",
            "/plan/0/payload/0/expr/window",
        ),
        (
            win("sum", ["age"], order_by=["id"], frame={"type": "groups", "start": 0, "end": 1}),
            "window_frame",
            "/plan/0/payload/0/expr/window/frame/type",
        ),
        ({"fn": "rank", "window": ["dept"]}, "window_spec", "/plan/0/payload/0/expr/window"),
        (win("ntile", ["two"], order_by=["id"]), "literal_expected", "/plan/0/payload/0/expr/args/0"),
    ],
)
def test_window_errors_are_plan_errors_with_locations(expr: Any, code: str, loc: str) -> None:
    with pytest.raises(PlanError) as info:
        parse_plan(ROWS, SCHEMA, [{"op": "select", "payload": [{"name": "w", "expr": expr}]}])
    assert info.value.codes == (code,)
    assert info.value.locs == (loc,)


def test_window_in_filter_is_a_plan_error() -> None:
    plan = [{"op": "filter", "payload": {"op": "eq", "left": win("row_number", partition_by=["dept"]), "right": 1}}]
    with pytest.raises(PlanError) as info:
        parse_plan(ROWS, SCHEMA, plan)
    assert info.value.codes == ("window_in_filter",)
    assert info.value.locs == ("/plan/0/payload/left",)


def test_order_by_accepts_sort_function_items(diff: Any) -> None:
    plan = [
        {
            "op": "orderBy",
            "payload": {"columns": [{"fn": "desc_nulls_last", "args": ["salary"]}, {"fn": "asc", "args": ["id"]}]},
        }
    ]
    diff.check(
        ROWS, SCHEMA, plan, lambda df: df.orderBy(F.col("salary").desc_nulls_last(), F.col("id").asc()), ordered=True
    )
