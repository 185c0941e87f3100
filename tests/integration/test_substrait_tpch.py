"""TPC-H (sf 0.01) as Substrait plans from real producers, made at test time, run on Spark
through connect_plan; each answer must equal Spark SQL's own answer for the same SQL text on
the same data (PySpark Connect on the same server).

A query a producer cannot plan is skipped with the producer's error (not ours to run). A plan
whose meaning differs from its SQL because of a known producer bug is a strict xfail naming the
bug; so is what connect_plan does not run yet (the reason says so): either turns into a failure
the day it starts passing.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests import substrait_producers as sp
from tests.substrait_producers import assert_same_answer

pytest.importorskip("duckdb", reason="DuckDB makes the TPC-H data and query texts")

pytestmark = pytest.mark.slow

QUERIES = range(1, 23)

#: (producer, query) → a producer bug that changes the plan's meaning (shared with scripts/substrait_matrix.py)
PRODUCER_BUGS = sp.PRODUCER_BUGS

#: (producer, query) → what connect_plan does not run yet
NOT_YET: dict[tuple[str, int], str] = {}


def _cases() -> list[Any]:
    out = []
    for producer in ("datafusion", "duckdb", "isthmus", "ibis"):
        for q in QUERIES:
            key = (producer, q)
            marks = []
            if key in PRODUCER_BUGS:
                marks.append(pytest.mark.xfail(reason=f"producer bug: {PRODUCER_BUGS[key]}", strict=True))
            elif key in NOT_YET:
                marks.append(pytest.mark.xfail(reason=NOT_YET[key], strict=True))
            out.append(pytest.param(producer, q, marks=marks, id=f"{producer}-q{q:02d}"))
    return out


@pytest.fixture(scope="session")
def tpch(tmp_path_factory: pytest.TempPathFactory) -> sp.Tpch:
    return sp.make_tpch(tmp_path_factory.mktemp("tpch"))


@pytest.fixture(scope="session")
def plans(tpch: sp.Tpch) -> dict[str, dict[int, bytes | str] | None]:
    """Each producer's 22 plans (a str: the producer's error), or None when it is not installed."""
    out: dict[str, dict[int, bytes | str] | None] = {}
    try:
        out["datafusion"] = sp.datafusion_plans(tpch)
    except ImportError:
        out["datafusion"] = None
    try:
        out["duckdb"] = sp.duckdb_plans(tpch)
    except ImportError:
        out["duckdb"] = None
    jar = sp.isthmus_jar()
    out["isthmus"] = sp.isthmus_plans(tpch, jar) if jar else None
    return out


@pytest.fixture(scope="session")
def ibis_plans(tpch: sp.Tpch) -> dict[int, Any] | None:
    """ibis' own 22 TPC-H expressions (19 compile), each with ibis' SQL for it as the oracle: ibis'
    query definitions are its own (not the texts the other producers plan)."""
    return sp.ibis_plans(tpch, sp.ibis_env())


@pytest.fixture(scope="session")
def spark_answer(spark: Any, tpch: sp.Tpch) -> Any:
    for name, path in tpch.files.items():
        spark.read.parquet(path).createOrReplaceTempView(name)
    cache: dict[int, Any] = {}

    def answer(q: int) -> Any:
        if q not in cache:
            cache[q] = spark.sql(tpch.queries[q]).toArrow()
        return cache[q]

    return answer


@pytest.mark.parametrize(("producer", "q"), _cases())
def test_tpch_plan_gives_spark_sqls_answer(
    producer: str, q: int, request: pytest.FixtureRequest, tpch: sp.Tpch, client: Any, spark_answer: Any, spark: Any
) -> None:
    if producer == "ibis":
        made = request.getfixturevalue("ibis_plans")
        if made is None:
            pytest.skip("ibis' environment could not be built (needs PyPI)")
        if isinstance(made[q], str):
            pytest.skip(f"ibis cannot plan q{q:02d}: {made[q][:200]}")
        plan, sql = made[q]
        assert_same_answer(client.execute(plan, tables=tpch.tables()), spark.sql(sql).toArrow())
        return
    plans = request.getfixturevalue("plans")
    produced = plans[producer]
    if produced is None:
        pytest.skip(f"{producer} is not installed")
    plan = produced[q]
    if isinstance(plan, str) and not plan.startswith("{"):
        pytest.skip(f"{producer} cannot plan q{q:02d}: {plan[:200]}")
    ours = client.execute(plan, tables=tpch.tables())
    assert_same_answer(ours, spark_answer(q))
