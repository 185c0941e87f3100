"""Issue 14 item 5: every bare gRPC status a server can answer becomes a sentence naming what
was reached, what it answered and what to check, never a raw gRPC object."""

from __future__ import annotations

import pytest

from connect_plan.call_failures import RpcFailure, classify
from connect_plan.client.failures import server_error

URL = "sc://spark.example:443/;token=secret"

RAW = (
    "<_MultiThreadedRendezvous of RPC that terminated with:\n\tstatus = StatusCode.{status}\n"
    '\tdetails = "{details}"\n\tdebug_error_string = "{status}:{details}"\n>'
)

STATUSES = [
    "UNIMPLEMENTED",
    "NOT_FOUND",
    "PERMISSION_DENIED",
    "RESOURCE_EXHAUSTED",
    "INTERNAL",
    "UNKNOWN",
    "CANCELLED",
    "INVALID_ARGUMENT",
    "FAILED_PRECONDITION",
    "ABORTED",
    "DATA_LOSS",
    "OUT_OF_RANGE",
    "ALREADY_EXISTS",
]


@pytest.mark.parametrize("status", STATUSES)
@pytest.mark.parametrize("kind", ["status", "server"])
def test_bare_statuses_read_as_sentences(status: str, kind: str) -> None:
    raw = RAW.format(status=status, details="boom")
    failure = (
        RpcFailure("status", "boom", status=status)
        if kind == "status"
        else RpcFailure("server", raw, status=None, message=raw, texts=(raw,))
    )
    err = server_error(classify(failure), URL)
    text = str(err)
    assert "Rendezvous" not in text and "StatusCode" not in text and "secret" not in text
    assert text.startswith("the ") and "sc://spark.example:443" in text and "boom" in text
    assert err.grpc_status == status


def test_an_http_server_answering_404_is_named_as_not_spark_connect() -> None:
    raw = RAW.format(status="UNIMPLEMENTED", details="Received http2 header with status: 404")
    err = server_error(classify(RpcFailure("server", raw, message=raw, texts=(raw,))), URL)
    assert str(err).startswith("the server at sc://spark.example:443/;token=*** is not a Spark Connect server")
    assert "HTTP status 404" in str(err) and "proxy" in str(err)
