"""Generators in select and withColumn (explode, posexplode, inline, stack, json_tuple and
their _outer forms) against PySpark on the same server, names included."""

from __future__ import annotations

from typing import Any

from pyspark.sql import functions as F

SCHEMA = [
    ("id", "bigint"),
    ("arr", "array<bigint>"),
    ("m", "map<string,bigint>"),
    ("st", "array<struct<a:bigint,b:string>>"),
    ("j", "string"),
]
ROWS = [
    [1, [10, 20], {"x": 1}, [{"a": 1, "b": "u"}, {"a": 2, "b": "v"}], '{"a": 1, "b": "two"}'],
    [2, [], {}, [], '{"a": 3}'],
    [3, None, None, None, None],
]


def sel(*items: Any) -> list[dict[str, Any]]:
    return [{"op": "select", "payload": list(items)}]


def test_explode_unaliased_and_aliased(diff: Any) -> None:
    diff.check(
        ROWS, SCHEMA, sel("id", {"fn": "explode", "args": ["arr"]}), lambda df: df.select("id", F.explode("arr"))
    )
    diff.check(
        ROWS,
        SCHEMA,
        sel("id", {"name": "v", "expr": {"fn": "explode_outer", "args": ["arr"]}}),
        lambda df: df.select("id", F.explode_outer("arr").alias("v")),
    )
    diff.check(
        ROWS,
        SCHEMA,
        sel("id", {"op": "explodeOuter", "args": ["arr"]}),
        lambda df: df.select("id", F.explode_outer("arr")),
    )


def test_explode_map_gives_key_and_value(diff: Any) -> None:
    diff.check(ROWS, SCHEMA, sel("id", {"fn": "explode", "args": ["m"]}), lambda df: df.select("id", F.explode("m")))
    diff.check(
        ROWS,
        SCHEMA,
        sel("id", {"name": ["k", "v"], "expr": {"fn": "explode_outer", "args": ["m"]}}),
        lambda df: df.select("id", F.explode_outer("m").alias("k", "v")),
    )


def test_posexplode_two_columns(diff: Any) -> None:
    diff.check(
        ROWS, SCHEMA, sel("id", {"fn": "posexplode", "args": ["arr"]}), lambda df: df.select("id", F.posexplode("arr"))
    )
    diff.check(
        ROWS,
        SCHEMA,
        sel("id", {"name": ["p", "v"], "expr": {"fn": "posexplode_outer", "args": ["arr"]}}),
        lambda df: df.select("id", F.posexplode_outer("arr").alias("p", "v")),
    )


def test_inline_struct_fields_become_columns(diff: Any) -> None:
    diff.check(ROWS, SCHEMA, sel("id", {"fn": "inline", "args": ["st"]}), lambda df: df.select("id", F.inline("st")))
    diff.check(
        ROWS,
        SCHEMA,
        sel("id", {"fn": "inline_outer", "args": ["st"]}),
        lambda df: df.select("id", F.inline_outer("st")),
    )


def test_stack_and_json_tuple_names_are_tracked(diff: Any) -> None:
    # unaliased stack/json_tuple columns are named statically (col0.., c0..), so a later
    # drop of one of them is checked before the plan is sent
    plan = [
        *sel(
            "id",
            {"fn": "stack", "args": [2, "id", {"lit": "one"}, {"op": "*", "left": "id", "right": 10}, {"lit": "two"}]},
        ),
        {"op": "drop", "payload": {"columns": ["col0"]}},
    ]
    diff.check(
        ROWS,
        SCHEMA,
        plan,
        lambda df: df.select("id", F.stack(F.lit(2), "id", F.lit("one"), F.col("id") * 10, F.lit("two"))).drop("col0"),
    )
    plan = [
        *sel("id", {"fn": "json_tuple", "args": ["j", "a", "b"]}),
        {"op": "withColumnRenamed", "payload": {"old": "c1", "new": "b"}},
    ]
    diff.check(ROWS, SCHEMA, plan, lambda df: df.select("id", F.json_tuple("j", "a", "b")).withColumnRenamed("c1", "b"))


def test_generators_in_with_column_multiply_rows(diff: Any) -> None:
    plan = [
        {"op": "withColumn", "payload": {"name": "x", "expr": {"fn": "explode", "args": ["arr"]}}},
        {"op": "withColumn", "payload": {"name": "y", "expr": {"op": "*", "left": "x", "right": 2}}},
        {"op": "groupBy", "payload": {"group_by": ["id"], "aggs": [{"agg": "sum", "column": "y"}]}},
    ]
    diff.check(
        ROWS,
        SCHEMA,
        plan,
        lambda df: df.withColumn("x", F.explode("arr")).withColumn("y", F.col("x") * 2).groupBy("id").agg(F.sum("y")),
    )
    plan = [{"op": "withColumn", "payload": {"name": "arr", "expr": {"fn": "explode_outer", "args": ["arr"]}}}]
    diff.check(ROWS, SCHEMA, plan, lambda df: df.withColumn("arr", F.explode_outer("arr")))


def test_drop_of_a_missing_stack_column_is_a_plan_error() -> None:
    import pytest

    from connect_plan import validate
    from connect_plan.errors import PlanError

    plan = [*sel({"fn": "stack", "args": [1, "id", "j"]}), {"op": "drop", "payload": {"columns": ["col2"]}}]
    with pytest.raises(PlanError) as info:
        validate(ROWS, SCHEMA, plan)
    assert info.value.codes == ("unknown_column",)


# multi-column generators under one name: PySpark's withColumn (and a one-name alias) fails
# on the server with UDTF_ALIAS_NUMBER_MISMATCH; connect_plan refuses them before sending
MULTI_COLUMN = [
    ("posexplode", ["arr"], lambda: F.posexplode("arr")),
    ("posexplode_outer", ["arr"], lambda: F.posexplode_outer("arr")),
    ("inline", ["st"], lambda: F.inline("st")),
    ("inline_outer", ["st"], lambda: F.inline_outer("st")),
    (
        "stack",
        [2, "id", {"lit": "one"}, {"op": "*", "left": "id", "right": 10}, {"lit": "two"}],
        lambda: F.stack(F.lit(2), "id", F.lit("one"), F.col("id") * 10, F.lit("two")),
    ),
    ("json_tuple", ["j", "a", "b"], lambda: F.json_tuple("j", "a", "b")),
    ("explode", ["m"], lambda: F.explode("m")),
]


def test_multi_column_generators_in_with_column_are_plan_errors_as_pyspark_fails(client: Any, diff: Any) -> None:
    import pytest

    from connect_plan.errors import PlanError

    for fn, args, oracle in MULTI_COLUMN:
        with pytest.raises(Exception) as theirs:
            diff.df(ROWS, SCHEMA).withColumn("g", oracle()).toArrow()
        assert "UDTF_ALIAS_NUMBER_MISMATCH" in str(theirs.value), fn
        for plan in (
            [{"op": "withColumn", "payload": {"name": "g", "expr": {"fn": fn, "args": args}}}],
            sel("id", {"name": "g", "expr": {"fn": fn, "args": args}}),
        ):
            with pytest.raises(PlanError) as ours:
                client.execute(plan, data=ROWS, schema=SCHEMA)
            assert [(d.code, d.loc) for d in ours.value.details] == [
                ("generator_columns", "/plan/0/payload/" + ("expr" if plan[0]["op"] == "withColumn" else "1/expr"))
            ], fn
            assert "select" in str(ours.value)


def test_one_column_generators_still_work_in_with_column(diff: Any) -> None:
    """The same generators with one output column are fine in withColumn, as in PySpark."""
    cases = [
        (
            {"fn": "stack", "args": [2, "id", {"op": "*", "left": "id", "right": 10}]},
            lambda: F.stack(F.lit(2), "id", F.col("id") * 10),
        ),
        ({"fn": "json_tuple", "args": ["j", "b"]}, lambda: F.json_tuple("j", "b")),
        (
            {"fn": "inline", "args": [{"fn": "array", "args": [{"fn": "struct", "args": ["id"]}]}]},
            lambda: F.inline(F.array(F.struct("id"))),
        ),
        ({"fn": "explode_outer", "args": ["arr"]}, lambda: F.explode_outer("arr")),
    ]
    for expr, oracle in cases:
        diff.check(
            ROWS,
            SCHEMA,
            [{"op": "withColumn", "payload": {"name": "g", "expr": expr}}],
            lambda df, oracle=oracle: df.withColumn("g", oracle()),
        )
