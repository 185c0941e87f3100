"""The TLS path end to end: client → TLS (a certificate made by this test, trusted through
``ca_cert``) → a loopback TLS-terminating gRPC proxy that requires the bearer token → the
plaintext Spark Connect server. Queries, streams, uploads and errors all work through it;
a wrong token is refused."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import quote, urlparse

import pyarrow as pa
import pytest

import connect_plan
from connect_plan import ServerError
from tests.conftest import engine
from tests.support.proxies import Certificates, GrpcTlsProxy, make_certificates

TOKEN = "tls/Token+3c2b1a=="  # a made-up test secret, base64-like: '/', '+', '='


@pytest.fixture(scope="module")
def certs() -> Certificates:
    return make_certificates()


@pytest.fixture(scope="module")
def proxy(spark_url: str, certs: Certificates) -> Iterator[GrpcTlsProxy]:
    if not spark_url.startswith("sc://"):
        pytest.skip("needs a network Spark Connect server")
    target = urlparse("http" + spark_url[2:].split("/;")[0])
    p = GrpcTlsProxy(f"{target.hostname}:{target.port}", certs, token=TOKEN)
    yield p
    p.stop()


@pytest.fixture
def tls_client(proxy: GrpcTlsProxy, certs: Certificates) -> Iterator[Any]:
    with connect_plan.connect(
        f"sc://127.0.0.1:{proxy.port}", token=TOKEN, ca_cert=certs.ca_pem, headers={"x-tenant": "tests"}
    ) as c:
        yield c


def test_queries_run_over_tls_with_the_token(tls_client: Any, proxy: GrpcTlsProxy) -> None:
    before = len(proxy.calls)
    out = tls_client.execute(
        [{"op": "withColumn", "payload": {"name": "b", "expr": {"fn": "*", "args": [{"col": "a"}, {"lit": 2}]}}}],
        [[1], [2], [3]],
        [("a", "int")],
    )
    assert out.column("b").to_pylist() == [2, 4, 6]
    calls = proxy.calls[before:]
    assert any(m.endswith("/ExecutePlan") for m, _ in calls)
    assert all(md.get("authorization") == f"Bearer {TOKEN}" and md.get("x-tenant") == "tests" for _, md in calls)


def test_streams_and_large_inputs_over_tls(tls_client: Any) -> None:
    rows = [[i, f"row {i}"] for i in range(60_000)]  # ~1 MiB inline, or an artifact upload
    reader = tls_client.stream(
        [{"op": "orderBy", "payload": {"columns": ["a"]}}], rows, [("a", "bigint"), ("s", "string")]
    )
    table = pa.Table.from_batches(list(reader), reader.schema)
    assert table.column("a").to_pylist() == list(range(60_000))


def test_server_errors_come_through_whole(tls_client: Any) -> None:
    with pytest.raises(ServerError) as info:
        tls_client.execute({"input": {"sql": "SELECT 1 AS a"}, "plan": [{"op": "select", "payload": ["nope"]}]})
    assert info.value.error_class and info.value.error_class.startswith("UNRESOLVED_COLUMN")
    assert info.value.op_index == 0


def test_a_wrong_token_is_refused(proxy: GrpcTlsProxy, certs: Certificates) -> None:
    with connect_plan.connect(f"sc://127.0.0.1:{proxy.port}", token="bad-token-777", ca_cert=certs.ca_pem) as c:
        with pytest.raises(ServerError) as info:
            c.execute([], [[1]], [("a", "int")])
    assert info.value.grpc_status == "UNAUTHENTICATED"
    assert "refused the credentials" in str(info.value) and "bad-token-777" not in str(info.value)


def test_a_server_message_that_echoes_the_token_is_scrubbed_but_whole(proxy: GrpcTlsProxy, certs: Certificates) -> None:
    """Spark names the unknown column, which here is the token itself: the error is
    scrubbed of it (message, parameters, stack trace, and no cause that holds it), and
    keeps every other field: error class, SQLSTATE, PySpark's kind of error, the step."""
    url = f"sc://127.0.0.1:{proxy.port}/;token={quote(TOKEN, safe='')}"  # percent-encoded in the URL
    with connect_plan.connect(url, ca_cert=certs.ca_pem) as c:
        with pytest.raises(ServerError) as info:
            c.execute(
                {
                    "input": {"sql": "SELECT 1 AS a"},  # columns only the server knows: Spark names the column
                    "plan": [
                        {"op": "withColumn", "payload": {"name": "b", "expr": {"lit": 1}}},
                        {"op": "select", "payload": [TOKEN]},
                    ],
                },
            )
    err = info.value
    texts = [str(err), repr(err), err.message, str(err.server_stacktrace), *err.message_parameters.values()]
    cause: BaseException | None = err
    while cause is not None:
        texts.append(str(cause))
        cause = cause.__cause__ or cause.__context__
    assert not [t for t in texts if TOKEN in t or quote(TOKEN, safe="") in t]
    assert "***" in err.message and err.exception_type == "AnalysisException"
    assert (err.op_index, err.op_name) == (1, "select")
    if engine() == "spark":  # Sail sends no error class, SQLSTATE or parameters (tests/engines.py)
        assert "`***`" in err.message and err.message_parameters["objectName"] == "`***`"
        assert err.error_class == "UNRESOLVED_COLUMN.WITH_SUGGESTION" and err.sqlstate == "42703"


def test_the_debug_log_of_every_rpc_holds_no_token(tls_client: Any, caplog: pytest.LogCaptureFixture) -> None:
    import logging

    with caplog.at_level(logging.DEBUG, logger="connect_plan"):
        tls_client.execute([], [[1]], [("a", "int")])
        with pytest.raises(ServerError):
            tls_client.execute({"input": {"sql": "SELECT 1 AS a"}, "plan": [{"op": "select", "payload": ["nope"]}]})
    lines = [r.getMessage() for r in caplog.records if r.name == "connect_plan"]
    assert any(t.startswith("rpc ExecutePlan OK") for t in lines) and any(
        t.startswith("rpc AnalyzePlan") for t in lines
    )
    secret = TOKEN.split("+")[0]
    assert not any(secret in t or TOKEN in t for t in lines)
    assert not any(TOKEN in repr(r.args) for r in caplog.records)
