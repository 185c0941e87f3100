"""Inline input data against the real server: tables over the server's cache threshold
go as cached artifacts (and are not uploaded twice), JSON rows converted column-wise give
what PySpark's createDataFrame gives, Arrow/pandas inputs run as they are, and servers
without artifact support get inline data or a clear error.

Where a test needs a server unlike this one (no artifact support, no chunked relations,
a small message limit), it sets the settings the client would have read from such a
server (``client.internals.session.inputs._settings``); a low cache threshold is set on the server itself,
for the test's own session (``set_conf`` or a plan document's ``conf``); everything else is
the real server.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import random
from collections.abc import Iterator
from typing import Any

import pyarrow as pa
import pytest

import connect_plan
from connect_plan.formats import load_plan

THRESHOLD_KEY = "spark.sql.session.localRelationCacheThreshold"
SCHEMA = [
    {"name": "id", "type": "bigint"},
    {"name": "x", "type": "double"},
    {"name": "s", "type": "string"},
    {"name": "b", "type": "boolean"},
    {"name": "d", "type": "date"},
]
SORTED = [{"op": "orderBy", "payload": {"columns": ["id"]}}]
SUMMARY = [
    {
        "op": "groupBy",
        "payload": {
            "group_by": ["b"],
            "aggs": [
                {"agg": "count", "alias": "n"},
                {"agg": "sum", "column": "id", "alias": "ids"},
                {"agg": "max", "column": "s", "alias": "top"},
            ],
        },
    },
    {"op": "orderBy", "payload": {"columns": ["b"]}},
]


def json_rows(n: int, seed: int) -> list[list[Any]]:
    rnd = random.Random(seed)
    rows = [
        [
            i,
            rnd.choice([rnd.random(), 2, None]),
            rnd.choice([f"name-{i % 977}", None]),
            rnd.choice([True, False, None]),
            rnd.choice([f"2021-{1 + i % 12:02d}-{1 + i % 28:02d}", None]),
        ]
        for i in range(n)
    ]
    return json.loads(json.dumps(rows))


def pyspark_df(spark: Any, rows: list[list[Any]]) -> Any:
    from pyspark.sql.types import BooleanType, DateType, DoubleType, LongType, StringType, StructField, StructType

    struct = StructType(
        [
            StructField("id", LongType()),
            StructField("x", DoubleType()),
            StructField("s", StringType()),
            StructField("b", BooleanType()),
            StructField("d", DateType()),
        ]
    )
    data = [
        (r[0], None if r[1] is None else float(r[1]), r[2], r[3], None if r[4] is None else dt.date.fromisoformat(r[4]))
        for r in rows
    ]
    return spark.createDataFrame(data, struct)


def needs_artifact_cache(client: Any) -> None:
    """Fail at once, before building inputs the size of the threshold, when the server
    cannot cache artifacts (Sail: ArtifactStatus fails, and it reports a 2 GiB threshold)."""
    try:
        client.internals.transport.cache_artifacts([b"connect_plan artifact probe"])
    except Exception as exc:  # the server's refusal, whatever PySpark raised it as
        pytest.fail(f"the server has no artifact cache: {str(exc).splitlines()[0][:200]}")


def threshold(client: Any) -> int:
    return int(client.get_conf(THRESHOLD_KEY)[THRESHOLD_KEY])


def rows_over(client: Any, factor: float, seed: int) -> list[list[Any]]:
    """JSON rows whose Arrow table is ``factor`` × the server's cache threshold."""
    probe = load_plan([], json_rows(1000, seed), SCHEMA).source.table.nbytes / 1000
    return json_rows(int(threshold(client) * factor / probe) + 1, seed)


def source_relation(client: Any, rows: Any, schema: Any = SCHEMA) -> Any:
    """The relation carrying the input in the plan the client would send."""
    plan = client.internals.executor.prepare(load_plan([{"op": "limit", "payload": {"n": 1}}], rows, schema)).plan
    return plan.root.limit.input


@pytest.fixture
def fresh_client(spark_url: str) -> Iterator[Any]:
    with connect_plan.connect(spark_url) as c:
        yield c


def test_an_input_over_the_cache_threshold_is_a_chunked_cached_relation(client: Any, spark: Any) -> None:
    needs_artifact_cache(client)
    rows = rows_over(client, 2.5, seed=1)
    rel = source_relation(client, rows)
    assert rel.WhichOneof("rel_type") == "chunked_cached_local_relation"
    assert len(rel.chunked_cached_local_relation.dataHashes) >= 2
    ours = client.execute(SUMMARY, rows, SCHEMA)
    theirs = pyspark_df(spark, rows).groupBy("b").agg({"*": "count", "id": "sum", "s": "max"}).orderBy("b").toArrow()
    assert ours.to_pylist() == [dict(zip(("b", "n", "ids", "top"), r.values())) for r in theirs.to_pylist()]
    assert sum(r["n"] for r in ours.to_pylist()) == len(rows)


def test_an_input_under_the_threshold_stays_inline(client: Any) -> None:
    needs_artifact_cache(client)
    rows = rows_over(client, 0.5, seed=2)
    assert source_relation(client, rows).WhichOneof("rel_type") == "local_relation"


def test_json_rows_converted_column_wise_match_pyspark(client: Any, spark: Any) -> None:
    """List rows and dict rows, over the threshold (so through the cache), row for row."""
    needs_artifact_cache(client)
    rows = rows_over(client, 1.5, seed=3)
    names = [f["name"] for f in SCHEMA]
    theirs = pyspark_df(spark, rows).orderBy("id").toArrow()
    for data in (rows, [dict(zip(names, r)) for r in rows]):
        ours = client.execute(SORTED, data, SCHEMA)
        assert ours.schema == theirs.schema
        assert ours.equals(theirs)


def test_the_same_data_is_not_uploaded_twice(fresh_client: Any) -> None:
    needs_artifact_cache(fresh_client)
    calls: list[int] = []
    real = fresh_client.internals.transport.cache_artifacts

    def counting(blobs: list[bytes]) -> list[str]:  # the real upload, counted
        calls.append(len(blobs))
        return real(blobs)

    fresh_client.internals.transport.cache_artifacts = counting
    rows = rows_over(fresh_client, 1.5, seed=4)
    table = load_plan([], rows, SCHEMA).source.table
    n = [{"op": "agg", "payload": {"aggs": [{"agg": "count", "alias": "n"}]}}]
    assert fresh_client.execute(n, table).to_pylist() == [{"n": len(rows)}]
    assert len(calls) == 1
    fresh_client.execute(n, table)  # same table object: hashes reused, nothing sent
    fresh_client.execute(n, rows, SCHEMA)  # equal data, new table: hashed, still nothing sent
    assert len(calls) == 1
    fresh_client.execute(n, rows_over(fresh_client, 1.5, seed=5), SCHEMA)
    assert len(calls) == 2


def test_servers_without_chunked_relations_get_one_cached_relation(fresh_client: Any) -> None:
    needs_artifact_cache(fresh_client)
    settings = fresh_client.internals.session.inputs.settings()
    fresh_client.internals.session.inputs._settings = dataclasses.replace(
        settings, chunked=False
    )  # a Spark 3.5/4.0 server
    rows = rows_over(fresh_client, 1.5, seed=6)
    rel = source_relation(fresh_client, rows)
    assert rel.WhichOneof("rel_type") == "cached_local_relation" and rel.cached_local_relation.hash
    assert fresh_client.execute(SORTED, rows, SCHEMA).column("id").to_pylist() == list(range(len(rows)))


def test_servers_without_artifacts_get_inline_data_or_a_clear_error(fresh_client: Any) -> None:
    limit = 1 << 20
    settings = fresh_client.internals.session.inputs.settings()
    fresh_client.internals.session.inputs._settings = dataclasses.replace(
        settings, threshold=None, max_message=limit
    )  # e.g. no AddArtifacts
    fits = json_rows(10_000, seed=7)
    assert load_plan([], fits, SCHEMA).source.table.nbytes < limit // 2
    assert source_relation(fresh_client, fits).WhichOneof("rel_type") == "local_relation"
    assert fresh_client.execute(SORTED, fits, SCHEMA).num_rows == 10_000
    too_big = json_rows(60_000, seed=8)
    with pytest.raises(connect_plan.InputTooLargeError) as err:
        fresh_client.execute(SORTED, too_big, SCHEMA)
    assert err.value.limit == limit and err.value.size > limit
    assert f"{err.value.size:,} bytes" in str(err.value) and f"{limit:,} bytes" in str(err.value)


def test_arrow_and_pandas_inputs_run_as_they_are(client: Any) -> None:
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame(
        {
            "k": pd.Categorical(["a", "b", "a"]),
            "u": pd.array([1, 2, 3], dtype="uint16"),
            "t": pd.to_datetime(
                ["2020-01-01 00:00:00", "2020-01-01 00:00:00.25", "2021-06-30 12:00:00"], format="ISO8601"
            ),
        }
    )
    plan = [
        {
            "op": "groupBy",
            "payload": {
                "group_by": ["k"],
                "aggs": [{"agg": "sum", "column": "u", "alias": "su"}, {"agg": "max", "column": "t", "alias": "mt"}],
            },
        },
        {"op": "orderBy", "payload": {"columns": ["k"]}},
    ]
    assert client.execute(plan, df).to_pylist() == [
        {"k": "a", "su": 4, "mt": dt.datetime(2021, 6, 30, 12, 0)},
        {"k": "b", "su": 2, "mt": dt.datetime(2020, 1, 1, 0, 0, 0, 250000)},
    ]
    batch = pa.record_batch({"a": pa.array([3, 1, 2], pa.int8())})
    assert client.execute([{"op": "orderBy", "payload": {"columns": ["a"]}}], batch).column("a").to_pylist() == [
        1,
        2,
        3,
    ]


def test_inline_tables_over_the_limit_on_a_caching_server_name_the_threshold(fresh_client: Any) -> None:
    """Each table under the (raised) cache threshold goes inline; together they do not fit."""
    limit = 1 << 20
    settings = fresh_client.internals.session.inputs.settings()
    fresh_client.internals.session.inputs._settings = dataclasses.replace(
        settings, threshold=1 << 40, max_message=limit
    )
    part = json_rows(14_000, seed=9)
    assert limit // 3 < load_plan([], part, SCHEMA).source.table.nbytes < limit // 2
    plan = [
        {"op": "union", "payload": {"other_data": json_rows(14_000, seed=10 + k), "other_schema": SCHEMA}}
        for k in range(2)
    ]
    with pytest.raises(connect_plan.InputTooLargeError, match="localRelationCacheThreshold") as err:
        fresh_client.execute(plan, part, SCHEMA)
    assert err.value.limit == limit and err.value.size > limit


def counting_uploads(client: Any) -> list[list[bytes]]:
    """Record every upload of ``client`` (the real ``cache_artifacts`` call still runs)."""
    calls: list[list[bytes]] = []
    real = client.internals.transport.cache_artifacts

    def counting(blobs: list[bytes]) -> list[str]:
        calls.append(list(blobs))
        return real(blobs)

    client.internals.transport.cache_artifacts = counting
    return calls


def table_bytes(rows: list[list[Any]]) -> int:
    return int(load_plan([], rows, SCHEMA).source.table.nbytes)


def test_a_server_threshold_below_64_kib_is_followed(fresh_client: Any, spark: Any) -> None:
    """The threshold is the server's: at 1 KiB (set on the server for this session), a
    table of a few KiB is an artifact and a 3-row one stays inline; set after the first
    query, the new value is read again."""
    needs_artifact_cache(fresh_client)
    uploads = counting_uploads(fresh_client)
    small, medium = json_rows(3, seed=20), json_rows(200, seed=21)
    assert table_bytes(small) < 1024 < table_bytes(medium) < 64 * 1024
    assert source_relation(fresh_client, medium).WhichOneof("rel_type") == "local_relation"  # 1 MiB or so by default
    fresh_client.set_conf({THRESHOLD_KEY: "1024"})
    assert source_relation(fresh_client, small).WhichOneof("rel_type") == "local_relation"
    assert source_relation(fresh_client, medium).WhichOneof("rel_type") == "chunked_cached_local_relation"
    assert len(uploads) == 1
    theirs = pyspark_df(spark, medium).orderBy("id").toArrow()
    assert fresh_client.execute(SORTED, medium, SCHEMA).equals(theirs)


def test_a_plan_documents_conf_may_lower_the_threshold_for_its_execution(fresh_client: Any) -> None:
    needs_artifact_cache(fresh_client)
    uploads = counting_uploads(fresh_client)
    count = [{"op": "agg", "payload": {"aggs": [{"agg": "count", "alias": "n"}]}}]
    rows = json_rows(200, seed=22)
    doc = {"input": {"schema": SCHEMA, "rows": rows}, "plan": count, "conf": {THRESHOLD_KEY: "1024"}}
    assert fresh_client.execute(doc).to_pylist() == [{"n": 200}]
    assert len(uploads) == 1
    other = json_rows(200, seed=23)  # new data, no conf: the server's own threshold again
    assert fresh_client.execute(count, other, SCHEMA).to_pylist() == [{"n": 200}]
    assert len(uploads) == 1


def shared_doc(rows: list[list[Any]], uses: int) -> dict[str, Any]:
    """A ``with`` table used ``uses`` times: the input and ``uses - 1`` unions."""
    plan: list[dict[str, Any]] = [{"op": "union", "payload": {"other": {"ref": "t"}}} for _ in range(uses - 1)]
    return {
        "with": {"t": {"input": {"schema": SCHEMA, "rows": rows}, "plan": []}},
        "input": {"ref": "t"},
        "plan": [*plan, *SUMMARY],
    }


def test_a_sub_plan_used_several_times_is_weighed_by_its_uses(fresh_client: Any, spark: Any) -> None:
    """One ``with`` table used 4 times, each use under the (server-side) threshold, all
    four together over it: uploaded once, referenced by every use, and the result is
    PySpark's for the same query."""
    needs_artifact_cache(fresh_client)
    fresh_client.set_conf({THRESHOLD_KEY: str(256 * 1024)})
    rows = json_rows(3_000, seed=24)
    one = table_bytes(rows)
    assert one < 256 * 1024 <= 4 * one
    uploads = counting_uploads(fresh_client)
    tr = fresh_client.internals.executor.prepare(load_plan(shared_doc(rows, 4)))
    kinds = [item.relation.WhichOneof("rel_type") for item in tr.local_data]
    assert kinds == ["chunked_cached_local_relation"] * 4
    hashes = {tuple(item.relation.chunked_cached_local_relation.dataHashes) for item in tr.local_data}
    assert len(hashes) == 1 and len(uploads) == 1  # one artifact, referenced four times
    assert tr.plan.ByteSize() < one
    ours = fresh_client.execute(shared_doc(rows, 4))
    df = pyspark_df(spark, rows)
    theirs = (
        df.union(df)
        .union(df)
        .union(df)
        .groupBy("b")
        .agg({"*": "count", "id": "sum", "s": "max"})
        .orderBy("b")
        .toArrow()
    )
    assert ours.to_pylist() == [dict(zip(("b", "n", "ids", "top"), r.values())) for r in theirs.to_pylist()]
    assert sum(r["n"] for r in ours.to_pylist()) == 4 * len(rows)
    # used once, the same table is under the threshold: inline
    single = fresh_client.internals.executor.prepare(load_plan(shared_doc(rows, 1)))
    assert [item.relation.WhichOneof("rel_type") for item in single.local_data] == ["local_relation"]


def test_equal_data_written_twice_is_weighed_together(fresh_client: Any) -> None:
    """The same rows given twice (two tables with equal data, not one shared sub-plan)."""
    needs_artifact_cache(fresh_client)
    fresh_client.set_conf({THRESHOLD_KEY: str(128 * 1024)})
    rows = json_rows(3_000, seed=25)
    assert table_bytes(rows) < 128 * 1024 <= 2 * table_bytes(rows)
    uploads = counting_uploads(fresh_client)
    plan = [{"op": "union", "payload": {"other_data": rows, "other_schema": SCHEMA}}]
    tr = fresh_client.internals.executor.prepare(load_plan(plan, rows, SCHEMA))
    assert [item.relation.WhichOneof("rel_type") for item in tr.local_data] == ["chunked_cached_local_relation"] * 2
    assert len(uploads) == 1
    assert fresh_client.execute([*plan, *SORTED], rows, SCHEMA).column("id").to_pylist() == sorted(
        2 * list(range(3_000))
    )


def test_a_sub_plan_too_large_to_repeat_inline_is_cached_whatever_the_threshold(fresh_client: Any) -> None:
    """Five uses of a table of a third of the message limit would not fit inline (the
    error a per-table decision raised); with the threshold far above them, it is cached."""
    needs_artifact_cache(fresh_client)
    limit = 1 << 20
    settings = fresh_client.internals.session.inputs.settings()
    fresh_client.internals.session.inputs._settings = dataclasses.replace(
        settings, threshold=1 << 40, max_message=limit
    )
    rows = json_rows(10_000, seed=26)
    assert limit // 4 < table_bytes(rows) < limit // 2
    uploads = counting_uploads(fresh_client)
    ours = fresh_client.execute(shared_doc(rows, 5))
    assert len(uploads) == 1
    assert sum(r["n"] for r in ours.to_pylist()) == 5 * len(rows)
