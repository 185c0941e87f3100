"""Issue 14 item 6: any Arrow PyCapsule producer is accepted as rows (polars, DuckDB,
pyarrow datasets and readers, nanoarrow), run on the real server, one test per library."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pyarrow as pa
import pytest

import connect_plan

PLAN = [
    {"op": "filter", "payload": {"op": "gt", "left": "n", "right": 1}},
    {"op": "orderBy", "payload": {"columns": ["n"]}},
]
SOURCE = pa.table({"n": pa.array([1, 2, 3], pa.int64()), "city": ["Oslo", "東京", "Lima"]})
EXPECTED = [{"n": 2, "city": "東京"}, {"n": 3, "city": "Lima"}]


def _polars() -> Any:
    pl = pytest.importorskip("polars")
    return pl.DataFrame({"n": [1, 2, 3], "city": ["Oslo", "東京", "Lima"]})


def _duckdb() -> Any:
    duckdb = pytest.importorskip("duckdb")
    return duckdb.sql("SELECT * FROM (VALUES (1::BIGINT, 'Oslo'), (2, '東京'), (3, 'Lima')) t(n, city)")


def _dataset() -> Any:
    import pyarrow.dataset as ds

    return ds.dataset(SOURCE)


def _reader() -> Any:
    return SOURCE.to_reader(max_chunksize=1)


def _nanoarrow() -> Any:
    na = pytest.importorskip("nanoarrow")
    return na.ArrayStream(SOURCE)


PRODUCERS: dict[str, Callable[[], Any]] = {
    "polars": _polars,
    "duckdb": _duckdb,
    "pyarrow_dataset": _dataset,
    "pyarrow_reader": _reader,
    "nanoarrow": _nanoarrow,
}


@pytest.mark.parametrize("name", list(PRODUCERS))
def test_arrow_producer_as_rows(name: str, spark_url: str) -> None:
    rows = PRODUCERS[name]()
    table = connect_plan.execute_plan(rows, None, PLAN, remote=spark_url)
    assert table.to_pylist() == EXPECTED
    assert table.column_names == ["n", "city"]
