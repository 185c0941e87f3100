"""``connect-plan serve`` with real Flight SQL clients, against the suite's Spark server: the PyPI
``adbc-driver-flightsql`` (Arrow's Go driver) through its DB-API, ``pyarrow.flight``'s client, and
polars' ``read_database_uri(engine="adbc")``. The server is the installed entry point in a
subprocess, its Spark Connect calls going through a recording proxy, so that a test sees what
reached Spark. Answers are compared with ``connect-plan run`` of the same plan (the CLI, in a
subprocess) and, for TPC-H from DataFusion's Substrait, with Spark SQL's own answer.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests import substrait_producers as sp
from tests.support.processes import connect_plan as run_cli
from tests.support.processes import no_traceback
from tests.support.proxies import GrpcTlsProxy, proxy_in_front_of
from tests.support.serving import (
    ALICE,
    ServeProcess,
    adbc,
    command,
    read_all,
    spark_calls,
    wait_until,
    write_tokens,
)

pytest.importorskip("adbc_driver_flightsql", reason="the ADBC Flight SQL driver is the client under test")

ROOT = Path(__file__).resolve().parents[2]
TPCH_PLANS = ROOT / "tests" / "data" / "substrait" / "tpch" / "datafusion"
#: TPC-H queries run through ADBC here (a join of six tables, aggregates, a subquery, LIKE):
#: the whole corpus runs in-process in test_substrait_tpch.py
TPCH_QUERIES = (1, 3, 5, 13)

#: a JSON plan whose answer is known: squares of 0..4 as strings and numbers
JSON_PLAN = {
    "input": {"range": 5},
    "plan": [
        {
            "op": "withColumn",
            "payload": {"name": "sq", "expr": {"op": "mul", "left": {"col": "id"}, "right": {"col": "id"}}},
        },
        {"op": "withColumn", "payload": {"name": "s", "expr": {"fn": "concat", "args": [{"lit": "n"}, {"col": "id"}]}}},
    ],
}


@pytest.fixture(scope="module")
def proxy(spark_url: str) -> Iterator[GrpcTlsProxy]:
    yield from proxy_in_front_of(spark_url)


@pytest.fixture(scope="module")
def tpch(tmp_path_factory: pytest.TempPathFactory) -> sp.Tpch:
    pytest.importorskip("duckdb", reason="DuckDB makes the TPC-H data")
    return sp.make_tpch(tmp_path_factory.mktemp("serve-tpch"))


@pytest.fixture(scope="module")
def server(proxy: GrpcTlsProxy, tpch: sp.Tpch, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    tokens = write_tokens(tmp_path_factory.mktemp("serve"))
    tables = [f"--table={name}={path}" for name, path in tpch.files.items()]
    with ServeProcess(f"sc://127.0.0.1:{proxy.port}", "--tokens", str(tokens), *tables) as s:
        yield s
        assert s.process.poll() is None, s.stderr  # it served every test of the module
    no_traceback(_completed(s))


def _completed(s: ServeProcess) -> Any:
    import subprocess

    return subprocess.CompletedProcess(s.argv, s.process.returncode, "", s.stderr)


@pytest.fixture(scope="module")
def catalog_table(spark: Any) -> Iterator[str]:
    """A real table in a database of Spark's catalog (metadata calls list it)."""
    spark.sql("CREATE DATABASE IF NOT EXISTS serve_db")
    spark.sql("DROP TABLE IF EXISTS serve_db.people")
    spark.sql("CREATE TABLE serve_db.people (name STRING, age INT) USING parquet")
    spark.sql("INSERT INTO serve_db.people VALUES ('ann', 34), ('bo', 19)")
    yield "serve_db.people"
    spark.sql("DROP TABLE IF EXISTS serve_db.people")


def _run_cli(plan: Any, tmp_path: Path, spark_url: str, *args: str) -> pa.Table:
    """``connect-plan run`` of ``plan`` (a document, or Substrait bytes), its result as parquet."""
    source = tmp_path / ("plan.pb" if isinstance(plan, bytes) else "plan.json")
    if isinstance(plan, bytes):
        source.write_bytes(plan)
    else:
        source.write_text(json.dumps(plan))
    out = tmp_path / "out.parquet"
    done = run_cli("run", str(source), "--format", "parquet", "-o", str(out), *args, remote=spark_url)
    assert done.returncode == 0, done.stderr
    return pq.read_table(out)


def _same(a: pa.Table, b: pa.Table) -> None:
    assert a.column_names == b.column_names
    assert a.to_pylist() == b.to_pylist()


# ---------------------------------------------------------------------------- statements through ADBC


def test_sql_text_json_plan_text_and_substrait_bytes_give_connect_plan_runs_answers(
    server: ServeProcess, tpch: sp.Tpch, tmp_path: Path, spark_url: str
) -> None:
    q6 = sp_plan_bytes(6)
    with adbc(server.url, ALICE) as conn:
        cur = conn.cursor()
        cur.execute("SELECT id, id * 2 AS twice FROM range(4)")
        sql_answer = cur.fetch_arrow_table()
        cur.execute(json.dumps(JSON_PLAN))
        json_answer = cur.fetch_arrow_table()
        cur.execute(q6)  # bytes: a Substrait plan (CommandStatementSubstraitPlan)
        substrait_answer = cur.fetch_arrow_table()
        # polars over the same ADBC connection (the way to send a bearer token from polars)
        polars_answer = pytest.importorskip("polars").read_database(json.dumps(JSON_PLAN), conn)
    _same(
        sql_answer,
        _run_cli({"input": {"sql": "SELECT id, id * 2 AS twice FROM range(4)"}, "plan": []}, tmp_path, spark_url),
    )
    _same(json_answer, _run_cli(JSON_PLAN, tmp_path, spark_url))
    assert polars_answer.to_dicts() == json_answer.to_pylist()
    tables = [f"--table={name}={path}" for name, path in tpch.files.items()]
    _same(substrait_answer, _run_cli(q6, tmp_path, spark_url, *tables))
    assert json_answer.to_pylist()[4] == {"id": 4, "sq": 16, "s": "n4"}


def sp_plan_bytes(q: int) -> bytes:
    """DataFusion's recorded TPC-H plan ``q`` as binary protobuf (what ADBC sends)."""
    from connect_plan.formats.substrait.proto import parse_substrait

    return bytes(parse_substrait((TPCH_PLANS / f"q{q:02d}.json").read_text()).SerializeToString())


@pytest.mark.parametrize("q", TPCH_QUERIES)
def test_tpch_from_datafusions_substrait_through_adbc_gives_spark_sqls_answer(
    server: ServeProcess, tpch: sp.Tpch, spark: Any, q: int
) -> None:
    for name, path in tpch.files.items():
        spark.read.parquet(path).createOrReplaceTempView(name)
    with adbc(server.url, ALICE) as conn:
        cur = conn.cursor()
        cur.execute(sp_plan_bytes(q))
        ours = cur.fetch_arrow_table()
    sp.assert_same_answer(ours, spark.sql(tpch.queries[q]).toArrow())


def test_prepared_statements_describe_without_running_then_run(server: ServeProcess, proxy: GrpcTlsProxy) -> None:
    """``adbc_prepare`` (CreatePreparedStatement) and ``adbc_execute_schema`` (GetSchema) ask
    Spark's analysis only; executing the prepared statement twice runs it twice."""
    text = json.dumps(JSON_PLAN)
    with adbc(server.url, ALICE) as conn:
        cur = conn.cursor()
        conn.adbc_get_info()  # the session's first calls (version, settings) out of the way
        before = len(proxy.calls)
        cur.adbc_prepare(text)
        schema = cur.adbc_execute_schema(text)
        described = spark_calls(proxy, before)
        assert "ExecutePlan" not in described and "AnalyzePlan" in described, described
        assert [(f.name, f.type) for f in schema] == [("id", pa.int64()), ("sq", pa.int64()), ("s", pa.string())]
        first = cur.execute(text).fetch_arrow_table()
        second = cur.execute(text).fetch_arrow_table()
        assert spark_calls(proxy, before).count("ExecutePlan") == 2
    assert first.schema == schema and first.equals(second)


def test_a_substrait_prepared_statement_declares_the_schema_doget_streams(server: ServeProcess) -> None:
    """CreatePreparedSubstraitPlan: the result contract's declared schema is the schema announced
    and the schema of the stream (the driver compares them)."""
    import pyarrow.flight as fl

    from connect_plan.flightsql.messages import SQL, message, pack, unpack
    from tests.support.serving import flight, options

    plan = sp_plan_bytes(1)
    client = flight(server.url)
    req = message(f"{SQL}.ActionCreatePreparedSubstraitPlanRequest")()
    req.plan.plan = plan
    [result] = list(client.do_action(fl.Action("CreatePreparedSubstraitPlan", pack(req)), options(ALICE)))
    _, created = unpack(result.body.to_pybytes(), frozenset({"ActionCreatePreparedStatementResult"}))
    declared = pa.ipc.read_schema(pa.py_buffer(created.dataset_schema))
    info, table = read_all(
        server.url,
        ALICE,
        command("CommandPreparedStatementQuery", prepared_statement_handle=created.prepared_statement_handle),
    )
    assert info.schema == declared == table.schema
    assert table.num_rows == 4 and table.column_names[:2] == ["l_returnflag", "l_linestatus"]
    close = message(f"{SQL}.ActionClosePreparedStatementRequest")(
        prepared_statement_handle=created.prepared_statement_handle
    )
    assert list(client.do_action(fl.Action("ClosePreparedStatement", pack(close)), options(ALICE))) == []
    with pytest.raises(pa.ArrowKeyError, match="no such prepared statement"):  # NOT_FOUND
        read_all(
            server.url,
            ALICE,
            command("CommandPreparedStatementQuery", prepared_statement_handle=created.prepared_statement_handle),
        )
    client.close()


# ---------------------------------------------------------------------------- errors


def _error_details(err: Any) -> dict[str, str]:
    return {k.decode(): v.decode() for k, v in err.details or () if not k.startswith(b"grpc-")}


def test_errors_reach_adbc_as_statuses_keeping_sparks_error_class_and_every_located_problem(
    server: ServeProcess, proxy: GrpcTlsProxy
) -> None:
    """A Spark analysis error (GetFlightInfo), a Spark error met while the rows stream (DoGet)
    and a plan with two problems (nothing sent to Spark) each reach the ADBC client as a status
    of its kind, with Spark's error class and SQLSTATE (or connect_plan's codes) in the message
    and the error details; the connection goes on serving."""
    import adbc_driver_manager

    bad_plan = {
        "input": {"range": 3},
        "plan": [{"op": "select", "payload": {"columns": [{"col": 1}]}}, {"op": "no_such_op"}],
    }
    with adbc(server.url, ALICE) as conn, conn.cursor() as cur:
        with pytest.raises(adbc_driver_manager.ProgrammingError) as analysis:
            cur.execute("SELECT * FROM serve_no_such_table")
        with pytest.raises(adbc_driver_manager.ProgrammingError) as running:
            cur.execute("SELECT id, 1 / (id - 70000) AS x FROM range(100000)")  # ANSI: DIVIDE_BY_ZERO at row 70000
            cur.fetch_arrow_table()
        # the failed execution's ReleaseExecute goes out in the background: let it land first
        # (CI once saw it arrive during the next statement and counted it as sent by that one)
        wait_until(proxy.settled, 30, "every execution to be released")
        before = len(proxy.calls)
        with pytest.raises(adbc_driver_manager.ProgrammingError) as plan:
            cur.execute(json.dumps(bad_plan))
        assert spark_calls(proxy, before) == []  # refused before anything was sent
        cur.execute("SELECT 1 AS one")
        assert cur.fetch_arrow_table().to_pylist() == [{"one": 1}]
    for err, error_class, sqlstate in (
        (analysis.value, "TABLE_OR_VIEW_NOT_FOUND", "42P01"),
        (running.value, "DIVIDE_BY_ZERO", "22012"),
    ):
        assert str(err).startswith("INVALID_ARGUMENT:") and error_class in str(err) and sqlstate in str(err), err
        details = _error_details(err)
        assert details["spark-error-class"] == error_class and details["spark-sqlstate"] == sqlstate, details
        assert "Traceback" not in str(err) and 'File "' not in str(err)
    message = str(plan.value)
    assert message.startswith("INVALID_ARGUMENT:") and "2 problems" in message, message
    assert "/plan/0/payload/columns/0/col" in message and "/plan/1/op" in message, message
    assert _error_details(plan.value) == {"connect-plan-codes": "column_name,unknown_op"}


def test_a_callers_policy_bounds_its_results_and_its_time(proxy: GrpcTlsProxy, tmp_path: Path) -> None:
    """A caller whose policy file sets ``max_rows`` and ``timeout``: its results stop at
    ``max_rows`` (a limit on top of the plan), and a query that outlasts ``timeout`` ends
    DEADLINE_EXCEEDED, its Spark execution interrupted; another caller's are not bounded."""
    import adbc_driver_manager

    (tmp_path / "bounded.json").write_text(json.dumps({"extends": "trusted", "max_rows": 10, "timeout": 3}))
    tokens = write_tokens(
        tmp_path,
        {
            "bounded-token-0123456789": {"policy": "bounded.json", "name": "bounded"},
            "free-token-0123456789abc": {"policy": "trusted", "name": "free"},
        },
    )
    plan = json.dumps({"input": {"range": 1000}, "plan": []})
    # 10^12 pairs, and a count that cannot overflow (a sum of products did, on a fast server)
    endless = "SELECT count(*) AS n FROM range(1000000) a CROSS JOIN range(1000000) b WHERE (a.id + b.id) % 7 = 3"
    with ServeProcess(f"sc://127.0.0.1:{proxy.port}", "--tokens", str(tokens)) as s:
        with adbc(s.url, "free-token-0123456789abc") as conn, conn.cursor() as cur:
            cur.execute(plan)
            assert cur.fetch_arrow_table().num_rows == 1000
        with adbc(s.url, "bounded-token-0123456789") as conn, conn.cursor() as cur:
            cur.execute(plan)
            assert cur.fetch_arrow_table().column("id").to_pylist() == list(range(10))
            started = time.monotonic()
            with pytest.raises(adbc_driver_manager.Error) as info:
                cur.execute(endless)
                cur.fetch_arrow_table()
            took = time.monotonic() - started
        assert info.value.vendor_code == 4 and "(DeadlineExceeded;" in str(info.value), info.value  # gRPC's code
        assert "interrupted" in str(info.value), info.value
        assert 3 <= took < 20, took
        assert s.process.poll() is None
    no_traceback(_completed(s))


# ---------------------------------------------------------------------------- metadata


def test_sql_info_has_flight_sqls_exact_schema(server: ServeProcess) -> None:
    from connect_plan.flightsql.messages import schemas

    info, table = read_all(server.url, ALICE, command("CommandGetSqlInfo"))
    assert info.schema == schemas()["CommandGetSqlInfo"] == table.schema
    values = {row["info_name"]: row["value"] for row in table.to_pylist()}
    assert values[0] == "connect_plan serve (Spark Connect)" and values[4] is True and values[5] is True


def test_get_objects_and_table_schema_list_spark_tables_and_table_names(
    server: ServeProcess, catalog_table: str, tpch: sp.Tpch
) -> None:
    with adbc(server.url, ALICE) as conn:
        objects = conn.adbc_get_objects().read_all().to_pylist()
        people = conn.adbc_get_table_schema("people", db_schema_filter="serve_db", catalog_filter="spark_catalog")
        lineitem = conn.adbc_get_table_schema("lineitem")
        types = conn.adbc_get_table_types()
    listed = {
        (c["catalog_name"], s["db_schema_name"], t["table_name"], t["table_type"])
        for c in objects
        for s in c["catalog_db_schemas"] or []
        for t in s["db_schema_tables"] or []
    }
    assert ("spark_catalog", "serve_db", "people", "TABLE") in listed
    assert people == pa.schema([("name", pa.string()), ("age", pa.int32())])
    assert "l_orderkey" in lineitem.names
    assert types == ["TABLE", "VIEW"]


# ---------------------------------------------------------------------------- other clients


def test_tls_with_pyarrow_flight_and_polars_read_database_uri(spark_url: str, tmp_path: Path) -> None:
    """``--listen grpc+tls://`` with ``--tls-cert``/``--tls-key``: pyarrow.flight's client and
    polars' ``read_database_uri(engine="adbc")`` give ``connect-plan run``'s answer. polars reads
    ``flightsql://HOST:PORT`` as TLS and passes no options (no headers, no root certificate):
    the server has no tokens file (one anonymous trusted caller), and polars runs in a process of
    its own whose Go runtime trusts the test CA through ``SSL_CERT_FILE``."""
    import subprocess
    import sys

    import pyarrow.flight as fl

    from tests.support.proxies import make_certificates

    pytest.importorskip("polars")
    certs = make_certificates()
    for name, pem in (("ca.pem", certs.ca_pem), ("cert.pem", certs.cert_pem), ("key.pem", certs.key_pem)):
        (tmp_path / name).write_bytes(pem)
    expected = _run_cli(JSON_PLAN, tmp_path, spark_url)
    tls = [
        "--listen",
        "grpc+tls://127.0.0.1:0",
        "--tls-cert",
        str(tmp_path / "cert.pem"),
        "--tls-key",
        str(tmp_path / "key.pem"),
    ]
    with ServeProcess(spark_url, *tls, "--policy", "trusted") as s:
        assert s.url.startswith("grpc+tls://127.0.0.1:")
        client = fl.connect(s.url, tls_root_certs=certs.ca_pem)
        descriptor = fl.FlightDescriptor.for_command(command("CommandStatementQuery", query=json.dumps(JSON_PLAN)))
        info = client.get_flight_info(descriptor)
        table = client.do_get(info.endpoints[0].ticket).read_all()
        client.close()
        script = (
            "import json, sys, warnings\n"
            "warnings.simplefilter('ignore')  # the driver cannot turn autocommit off\n"
            "import polars\n"
            "frame = polars.read_database_uri(sys.argv[1], sys.argv[2], engine='adbc')\n"
            "print(json.dumps(frame.to_dicts()))\n"
        )
        uri = "flightsql://" + s.url.split("://", 1)[1]
        done = subprocess.run(
            [sys.executable, "-c", script, json.dumps(JSON_PLAN), uri],
            capture_output=True,
            text=True,
            timeout=120,
            env={**__import__("os").environ, "SSL_CERT_FILE": str(tmp_path / "ca.pem")},
        )
        assert done.returncode == 0, done.stderr[-2000:]
    assert info.schema == table.schema
    _same(table, expected)
    assert json.loads(done.stdout) == expected.to_pylist()
    no_traceback(_completed(s))


# ---------------------------------------------------------------------------- cost to other users

#: the connect-plan process (cli.entry, as the console script runs it), reporting at exit the
#: modules of connect_plan.flightsql and gRPC's server it loaded
_REPORTING_ENTRY = """
import atexit, json, sys
from connect_plan.cli import process as cli


def report():
    names = sorted(m for m in sys.modules if m.split(".")[:2] == ["connect_plan", "flightsql"] or m == "grpc._server")
    print("LOADED " + json.dumps(names), file=sys.stderr)


run = cli.main


def main(*args, **kwargs):
    atexit.register(report)  # after entry()'s own last handler, so before it (they run last first)
    return run(*args, **kwargs)


cli.main = main
sys.argv[0] = "connect-plan"
cli.entry()
"""


def test_connect_plan_run_loads_nothing_of_serve(spark_url: str, tmp_path: Path) -> None:
    """``serve`` adds no import to ``connect-plan run``'s cold start: a run loads no module of
    connect_plan.flightsql, nor gRPC's server; neither does the parser of ``serve`` (its modules
    load when the server starts)."""
    import subprocess
    import sys

    script = tmp_path / "entry.py"
    script.write_text(_REPORTING_ENTRY)
    doc = tmp_path / "plan.json"
    doc.write_text(json.dumps(JSON_PLAN))

    def loaded(*args: str) -> list[str]:
        done = subprocess.run(
            [sys.executable, str(script), *args], capture_output=True, text=True, timeout=120, cwd=ROOT
        )
        assert done.returncode == 0, done.stderr[-2000:]
        [line] = [x for x in done.stderr.splitlines() if x.startswith("LOADED ")]
        return list(json.loads(line[len("LOADED ") :]))

    assert loaded("run", str(doc), "--format", "json", "--remote", spark_url) == []
    assert loaded("serve", "--help") == []  # argparse alone: the server's modules load when it starts


def test_the_python_entry_point_serves_as_the_command_does(spark_url: str) -> None:
    """``connect_plan.serve(...)`` (docs/serve.md's Python form) starts the same server in-process:
    an ADBC client gets the JSON plan's answer, and ``stop`` ends it (the port refuses after)."""
    import connect_plan

    expected = [{"id": i, "sq": i * i, "s": f"n{i}"} for i in range(5)]
    with connect_plan.serve(spark_url, listen="grpc://127.0.0.1:0") as server:
        assert server.url.startswith("grpc://127.0.0.1:")
        with adbc(server.url) as conn, conn.cursor() as cur:
            cur.execute(json.dumps(JSON_PLAN))
            assert cur.fetch_arrow_table().to_pylist() == expected
    import adbc_driver_manager

    with pytest.raises(adbc_driver_manager.Error), adbc(server.url) as conn, conn.cursor() as cur:
        cur.execute(json.dumps(JSON_PLAN))
