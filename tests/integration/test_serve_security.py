"""``connect-plan serve`` against callers it should not trust, counting what reaches Spark at the
transport (a recording proxy between the server and Spark): a missing or wrong token, a strict
caller reaching for what its policy forbids through every statement and metadata call, two
callers' sessions, and hostile request bytes. The server is the installed entry point in a
subprocess; after all of it, it still serves, and its log holds no token.
"""

from __future__ import annotations

import json
import secrets
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.flight as fl
import pytest

from tests.support.processes import no_traceback
from tests.support.proxies import GrpcTlsProxy, proxy_in_front_of
from tests.support.serving import (
    ALICE,
    BOB,
    STRANGER,
    TOKENS,
    ServeProcess,
    adbc,
    command,
    options,
    read_all,
    spark_calls,
    wait_until,
    write_tokens,
)

pytest.importorskip("adbc_driver_flightsql", reason="the ADBC Flight SQL driver is a client under test")

ROOT = Path(__file__).resolve().parents[2]
SERVICE = "/arrow.flight.protocol.FlightService"
Q01 = ROOT / "tests" / "data" / "substrait" / "tpch" / "datafusion" / "q01.json"


@pytest.fixture(scope="module")
def proxy(spark_url: str) -> Iterator[GrpcTlsProxy]:
    yield from proxy_in_front_of(spark_url)


@pytest.fixture(scope="module")
def server(proxy: GrpcTlsProxy, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    tokens = write_tokens(tmp_path_factory.mktemp("serve-security"))
    # a Substrait plan's table name mapped to files the strict caller may not read
    with ServeProcess(
        f"sc://127.0.0.1:{proxy.port}", "--tokens", str(tokens), "--table=lineitem=/etc/lineitem.csv", "-vv"
    ) as s:
        yield s
        assert s.process.poll() is None, s.stderr
    log = s.stderr
    for token in TOKENS:
        assert token not in log, "a token is in the server's log"
    assert "Traceback" not in log, log[-3000:]


@pytest.fixture(scope="module")
def secret(spark: Any) -> Iterator[str]:
    spark.sql("CREATE DATABASE IF NOT EXISTS serve_sec")
    spark.sql("CREATE TABLE IF NOT EXISTS serve_sec.secret (s STRING) USING parquet")
    yield "serve_sec.secret"
    spark.sql("DROP TABLE IF EXISTS serve_sec.secret")


def _substrait(table: str | None = None) -> bytes:
    """DataFusion's TPC-H q1 as binary Substrait, reading ``lineitem`` or ``table``."""
    import re

    from connect_plan.formats.substrait.proto import parse_substrait

    text = Q01.read_text()
    if table is not None:
        text, n = re.subn(r'"names":\s*\["lineitem"\]', json.dumps({"names": table.split(".")})[1:-1], text)
        assert n == 1
    return bytes(parse_substrait(text).SerializeToString())


def _raw(url: str, method: str, request: bytes, token: str | None, *, streaming: bool) -> tuple[str, str]:
    """One raw gRPC call of the Flight service (any bytes as the request): (status name, details)."""
    import grpc

    channel = grpc.insecure_channel(url.split("://", 1)[1], options=[("grpc.max_send_message_length", -1)])
    metadata = [("authorization", f"Bearer {token}")] if token else []
    try:
        if streaming:
            list(channel.unary_stream(f"{SERVICE}/{method}")(request, metadata=metadata, timeout=60))
        else:
            channel.unary_unary(f"{SERVICE}/{method}")(request, metadata=metadata, timeout=60)
        return "OK", ""
    except grpc.RpcError as e:
        return e.code().name, e.details() or ""
    finally:
        channel.close()


def _descriptor(cmd: bytes, *, path: bool = False) -> bytes:
    from connect_plan.flightsql.messages import FLIGHT, message

    d = message(f"{FLIGHT}.FlightDescriptor")()
    if path:
        d.type = d.DescriptorType.Value("PATH")
        d.path.append("x")
    else:
        d.type = d.DescriptorType.Value("CMD")
        d.cmd = cmd
    return bytes(d.SerializeToString())


def _action(kind: str, body: bytes) -> bytes:
    from connect_plan.flightsql.messages import FLIGHT, message

    return bytes(message(f"{FLIGHT}.Action")(type=kind, body=body).SerializeToString())


def _fetch(conn: Any, statement: str | bytes) -> pa.Table:
    with conn.cursor() as cur:
        cur.execute(statement)
        return cur.fetch_arrow_table()


def _query(text: str) -> bytes:
    return command("CommandStatementQuery", query=text)


# ---------------------------------------------------------------------------- tokens


@pytest.mark.parametrize("token", [None, "wrong-token-0123456789", ALICE[:-1] + "X", ALICE + "X", ""])
def test_a_missing_or_wrong_token_is_refused_with_nothing_sent(
    server: ServeProcess, proxy: GrpcTlsProxy, token: str | None
) -> None:
    wait_until(proxy.settled, 30, "earlier executions to be released")  # (released in the background)
    before = len(proxy.calls)
    calls = [
        ("GetFlightInfo", _descriptor(_query("SELECT 1")), False),
        ("GetSchema", _descriptor(_query("SELECT 1")), False),
        ("GetFlightInfo", _descriptor(command("CommandGetTables")), False),
        ("DoGet", b"\x0a\x02hi", True),
        (
            "DoAction",
            _action("CreatePreparedStatement", command("ActionCreatePreparedStatementRequest", query="SELECT 1")),
            True,
        ),
        ("ListActions", b"", True),
        ("ListFlights", b"", True),
    ]
    for method, request, streaming in calls:
        code, details = _raw(server.url, method, request, token, streaming=streaming)
        assert code == "UNAUTHENTICATED", (method, code, details)
        assert token is None or not token or token not in details
    with pytest.raises(Exception, match="UNAUTHENTICATED"), adbc(server.url, token) as conn:
        _fetch(conn, "SELECT 1")
    assert spark_calls(proxy, before) == []


# ---------------------------------------------------------------------------- a strict caller


def test_a_strict_caller_cannot_read_a_forbidden_table_path_or_conf(
    server: ServeProcess, proxy: GrpcTlsProxy, secret: str
) -> None:
    """Through every statement form (GetFlightInfo, GetSchema, both prepared forms): refused with
    PERMISSION_DENIED naming the rule, nothing sent to Spark."""
    from connect_plan.flightsql.messages import SQL, message, pack

    statements = {
        "SQL text": ("query", f"SELECT * FROM {secret}", "sql"),
        "a table": ("query", json.dumps({"input": {"table": secret}, "plan": []}), "tables"),
        "a table, other spelling": (
            "query",
            json.dumps({"input": {"table": "SPARK_CATALOG.Serve_Sec.`secret`"}, "plan": []}),
            "tables",
        ),
        "a path": (
            "query",
            json.dumps({"input": {"files": ["/etc/passwd"], "format": "text"}, "plan": []}),
            "path_schemes",
        ),
        "a conf": (
            "query",
            json.dumps({"conf": {"spark.sql.runSQLOnFiles": "true"}, "input": {"range": 1}, "plan": []}),
            "conf_keys",
        ),
        "a SQL source in a plan": (
            "query",
            json.dumps({"input": {"sql": f"SELECT * FROM {secret}"}, "plan": []}),
            "sql",
        ),
        "Substrait, a catalog table": ("substrait", _substrait(secret), "tables"),
        "Substrait, a --table name for files": ("substrait", _substrait(), "path_schemes"),
    }
    wait_until(proxy.settled, 30, "earlier executions to be released")  # (released in the background)
    before = len(proxy.calls)
    for what, (kind, payload, rule) in statements.items():
        if kind == "query":
            cmd = _query(str(payload))
            prepared = _action(
                "CreatePreparedStatement", command("ActionCreatePreparedStatementRequest", query=str(payload))
            )
        else:
            statement = message(f"{SQL}.CommandStatementSubstraitPlan")()
            statement.plan.plan = payload
            cmd = pack(statement)
            req = message(f"{SQL}.ActionCreatePreparedSubstraitPlanRequest")()
            req.plan.plan = payload
            prepared = _action("CreatePreparedSubstraitPlan", pack(req))
        for method, request, streaming in (
            ("GetFlightInfo", _descriptor(cmd), False),
            ("GetSchema", _descriptor(cmd), False),
            ("DoAction", prepared, True),
        ):
            code, details = _raw(server.url, method, request, STRANGER, streaming=streaming)
            assert code == "PERMISSION_DENIED", (what, method, code, details)
            assert f"(rule: {rule})" in details, (what, details)
    with adbc(server.url, STRANGER) as conn:
        with pytest.raises(Exception, match=r"(?s)UNAUTHORIZED.*rule: sql.*PermissionDenied"):
            _fetch(conn, f"SELECT * FROM {secret}")
        objects = conn.adbc_get_objects().read_all().to_pylist()
        with pytest.raises(Exception):  # noqa: B017 - the driver's "not found" for a table it was not shown
            conn.adbc_get_table_schema("secret", db_schema_filter="serve_sec")
    # no database or table of Spark's, no --table name it may not read (the driver lists one
    # unnamed catalog of its own when the server lists none)
    assert all(not c["catalog_db_schemas"] for c in objects) and {c["catalog_name"] for c in objects} <= {""}, objects
    for cmd in (
        command("CommandGetCatalogs"),
        command("CommandGetDbSchemas"),
        command("CommandGetTables", include_schema=True),
    ):
        _, table = read_all(server.url, STRANGER, cmd)
        assert table.num_rows == 0
    assert spark_calls(proxy, before) == []


def test_a_trusted_caller_sees_what_the_strict_one_does_not(server: ServeProcess, secret: str) -> None:
    """The same calls as a trusted caller: the table is listed and read (the refusals above are
    the policy's, not a server that cannot do it)."""
    _, tables = read_all(server.url, ALICE, command("CommandGetTables", db_schema_filter_pattern="serve\\_sec"))
    assert ("serve_sec", "secret") in {(r["db_schema_name"], r["table_name"]) for r in tables.to_pylist()}
    _, rows = read_all(server.url, ALICE, _query(f"SELECT * FROM {secret}"))
    assert rows.column_names == ["s"]


# ---------------------------------------------------------------------------- two callers


def _sessions(proxy: GrpcTlsProxy, since: int) -> dict[str, set[str]]:
    """Spark session ids by user id, from the unary requests the proxy recorded."""
    from connect_plan.spark_proto import pb

    out: dict[str, set[str]] = {}
    for method, raw in proxy.requests[since:]:
        if method.endswith(("/AnalyzePlan", "/Config")):
            cls = pb.AnalyzePlanRequest if method.endswith("AnalyzePlan") else pb.ConfigRequest
            req = cls.FromString(raw)
            out.setdefault(req.user_context.user_id, set()).add(req.session_id)
    return out


def test_two_callers_temp_views_and_conf_do_not_leak(server: ServeProcess, proxy: GrpcTlsProxy) -> None:
    since = len(proxy.requests)
    view = "leak_" + secrets.token_hex(4)
    make_view = {
        "input": {"sql": "SELECT 'alice' AS who"},
        "plan": [{"op": "createOrReplaceTempView", "payload": {"name": view}}],
    }
    with adbc(server.url, ALICE) as a, adbc(server.url, BOB) as b:
        _fetch(a, json.dumps(make_view))
        assert _fetch(a, f"SELECT * FROM {view}").to_pylist() == [{"who": "alice"}]
        with pytest.raises(Exception, match="TABLE_OR_VIEW_NOT_FOUND"):
            _fetch(b, f"SELECT * FROM {view}")
        listed = json.dumps(b.adbc_get_objects().read_all().to_pylist())
        assert view not in listed
        assert view in json.dumps(a.adbc_get_objects().read_all().to_pylist())
        # a conf one caller's plan sets while it runs is not the other's
        tz = "SELECT current_timezone() AS tz"
        default = _fetch(b, tz).column(0)[0].as_py()
        slow = {
            "conf": {"spark.sql.session.timeZone": "Asia/Tokyo"},
            "input": {"sql": "SELECT current_timezone() AS tz, count(*) AS n FROM range(30000000)"},
            "plan": [],
        }
        seen: list[str] = []
        done = threading.Event()

        def watch() -> None:
            with adbc(server.url, BOB) as watcher:
                while not done.is_set():
                    seen.append(_fetch(watcher, tz).column(0)[0].as_py())

        t = threading.Thread(target=watch)
        t.start()
        try:
            got = _fetch(a, json.dumps(slow)).to_pylist()
        finally:
            done.set()
            t.join(60)
        assert got[0]["tz"] == "Asia/Tokyo" and default != "Asia/Tokyo"
        assert seen and set(seen) == {default}, seen
    sessions = _sessions(proxy, since)
    alice, bob = sessions["connect-plan-serve:alice"], sessions["connect-plan-serve:bob"]
    assert len(alice) == len(bob) == 1 and alice != bob  # one Spark session each: UDFs and all


# ---------------------------------------------------------------------------- hostile bytes


def test_hostile_requests_get_clear_errors_and_the_server_keeps_serving(
    server: ServeProcess, proxy: GrpcTlsProxy
) -> None:
    from connect_plan.flightsql.messages import FLIGHT, SQL, message, pack

    def substrait(plan: bytes) -> bytes:
        m = message(f"{SQL}.CommandStatementSubstraitPlan")()
        m.plan.plan = plan
        return _descriptor(pack(m))

    from google.protobuf import any_pb2

    alien = any_pb2.Any(type_url="type.googleapis.com/evil.Message", value=b"x").SerializeToString()
    broken = any_pb2.Any(
        type_url=f"type.googleapis.com/{SQL}.CommandStatementQuery", value=b"\xff\xff"
    ).SerializeToString()
    ticket = message(f"{FLIGHT}.Ticket")
    cases: list[tuple[str, str, bytes, bool, set[str]]] = [
        ("descriptor bytes", "GetFlightInfo", b"\xff\xfe\xfd", False, {"INVALID_ARGUMENT"}),
        ("a path descriptor", "GetFlightInfo", _descriptor(b"", path=True), False, {"INVALID_ARGUMENT"}),
        ("random command bytes", "GetFlightInfo", _descriptor(secrets.token_bytes(64)), False, {"INVALID_ARGUMENT"}),
        ("an unknown command", "GetSchema", _descriptor(alien), False, {"INVALID_ARGUMENT"}),
        ("a command that does not parse", "GetFlightInfo", _descriptor(broken), False, {"INVALID_ARGUMENT"}),
        ("garbage Substrait", "GetFlightInfo", substrait(b"\x08\x96\x01garbage" * 10), False, {"INVALID_ARGUMENT"}),
        ("random Substrait", "GetSchema", substrait(secrets.token_bytes(4096)), False, {"INVALID_ARGUMENT"}),
        ("empty Substrait", "GetFlightInfo", substrait(b""), False, {"INVALID_ARGUMENT"}),
        (
            "truncated JSON",
            "GetFlightInfo",
            _descriptor(_query('{"input": {"range": 3}, "plan": [')),
            False,
            {"INVALID_ARGUMENT"},
        ),
        ("deep JSON", "GetFlightInfo", _descriptor(_query("[" * 100_000 + "]" * 100_000)), False, {"INVALID_ARGUMENT"}),
        (
            "a bad op",
            "GetFlightInfo",
            _descriptor(_query('{"input": {"range": 3}, "plan": [{"op": "nope"}, {"op": 3}]}')),
            False,
            {"INVALID_ARGUMENT"},
        ),
        (
            "an update",
            "GetFlightInfo",
            _descriptor(command("CommandStatementUpdate", query="DROP TABLE x")),
            False,
            {"UNIMPLEMENTED"},
        ),
        (
            "a transaction",
            "GetFlightInfo",
            _descriptor(command("CommandStatementQuery", query="SELECT 1", transaction_id=b"t")),
            False,
            {"UNIMPLEMENTED"},
        ),
        ("ticket bytes", "DoGet", b"\xff\x00\xff", True, {"INVALID_ARGUMENT"}),
        ("a ticket of no command", "DoGet", ticket(ticket=b"junk").SerializeToString(), True, {"INVALID_ARGUMENT"}),
        (
            "an unknown ticket",
            "DoGet",
            ticket(ticket=command("TicketStatementQuery", statement_handle=b"0" * 16)).SerializeToString(),
            True,
            {"NOT_FOUND"},
        ),
        ("an unknown action", "DoAction", _action("DropEverything", b""), True, {"UNIMPLEMENTED"}),
        ("an action body", "DoAction", _action("CreatePreparedStatement", b"\xff\xff"), True, {"INVALID_ARGUMENT"}),
        ("a cancel body", "DoAction", _action("CancelFlightInfo", b"\xff\xff\x01"), True, {"INVALID_ARGUMENT"}),
        ("a poll", "PollFlightInfo", _descriptor(_query("SELECT 1")), False, {"UNIMPLEMENTED"}),
        (
            "an oversized request",
            "GetFlightInfo",
            _descriptor(_query("x" * (65 * 1024 * 1024))),
            False,
            {"RESOURCE_EXHAUSTED"},
        ),
    ]
    wait_until(proxy.settled, 30, "earlier executions to be released")  # (released in the background)
    before = len(proxy.calls)
    for what, method, request, streaming, codes in cases:
        code, details = _raw(server.url, method, request, ALICE, streaming=streaming)
        assert code in codes, (what, code, details[:500])
        assert "Traceback" not in details and 'File "' not in details, (what, details)
        assert details.strip(), what
    assert spark_calls(proxy, before) == []  # every one refused before Spark
    put = fl.connect(server.url)
    with pytest.raises(pa.ArrowNotImplementedError, match="takes no data"):  # UNIMPLEMENTED
        writer, _ = put.do_put(
            fl.FlightDescriptor.for_command(_query("SELECT 1")), pa.schema([("a", pa.int64())]), options(ALICE)
        )
        writer.write_table(pa.table({"a": [1]}))
        writer.close()
    put.close()
    _, table = read_all(server.url, ALICE, _query("SELECT 41 + 1 AS answer"))
    assert table.to_pylist() == [{"answer": 42}]
    no_traceback(_completed(server))


def _completed(s: ServeProcess) -> Any:
    import subprocess

    return subprocess.CompletedProcess(s.argv, 0, "", s.stderr)


def _non_loopback_ipv4() -> str | None:
    import subprocess

    try:
        out = subprocess.run(["hostname", "-I"], capture_output=True, text=True, timeout=10).stdout.split()
    except OSError:
        return None
    return next((a for a in out if a.count(".") == 3 and not a.startswith("127.")), None)


def test_plaintext_bearer_tokens_off_loopback_need_allow_plaintext_bearer(spark_url: str, tmp_path: Path) -> None:
    """Through the installed entry point: a tokens file on a plain grpc:// address that is not
    loopback is refused, naming ``--allow-plaintext-bearer`` (the Flight side's flag, distinct
    from the Spark side's ``--allow-insecure-token``); the flag's old spelling is refused naming
    the new one; with the flag the server starts there and serves a caller with a token."""
    from tests.support.processes import connect_plan as entry

    address = _non_loopback_ipv4()
    if address is None:
        pytest.skip("this machine has no non-loopback IPv4 address")
    tokens = str(write_tokens(tmp_path))
    listen = f"grpc://{address}:0"
    refused = entry("serve", "--listen", listen, "--tokens", tokens, "--remote", spark_url, timeout=120)
    assert refused.returncode != 0
    assert "plaintext" in refused.stderr and "--allow-plaintext-bearer" in refused.stderr, refused.stderr
    no_traceback(refused)
    old = entry(
        "serve", "--listen", listen, "--tokens", tokens, "--allow-insecure-tokens", "--remote", spark_url, timeout=120
    )
    assert old.returncode != 0
    assert "--allow-insecure-tokens is now --allow-plaintext-bearer" in old.stderr, old.stderr
    no_traceback(old)
    helped = entry("serve", "--help")
    assert "--allow-plaintext-bearer" in helped.stdout and "--allow-insecure-token " in helped.stdout
    assert "--allow-insecure-tokens" not in helped.stdout  # the old spelling is not offered
    with ServeProcess(spark_url, "--listen", listen, "--tokens", tokens, "--allow-plaintext-bearer") as server:
        assert server.url.startswith(f"grpc://{address}:")
        with adbc(server.url, ALICE) as conn, conn.cursor() as cur:
            cur.execute(json.dumps({"input": {"range": 3}, "plan": []}))
            assert cur.fetch_arrow_table().column("id").to_pylist() == [0, 1, 2]
