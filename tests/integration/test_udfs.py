"""Python UDFs: registered with the client, sent inline (CommonInlineUserDefinedFunction)
and run by the server's Python workers; compared with the same functions used through
PySpark's own ``udf`` / ``pandas_udf``. Names not registered with the client are called
on the server (functions registered there by other means)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pandas as pd
import pytest
from pyspark.sql import functions as F

import connect_plan
from connect_plan.errors import PlanError, ServerError

SCHEMA = [("id", "bigint"), ("k", "string"), ("x", "double")]
ROWS = [[1, "a", 1.5], [2, "a", 2.5], [3, "b", None], [4, "b", 4.0], [5, None, 0.5]]


# The client registers these module-level functions: connect_plan pickles functions of the
# caller's own modules by value, so the server's Python needs no copy of this test module.
# (Plain functions without type hints: PySpark would read hints as a pandas signature.)
def plus_one(v):  # type: ignore[no-untyped-def]
    return None if v is None else v + 1


def shout(s):  # type: ignore[no-untyped-def]
    return None if s is None else s.upper() + "!"


def double_series(v: pd.Series) -> pd.Series:
    return v * 2


def mean_series(v: pd.Series) -> float:
    return float(v.mean())


def oracle_udfs() -> dict[str, Any]:
    """The same functions for PySpark's own udf(), which pickles module functions by
    reference: defined locally so they travel by value."""

    def plus_one(v):  # type: ignore[no-untyped-def]
        return None if v is None else v + 1

    def shout(s):  # type: ignore[no-untyped-def]
        return None if s is None else s.upper() + "!"

    def double_series(v: pd.Series) -> pd.Series:
        return v * 2

    def mean_series(v: pd.Series) -> float:
        return float(v.mean())

    return {
        "plus_one": F.udf(plus_one, "bigint"),
        "shout": F.udf(shout, "string"),
        "double": F.pandas_udf(double_series, "double"),
        "arrow": F.udf(plus_one, "bigint", useArrow=True),
        "mean": F.pandas_udf(mean_series, "double"),
    }


@pytest.fixture(scope="module")
def udf_client(spark_url: str) -> Iterator[Any]:
    with connect_plan.connect(spark_url, conf={"spark.sql.session.timeZone": "UTC"}) as c:
        c.register_udf("plus_one", plus_one, "bigint")
        c.register_udf("double_it", double_series, "double", kind="pandas")
        c.register_udf("mean_x", mean_series, "double", kind="grouped_agg")

        @c.udf("string")
        def shout_it(s):  # type: ignore[no-untyped-def]
            return shout(s)

        c.register_udf("plus_one_arrow", plus_one, "bigint", kind="arrow")
        try:  # the server's Python workers must be able to run UDFs at all
            c.execute([{"op": "select", "payload": [{"udf": "double_it", "args": ["x"]}]}], data=ROWS, schema=SCHEMA)
        except ServerError as exc:
            pytest.fail(
                "the Spark Connect server's Python workers cannot run pandas UDFs (they need pyspark, pandas and "
                "pyarrow; start the server with PYSPARK_PYTHON pointing at such an interpreter, as "
                f"`connect-plan server start` does): {str(exc).splitlines()[-1][:300]}"
            )
        yield c


def run(client: Any, plan: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return client.execute(plan, data=ROWS, schema=SCHEMA).to_pylist()


def oracle(diff: Any, build: Any) -> list[dict[str, Any]]:
    return build(diff.df(ROWS, SCHEMA)).toArrow().to_pylist()


def test_udf_call_spellings_in_select(udf_client: Any, diff: Any) -> None:
    plan = [
        {
            "op": "select",
            "payload": [
                "id",
                {"name": "a", "expr": {"udf": "plus_one", "args": ["id"]}},
                {"name": "b", "expr": {"op": "udf", "udf": "plus_one", "args": [{"col": "id"}]}},
                {"name": "c", "expr": {"op": "udf", "name": "shout_it", "args": ["k"]}},
                {
                    "name": "d",
                    "expr": {"fn": "call_udf", "args": [{"lit": "plus_one"}, {"op": "*", "left": "id", "right": 10}]},
                },
                {"name": "e", "expr": {"udf": "double_it", "args": ["x"]}},
                {"name": "f", "expr": {"udf": "plus_one_arrow", "args": ["id"]}},
            ],
        }
    ]
    u = oracle_udfs()
    p1, p2, p3, p4 = u["plus_one"], u["shout"], u["double"], u["arrow"]
    expected = oracle(
        diff,
        lambda df: df.select(
            "id",
            p1("id").alias("a"),
            p1("id").alias("b"),
            p2("k").alias("c"),
            p1(F.col("id") * 10).alias("d"),
            p3("x").alias("e"),
            p4("id").alias("f"),
        ),
    )
    assert run(udf_client, plan) == expected


def test_udf_in_filter_and_with_column(udf_client: Any, diff: Any) -> None:
    plan = [
        {"op": "filter", "payload": {"op": "gt", "left": {"udf": "plus_one", "args": ["id"]}, "right": 3}},
        {"op": "withColumn", "payload": {"name": "s", "expr": {"fn": "call_udf", "args": ["shout_it", "k"]}}},
    ]
    u = oracle_udfs()
    p1, p2 = u["plus_one"], u["shout"]
    assert run(udf_client, plan) == oracle(diff, lambda df: df.filter(p1("id") > 3).withColumn("s", p2("k")))


def test_python_grouped_udf_aggregation(udf_client: Any, diff: Any) -> None:
    plan = [
        {
            "op": "groupBy",
            "payload": {
                "group_by": ["k"],
                "aggs": [
                    {
                        "agg": "python_grouped_udf",
                        "udf": "mean_x",
                        "args": ["x"],
                        "alias": "m",
                        "return_type": "double",
                    },
                    {
                        "agg": "python_grouped_udf",
                        "udf": "mean_x",
                        "args": [{"op": "*", "left": "id", "right": 1.0}],
                        "alias": "mid",
                    },
                ],
            },
        },
        {"op": "orderBy", "payload": {"columns": ["k"]}},
    ]
    m = oracle_udfs()["mean"]
    expected = oracle(
        diff, lambda df: df.groupBy("k").agg(m("x").alias("m"), m(F.col("id") * 1.0).alias("mid")).orderBy("k")
    )
    assert run(udf_client, plan) == expected


def test_unregistered_names_call_server_functions(udf_client: Any, spark_url: str) -> None:
    """A name the client does not know goes to the server: built-in functions, and UDFs
    registered in the same Spark session by other means (here through PySpark)."""
    from pyspark.sql import SparkSession

    other = SparkSession.builder.remote(f"{spark_url.rstrip('/')}/;session_id={udf_client.session_id}").create()
    try:
        other.udf.register("times3", lambda v: None if v is None else v * 3, "bigint")
        plan = [
            {
                "op": "select",
                "payload": [
                    {"name": "u", "expr": {"udf": "upper", "args": ["k"]}},
                    {"name": "t", "expr": {"udf": "times3", "args": ["id"]}},
                ],
            }
        ]
        got = run(udf_client, plan)
    finally:
        other.client.close()  # leave the shared session to the client that owns it
    assert got == [{"u": None if r[1] is None else r[1].upper(), "t": r[0] * 3} for r in ROWS]


def test_unknown_udf_is_a_server_error(udf_client: Any) -> None:
    with pytest.raises(ServerError) as info:
        run(udf_client, [{"op": "select", "payload": [{"udf": "no_such_udf_xyz", "args": ["id"]}]}])
    assert "no_such_udf_xyz" in str(info.value).lower()


def test_udf_kind_and_return_type_are_checked_before_sending(udf_client: Any) -> None:
    with pytest.raises(PlanError) as info:
        udf_client.translate(
            [
                {
                    "op": "groupBy",
                    "payload": {
                        "group_by": ["k"],
                        "aggs": [{"agg": "python_grouped_udf", "udf": "plus_one", "args": ["id"]}],
                    },
                }
            ],
            data=ROWS,
            schema=SCHEMA,
        )
    assert info.value.codes == ("udf_kind",)
    with pytest.raises(PlanError) as info:
        udf_client.translate(
            [
                {
                    "op": "groupBy",
                    "payload": {
                        "group_by": ["k"],
                        "aggs": [
                            {"agg": "python_grouped_udf", "udf": "mean_x", "args": ["x"], "return_type": "bigint"}
                        ],
                    },
                }
            ],
            data=ROWS,
            schema=SCHEMA,
        )
    assert info.value.codes == ("udf_return_type",)
    assert info.value.locs == ("/plan/0/payload/aggs/0",)


def test_registry_api(udf_client: Any) -> None:
    assert {"plus_one", "shout_it", "double_it", "mean_x"} <= set(udf_client.udfs)
    with pytest.raises(connect_plan.ConnectPlanError):
        udf_client.register_udf("bad", plus_one, "no_such_type")
    with pytest.raises(connect_plan.ConnectPlanError):
        udf_client.register_udf("bad", plus_one, "int", kind="table")
    udf_client.register_udf("tmp", plus_one, "int")
    assert udf_client.unregister_udf("tmp") and not udf_client.unregister_udf("tmp")
