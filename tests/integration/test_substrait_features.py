"""Substrait constructs TPC-H does not reach, from a real producer (DataFusion) on SQL written
here, each compared with Spark SQL's answer. Where the plan's Substrait meaning differs from
what Spark SQL makes of the same text (integer division, the default null order, timestamps
without a zone), the oracle is written in Spark's dialect with the plan's meaning: connect_plan
keeps Substrait's semantics. Known producer bugs are strict xfails naming the bug."""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.integration.test_substrait_tpch import assert_same_answer

datafusion = pytest.importorskip("datafusion")

pytestmark = pytest.mark.slow

T = pa.table(
    {
        "k": pa.array([1, 2, 2, 3, None], pa.int64()),
        "s": ["a", "b", "b", None, "e"],
        "x": pa.array([1.5, 2.5, None, 4.0, 5.0]),
        "d": pa.array([10, 20, 30, 40, 50], pa.int32()),
    }
)
U = pa.table({"k": pa.array([2, 3, 4], pa.int64()), "y": ["p", "q", "r"]})

#: name → (SQL given to DataFusion, Spark SQL with the same meaning or None for the same text)
CASES: dict[str, tuple[str, str | None]] = {
    "union_all": ("select k from t union all select k from u", None),
    "union": ("select k from t union select k from u", None),
    "intersect": ("select k from t intersect select k from u", None),
    "except": ("select k from t except select k from u", None),
    "left_join": ("select t.k, s, y from t left join u on t.k = u.k", None),
    "full_join": ("select t.k, u.k as k2, y from t full join u on t.k = u.k", None),
    "right_join": ("select t.s, u.y from t right join u on t.k = u.k", None),
    "cross_join": ("select t.k, u.y from t cross join u", None),
    "case_when": ("select k, case when k > 1 then 'big' when k = 1 then 'one' else 'none' end as c from t", None),
    "case_value": ("select k, case k when 1 then 'one' when 2 then 'two' else 'other' end as c from t", None),
    "in_list": ("select * from t where k in (1, 3)", None),
    "not_in_list": ("select * from t where k not in (1, 3)", None),
    "between": ("select * from t where d between 20 and 40", None),
    "window_rank": (
        "select k, s, rank() over (partition by s order by k) as r from t",
        "select k, s, rank() over (partition by s order by k nulls last) as r from t",
    ),
    "window_running_sum": (
        "select k, sum(d) over (order by k rows between unbounded preceding and current row) as r from t",
        "select k, sum(d) over (order by k nulls last rows between unbounded preceding and current row) as r from t",
    ),
    "window_lag": ("select k, lag(d) over (order by d) as p from t", None),
    "values": ("select * from (values (1, 'a'), (2, 'b')) as v(a, b)", None),
    "literals": (
        "select cast(1 as tinyint) a, cast(2 as smallint) b, 3.5::float c, true e, date '2020-01-02' f, "
        "timestamp '2020-01-02 03:04:05' g, cast(1.25 as decimal(10,3)) h, cast(null as int) i",
        "select cast(1 as tinyint) a, cast(2 as smallint) b, cast(3.5 as float) c, true e, date '2020-01-02' f, "
        "timestamp_ntz '2020-01-02 03:04:05' g, cast(1.25 as decimal(10,3)) h, cast(null as int) i",
    ),
    "integer_division": (
        "select k / 2 as q, k % 2 as m, -k as n from t",
        "select k div 2 as q, k % 2 as m, -k as n from t",
    ),
    "strings": ("select upper(s), lower(s), length(s), concat(s, 'x'), substr(s, 1, 1), s like 'a%' from t", None),
    "count_distinct": ("select count(distinct s), count(*), count(s) from t", None),
    "null_functions": ("select coalesce(s, 'z'), nullif(k, 2), k is null, s is not null from t", None),
    "math": ("select abs(-x), round(x), ceil(x), floor(x), sqrt(d), power(d, 2), ln(d) from t", None),
    "having": ("select s, sum(d) from t group by s having sum(d) > 20", None),
    "limit_offset": ("select k from t order by d limit 2 offset 1", None),
    "exists": ("select * from t where exists (select 1 from u where u.k = t.k)", None),
    "scalar_subquery": ("select k, (select max(k) from u) m from t", None),
    "aggregate_filter": ("select sum(d) filter (where k > 1) from t", None),
    "grouping_sets": ("select s, k, sum(d) from t group by grouping sets ((s), (k), ())", None),
    "rollup": ("select s, k, sum(d) from t group by rollup (s, k)", None),
    "extract": ("select extract(year from date '2021-03-04'), date_part('month', date '2021-03-04')", None),
    "is_distinct_from": ("select t.k is distinct from 2 from t", None),
    "try_cast": ("select try_cast(s as int) from t", None),
    # DataFusion plans IN/EXISTS under OR as mark joins: rewritten as two EXISTS subqueries
    "mark_join_in": ("select k, d from t where k in (select k from u) or d > 40", None),
    "mark_join_exists": ("select k, d from t where exists (select 1 from u where u.k = t.k) or d > 40", None),
    "mark_join_null": ("select k, d, k in (select k from u) as m from t", None),
}

PRODUCER_BUGS = {
    "case_value": "DataFusion 55 writes CASE x WHEN ... as an IfThen whose first clause holds x with no 'then'",
    "grouping_sets": "DataFusion 55 puts its grouping id between the keys and the measures; Substrait puts the "
    "set index last (apache/datafusion#17910)",
    "rollup": "DataFusion 55 puts its grouping id between the keys and the measures (apache/datafusion#17910)",
}


def _cases() -> list[Any]:
    out = []
    for name in CASES:
        marks = (
            [pytest.mark.xfail(reason=f"producer bug: {PRODUCER_BUGS[name]}", strict=True)]
            if name in PRODUCER_BUGS
            else []
        )
        out.append(pytest.param(name, marks=marks, id=name))
    return out


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory, spark: Any) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("substrait-features")
    out = {}
    for name, table in (("t", T), ("u", U)):
        path = str(root / f"{name}.parquet")
        pq.write_table(table, path)
        out[name] = {"files": [path], "format": "parquet"}
        spark.read.parquet(path).createOrReplaceTempView(name)
    return out


@pytest.fixture(scope="module")
def context(tables: dict[str, Any]) -> Any:
    ctx = datafusion.SessionContext()
    for name, src in tables.items():
        ctx.register_parquet(name, src["files"][0])
    return ctx


@pytest.mark.parametrize("name", _cases())
def test_datafusion_plan_gives_spark_sqls_answer(name: str, context: Any, tables: Any, client: Any, spark: Any) -> None:
    from datafusion.substrait import Serde

    sql, spark_sql = CASES[name]
    plan = Serde.serialize_to_plan(sql, context).encode()
    ours = client.execute(plan, tables=tables)
    assert_same_answer(ours, spark.sql(spark_sql or sql).toArrow())


def _field(i: int) -> dict[str, Any]:
    return {"selection": {"directReference": {"structField": {"field": i}}, "rootReference": {}}}


def test_grouping_sets_with_the_set_index_last(tables: Any, client: Any, spark: Any) -> None:
    """A spec-shaped plan (written here: no producer at hand writes one): GROUPING SETS ((s), ())
    outputs s, sum(d), then the index of the set that made the row."""
    i64 = {"i64": {"nullability": "NULLABILITY_NULLABLE"}}
    plan = {
        "extensionUrns": [{"extensionUrnAnchor": 1, "urn": "extension:io.substrait:functions_arithmetic"}],
        "extensions": [{"extensionFunction": {"extensionUrnReference": 1, "functionAnchor": 1, "name": "sum:i32"}}],
        "relations": [
            {
                "root": {
                    "names": ["s", "total", "set"],
                    "input": {
                        "aggregate": {
                            "input": {
                                "read": {
                                    "baseSchema": {
                                        "names": ["k", "s", "x", "d"],
                                        "struct": {
                                            "types": [i64, {"string": {}}, {"fp64": {}}, {"i32": {}}],
                                        },
                                    },
                                    "namedTable": {"names": ["t"]},
                                }
                            },
                            "groupingExpressions": [_field(1)],
                            "groupings": [{"expressionReferences": [0]}, {}],
                            "measures": [{"measure": {"functionReference": 1, "arguments": [{"value": _field(3)}]}}],
                        }
                    },
                }
            }
        ],
    }
    ours = client.execute(plan, tables=tables)
    theirs = spark.sql(
        "select s, sum(d) total, case grouping_id() when 0 then 0 when 1 then 1 end as set from t group by grouping sets ((s), ())"
    ).toArrow()
    assert_same_answer(ours, theirs)


def test_duckdb_local_files_read(tables: Any, client: Any, spark: Any) -> None:
    """DuckDB writes a view over read_parquet as ReadRel.local_files (an absolute file URI, its
    filter only in the read): run without any tables= mapping."""
    duckdb = pytest.importorskip("duckdb")
    import os

    ext_pkg = pytest.importorskip("duckdb_extension_substrait")
    ext = os.path.join(
        os.path.dirname(ext_pkg.__file__), "extensions", f"v{duckdb.__version__}", "substrait.duckdb_extension"
    )
    con = duckdb.connect()
    con.load_extension(ext)
    con.sql(f"CREATE VIEW t AS SELECT * FROM read_parquet('{tables['t']['files'][0]}')")
    plan = con.get_substrait("SELECT k, s FROM t WHERE d > 15", enable_optimizer=True).fetchone()[0]
    ours = client.execute(plan)
    assert_same_answer(ours, spark.sql("SELECT k, s FROM t WHERE d > 15").toArrow())
