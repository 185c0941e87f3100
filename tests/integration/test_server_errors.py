"""Server errors described without PySpark's client (issue 17): :func:`rpc_failure` of the
raw gRPC error gives the same ``RpcFailure`` as ``pyspark_failure`` of the exception
PySpark's client raises for it, field by field, for real failures of a real server.

Each failure is caused twice, in two fresh sessions:

* through PySpark's ``SparkConnectClient`` as the tests' reference ``PySparkTransport`` drives it
  (its reattachable stream, its ``_analyze``, its ``config``), described by
  ``pyspark_failure``; the gRPC error PySpark's client received, the details it fetched and
  whether it showed the stack trace are recorded on the way;
* through Spark Connect's generated stub over a plain gRPC channel (as a transport without
  PySpark's client calls it), described by ``rpc_failure`` with ``FetchErrorDetails`` and
  the stack-trace confs read over the same stub.

Asserted: ``rpc_failure`` of the very error PySpark received (with the details PySpark
fetched) equals PySpark's description, and so does ``rpc_failure`` of the raw call's. On Sail
too (its errors carry PySpark's kind of error and a message, no error class and no details);
what each case must show besides is checked on Spark.
"""

from __future__ import annotations

import dataclasses
import re
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from connect_plan.call_failures import CallFailure, RpcFailure
from connect_plan.errors import ServerError
from connect_plan.server_errors import STACKTRACE_CONFS, rpc_failure, stacktrace_shown
from tests.conftest import engine
from tests.support.reference_transport import PySparkTransport, pyspark_failure, reference_connector


def _pb() -> Any:
    from pyspark.sql.connect import proto

    return proto


# ---------------------------------------------------------------------------- the two paths


class Recorded:
    """PySpark's side of one failure: its description and what its client received."""

    def __init__(self, transport: PySparkTransport) -> None:
        self.transport = transport
        self.errors: list[grpc.RpcError] = []
        self.fetched: dict[str, Any] = {}
        self.shown: list[bool] = []
        sc = transport.sc
        handle, fetch, show = sc._handle_rpc_error, sc._fetch_enriched_error, sc._display_server_stack_trace

        def record_error(error: grpc.RpcError) -> Any:
            self.errors.append(error)
            return handle(error)

        def record_fetch(info: Any) -> Any:
            resp = fetch(info)
            if "errorId" in info.metadata:  # else PySpark's client fetches nothing
                self.fetched[info.metadata["errorId"]] = resp
            return resp

        def record_show() -> bool:
            shown = bool(show())
            self.shown.append(shown)
            return shown

        sc._handle_rpc_error = record_error
        sc._fetch_enriched_error = record_fetch
        sc._display_server_stack_trace = record_show

    def replayed(self) -> RpcFailure:
        """``rpc_failure`` of the last gRPC error PySpark's client received, with the
        details it fetched and the stack-trace choice it made."""
        assert self.errors, "PySpark's client received no gRPC error"

        def fetch(error_id: str) -> Any:
            assert error_id in self.fetched, f"PySpark did not fetch {error_id}"
            return self.fetched[error_id]

        return rpc_failure(self.errors[-1], fetch, show_stacktrace=lambda: self.shown[-1])


class Raw:
    """One session over Spark Connect's generated stub on a plain gRPC channel."""

    def __init__(self, url: str) -> None:
        from pyspark.sql.connect.proto import base_pb2_grpc

        host = url.removeprefix("sc://").split("/")[0].split(";")[0]
        self.channel = grpc.insecure_channel(host)
        self.stub = base_pb2_grpc.SparkConnectServiceStub(self.channel)
        self.session_id = str(uuid.uuid4())
        self.user = _pb().UserContext(user_id="raw-test")
        self.stacktrace_reads = 0

    def fetch(self, error_id: str) -> Any:
        pb = _pb()
        req = pb.FetchErrorDetailsRequest(session_id=self.session_id, user_context=self.user, error_id=error_id)
        try:
            return self.stub.FetchErrorDetails(req, timeout=30)
        except grpc.RpcError:
            return None

    def show_stacktrace(self) -> bool:
        pb = _pb()
        self.stacktrace_reads += 1
        op = pb.ConfigRequest.Operation()
        op.get_option.keys.extend(STACKTRACE_CONFS)
        try:
            resp = self.stub.Config(
                pb.ConfigRequest(session_id=self.session_id, user_context=self.user, operation=op), timeout=30
            )
        except grpc.RpcError:
            return True  # PySpark's rule when the confs cannot be read
        return stacktrace_shown((p.key, p.value if p.HasField("value") else None) for p in resp.pairs)

    def failure(self, exc: BaseException) -> RpcFailure:
        return rpc_failure(exc, self.fetch, show_stacktrace=self.show_stacktrace)

    def execute(self, plan: Any) -> None:
        pb = _pb()
        req = pb.ExecutePlanRequest(
            session_id=self.session_id, user_context=self.user, plan=plan, operation_id=str(uuid.uuid4())
        )
        req.request_options.add().reattach_options.reattachable = True
        for _ in self.stub.ExecutePlan(req, timeout=120):
            pass

    def schema(self, plan: Any) -> None:
        pb = _pb()
        req = pb.AnalyzePlanRequest(session_id=self.session_id, user_context=self.user)
        req.schema.plan.CopyFrom(plan)
        self.stub.AnalyzePlan(req, timeout=60)

    def config(self, op: Any) -> None:
        pb = _pb()
        self.stub.Config(pb.ConfigRequest(session_id=self.session_id, user_context=self.user, operation=op), timeout=30)

    def close(self) -> None:
        pb = _pb()
        try:
            self.stub.ReleaseSession(
                pb.ReleaseSessionRequest(session_id=self.session_id, user_context=self.user), timeout=10
            )
        except grpc.RpcError:
            pass
        self.channel.close()


# ---------------------------------------------------------------------------- the failures


def sql(query: str) -> Any:
    plan = _pb().Plan()
    plan.root.sql.query = query
    return plan


def set_conf(pairs: dict[str, str]) -> Any:
    op = _pb().ConfigRequest.Operation()
    for key, value in pairs.items():
        op.set.pairs.add(key=key, value=value)
    return op


@dataclasses.dataclass
class Case:
    call: str  # execute, schema or config
    make: Callable[[Any, Path], Any]  # the spark fixture, a folder -> the plan or config operation
    #: confs set in both sessions first
    conf: dict[str, str] = dataclasses.field(default_factory=dict)
    #: the exception type and error class PySpark's side must show (the case is what it says)
    exception_type: str | None = None
    error_class: str | None = None
    #: what else the case must show on PySpark's side
    check: Callable[[RpcFailure, Recorded], None] | None = None
    #: the text carries a failed task's stage, task and TID numbers and its JVM frames (the
    #: JVM swaps reflection accessors after some calls), which differ between the two sessions
    task_text: bool = False


def _dataframe_context(spark: Any, folder: Path) -> Any:
    import pyspark.errors.utils as debugging
    from pyspark.sql import functions as F

    # PySpark decides once per process, at the first Column it builds, whether to record call
    # sites (the DataFrame query context): False if no session was active then, as happens
    # when another test built a Column first. Recorded for this plan whatever ran before.
    before = debugging._enable_debugging_cache
    debugging._enable_debugging_cache = True
    try:
        df = spark.range(3).select((F.col("id") / F.lit(0)).alias("q"))
        return df._plan.to_proto(spark.client)
    finally:
        debugging._enable_debugging_cache = before


def _python_udf(spark: Any, folder: Path) -> Any:
    from pyspark.sql import functions as F

    fails = F.udf(lambda x: int("not a number " + str(x)), "long")  # a lambda is pickled by value
    df = spark.range(1).select(fails(F.col("id")).alias("v"))  # one row: the same message each time
    return df._plan.to_proto(spark.client)


def _corrupt_parquet(spark: Any, folder: Path) -> Any:
    path = folder / "corrupt.parquet"
    path.write_bytes(b"not a parquet file, whatever its name says")
    return sql(f"select * from parquet.`{path}`")


def _fetch_failed(failure: RpcFailure, rec: Recorded) -> None:
    assert list(rec.fetched.values()) == [None], rec.fetched
    assert failure.text.startswith("Job aborted due to stage failure"), failure.text[:300]
    assert failure.exception_type is None  # PySpark's SparkException has no engine-neutral kind


def _has_context(failure: RpcFailure, rec: Recorded) -> None:
    assert "== SQL" in failure.text or "== DataFrame" in failure.text, failure.text[:500]


def _fetched(failure: RpcFailure, rec: Recorded) -> None:
    assert any(r is not None and r.HasField("root_error_idx") for r in rec.fetched.values()), rec.fetched


def _not_fetched(failure: RpcFailure, rec: Recorded) -> None:
    assert not rec.fetched, rec.fetched


def _caused(failure: RpcFailure, rec: Recorded) -> None:
    _fetched(failure, rec)
    assert failure.text.count("\nCaused by: ") >= 2, failure.text[:3000]


def _long(failure: RpcFailure, rec: Recorded) -> None:
    assert len(failure.message) > 20_000, len(failure.message)
    assert len(rec.errors[-1].details() or "") < len(failure.message)  # the status's is truncated


def _no_stacktrace(failure: RpcFailure, rec: Recorded) -> None:
    assert "JVM stacktrace:" not in failure.text and rec.shown == [False], rec.shown


def _stacktrace(failure: RpcFailure, rec: Recorded) -> None:
    assert "\n\nJVM stacktrace:\n" in failure.text


CASES: dict[str, Case] = {
    "unresolved_column": Case(
        "execute",
        lambda s, d: sql("select nope"),
        {},
        "AnalysisException",
        "UNRESOLVED_COLUMN.WITHOUT_SUGGESTION",
        _stacktrace,
    ),
    "unresolved_column_analyze": Case(
        "schema", lambda s, d: sql("select nope"), {}, "AnalysisException", "UNRESOLVED_COLUMN.WITHOUT_SUGGESTION"
    ),
    "parse_error": Case("execute", lambda s, d: sql("selec 1 from"), {}, "ParseException", "PARSE_SYNTAX_ERROR"),
    "divide_by_zero": Case(
        "execute", lambda s, d: sql("select 1/0"), {}, "ArithmeticException", "DIVIDE_BY_ZERO", _has_context
    ),
    "overflow": Case(
        "execute",
        lambda s, d: sql("select 2147483647 + cast(id as int) from range(2)"),
        {},
        "ArithmeticException",
        "ARITHMETIC_OVERFLOW",
    ),
    "invalid_cast": Case(
        "execute", lambda s, d: sql("select cast('abc' as int)"), {}, "NumberFormatException", "CAST_INVALID_INPUT"
    ),
    "number_format": Case(
        "execute",
        lambda s, d: sql("select to_number('12x', '999')"),
        {},
        "IllegalArgumentException",
        "INVALID_FORMAT.MISMATCH_INPUT",
    ),
    "table_not_found": Case(
        "execute",
        lambda s, d: sql("select * from no_such_table_i17e"),
        {},
        "AnalysisException",
        "TABLE_OR_VIEW_NOT_FOUND",
    ),
    "function_not_found": Case(
        "schema", lambda s, d: sql("select no_such_function_i17e(1)"), {}, "AnalysisException", "UNRESOLVED_ROUTINE"
    ),
    "python_udf": Case("execute", _python_udf, {}, "PythonException", None),
    "illegal_argument": Case(
        "execute", lambda s, d: sql("select sequence(1, 5, 0)"), {}, "IllegalArgumentException", None
    ),
    "array_index": Case(
        "execute",
        lambda s, d: sql("select array(1, 2)[5]"),
        {},
        "ArrayIndexOutOfBoundsException",
        "INVALID_ARRAY_INDEX",
    ),
    "datetime": Case("execute", lambda s, d: sql("select make_date(2020, 13, 1)"), {}, "DateTimeException", None),
    # AnalysisException caused by SparkException caused by RuntimeException ("not a Parquet file")
    "cause_chain": Case(
        "execute", _corrupt_parquet, {}, "AnalysisException", "FAILED_TO_CREATE_PLAN_FOR_DIRECT_QUERY", _caused
    ),
    "malformed_record": Case(
        "execute",
        lambda s, d: sql(
            "select from_json('{bad' || cast(id as string), 'a int', map('mode','FAILFAST')) from range(3)"
        ),
        {},
        None,
        "MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION",
        _fetched,
    ),
    # Spark 4.3's FetchErrorDetails fails (INTERNAL) for this task failure: the status's own
    # (truncated) message is all there is
    "fetch_fails": Case(
        "execute",
        lambda s, d: sql("select java_method('java.lang.Integer', 'parseInt', 'x' || id) from range(2)"),
        {},
        None,
        None,
        _fetch_failed,
        task_text=True,
    ),
    "dataframe_context": Case("execute", _dataframe_context, {}, "ArithmeticException", "DIVIDE_BY_ZERO", _has_context),
    "very_long_message": Case(
        "execute", lambda s, d: sql("select raise_error(repeat('x', 40000))"), {}, None, "USER_RAISED_EXCEPTION", _long
    ),
    "invalid_conf_value": Case(
        "config",
        lambda s, d: set_conf({"spark.sql.ansi.enabled": "maybe"}),
        {},
        "IllegalArgumentException",
        "INVALID_CONF_VALUE.TYPE_MISMATCH",
    ),
    "no_server_stacktrace": Case(
        "execute",
        lambda s, d: sql("select 1/0"),
        {"spark.sql.connect.serverStacktrace.enabled": "false"},
        "ArithmeticException",
        "DIVIDE_BY_ZERO",
        _no_stacktrace,
    ),
    "not_enriched": Case(
        "execute",
        lambda s, d: sql("select nope"),
        {"spark.sql.connect.enrichError.enabled": "false"},
        "AnalysisException",
        "UNRESOLVED_COLUMN.WITHOUT_SUGGESTION",
        _not_fetched,
    ),
}


@pytest.fixture
def both(spark_url: str) -> Iterator[tuple[Recorded, Raw]]:
    transport = reference_connector(spark_url).open(lambda: True)
    assert isinstance(transport, PySparkTransport)
    raw = Raw(spark_url)
    try:
        yield Recorded(transport), raw
    finally:
        raw.close()
        try:
            transport.release_session()
        except Exception:
            pass
        transport.close()


def _cause(case: Case, spark: Any, folder: Path, rec: Recorded, raw: Raw) -> tuple[RpcFailure, RpcFailure]:
    """The case's failure on both sides: PySpark's description, the raw call's."""
    made = case.make(spark, folder)
    if case.conf:
        rec.transport.config(set_conf(case.conf))
        raw.config(set_conf(case.conf))
    pyspark_side: RpcFailure | None = None
    try:
        if case.call == "execute":
            for _ in rec.transport.execute_plan(made):
                pass
        elif case.call == "schema":
            rec.transport.schema(made)
        else:
            rec.transport.config(made)
    except CallFailure as exc:  # typed from PySpark's error, described by pyspark_failure
        pyspark_side = exc.record
    assert pyspark_side is not None, "PySpark's side did not fail"
    raw_side: RpcFailure | None = None
    try:
        getattr(raw, case.call)(made)
    except grpc.RpcError as exc:
        raw_side = raw.failure(exc)
    assert raw_side is not None, "the raw call did not fail"
    return pyspark_side, raw_side


_TASKS = re.compile(r"\b(stage|Task|task|TID) \d+(\.\d+)?")
_FRAMES = re.compile(r"(\n\tat [^\n]*)+")


def _task_neutral(value: Any) -> Any:
    if isinstance(value, str):
        return _FRAMES.sub("\n\tat ...", _TASKS.sub(r"\1 N", value))
    if isinstance(value, tuple):
        return tuple(_task_neutral(v) for v in value)
    return value


def assert_same(ours: RpcFailure, theirs: RpcFailure, *, task_text: bool = False) -> None:
    for f in dataclasses.fields(RpcFailure):
        a, b = getattr(ours, f.name), getattr(theirs, f.name)
        if task_text:
            a, b = _task_neutral(a), _task_neutral(b)
        assert a == b, f"{f.name} differs:\nrpc_failure:     {a!r:.3000}\npyspark_failure: {b!r:.3000}"


@pytest.mark.parametrize("name", sorted(CASES))
def test_server_error_described_as_pyspark_does(
    name: str, both: tuple[Recorded, Raw], spark: Any, tmp_path: Path
) -> None:
    case = CASES[name]
    rec, raw = both
    theirs, ours = _cause(case, spark, tmp_path, rec, raw)
    assert theirs.kind == "server", theirs
    if engine() == "spark":  # what each case shows on Spark (Sail sends no error classes, no details)
        if case.exception_type is not None:
            assert theirs.exception_type == case.exception_type, theirs
        if case.error_class is not None:
            assert theirs.error_class == case.error_class, theirs
        if case.check is not None:
            case.check(theirs, rec)
    # the very error PySpark's client received, with the details it fetched
    assert_same(rec.replayed(), theirs)
    # the same failure over the raw stub, in its own session
    assert_same(ours, theirs, task_text=case.task_text)


def test_invalid_session_handle(spark_url: str) -> None:
    """A session error the server raises before any session exists (INVALID_HANDLE)."""
    transport = reference_connector(spark_url).open(lambda: True)
    assert isinstance(transport, PySparkTransport)
    rec = Recorded(transport)
    transport.sc._session_id = "not-a-uuid"
    raw = Raw(spark_url)
    raw.session_id = "not-a-uuid"
    try:
        with pytest.raises(CallFailure) as theirs_exc:
            transport.spark_version()
        theirs = theirs_exc.value.record
        assert theirs == pyspark_failure(theirs_exc.value.__cause__)
        with pytest.raises(grpc.RpcError) as raw_exc:
            raw.schema(sql("select 1"))
        ours = raw.failure(raw_exc.value)
    finally:
        raw.close()
        transport.close()
    assert theirs.kind == "server" and (theirs.error_class or "").startswith("INVALID_HANDLE"), theirs
    assert_same(rec.replayed(), theirs)
    assert_same(ours, theirs)


@pytest.mark.spark_only("a JVM stack trace (Sail sends none)")
def test_a_server_error_carries_the_servers_stack_trace(client: Any) -> None:
    """ServerError.server_stacktrace holds the stack trace the server sent (fetched with the
    error's details), whether or not the message shows it; it was always None before."""
    with pytest.raises(ServerError) as info:
        client.execute({"input": {"sql": "SELECT raise_error('boom')"}, "plan": []})
    err = info.value
    assert err.error_class == "USER_RAISED_EXCEPTION", err
    trace = err.server_stacktrace or ""
    assert trace.startswith("org.apache.spark.SparkRuntimeException\n\tat org.apache.spark."), trace[:300]
    assert "JVM stacktrace" not in err.message  # the message shows it only when the session asks
