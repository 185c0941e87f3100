"""The floor under Flight SQL's throughput (issue 33): a *minimal forwarder*, the least a Python
Flight SQL server in front of Spark can do for a statement. GetFlightInfo answers a
``CommandStatementQuery`` with the result's schema and a ticket holding the query text (and
``CommandGetSqlInfo`` with connect-plan serve's own answer, which ADBC's driver reads when it
connects); DoGet runs the query (a JSON plan document, :func:`connect_plan.client.spark_batches`)
and forwards Spark's batches. No policy, no ticket bookkeeping, no cancellation, no checks
beyond those ``spark_batches`` makes for every client.

Two stacks, as a Python server can be built:

* ``--stack grpc``: grpcio's Python server, as ``connect-plan serve`` is built: each of Spark's
  Arrow IPC messages is framed as FlightData and yielded as it came (what serve's DoGet does
  after its checks);
* ``--stack pyarrow``: ``pyarrow.flight.FlightServerBase`` (Arrow's C++ gRPC server): DoGet
  returns a ``GeneratorStream`` of Spark's decoded batches, which Arrow's C++ writes to the wire.

``--source const``: no Spark behind it: every DoGet streams the same pre-made batches (the
same rows as the benchmark's query, read once from Spark, cut into ``--batch-rows`` batches as
Spark cuts them), so the hop's own cost shows apart from Spark's. ``--batch-rows``: Spark's
``spark.sql.execution.arrow.maxRecordsPerBatch`` for the forwarder's session (default 10,000,
Spark's own).

``python -m benchmarks.flight_forward --remote URL --stack grpc|pyarrow [--source spark|const] [--batch-rows N]``
prints ``serving grpc://127.0.0.1:PORT`` and serves until SIGTERM
(:func:`benchmarks.flight_sql.serving` starts it).
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from collections.abc import Iterator
from typing import Any

import pyarrow as pa

from connect_plan import Client
from connect_plan.client import spark_batches
from connect_plan.flightsql import BATCH_ROWS_KEY
from connect_plan.flightsql.catalog import sql_info
from connect_plan.flightsql.messages import FLIGHT, flight_data, ipc_schema, message, parse, unpack

_COMMANDS = frozenset({"CommandStatementQuery", "CommandGetSqlInfo"})
#: Spark's default spark.sql.execution.arrow.maxRecordsPerBatch
BATCH_ROWS = 10_000


class Forwarder:
    """The statement path shared by both stacks: a query text's schema, and its batches."""

    def __init__(self, remote: str, source: str, batch_rows: int) -> None:
        self.client = Client(remote, conf={BATCH_ROWS_KEY: str(batch_rows)})
        self.source = source
        self.batch_rows = batch_rows
        self._schemas: dict[bytes, pa.Schema] = {}
        self._const: dict[bytes, list[pa.RecordBatch]] = {}
        self._lock = threading.Lock()

    def info(self, cmd: bytes) -> tuple[pa.Schema, bytes]:
        """(schema, ticket) of a command."""
        name, command = unpack(cmd, _COMMANDS)
        if name == "CommandGetSqlInfo":
            return sql_info(None, command.info).schema, cmd
        query = command.query.encode()
        return self.schema(query), b"q" + query

    def schema(self, query: bytes) -> pa.Schema:
        with self._lock:
            known = self._schemas.get(query)
        if known is None:
            known = self.client.schema(json.loads(query))
            with self._lock:
                self._schemas[query] = known
        return known

    def batches(self, ticket: bytes) -> tuple[pa.Schema, Iterator[tuple[pa.RecordBatch, Any]]]:
        """The ticket's schema and its batches, each with Spark's IPC message (None: not Spark's)."""
        if not ticket.startswith(b"q"):
            table = sql_info(None, unpack(ticket, _COMMANDS)[1].info)
            return table.schema, ((b, None) for b in table.to_batches())
        query = ticket[1:]
        if self.source == "const":
            return self.schema(query), ((b, None) for b in self._made(query))
        result = spark_batches(self.client, json.loads(query))
        return result.schema, ((b.batch, b.message) for b in result)

    def _made(self, query: bytes) -> list[pa.RecordBatch]:
        """The query's rows, read once from Spark, as 10,000-row batches (``--source const``)."""
        with self._lock:
            made = self._const.get(query)
        if made is None:
            table = self.client.execute(json.loads(query))
            made = table.combine_chunks().to_batches(max_chunksize=self.batch_rows)
            with self._lock:
                self._const[query] = made
        return made


def pyarrow_server(forwarder: Forwarder) -> tuple[Any, int]:
    import pyarrow.flight as fl

    class Server(fl.FlightServerBase):  # type: ignore[misc]
        def get_flight_info(self, context: Any, descriptor: fl.FlightDescriptor) -> fl.FlightInfo:
            schema, ticket = forwarder.info(descriptor.command)
            return fl.FlightInfo(schema, descriptor, [fl.FlightEndpoint(ticket, [])], -1, -1)

        def do_get(self, context: Any, ticket: fl.Ticket) -> fl.FlightDataStream:
            schema, batches = forwarder.batches(ticket.ticket)
            return fl.GeneratorStream(schema, (b for b, _ in batches))

    server = Server("grpc://127.0.0.1:0")
    return server, server.port


def grpc_server(forwarder: Forwarder) -> tuple[Any, int]:
    from concurrent.futures import ThreadPoolExecutor

    import grpc

    def get_flight_info(request: bytes, context: Any) -> bytes:
        descriptor = parse(f"{FLIGHT}.FlightDescriptor", request)
        schema, ticket = forwarder.info(descriptor.cmd)
        info = message(f"{FLIGHT}.FlightInfo")(
            schema=ipc_schema(schema), flight_descriptor=descriptor, total_records=-1, total_bytes=-1
        )
        info.endpoint.add().ticket.ticket = ticket
        return bytes(info.SerializeToString())

    def do_get(request: bytes, context: Any) -> Iterator[bytes]:
        ticket = parse(f"{FLIGHT}.Ticket", request).ticket
        schema, batches = forwarder.batches(ticket)
        yield flight_data(pa.ipc.read_message(schema.serialize()).metadata)
        for batch, spark_message in batches:
            if spark_message is None:
                spark_message = pa.ipc.read_message(batch.serialize())
            yield flight_data(spark_message.metadata, spark_message.body)

    def raw(data: bytes) -> bytes:
        return data

    handler = grpc.method_handlers_generic_handler(
        "arrow.flight.protocol.FlightService",
        {
            "GetFlightInfo": grpc.unary_unary_rpc_method_handler(get_flight_info, raw, raw),
            "DoGet": grpc.unary_stream_rpc_method_handler(do_get, raw, raw),
        },
    )
    server = grpc.server(
        ThreadPoolExecutor(max_workers=8),
        handlers=[handler],
        options=[("grpc.max_send_message_length", -1), ("grpc.so_reuseport", 0)],
    )
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    return server, port


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.flight_forward")
    parser.add_argument("--remote", required=True)
    parser.add_argument("--stack", choices=("grpc", "pyarrow"), default="grpc")
    parser.add_argument("--source", choices=("spark", "const"), default="spark")
    parser.add_argument("--batch-rows", type=int, default=BATCH_ROWS, help="Spark's maxRecordsPerBatch, and const's")
    args = parser.parse_args()
    forwarder = Forwarder(args.remote, args.source, args.batch_rows)
    done = threading.Event()
    if args.stack == "pyarrow":
        server, port = pyarrow_server(forwarder)
        signal.signal(signal.SIGTERM, lambda *_: server.shutdown())
        print(f"serving grpc://127.0.0.1:{port}", flush=True)
        server.serve()
    else:
        server, port = grpc_server(forwarder)
        signal.signal(signal.SIGTERM, lambda *_: done.set())
        print(f"serving grpc://127.0.0.1:{port}", flush=True)
        done.wait()
        server.stop(1).wait()
    forwarder.client.close()
    sys.exit(0)


if __name__ == "__main__":
    main()
