"""``connect-plan serve`` forwards Spark's Arrow IPC messages as ``FlightData`` (no decoding and
encoding of each batch again) and still applies every check to them. The server is the installed
entry point in a subprocess; what it sends is read raw (each ``FlightData`` of a DoGet, with gRPC
and Flight's own message class) and compared with the messages Spark sends connect_plan's
in-process client for the same plan (:func:`connect_plan.client.spark_batches`), and read with
``pyarrow.flight`` and compared with ``Client.execute``'s table."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

import connect_plan
from connect_plan.client import spark_batches
from tests.conftest import engine
from tests.support.processes import entry_point
from tests.support.serving import ALICE, STRANGER, ServeProcess, adbc, command, flight, read_all, write_tokens

#: 300,000 rows × 4 columns, in Spark's order (range's partitions in turn): ~30 Arrow batches
LARGE = {
    "input": {"range": 300_000},
    "plan": [
        {
            "op": "withColumn",
            "payload": {"name": "x", "expr": {"op": "mul", "left": {"col": "id"}, "right": {"lit": 0.5}}},
        },
        {"op": "withColumn", "payload": {"name": "s", "expr": {"fn": "concat", "args": [{"lit": "n"}, {"col": "id"}]}}},
        {
            "op": "withColumn",
            "payload": {"name": "b", "expr": {"op": "gt", "left": {"col": "id"}, "right": {"lit": 7}}},
        },
    ],
}


@pytest.fixture(scope="module")
def server(spark_url: str) -> Iterator[ServeProcess]:
    # Spark's default batch size, as the in-process client it is compared with has it: a
    # result of many messages
    with ServeProcess(spark_url, "--policy", "trusted", "--batch-rows", "10000") as s:
        yield s


def _flight_data(url: str, text: str) -> list[Any]:
    """Every ``FlightData`` of the DoGet of ``text``'s ticket, as the server sent it (gRPC with
    no deserializer: Flight.proto's own message class parses the bytes)."""
    import grpc
    import pyarrow.flight as fl

    from connect_plan.flightsql.messages import FLIGHT, message

    client = flight(url)
    try:
        info = client.get_flight_info(fl.FlightDescriptor.for_command(command("CommandStatementQuery", query=text)))
    finally:
        client.close()
    [endpoint] = info.endpoints
    ticket = message(f"{FLIGHT}.Ticket")(ticket=endpoint.ticket.ticket).SerializeToString()
    flight_data = message(f"{FLIGHT}.FlightData")
    with grpc.insecure_channel(url.removeprefix("grpc://")) as channel:
        do_get = channel.unary_stream("/arrow.flight.protocol.FlightService/DoGet")
        return [flight_data.FromString(raw) for raw in do_get(ticket, timeout=120)]


def _message(data: Any) -> Any:
    """One FlightData's IPC message (its header and body framed as in an IPC stream)."""
    header = data.data_header
    pad = -len(header) % 8
    framed = b"\xff\xff\xff\xff" + (len(header) + pad).to_bytes(4, "little") + header + b"\0" * pad
    return pa.ipc.read_message(framed + data.data_body)


def _schema(data: Any) -> pa.Schema:
    return pa.ipc.read_schema(_message(data))


def _batch_of(schema: pa.Schema, data: Any) -> pa.RecordBatch:
    return pa.ipc.read_record_batch(_message(data), schema)


def test_a_large_results_batches_arrive_byte_identical_to_sparks(server: ServeProcess, spark_url: str) -> None:
    with connect_plan.Client(spark_url) as client:
        expected = client.execute(LARGE)
        result = spark_batches(client, LARGE)
        try:
            spark = [(m.metadata.to_pybytes(), m.body.to_pybytes()) for _, m in result]
        finally:
            result.close()
    sent = _flight_data(server.url, json.dumps(LARGE))
    schema = _schema(sent[0])  # the announced schema first
    assert schema == expected.schema and not sent[0].data_body
    assert len(spark) >= 20 and len(sent) == len(spark) + 1
    # Spark's messages, byte for byte, each once. The two are separate executions: Spark sends
    # range's partitions in order, Sail in the order they finish, so the order is not compared
    forwarded = [(d.data_header, d.data_body) for d in sent[1:]]
    assert Counter(forwarded) == Counter(spark)
    got = pa.Table.from_batches([_batch_of(schema, d) for d in sent[1:]], schema)
    assert got.sort_by("id").equals(expected.sort_by("id"))
    _, table = read_all(server.url, None, command("CommandStatementQuery", query=json.dumps(LARGE)))
    assert table.sort_by("id").equals(expected.sort_by("id")) and table.num_rows == 300_000


def test_a_null_where_the_prepared_schema_announced_none_is_still_refused(server: ServeProcess, spark_url: str) -> None:
    """A prepared statement's schema says ``id`` is not null (``range``'s column); the view
    changes under it to the same name and type with a NULL in it: each batch would be forwarded
    as Spark sent it, so the check runs on each first, and the DoGet ends with the contract's
    error at the batch holding the NULL (the rows before it were sent, none with a NULL); a view
    whose column changed type is refused before any batch."""
    import pyarrow.flight as fl

    from connect_plan.flightsql.messages import SQL, message, pack

    view = f"forward_{uuid.uuid4().hex[:8]}"
    with connect_plan.Client(spark_url) as spark:

        def define(sql: str) -> None:
            spark.execute({"input": {"sql": f"CREATE OR REPLACE GLOBAL TEMP VIEW {view} AS {sql}"}, "plan": []})

        define("SELECT id FROM range(100000)")
        client = flight(server.url)
        try:

            def prepare() -> bytes:
                request = message(f"{SQL}.ActionCreatePreparedStatementRequest")(
                    query=f"SELECT id FROM global_temp.{view}"
                )
                [answer] = client.do_action(fl.Action("CreatePreparedStatement", pack(request)))
                from connect_plan.flightsql.messages import unpack

                _, prepared = unpack(answer.body.to_pybytes(), frozenset({"ActionCreatePreparedStatementResult"}))
                assert not pa.ipc.read_schema(pa.py_buffer(prepared.dataset_schema)).field("id").nullable
                return bytes(prepared.prepared_statement_handle)

            received: list[pa.RecordBatch] = []

            def run(handle: bytes) -> pa.Table:
                received.clear()
                cmd = pack(message(f"{SQL}.CommandPreparedStatementQuery")(prepared_statement_handle=handle))
                info = client.get_flight_info(fl.FlightDescriptor.for_command(cmd))
                reader = client.do_get(info.endpoints[0].ticket)
                while True:
                    try:
                        received.append(reader.read_chunk().data)
                    except StopIteration:
                        return pa.Table.from_batches(received)

            handle = prepare()
            assert run(handle).column("id").to_pylist() == list(range(100000))  # as prepared: forwarded
            define("SELECT IF(id = 70000, NULL, id) AS id FROM range(100000)")
            with pytest.raises(pa.ArrowException) as e:  # FAILED_PRECONDITION
                run(handle)
            assert "column 'id' was announced not null, and Spark returned a NULL in it [result_contract]" in str(
                e.value
            )
            # the batches before the refusal were forwarded, and none of them held the NULL (Sail
            # sends range's partitions in the order they finish, so which ones came first varies)
            assert sum(b.num_rows for b in received) < 100000
            assert all(b.column(0).null_count == 0 for b in received)
            define("SELECT CAST(id AS STRING) AS id FROM range(10)")
            with pytest.raises(pa.ArrowException) as e:
                run(handle)
            assert "not the one announced for this statement" in str(e.value) and not received
        finally:
            client.close()
            spark.execute({"input": {"sql": f"DROP VIEW IF EXISTS global_temp.{view}"}, "plan": []})


def test_with_compression_the_forwarded_batches_stay_as_spark_compressed_them(spark_url: str) -> None:
    """``--compression zstd``: Spark compresses each batch's buffers (Arrow IPC body
    compression, Spark 4.1+), the serve forwards them compressed, and a Flight client decodes
    them to the in-process answer."""
    if engine() != "spark":
        pytest.skip("Spark's Arrow compression setting (4.1+)")
    with connect_plan.Client(spark_url) as client:
        expected = client.execute(LARGE)
    with ServeProcess(spark_url, "--policy", "trusted", "--compression", "zstd") as s:
        sent = _flight_data(s.url, json.dumps(LARGE))
        _, table = read_all(s.url, None, command("CommandStatementQuery", query=json.dumps(LARGE)))
        if importlib.util.find_spec("adbc_driver_flightsql") is not None:  # Arrow's Go driver decodes them too
            with adbc(s.url) as con, con.cursor() as cur:
                cur.execute(json.dumps(LARGE))
                assert cur.fetch_arrow_table().equals(expected)
    schema = _schema(sent[0])
    batches = [_batch_of(schema, d) for d in sent[1:]]
    body, decoded = sum(len(d.data_body) for d in sent[1:]), sum(b.nbytes for b in batches)
    assert body < decoded / 2, (body, decoded)  # compressed on the wire to the Flight client too
    assert pa.Table.from_batches(batches, schema).equals(expected) and table.equals(expected)


def _ranged(n: int) -> dict[str, Any]:
    """``n`` rows in one partition, so Spark cuts its batches by the session's batch rows only."""
    return {
        "input": {"range": {"start": 0, "end": n, "num_partitions": 1}},
        "plan": [
            {
                "op": "withColumn",
                "payload": {"name": "s", "expr": {"fn": "concat", "args": [{"lit": "n"}, {"col": "id"}]}},
            }
        ],
    }


def test_every_callers_session_sends_the_servers_batch_rows_and_the_answers_stay_equal(
    spark_url: str, tmp_path: Path
) -> None:
    """``serve`` sets ``--batch-rows`` rows per Arrow batch on each caller's Spark session
    (default 50,000; Spark's own is 10,000): Spark's batches reach ADBC forwarded at that size,
    for a trusted and a strict caller alike, with the in-process answer. A caller whose policy
    lets a plan set conf changes it for that plan only; a strict caller's plan may not set it
    (refused, located); ``--batch-rows 0`` leaves Spark's setting; a negative count is a usage
    error, no traceback."""
    if importlib.util.find_spec("adbc_driver_flightsql") is None:
        pytest.skip("adbc-driver-flightsql (the test extra)")
    import adbc_driver_manager

    from connect_plan.flightsql import BATCH_ROWS_KEY, DEFAULT_BATCH_ROWS

    large, bounded = _ranged(250_000), _ranged(100_000)  # the strict policy's max_rows: 100,000
    with connect_plan.Client(spark_url) as client:
        expected = {250_000: client.execute(large), 100_000: client.execute(bounded)}

    def sizes(cur: Any, doc: Any) -> list[int]:
        """The rows of each batch ADBC reads of ``doc``, whose answer is the in-process one."""
        cur.execute(json.dumps(doc))
        got = list(cur.fetch_record_batch())
        table = pa.Table.from_batches(got)
        assert table.equals(expected[table.num_rows])
        return [b.num_rows for b in got]

    with ServeProcess(spark_url, "--tokens", str(write_tokens(tmp_path))) as s:
        with adbc(s.url, ALICE) as con, con.cursor() as cur:
            assert sizes(cur, large) == [50_000] * 5 and DEFAULT_BATCH_ROWS == 50_000
            cur.execute(f"SET {BATCH_ROWS_KEY}")  # the session's own value, as Spark has it
            assert cur.fetch_arrow_table().to_pylist() == [{"key": BATCH_ROWS_KEY, "value": "50000"}]
            # a trusted caller's plan sets it for that plan only
            assert sizes(cur, {**large, "conf": {BATCH_ROWS_KEY: "70000"}}) == [70_000] * 3 + [40_000]
            assert sizes(cur, large) == [50_000] * 5
        with adbc(s.url, STRANGER) as con, con.cursor() as cur:
            assert sizes(cur, bounded) == [50_000] * 2
            with pytest.raises(adbc_driver_manager.Error) as e:  # strict: no conf
                sizes(cur, {**bounded, "conf": {BATCH_ROWS_KEY: "7000"}})
            assert f"/conf/{BATCH_ROWS_KEY}" in str(e.value) and "policy_conf" in str(e.value)
    with ServeProcess(spark_url, "--policy", "trusted", "--batch-rows", "0") as s:
        with adbc(s.url) as con, con.cursor() as cur:
            assert sizes(cur, large) == [10_000] * 25  # Spark's default
    bad = subprocess.run(
        [*entry_point(), "serve", "--batch-rows", "-5", "--remote", spark_url],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode != 0 and "--batch-rows is a number of rows" in bad.stderr
    assert "Traceback" not in bad.stderr
