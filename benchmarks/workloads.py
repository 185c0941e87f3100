"""The queries and inputs of the benchmark scenarios, each built twice: as a connect_plan
JSON plan and as the same query through PySpark's DataFrame API, so that both clients ask
the server for the same work.
"""

from __future__ import annotations

import datetime as dt
import json
import random
from typing import Any

INPUT_SCHEMA: list[dict[str, str]] = [
    {"name": "id", "type": "bigint"},
    {"name": "x", "type": "double"},
    {"name": "s", "type": "string"},
    {"name": "b", "type": "boolean"},
    {"name": "d", "type": "date"},
]
PYSPARK_INPUT_SCHEMA = "id bigint, x double, s string, b boolean, d date"
ROBIN_INPUT_SCHEMA = [(f["name"], f["type"]) for f in INPUT_SCHEMA]

_OUTER_SCHEMA = [{"name": "a", "type": "bigint"}]
_INNER_SCHEMA = [{"name": "i", "type": "bigint"}, {"name": "d", "type": "date"}]


def _split(n: int) -> tuple[int, int]:
    """n = outer × inner with inner ≤ 10,000 (n must be a multiple of inner)."""
    inner = min(n, 10_000)
    if n % inner:
        raise ValueError(f"generated sizes must be multiples of {inner}, got {n}")
    return n // inner, inner


def _generator_inputs(n: int) -> tuple[list[list[Any]], list[list[Any]], int]:
    outer, inner = _split(n)
    start = dt.date(2020, 1, 1)
    inner_rows = [[i, (start + dt.timedelta(days=i % 365)).isoformat()] for i in range(inner)]
    return [[a] for a in range(outer)], inner_rows, inner


def generated_plan(n: int) -> tuple[list[list[Any]], list[dict[str, str]], list[dict[str, Any]]]:
    """``n`` rows × 5 columns (bigint, double, string, boolean, date) made on the server by
    a cross join of two small inline tables; returns (rows, schema, plan)."""
    outer_rows, inner_rows, inner = _generator_inputs(n)
    idc = {"col": "id"}
    plan: list[dict[str, Any]] = [
        {"op": "crossJoin", "payload": {"other_data": inner_rows, "other_schema": _INNER_SCHEMA}},
        {
            "op": "withColumn",
            "payload": {
                "name": "id",
                "expr": {"fn": "+", "args": [{"fn": "*", "args": [{"col": "a"}, {"lit": inner}]}, {"col": "i"}]},
            },
        },
        {
            "op": "select",
            "payload": [
                {"name": "id", "expr": idc},
                {"name": "x", "expr": {"fn": "*", "args": [{"fn": "cast", "args": [idc, "double"]}, {"lit": 0.5}]}},
                {
                    "name": "s",
                    "expr": {
                        "fn": "concat",
                        "args": [
                            {"lit": "name-"},
                            {"fn": "cast", "args": [{"fn": "pmod", "args": [idc, {"lit": 1000}]}, "string"]},
                        ],
                    },
                },
                {"name": "b", "expr": {"fn": "==", "args": [{"fn": "pmod", "args": [idc, {"lit": 2}]}, {"lit": 0}]}},
                {"name": "d", "expr": {"col": "d"}},
            ],
        },
    ]
    return outer_rows, _OUTER_SCHEMA, plan


def generated_df(spark: Any, n: int) -> Any:
    """The query of :func:`generated_plan` through PySpark's DataFrame API."""
    from pyspark.sql import functions as F

    outer_rows, inner_rows, inner = _generator_inputs(n)
    outer = spark.createDataFrame([tuple(r) for r in outer_rows], "a bigint")
    inner_df = spark.createDataFrame([(i, dt.date.fromisoformat(d)) for i, d in inner_rows], "i bigint, d date")
    idc = F.col("id")
    return (
        outer.crossJoin(inner_df)
        .withColumn("id", F.col("a") * F.lit(inner) + F.col("i"))
        .select(
            idc.alias("id"),
            (idc.cast("double") * F.lit(0.5)).alias("x"),
            F.concat(F.lit("name-"), F.pmod(idc, F.lit(1000)).cast("string")).alias("s"),
            (F.pmod(idc, F.lit(2)) == F.lit(0)).alias("b"),
            F.col("d").alias("d"),
        )
    )


def analytical_plan(n: int) -> tuple[list[list[Any]], list[dict[str, str]], list[dict[str, Any]]]:
    """groupBy + join over ``n`` generated rows: per key (id mod 1000) count, sum and average,
    joined to a 1,000-row dimension table, ordered by key."""
    rows, schema, plan = generated_plan(n)
    dims = [[k, f"group-{k % 7}"] for k in range(1000)]
    plan = [
        *plan,
        {"op": "withColumn", "payload": {"name": "k", "expr": {"fn": "pmod", "args": [{"col": "id"}, {"lit": 1000}]}}},
        {
            "op": "groupBy",
            "payload": {
                "group_by": ["k"],
                "aggs": [
                    {"agg": "count", "alias": "n"},
                    {"agg": "sum", "column": "x", "alias": "sx"},
                    {"agg": "avg", "column": "id", "alias": "mean_id"},
                ],
            },
        },
        {
            "op": "join",
            "payload": {
                "other_data": dims,
                "other_schema": [{"name": "k", "type": "bigint"}, {"name": "label", "type": "string"}],
                "on": ["k"],
                "how": "inner",
            },
        },
        {"op": "orderBy", "payload": {"columns": ["k"]}},
    ]
    return rows, schema, plan


def analytical_df(spark: Any, n: int) -> Any:
    from pyspark.sql import functions as F

    dims = spark.createDataFrame([(k, f"group-{k % 7}") for k in range(1000)], "k bigint, label string")
    return (
        generated_df(spark, n)
        .withColumn("k", F.pmod(F.col("id"), F.lit(1000)))
        .groupBy("k")
        .agg(F.count(F.lit(1)).alias("n"), F.sum("x").alias("sx"), F.avg("id").alias("mean_id"))
        .join(dims, ["k"], "inner")
        .orderBy("k")
    )


# ------------------------------------------------------------------ small query

SMALL_ROWS: list[list[Any]] = [
    [1, 3.5, "alpha", True, "2024-01-01"],
    [2, 1.25, "beta", False, "2024-02-01"],
    [3, 7.0, "gamma", True, "2024-03-01"],
]
SMALL_PLAN: list[dict[str, Any]] = [
    {"op": "filter", "payload": {"op": "gt", "left": {"col": "x"}, "right": {"lit": 1.0}}},
    {
        "op": "select",
        "payload": [
            {"name": "id", "expr": {"col": "id"}},
            {"name": "s", "expr": {"col": "s"}},
            {"name": "x", "expr": {"col": "x"}},
        ],
    },
    {"op": "orderBy", "payload": {"columns": ["x"], "ascending": [False]}},  # the spelling robin 0.11 reads too
    {"op": "limit", "payload": {"n": 2}},
]


def small_df(spark: Any) -> Any:
    from pyspark.sql import functions as F

    df = spark.createDataFrame(
        [(r[0], r[1], r[2], r[3], dt.date.fromisoformat(r[4])) for r in SMALL_ROWS], PYSPARK_INPUT_SCHEMA
    )
    return df.filter(F.col("x") > 1.0).select("id", "s", "x").orderBy(F.col("x").desc()).limit(2)


# ------------------------------------------------------------------ uploads


def input_rows(n: int, seed: int = 1) -> list[list[Any]]:
    """``n`` rows × 5 columns as ``json.loads`` returns them (dates are ISO strings: JSON
    has no date type)."""
    rnd = random.Random(seed)
    rows = [
        [i, rnd.random(), f"name-{i % 1000}", i % 2 == 0, f"2020-{1 + i % 12:02d}-{1 + i % 28:02d}"] for i in range(n)
    ]
    return json.loads(json.dumps(rows))


def pyspark_rows(rows: list[list[Any]]) -> list[tuple[Any, ...]]:
    """The same rows as PySpark's createDataFrame takes them (dates as ``datetime.date``)."""
    return [(r[0], r[1], r[2], r[3], dt.date.fromisoformat(r[4])) for r in rows]


COUNT_PLAN: list[dict[str, Any]] = [{"op": "agg", "payload": {"aggs": [{"agg": "count", "alias": "n"}]}}]


# ------------------------------------------------------------------ translation


def translation_plan(n_ops: int) -> list[dict[str, Any]]:
    """A plan of ``n_ops`` steps in cycles of ten: five filters, four withColumns and a
    select (connect_plan merges each run into one relation, which keeps a 1,000-step plan
    under the servers' nesting limit; PySpark's DataFrame API nests one relation per call)."""
    steps: list[dict[str, Any]] = []
    for i in range(n_ops):
        kind = i % 10
        if kind < 5:
            steps.append({"op": "filter", "payload": {"op": "gt", "left": {"col": "x"}, "right": {"lit": -float(i)}}})
        elif kind < 9:
            steps.append(
                {
                    "op": "withColumn",
                    "payload": {"name": f"w{kind - 5}", "expr": {"fn": "+", "args": [{"col": "x"}, {"lit": i}]}},
                }
            )
        else:
            steps.append({"op": "select", "payload": ["id", "x", "s", "b", "d"]})
    return steps


def translation_df(base: Any, n_ops: int) -> Any:
    """The same steps through PySpark's DataFrame API, from an already built input frame."""
    from pyspark.sql import functions as F

    df = base
    for i in range(n_ops):
        kind = i % 10
        if kind < 5:
            df = df.filter(F.col("x") > F.lit(-float(i)))
        elif kind < 9:
            df = df.withColumn(f"w{kind - 5}", F.col("x") + F.lit(i))
        else:
            df = df.select("id", "x", "s", "b", "d")
    return df
