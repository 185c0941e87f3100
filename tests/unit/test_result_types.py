"""Results are given Spark's Arrow conventions whatever the engine sent (Sail: large
strings, list<item>, decimal256); Spark's own batches pass unchanged."""

from __future__ import annotations

import decimal

import pyarrow as pa
import pytest

from connect_plan import ResultIntegrityError
from connect_plan.arrow_types import cast_batch, spark_arrow_schema
from connect_plan.client import check_unique_names


def test_large_and_renamed_types_become_sparks() -> None:
    sent = pa.schema(
        [
            pa.field("s", pa.large_string()),
            pa.field("b", pa.large_binary(), nullable=False),
            pa.field("l", pa.large_list(pa.field("item", pa.large_string()))),
            pa.field("d", pa.decimal256(10, 2)),
            pa.field("m", pa.map_(pa.large_string(), pa.list_(pa.int64()))),
            pa.field("st", pa.struct([pa.field("x", pa.large_string())])),
        ]
    )
    want = pa.schema(
        [
            pa.field("s", pa.string()),
            pa.field("b", pa.binary(), nullable=False),
            pa.field("l", pa.list_(pa.field("element", pa.string()))),
            pa.field("d", pa.decimal128(10, 2)),
            pa.field("m", pa.map_(pa.string(), pa.list_(pa.field("element", pa.int64())))),
            pa.field("st", pa.struct([pa.field("x", pa.string())])),
        ]
    )
    assert spark_arrow_schema(sent).equals(want)
    batch = pa.RecordBatch.from_pylist(
        [{"s": "a", "b": b"x", "l": ["p"], "d": decimal.Decimal("1.50"), "m": [("k", [1])], "st": {"x": "y"}}],
        schema=sent,
    )
    cast = cast_batch(batch, want)
    assert cast.schema.equals(want) and cast.to_pylist() == batch.to_pylist()


def test_sparks_own_types_are_left_alone() -> None:
    spark = pa.schema(
        [
            pa.field("s", pa.string()),
            pa.field("l", pa.list_(pa.field("element", pa.int32()))),
            pa.field("m", pa.map_(pa.string(), pa.int64())),
            pa.field("t", pa.timestamp("us", tz="UTC")),
            pa.field("big", pa.decimal256(40, 0)),
        ]
    )
    assert spark_arrow_schema(spark).equals(spark)


def test_unique_names_follow_case_sensitivity() -> None:
    pair = pa.schema([("a", pa.int32()), ("A", pa.string())])
    with pytest.raises(ResultIntegrityError, match="two columns named 'A'"):
        check_unique_names(pair)
    check_unique_names(pair, case_sensitive=True)
    for case_sensitive in (False, True):
        with pytest.raises(ResultIntegrityError, match="two columns named 'a'"):
            check_unique_names(pa.schema([("a", pa.int32()), ("a", pa.string())]), case_sensitive=case_sensitive)


def test_the_checker_decodes_the_arrow_bytes_it_is_handed() -> None:
    """The result stream reads each batch's bytes from the message once
    (:class:`~connect_plan.responses.Received`) and hands them to the checker: those are
    what it checks and decodes, with the message's own fields (row count, offset)."""
    from connect_plan import _pyspark_import  # noqa: F401  (before any PySpark import)
    from connect_plan.responses import received
    from connect_plan.results import ResultChecker
    from connect_plan.spark_proto import pb

    table = pa.table({"a": pa.array([1, 2, 3], pa.int64())})
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    payload = sink.getvalue().to_pybytes()
    message = pb.ExecutePlanResponse()
    message.arrow_batch.row_count = 3
    message.arrow_batch.data = payload
    item = received(message)
    assert item.arrow_data == payload
    message.arrow_batch.ClearField("data")
    checker = ResultChecker()
    batches = [b for b in checker.feed(item.message, item.arrow_data) if isinstance(b, pa.RecordBatch)]
    assert pa.Table.from_batches(batches).equals(table)
    message.arrow_batch.row_count = 4  # the message's own fields are still checked
    with pytest.raises(ResultIntegrityError, match="announced 4 rows and held 3"):
        list(ResultChecker().feed(message, payload))
    assert received(pb.ExecutePlanResponse(response_id="r")).arrow_data is None
