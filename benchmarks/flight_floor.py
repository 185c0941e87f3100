"""The floor under Flight SQL's extra latency (issue 33): a Python ``pyarrow.flight`` server
that answers every GetFlightInfo with one endpoint and every DoGet with the same 3-row table,
touching no Spark. A client's GetFlightInfo + DoGet against it is what one more Python Flight
hop costs by itself (two gRPC calls, Arrow IPC framing, pyarrow.flight's dispatch into Python):
``connect-plan serve`` cannot add less than this over connect_plan called in-process.

``python -m benchmarks.flight_floor`` prints ``serving grpc://127.0.0.1:PORT`` and serves until
SIGTERM (:func:`benchmarks.flight_sql.serving` starts it as it starts ``connect-plan serve``).
"""

from __future__ import annotations

import signal
import sys
from typing import Any

import pyarrow as pa
import pyarrow.flight as fl

TABLE = pa.table({"id": pa.array([1, 2, 3], pa.int64()), "name": ["a", "b", "c"], "amount": [1.5, 2.5, 3.5]})


class Constant(fl.FlightServerBase):  # type: ignore[misc]
    def get_flight_info(self, context: Any, descriptor: fl.FlightDescriptor) -> fl.FlightInfo:
        endpoint = fl.FlightEndpoint(b"t", [])
        return fl.FlightInfo(TABLE.schema, descriptor, [endpoint], TABLE.num_rows, -1)

    def do_get(self, context: Any, ticket: fl.Ticket) -> fl.RecordBatchStream:
        return fl.RecordBatchStream(TABLE)


def main() -> None:
    server = Constant("grpc://127.0.0.1:0")
    signal.signal(signal.SIGTERM, lambda *_: server.shutdown())
    print(f"serving grpc://127.0.0.1:{server.port}", flush=True)
    server.serve()
    sys.exit(0)


if __name__ == "__main__":
    main()
