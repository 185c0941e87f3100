"""Tamperings of recorded Spark Connect result responses: each breaks one invariant the
client's :class:`~connect_plan.results.ResultChecker` must catch (docs/reliability.md §2).
Used on responses recorded live (tests/integration/test_integrity.py) and on the stored
recordings (tests/unit/test_client_offline.py)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pyarrow as pa


def arrow_indices(responses: list[Any]) -> list[int]:
    return [i for i, r in enumerate(responses) if r.HasField("arrow_batch")]


def _ipc(table: pa.Table) -> bytes:
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as w:
        w.write_table(table)
    return sink.getvalue().to_pybytes()


def _batch(responses: list[Any], k: int) -> Any:
    return responses[arrow_indices(responses)[k]]


def row_count_off(rs: list[Any]) -> None:
    _batch(rs, 1).arrow_batch.row_count += 1


def start_offset_off(rs: list[Any]) -> None:
    _batch(rs, 2).arrow_batch.start_offset += 5


def batch_lost(rs: list[Any]) -> None:
    del rs[arrow_indices(rs)[2]]


def batch_repeated(rs: list[Any]) -> None:
    i = arrow_indices(rs)[1]
    rs.insert(i + 1, copy.deepcopy(rs[i]))


def no_result_complete(rs: list[Any]) -> None:
    rs[:] = [r for r in rs if not r.HasField("result_complete")]


def truncated_after_two_batches(rs: list[Any]) -> None:
    rs[:] = rs[: arrow_indices(rs)[1] + 1]


def schema_drift(rs: list[Any]) -> None:
    ab = _batch(rs, 3).arrow_batch
    with pa.ipc.open_stream(ab.data) as reader:
        table = reader.read_all()
    ab.data = _ipc(table.set_column(0, "id", table.column("id").cast(pa.int32())))


def announced_schema_differs(rs: list[Any]) -> None:
    schema = next(r for r in rs if r.HasField("schema")).schema
    schema.struct.fields[1].name = "t"


def corrupt_arrow(rs: list[Any]) -> None:
    ab = _batch(rs, 1).arrow_batch
    ab.data = ab.data[: len(ab.data) // 2]


def response_after_complete(rs: list[Any]) -> None:
    rs.append(copy.deepcopy(_batch(rs, 0)))


def chunk_missing(rs: list[Any]) -> None:
    i = next(i for i in arrow_indices(rs) if rs[i].arrow_batch.chunk_index == 1)
    del rs[i]


def chunks_swapped(rs: list[Any]) -> None:
    # swap chunks 1 and 2 of a batch; not with the next response, which may be an
    # execution_progress message (they interleave with the chunks as timing has it)
    arrows = arrow_indices(rs)
    k = next(
        k
        for k, i in enumerate(arrows)
        if rs[i].arrow_batch.chunk_index == 1 and rs[i].arrow_batch.num_chunks_in_batch > 2
    )
    i, j = arrows[k], arrows[k + 1]
    rs[i], rs[j] = rs[j], rs[i]


def ends_inside_chunked_batch(rs: list[Any]) -> None:
    i = next(
        i for i in arrow_indices(rs) if rs[i].arrow_batch.chunk_index == 1 and rs[i].arrow_batch.num_chunks_in_batch > 2
    )
    rs[:] = rs[: i + 1]


TAMPERINGS: list[tuple[str, Callable[[list[Any]], None], str]] = [
    ("small", row_count_off, "announced .* rows and held"),
    ("small", start_offset_off, "starts at row"),
    ("small", batch_lost, "starts at row"),
    ("small", batch_repeated, "starts at row"),
    ("small", no_result_complete, "without ResultComplete"),
    ("small", truncated_after_two_batches, "without ResultComplete"),
    ("small", schema_drift, "changed the result schema"),
    ("small", announced_schema_differs, "the server announced"),
    ("small", corrupt_arrow, "could not be read"),
    ("small", response_after_complete, "after ResultComplete"),
    ("chunked", chunk_missing, "expected chunk 1"),
    ("chunked", chunks_swapped, "expected chunk 1"),
    ("chunked", ends_inside_chunked_batch, "inside a chunked"),
]
