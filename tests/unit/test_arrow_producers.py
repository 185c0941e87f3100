"""Issue 14 item 6 without a server: Arrow PyCapsule producers become the plan's input
without a copy where Arrow allows, and a producer of something that is not a table is a
located PlanError, not 'rows must be a list of lists'."""

from __future__ import annotations

import pyarrow as pa
import pytest

import connect_plan
from connect_plan.formats.json_plan import parse_plan

SOURCE = pa.table({"n": pa.array([1, 2, 3], pa.int64()), "x": pa.array([0.5, 1.5, 2.5])})


def _address(table: pa.Table, column: str) -> int:
    return int(table.column(column).chunk(0).buffers()[1].address)


def test_nanoarrow_stream_is_not_copied() -> None:
    na = pytest.importorskip("nanoarrow")
    table = parse_plan(na.ArrayStream(SOURCE), None, []).source.table
    assert table.equals(SOURCE)
    assert _address(table, "n") == _address(SOURCE, "n")


def test_polars_frame_needs_no_schema() -> None:
    pl = pytest.importorskip("polars")
    proto = connect_plan.translate(pl.DataFrame({"n": [1, 2]}), None, [{"op": "limit", "payload": 1}])
    assert proto.root.HasField("limit")


def test_a_producer_of_a_column_is_a_located_plan_error() -> None:
    pl = pytest.importorskip("polars")
    with pytest.raises(connect_plan.PlanError) as info:
        connect_plan.validate(pl.Series("n", [1, 2]), None, [])
    [detail] = info.value.details
    assert detail.code == "rows_type" and detail.loc == "/input/rows"
    assert "not an Arrow table" in detail.message and "list of lists" not in detail.message
