"""Client behaviour on the real server: errors with Spark's class and the failing step,
the public entry points, no JVM in the client process."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

import connect_plan
import connect_plan.transport
from connect_plan import PlanError, ServerError

SCHEMA = [{"name": "a", "type": "int"}, {"name": "b", "type": "string"}]
ROWS = [[1, "x"], [2, "y"], [3, None]]


def test_execute_plan_entry_point_and_json_text(spark_url: str) -> None:
    table = connect_plan.execute_plan(
        ROWS,
        SCHEMA,
        '[{"op": "filter", "payload": {"op": "gt", "left": {"col": "a"}, "right": {"lit": 1}}}]',
        remote=spark_url,
    )
    assert sorted(table.column("a").to_pylist()) == [2, 3]


def test_remote_from_environment(spark_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPARK_REMOTE", spark_url)
    assert connect_plan.execute_plan(ROWS, SCHEMA, []).num_rows == 3


def test_many_plans_over_one_connection(client: Any) -> None:
    for n in range(3):
        assert client.execute([{"op": "limit", "payload": {"n": n}}], data=ROWS, schema=SCHEMA).num_rows == n


def test_invalid_plan_fails_before_any_network_call(monkeypatch: pytest.MonkeyPatch) -> None:
    # no server at this address: a PlanError proves nothing was sent
    with pytest.raises(PlanError):
        connect_plan.execute_plan(ROWS, SCHEMA, [{"op": "limit", "payload": {"n": -1}}], remote="sc://127.0.0.1:9")


STEP_ERRORS = pytest.mark.parametrize(
    "plan,step,error_class",
    [
        (
            # (a computed column Spark names: the columns are the server's to know, so the
            # missing one is found there, not before the network)
            [
                {"op": "select", "payload": ["a", {"fn": "abs", "args": ["a"]}]},
                {"op": "withColumn", "payload": {"name": "c", "expr": {"col": "b"}}},
            ],
            1,
            "UNRESOLVED_COLUMN",
        ),
        (
            [
                {"op": "filter", "payload": {"op": "gt", "left": "a", "right": 0}},
                {"op": "filter", "payload": {"op": "and", "left": "a", "right": {"lit": True}}},
                {"op": "limit", "payload": {"n": 1}},
            ],
            1,
            "DATATYPE_MISMATCH",
        ),
        (
            [
                {"op": "select", "payload": ["*", {"fn": "abs", "args": ["a"]}]},
                {"op": "groupBy", "payload": {"group_by": ["zz"], "aggs": [{"agg": "count"}]}},
            ],
            1,
            "UNRESOLVED_COLUMN",
        ),
    ],
)


@STEP_ERRORS
def test_server_errors_name_the_step(client: Any, plan: list[Any], step: int, error_class: str) -> None:
    """The failing step is found on any engine (Spark: SQLSTATE class 42; others: the
    AnalysisException kind PySpark reports)."""
    with pytest.raises(ServerError) as info:
        client.execute(plan, data=ROWS, schema=SCHEMA)
    err = info.value
    assert err.op_index == step and err.op_name == plan[step]["op"]
    assert err.exception_type == "AnalysisException"
    assert "JVM stacktrace" not in str(err)


@STEP_ERRORS
def test_server_errors_carry_spark_error_classes(client: Any, plan: list[Any], step: int, error_class: str) -> None:
    with pytest.raises(ServerError) as info:
        client.execute(plan, data=ROWS, schema=SCHEMA)
    err = info.value
    assert err.error_class and err.error_class.startswith(error_class)
    assert err.sqlstate and len(err.sqlstate) == 5


def test_runtime_error_keeps_spark_class(client: Any) -> None:
    plan = [{"op": "withColumn", "payload": {"name": "c", "expr": {"fn": "cast", "args": ["b", "int"]}}}]
    with pytest.raises(ServerError) as info:
        client.execute(plan, data=ROWS, schema=SCHEMA)
    assert info.value.error_class == "CAST_INVALID_INPUT" and info.value.sqlstate == "22018"


def test_client_repr_hides_token() -> None:
    # a token over plaintext is refused without the opt-in (tests/unit/test_transport.py)
    with pytest.warns(connect_plan.transport.InsecureTokenWarning):
        c = connect_plan.Client("sc://127.0.0.1:9/;token=secret123;use_ssl=false", allow_insecure_token=True)
    try:
        assert "secret123" not in repr(c) and "token=***" in repr(c)
    finally:
        c.close()


def _children(pid: int) -> list[tuple[int, str]]:
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            comm = (entry / "comm").read_text().strip()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == pid:
            out.append((int(entry.name), comm))
    return out


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_no_jvm_in_the_client_process(spark_url: str, tmp_path: Path) -> None:
    """translate and execute start no child process at all (so no java, no py4j gateway)."""
    import subprocess
    import sys

    # a script file, not ``python -c``: pyspark-client takes a ``-c`` main module for a
    # doctest run and exits when it finds no SPARK_HOME (pyspark/sql/connect/utils.py)
    code = f"""
import os, json, connect_plan
connect_plan.translate([[1]], [("a", "int")], [{{"op": "select", "payload": ["a"]}}])
t = connect_plan.execute_plan([[1]], [("a", "int")], [], remote={spark_url!r})
try:  # the full pyspark has a SparkContext (never started here); pyspark-client has none
    from pyspark import SparkContext
    gateway, jvm = SparkContext._gateway is not None, SparkContext._jvm is not None
except ImportError:
    gateway = jvm = False
print(json.dumps({{"rows": t.num_rows, "gateway": gateway, "jvm": jvm}}))
import time
print(os.getpid(), flush=True)
time.sleep(2)
"""
    script = tmp_path / "no_jvm.py"
    script.write_text(code)
    root = str(Path(__file__).resolve().parents[2])  # this checkout's connect_plan
    env = {
        **os.environ,
        "SPARK_REMOTE": "",
        "PYTHONPATH": os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")])),
    }
    with subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True, env=env) as proc:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        pid = int(proc.stdout.readline())
        children = _children(pid)
        proc.wait(timeout=60)
    assert first.strip() == '{"rows": 1, "gateway": false, "jvm": false}'
    assert [c for c in children if "java" in c[1]] == [] and children == []


def test_server_errors_carry_the_full_message_from_fetch_error_details(spark_url: str) -> None:
    """The gRPC status carries at most ~2 KiB of message and no error class; PySpark's
    client fetches the rest with FetchErrorDetails (the server's errorId), which is what a
    ServerError reports: Spark's class, SQLSTATE, parameters and the whole message, with
    the step that caused it (an unknown column in step 3)."""
    name = "q" * 3000
    plan = [
        {"op": "limit", "payload": {"n": 5}},
        {"op": "filter", "payload": {"op": "gt", "left": {"col": "a"}, "right": {"lit": 0}}},
        {"op": "select", "payload": ["a", {"fn": "abs", "args": ["a"]}]},  # a name only Spark knows
        {"op": "select", "payload": [{"name": "z", "expr": {"col": name}}]},
    ]
    with connect_plan.connect(spark_url) as c:
        with pytest.raises(ServerError) as info:
            c.execute(plan, [[1]], [("a", "int")])
        err = info.value
        assert (err.op_index, err.op_name) == (3, "select")
        assert err.error_class == "UNRESOLVED_COLUMN.WITH_SUGGESTION" and err.sqlstate == "42703"
        assert name in err.message and name in err.message_parameters["objectName"]
        assert str(err).startswith("plan step 3 (select): [UNRESOLVED_COLUMN.WITH_SUGGESTION]")
        # what the status alone says: the same error without the details is cut short
        c.set_conf({"spark.sql.connect.enrichError.enabled": "false"})
        with pytest.raises(ServerError) as bare:
            c.execute(plan, [[1]], [("a", "int")])
        assert name not in bare.value.message and len(bare.value.message) < len(err.message)


def test_the_server_version_is_probed_once_and_an_older_server_is_refused(spark_url: str) -> None:
    """Before its first plan a session asks the server's version (once); a server older than
    connect_plan supports (here: one that answers 3.5.2) is refused before any plan is sent,
    naming what it lacks, instead of silently ignoring the fields it does not know."""
    with connect_plan.connect(spark_url) as c:
        real = c.internals.transport.spark_version
        asked: list[str] = []

        def version() -> str:
            asked.append("spark_version")
            return real()

        c.internals.transport.spark_version = version
        for n in (1, 2):
            assert c.execute([{"op": "limit", "payload": {"n": n}}], data=ROWS, schema=SCHEMA).num_rows == n
        assert asked.count("spark_version") == 1
    with connect_plan.connect(spark_url) as old:
        sent: list[Any] = []
        old.internals.transport.spark_version = lambda: "3.5.2"
        old.internals.executor.results = lambda *a, **kw: sent.append(a)  # type: ignore[method-assign]
        for rpc in ("execute_plan", "schema", "explain"):  # whatever would reach the server
            setattr(old.internals.transport, rpc, lambda *a, **kw: sent.append(a))
        for run in (
            lambda: old.execute([], data=ROWS, schema=SCHEMA),
            lambda: old.schema([], data=ROWS, schema=SCHEMA),
            lambda: old.execute({"input": {"range": 1}, "plan": [], "output": {"path": "/nowhere", "format": "json"}}),
        ):
            with pytest.raises(
                connect_plan.UnsupportedServerError, match=r"Spark 3\.5\.2.*4\.0 or later.*WithColumnsRenamed\.renames"
            ):
                run()
        assert sent == []


#: two output columns that differ only in case, from SQL (their names are the server's to
#: tell, so only the result's own check sees them): valid under spark.sql.caseSensitive=true
CASE_PAIR = {"input": {"sql": "SELECT 1 AS a, 'x' AS A"}, "plan": []}
SELECT_PAIR = [{"op": "select", "payload": [{"name": "a", "expr": {"col": "a"}}, {"name": "A", "expr": {"col": "b"}}]}]


def test_output_names_are_compared_as_the_session_compares_them(spark_url: str) -> None:
    """``a`` and ``A`` are one name by default (a ResultIntegrityError, never a table with
    two columns Spark itself could not tell apart), and two under caseSensitive=true:
    set on the client, by the plan document's conf, or on the session behind the client's
    back (as a server's own configuration would); an exact duplicate is refused either way."""
    from pyspark.sql.connect import proto as pb

    sensitive = {"conf": {"spark.sql.caseSensitive": "true"}}
    with connect_plan.connect(spark_url) as c:
        with pytest.raises(connect_plan.ResultIntegrityError, match="two columns named 'A'"):
            c.execute(CASE_PAIR)
        with pytest.raises(connect_plan.ResultIntegrityError):
            c.stream(CASE_PAIR)
        # the plan document's conf: for this execution only
        out = c.execute({**CASE_PAIR, **sensitive})
        assert out.column_names == ["a", "A"] and out.to_pylist() == [{"a": 1, "A": "x"}]
        reader = c.stream({**CASE_PAIR, **sensitive})
        assert reader.schema.names == ["a", "A"] and reader.read_all().num_rows == 1
        doc = {"input": {"schema": SCHEMA, "rows": ROWS}, "plan": SELECT_PAIR, **sensitive}
        assert c.execute(doc).column("A").to_pylist() == ["x", "y", None]
        assert c.get_conf("spark.sql.caseSensitive")["spark.sql.caseSensitive"] == "false"
        # the session's setting, made without the client's knowledge
        op = pb.ConfigRequest.Operation()
        pair = op.set.pairs.add()
        pair.key, pair.value = "spark.sql.caseSensitive", "true"
        c.internals.transport.config(op)
        assert c.execute(CASE_PAIR).column_names == ["a", "A"]
        with pytest.raises(connect_plan.ResultIntegrityError, match="two columns named 'a'"):
            c.execute({"input": {"sql": "SELECT 1 AS a, 2 AS a"}, "plan": []})
    with connect_plan.connect(spark_url, conf={"spark.sql.caseSensitive": "true"}) as c:
        assert c.execute(CASE_PAIR).column_names == ["a", "A"]
        assert c.execute(SELECT_PAIR, data=ROWS, schema=SCHEMA).column_names == ["a", "A"]
        # and a document may turn it off again
        with pytest.raises(connect_plan.ResultIntegrityError):
            c.execute({**CASE_PAIR, "conf": {"spark.sql.caseSensitive": "false"}})


#: five steps; the fourth (index 3) selects a column that does not exist
LOCATED_PLAN = [{"op": "withColumn", "payload": {"name": f"c{i}", "expr": {"lit": i}}} for i in range(3)] + [
    {"op": "select", "payload": ["zz"]},
    {"op": "limit", "payload": {"n": 1}},
]
#: on an input whose columns only the server knows (else the missing column is a PlanError)
LOCATED_DOC = {"input": {"sql": "SELECT 1 AS a"}, "plan": LOCATED_PLAN}


@pytest.mark.parametrize("code", ["UNAVAILABLE", "DEADLINE_EXCEEDED"])
def test_a_failure_while_locating_the_step_names_no_step(spark_url: str, code: str) -> None:
    """The failing step is searched for by analysing plan prefixes (here: all 5 steps fail,
    none fails, then 2 steps...). A gRPC proxy on loopback fails every AnalyzePlan from the
    third one on, as a network going down during the search would: that is not the error
    being located, so no step is named (counting it as 'this prefix fails' named step 0)."""
    import grpc

    from tests.support.proxies import GrpcTlsProxy

    proxy = GrpcTlsProxy(spark_url[len("sc://") :].split("/")[0], None)
    analyses: list[str] = []

    def fault(method: str) -> Any:
        if method.endswith("/ExecutePlan"):
            analyses.clear()
        elif method.endswith("/AnalyzePlan"):
            analyses.append(method)
            if armed and len(analyses) >= 3:
                return getattr(grpc.StatusCode, code)
        return None

    proxy.fault = fault
    try:
        with connect_plan.connect(
            f"sc://127.0.0.1:{proxy.port}", retry_policy={"max_retries": 1, "initial_backoff": 10, "max_backoff": 10}
        ) as c:
            armed = False
            with pytest.raises(ServerError) as located:
                c.execute(LOCATED_DOC)
            assert (located.value.op_index, located.value.op_name) == (3, "select")  # without the fault
            armed = True
            with pytest.raises(ServerError) as info:
                c.execute(LOCATED_DOC)
            assert len(analyses) >= 3  # the fault did hit the search
    finally:
        proxy.stop()
    err = info.value
    assert err.op_index is None and err.op_name is None, str(err)
    assert err.exception_type == "AnalysisException" and "zz" in err.message  # the query's own error
    assert not str(err).startswith("plan step")


#: one column of each kind a result can hold, as Spark SQL makes them
TYPED_SQL = (
    "SELECT CAST(1 AS TINYINT) AS b, CAST(1 AS SMALLINT) AS sm, 1 AS i, 1L AS l, 1.5F AS f, 1.5D AS d, "
    "CAST(1.5 AS DECIMAL(20, 4)) AS dec, 'x' AS s, 'x' COLLATE UTF8_LCASE AS sc, CAST('x' AS CHAR(3)) AS ch, "
    "X'00' AS bin, true AS bo, DATE'2024-01-02' AS dt, TIMESTAMP'2024-01-02 03:04:05' AS ts, "
    "TIMESTAMP_NTZ'2024-01-02 03:04:05' AS ntz, INTERVAL '1' DAY AS dti, INTERVAL '2' HOUR AS hi, "
    "INTERVAL '1' YEAR AS ymi, make_interval(1, 2, 3, 4, 5, 6, 7) AS ci, NULL AS n, "
    "array(1, NULL) AS arr, map('k', array(TIMESTAMP'2024-01-02 03:04:05')) AS m, "
    "named_struct('x', 1, 'y', named_struct('z', 'q')) AS st, parse_json('{\"a\": 1}') AS v"
)


@pytest.mark.parametrize("zone", [None, "America/New_York"])
def test_schema_is_what_the_batches_carry(client: Any, zone: str | None) -> None:
    """``Client.schema`` (the server's analysis, read without PySpark) equals the schema of the
    executed result and of an empty one, for every kind of column, in the session's time zone
    (PySpark's ``to_arrow_schema`` raised for timestamps and intervals)."""
    doc: dict[str, Any] = {"input": {"sql": TYPED_SQL}, "plan": []}
    if zone is not None:
        doc["conf"] = {"spark.sql.session.timeZone": zone}
    table = client.execute(doc)
    empty = client.execute({**doc, "plan": [{"op": "limit", "payload": {"n": 0}}]})
    schema = client.schema(doc)
    assert schema.equals(table.schema, check_metadata=True), f"{schema}\n!=\n{table.schema}"
    assert empty.schema.equals(table.schema, check_metadata=True)
    assert schema.field("ts").type.tz == (
        zone or client.get_conf("spark.sql.session.timeZone")["spark.sql.session.timeZone"]
    )
