"""Aggregation entries (PLAN_FORMAT.md §5) for every kind of aggregate, against PySpark's
``groupBy().agg()`` on the same server — names included: an unaliased aggregate must get
exactly the column name PySpark's gets."""

from __future__ import annotations

from typing import Any

import pytest
from pyspark.sql import functions as F

from connect_plan.formats.json_plan import parse_plan
from connect_plan.functions import rows as catalog_rows
from connect_plan.translator import translate_ir
from connect_plan.translator.naming import AGG_NAMES

SCHEMA = [
    ("k", "string"),
    ("v", "bigint"),
    ("w", "double"),
    ("s", "string"),
    ("b", "boolean"),
    ("arr", "array<bigint>"),
]
ROWS = [
    ["a", 1, 1.5, "x", True, [1, 2]],
    ["a", 3, 2.5, "y", False, [2, 3]],
    ["a", None, 4.0, None, None, None],
    ["b", 10, -1.0, "z", True, [5]],
    ["b", 10, 0.5, "z", True, []],
    [None, 7, 3.0, "w", False, [7]],
]


def group(aggs: list[dict[str, Any]], keys: Any = ("k",), op: str = "groupBy") -> list[dict[str, Any]]:
    return [{"op": op, "payload": {"group_by": list(keys), "aggs": aggs}}]


# (entry, PySpark aggregate) — unaliased, so the names are compared too
SIMPLE = [
    ({"agg": "count"}, lambda: F.count(F.lit(1))),
    ({"agg": "count", "column": "*", "alias": "n_rows"}, lambda: F.count("*").alias("n_rows")),
    ({"agg": "count", "column": "v"}, lambda: F.count("v")),
    ({"agg": "sum", "column": "v"}, lambda: F.sum("v")),
    ({"agg": "avg", "column": "w"}, lambda: F.avg("w")),
    ({"agg": "mean", "column": "v"}, lambda: F.mean("v")),
    ({"agg": "min", "column": "s"}, lambda: F.min("s")),
    ({"agg": "max", "column": "w"}, lambda: F.max("w")),
    ({"func": "first", "column": "v", "ignorenulls": True}, lambda: F.first("v", True)),
    ({"agg": "last", "column": "s"}, lambda: F.last("s")),
    ({"agg": "count_distinct", "column": "v"}, lambda: F.count_distinct("v")),
    ({"agg": "countDistinct", "columns": ["v", "s"]}, lambda: F.countDistinct("v", "s")),
    ({"agg": "sum", "column": "v", "distinct": True}, lambda: F.sum_distinct("v")),
    ({"agg": "sum_distinct", "column": "w"}, lambda: F.sum_distinct("w")),
    ({"agg": "approx_count_distinct", "column": "s"}, lambda: F.approx_count_distinct("s")),
    ({"agg": "approx_count_distinct", "column": "w", "args": [0.1]}, lambda: F.approx_count_distinct("w", 0.1)),
    ({"agg": "stddev", "column": "w"}, lambda: F.stddev("w")),
    ({"agg": "std", "column": "w"}, lambda: F.std("w")),
    ({"agg": "stddev_pop", "column": "w"}, lambda: F.stddev_pop("w")),
    ({"agg": "variance", "column": "w"}, lambda: F.variance("w")),
    ({"agg": "var_pop", "column": "w"}, lambda: F.var_pop("w")),
    ({"agg": "kurtosis", "column": "w"}, lambda: F.kurtosis("w")),
    ({"agg": "skewness", "column": "w"}, lambda: F.skewness("w")),
    ({"agg": "corr", "columns": ["v", "w"]}, lambda: F.corr("v", "w")),
    ({"agg": "covar_samp", "column": "v", "args": ["w"]}, lambda: F.covar_samp("v", "w")),
    ({"agg": "regr_slope", "columns": ["w", "v"]}, lambda: F.regr_slope("w", "v")),
    ({"agg": "percentile_approx", "column": "w", "args": [0.5]}, lambda: F.percentile_approx("w", 0.5)),
    (
        {"agg": "approx_percentile", "column": "w", "args": [[0.25, 0.75], 100]},
        lambda: F.approx_percentile("w", [0.25, 0.75], 100),
    ),
    ({"agg": "percentile", "column": "v", "args": [0.5]}, lambda: F.percentile("v", 0.5)),
    ({"agg": "median", "column": "w"}, lambda: F.median("w")),
    ({"agg": "mode", "column": "v"}, lambda: F.mode("v")),
    ({"agg": "max_by", "column": "s", "args": ["w"]}, lambda: F.max_by("s", "w")),
    ({"agg": "min_by", "column": "s", "args": ["w"]}, lambda: F.min_by("s", "w")),
    ({"agg": "any_value", "column": "k", "ignorenulls": True}, lambda: F.any_value("k", F.lit(True))),
    ({"agg": "first_value", "column": "v"}, lambda: F.first_value("v")),
    ({"agg": "count_if", "column": "b"}, lambda: F.count_if("b")),
    ({"agg": "bool_and", "column": "b"}, lambda: F.bool_and("b")),
    ({"agg": "bool_or", "column": "b"}, lambda: F.bool_or("b")),
    ({"agg": "every", "column": "b"}, lambda: F.every("b")),
    ({"agg": "some", "column": "b"}, lambda: F.some("b")),
    ({"agg": "product", "column": "w"}, lambda: F.product("w")),
    ({"agg": "bit_and", "column": "v"}, lambda: F.bit_and("v")),
    ({"agg": "bit_or", "column": "v"}, lambda: F.bit_or("v")),
    ({"agg": "bit_xor", "column": "v"}, lambda: F.bit_xor("v")),
    ({"agg": "collect_set", "column": "v"}, lambda: F.collect_set("v")),
    ({"agg": "try_sum", "column": "v"}, lambda: F.try_sum("v")),
    ({"agg": "try_avg", "column": "v"}, lambda: F.try_avg("v")),
    ({"agg": "histogram_numeric", "column": "w", "args": [2]}, lambda: F.histogram_numeric("w", F.lit(2))),
    (
        {"agg": "count_min_sketch", "column": "v", "args": [0.5, 0.5, 42]},
        lambda: F.count_min_sketch("v", F.lit(0.5), F.lit(0.5), F.lit(42)),
    ),
]

# {"expr": <aggregate expression>} entries: order-sensitive collections are sorted, and
# sketches are read back through their scalar estimate functions
EXPRS = [
    (
        {"expr": {"fn": "array_sort", "args": [{"fn": "collect_list", "args": ["v"]}]}},
        lambda: F.sort_array(F.collect_list("v")),
    ),
    (
        {"expr": {"fn": "sort_array", "args": [{"fn": "array_agg", "args": ["s"]}]}},
        lambda: F.sort_array(F.array_agg("s")),
    ),
    (
        {"expr": {"fn": "array_sort", "args": [{"fn": "collect_union", "args": ["arr"]}]}},
        lambda: F.sort_array(F.collect_union("arr")),
    ),
    (
        {"expr": {"fn": "listagg", "args": [{"fn": "cast", "args": ["v", "string"]}, "|"], "distinct": True}},
        lambda: F.listagg_distinct(F.col("v").cast("string"), "|"),
    ),
    (
        {
            "expr": {"op": "/", "left": {"fn": "sum", "args": ["w"]}, "right": {"fn": "count", "args": ["*"]}},
            "alias": "mean_w",
        },
        lambda: (F.sum("w") / F.count(F.lit(1))).alias("mean_w"),
    ),
    (
        {"expr": {"fn": "hll_sketch_estimate", "args": [{"fn": "hll_sketch_agg", "args": ["v"]}]}},
        lambda: F.hll_sketch_estimate(F.hll_sketch_agg("v")),
    ),
    (
        {"expr": {"fn": "theta_sketch_estimate", "args": [{"fn": "theta_sketch_agg", "args": ["v"]}]}},
        lambda: F.theta_sketch_estimate(F.theta_sketch_agg("v")),
    ),
    (
        {"expr": {"fn": "kll_sketch_get_n_bigint", "args": [{"fn": "kll_sketch_agg_bigint", "args": ["v"]}]}},
        lambda: F.kll_sketch_get_n_bigint(F.kll_sketch_agg_bigint("v")),
    ),
    (
        {
            "expr": {
                "fn": "bitmap_count",
                "args": [{"fn": "bitmap_construct_agg", "args": [{"fn": "bitmap_bit_position", "args": ["v"]}]}],
            }
        },
        lambda: F.bitmap_count(F.bitmap_construct_agg(F.bitmap_bit_position("v"))),
    ),
    ({"agg": "sum", "column": "v", "cast": "string"}, lambda: F.sum("v").cast("string")),
    (
        {"agg": "avg", "column": "w", "alias": "avg_w", "cast_type": "int"},
        lambda: F.avg("w").cast("int").alias("avg_w"),
    ),
]


def _oracle(df: Any, keys: tuple[str, ...], aggs: list[Any], op: str = "groupBy") -> Any:
    grouped = getattr(df, op)(*keys)
    return grouped.agg(*[a() for a in aggs])


def test_every_kind_of_aggregate_entry_with_pyspark_names(diff: Any) -> None:
    entries = [e for e, _ in SIMPLE]
    diff.check(ROWS, SCHEMA, group(entries), lambda df: _oracle(df, ("k",), [o for _, o in SIMPLE]))


def test_expression_entries_and_casts(diff: Any) -> None:
    diff.check(ROWS, SCHEMA, group([e for e, _ in EXPRS]), lambda df: _oracle(df, ("k",), [o for _, o in EXPRS]))


def test_rollup_cube_with_grouping(diff: Any) -> None:
    aggs = [
        {"agg": "sum", "column": "v"},
        {"expr": {"fn": "grouping_id", "args": []}, "alias": "gid"},
        {"expr": {"fn": "grouping", "args": ["k"]}, "alias": "gk"},
    ]
    diff.check(
        ROWS,
        SCHEMA,
        group(aggs, ("k", "b"), "rollup"),
        lambda df: df.rollup("k", "b").agg(F.sum("v"), F.grouping_id().alias("gid"), F.grouping("k").alias("gk")),
    )
    diff.check(
        ROWS,
        SCHEMA,
        group(aggs, ("k", "b"), "cube"),
        lambda df: df.cube("k", "b").agg(F.sum("v"), F.grouping_id().alias("gid"), F.grouping("k").alias("gk")),
    )


def test_agg_step_and_global_aggregates_in_select(diff: Any) -> None:
    diff.check(
        ROWS,
        SCHEMA,
        [
            {
                "op": "agg",
                "payload": {
                    "aggs": [{"agg": "max_by", "column": "k", "args": ["v"]}, {"agg": "stddev_samp", "column": "w"}]
                },
            }
        ],
        lambda df: df.agg(F.max_by("k", "v"), F.stddev_samp("w")),
    )
    # aggregate functions in a select aggregate all rows, as PySpark's df.select(F.sum(...))
    diff.check(
        ROWS,
        SCHEMA,
        [{"op": "select", "payload": [{"fn": "sum", "args": ["v"]}, {"fn": "count_distinct", "args": ["k"]}]}],
        lambda df: df.select(F.sum("v"), F.count_distinct("k")),
    )


def test_tracked_default_names_are_the_names_spark_gives(client: Any) -> None:
    """naming.default_agg_name predicts the name of an unaliased aggregate (to rename
    join collisions and check drops statically); every prediction must match Spark's."""
    specs = [s for s in catalog_rows() if s.kind == "aggregate" and s.spark in AGG_NAMES and s.name != "array_agg"]
    entries: list[dict[str, Any]] = [{"agg": "array_agg", "column": "w"}]  # named collect_list(w)
    for s in specs:
        col = (
            "b"
            if s.spark in ("count_if", "bool_and", "bool_or", "every", "some")
            else "arr"
            if s.spark == "collect_union"
            else "v"
        )
        entries.append({"agg": s.name, "column": col})
    entries.append({"agg": "count"})
    entries.append({"agg": "listagg", "column": "s", "distinct": True})
    plan = group(entries)
    predicted = translate_ir(parse_plan(ROWS, SCHEMA, plan)).columns
    assert predicted is not None and None not in predicted
    actual = client.execute(plan, data=ROWS, schema=SCHEMA).schema.names
    assert list(predicted) == actual


@pytest.mark.parametrize(
    ("entry", "code"),
    [
        ({"agg": "upper", "column": "s"}, "unknown_aggregate"),
        ({"agg": "row_number"}, "unknown_aggregate"),
        ({"agg": "percentile_approx", "column": "w"}, "arity"),
        ({"agg": "sum"}, "missing_key"),
        ({"agg": "sum", "column": "v", "ignorenulls": True}, "not_applicable"),
        ({"agg": "first", "column": "v", "ignorenulls": "yes"}, "bool_expected"),
        ({"agg": "percentile", "column": "v", "args": ["half"]}, "literal_expected"),
    ],
)
def test_bad_entries_are_plan_errors(entry: dict[str, Any], code: str) -> None:
    from connect_plan.errors import PlanError

    with pytest.raises(PlanError) as info:
        parse_plan(ROWS, SCHEMA, group([entry]))
    assert code in info.value.codes
    assert all(loc.startswith("/plan/0/payload/aggs/0") for loc in info.value.locs)


def test_duplicate_default_names_are_plan_errors() -> None:
    """Output names are unique (Policy 3): two aggregates Spark would name alike are
    reported before any network call, with the location of the second one."""
    from connect_plan.errors import PlanError

    with pytest.raises(PlanError) as info:
        translate_ir(parse_plan(ROWS, SCHEMA, group([{"agg": "count"}, {"agg": "count", "column": "*"}])))
    assert info.value.codes == ("duplicate_column",)
    assert info.value.locs == ("/plan/0/payload/aggs/1",)
