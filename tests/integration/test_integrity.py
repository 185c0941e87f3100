"""Result integrity (docs/reliability.md §2): every Arrow batch is checked.

Happy paths run against the real server: a zero-row result, one huge batch, many small
batches, batches the server splits into chunks. To prove that the checks fire, real
responses recorded from the server are replayed with one field tampered, into the
:class:`~connect_plan.results.ResultChecker` directly and, through a seam in front of the
network (the PySpark client's stub), into ``Client.execute``: each tampering is a
``ResultIntegrityError``, never a table.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pyarrow as pa
import pytest

import connect_plan
from connect_plan import ResultIntegrityError
from connect_plan.results import MAX_EMPTY_REATTACHES
from tests.support.reference_transport import use_reference_transport
from tests.support.stub import ReplayStub
from tests.support.tampering import (
    TAMPERINGS,
    announced_schema_differs,
    arrow_indices,
    batch_lost,
    no_result_complete,
    row_count_off,
    schema_drift,
    truncated_after_two_batches,
)
from tests.support.transport import SMALL_BATCHES, decode, generated
from tests.support.transport import record_execution as record

SCHEMA = [("id", "bigint"), ("s", "string")]

# ---------------------------------------------------------------- happy paths, real server


def test_zero_rows_still_carry_the_announced_schema(client: Any) -> None:
    doc = {
        "input": {"schema": SCHEMA, "rows": [[1, "x"]]},
        "plan": [{"op": "filter", "payload": {"op": "lt", "left": {"col": "id"}, "right": {"lit": 0}}}],
    }
    table = client.execute(doc)
    assert table.num_rows == 0 and table.schema == pa.schema([("id", pa.int64()), ("s", pa.string())])
    responses = record(client, doc)
    assert responses[0].HasField("schema") and responses[-1].HasField("result_complete")
    assert sum(r.arrow_batch.row_count for r in responses if r.HasField("arrow_batch")) == 0


def test_many_small_batches(client: Any) -> None:
    doc = {**generated(10_000), "conf": SMALL_BATCHES}
    responses = record(client, doc)
    assert len(arrow_indices(responses)) >= 50
    table = client.execute(doc)
    assert table.column("id").to_pylist() == list(range(10_000))
    assert decode(responses).equals(table)


def test_one_huge_batch(client: Any) -> None:
    """One row of 48 MiB: a single batch over Spark's 4 MiB batch target, chunked on the way."""
    doc = {
        "input": {"range": 1},
        "plan": [
            {
                "op": "withColumn",
                "payload": {
                    "name": "s",
                    "expr": {"fn": "repeat", "args": [{"lit": "0123456789abcdef"}, {"lit": 3 * 2**20}]},
                },
            }
        ],
    }
    table = client.execute(doc)
    assert table.num_rows == 1 and len(table.column("s")[0].as_py()) == 48 * 2**20


def test_chunked_batches(spark_url: str) -> None:
    """The client asks for 64 KiB chunks (PySpark's preferred_arrow_chunk_size): batches
    arrive in several chunks each, reassembled into the same table."""
    with connect_plan.connect(spark_url) as c:
        c.internals.transport.preferred_arrow_chunk_size = 64 * 1024
        doc = generated(200_000)
        responses = record(c, doc)
        chunked = [r for r in responses if r.HasField("arrow_batch") and r.arrow_batch.num_chunks_in_batch > 1]
        assert chunked, "the server should have split the batches into chunks"
        table = c.execute(doc)
        assert table.column("id").to_pylist() == list(range(200_000))
        assert decode(responses).equals(table)


# ---------------------------------------------------------------- tampered recordings


@pytest.fixture(scope="module")
def recorded(spark_url: str) -> dict[str, list[Any]]:
    with connect_plan.connect(spark_url) as c:
        small = record(c, {**generated(1_000), "conf": SMALL_BATCHES})
        c.internals.transport.preferred_arrow_chunk_size = 16 * 1024
        chunked = record(c, generated(50_000))
    assert len(arrow_indices(small)) >= 5
    assert any(r.arrow_batch.num_chunks_in_batch > 2 for r in chunked if r.HasField("arrow_batch"))
    return {"small": small, "chunked": chunked}


def test_untampered_recordings_pass(recorded: dict[str, list[Any]]) -> None:
    assert decode(recorded["small"]).column("id").to_pylist() == list(range(1_000))
    assert decode(recorded["chunked"]).column("id").to_pylist() == list(range(50_000))


@pytest.mark.parametrize("source,tamper,message", TAMPERINGS, ids=[t[1].__name__ for t in TAMPERINGS])
def test_the_checker_catches_each_tampering(
    recorded: dict[str, list[Any]], source: str, tamper: Callable[[list[Any]], None], message: str
) -> None:
    responses = copy.deepcopy(recorded[source])
    tamper(responses)
    with pytest.raises(ResultIntegrityError, match=message):
        decode(responses)


@pytest.mark.parametrize(
    "tamper,message",
    [
        (row_count_off, "announced .* rows and held"),
        (schema_drift, "changed the result schema"),
        (announced_schema_differs, "the server announced"),
        (batch_lost, "starts at row"),
    ],
)
def test_execute_never_returns_a_tampered_result(
    spark_url: str, tamper: Callable[[list[Any]], None], message: str
) -> None:
    with connect_plan.connect(spark_url) as c:
        responses = record(c, {**generated(1_000), "conf": SMALL_BATCHES})
        tamper(responses)
        c.internals.transport._stub = ReplayStub(c.internals.transport._stub, responses)
        with pytest.raises(ResultIntegrityError, match=message):
            c.execute(generated(1_000))


def test_a_stream_cut_short_is_reattached_a_bounded_number_of_times(spark_url: str) -> None:
    """Without ResultComplete the client reattaches (PySpark's graceful reattach); a server
    that keeps ending the reattached streams at once and empty is given up on."""
    with connect_plan.connect(spark_url) as c:
        responses = record(c, {**generated(1_000), "conf": SMALL_BATCHES})
        truncated_after_two_batches(responses)
        stub = ReplayStub(c.internals.transport._stub, responses)
        c.internals.transport._stub = stub
        with pytest.raises(ResultIntegrityError, match="giving up instead of reattaching forever"):
            c.execute(generated(1_000))
        assert stub.reattaches == MAX_EMPTY_REATTACHES + 1


def _reattach_switched_off(sc: Any) -> None:
    sc.disable_reattachable_execute()  # PySpark's own switch


def _like_pyspark_4_0(sc: Any) -> None:
    for name in ("_session_hooks", "_release_futures"):  # internals PySpark 4.0 does not have
        if hasattr(sc, name):
            delattr(sc, name)


CLIENT_VARIANTS = [_reattach_switched_off, _like_pyspark_4_0]


@pytest.mark.parametrize("variant", CLIENT_VARIANTS, ids=lambda v: v.__name__.strip("_"))
def test_every_pyspark_client_gets_the_checked_stream(
    spark_url: str, variant: Callable[[Any], None], monkeypatch: pytest.MonkeyPatch
) -> None:
    """There is no unchecked path: with PySpark's reattachable execution switched off, or
    without internals PySpark 4.0 lacks, results still come whole from the real server and a
    stream without ResultComplete (or with a lost batch) is still refused. (These took a
    fallback through PySpark's to_table_as_iterator, which returned the truncated table.)
    PySpark's client is the transport here (the tests' reference transport)."""
    use_reference_transport(monkeypatch)
    with connect_plan.connect(spark_url) as c:
        variant(c.internals.transport.sc)
        assert c.execute({**generated(1_000), "conf": SMALL_BATCHES}).column("id").to_pylist() == list(range(1_000))
        reader = c.stream(generated(5_000))
        assert reader.read_all().num_rows == 5_000
        real = c.internals.transport.sc._stub
        for tamper, message in (
            (no_result_complete, "without ResultComplete|giving up"),
            (batch_lost, "starts at row"),
        ):
            responses = record(c, {**generated(1_000), "conf": SMALL_BATCHES})
            if tamper is batch_lost and len(arrow_indices(responses)) < 3:
                continue  # Sail sends one batch (tests/engines.py): no batch to lose
            tamper(responses)
            c.internals.transport.sc._stub = ReplayStub(real, responses)
            with pytest.raises(ResultIntegrityError, match=message):
                c.execute(generated(1_000))
            c.internals.transport.sc._stub = real


def test_a_pyspark_without_the_needed_internals_is_a_clear_error() -> None:
    from pyspark.sql.connect import proto as pb

    from tests.support.reference_transport import reattachable_stream

    with pytest.raises(connect_plan.ConnectPlanError, match=r"lacks the Connect client internals .*_stub"):
        reattachable_stream(object(), pb.Plan())
