"""Arrow tables as Spark Connect carries them: IPC stream bytes, ``LocalRelation`` filling,
and the chunks of a chunked cached relation."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["fill_local_relation", "ipc_chunks", "serialize_ipc"]


def serialize_ipc(table: pa.Table) -> bytes:
    """Arrow IPC stream bytes of ``table`` (what ``LocalRelation.data`` carries)."""
    import pyarrow as pa

    sink = pa.BufferOutputStream()
    # explicit options: without them pyarrow reads two environment variables per call
    with pa.ipc.new_stream(sink, table.schema, options=_ipc_options()) as writer:
        writer.write_table(table)
    data: bytes = sink.getvalue().to_pybytes()
    return data


def fill_local_relation(local: Any, table: pa.Table, data: bytes | None = None) -> int:
    """Put ``table`` into a ``LocalRelation`` message; returns the bytes of data placed.
    ``data``: ``table``'s IPC bytes when already serialised (a table used several times).

    A table without rows also gets the relation's ``schema`` (Spark's JSON schema, as
    PySpark's createDataFrame sends): the IPC stream carries the schema too, but some
    servers (Sail) read it only from the schema field ("missing schema for local
    relation"). Spark reads the same types from either.
    """
    if data is None:
        data = serialize_ipc(table)
    local.data = data
    if table.num_rows == 0:
        from ..arrow_types import spark_schema_json

        local.schema = spark_schema_json(table.schema)
    return len(data)


@functools.cache
def _ipc_options() -> pa.ipc.IpcWriteOptions:
    import pyarrow as pa

    return pa.ipc.IpcWriteOptions()


def ipc_chunks(table: pa.Table, max_rows: int, max_bytes: int) -> Iterator[bytes]:
    """``table`` as consecutive Arrow IPC streams of at most ``max_rows`` rows and (where a
    single row allows) ``max_bytes`` bytes of column data each: the chunks of a
    ``ChunkedCachedLocalRelation``. One chunk is in memory at a time."""
    n = table.num_rows
    if n == 0:
        yield serialize_ipc(table)
        return
    per_row = max(table.nbytes / n, 1.0)
    step = max(1, min(max_rows, int(max_bytes // per_row)))
    start = 0
    while start < n:
        rows = min(step, n - start)
        piece = table.slice(start, rows)
        # skewed rows: halve until the piece fits (or is a single row)
        while rows > 1 and piece.nbytes > max_bytes:
            rows //= 2
            piece = table.slice(start, rows)
        yield serialize_ipc(piece)
        start += rows
