"""Server errors described without PySpark's client: the corner cases a real Spark server
does not send on demand (tests/integration/test_server_errors.py has the real failures).

An in-process gRPC server plays Spark Connect: its AnalyzePlan fails with a status built
here (google.rpc.Status with ErrorInfo / RetryInfo details, as Spark sends them, or none),
its FetchErrorDetails and Config answer what each case says. The same failure is read by
PySpark's client (the tests' reference ``PySparkTransport``, described by ``pyspark_failure``)
and by the raw stub
(described by ``rpc_failure``); where PySpark's client itself breaks on what it got
(malformed JSON, indexes outside the answer), what ``rpc_failure`` gives instead is asserted.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2

from connect_plan.call_failures import RpcFailure, classify, grpc_failure
from connect_plan.client.failures import server_error
from connect_plan.server_errors import (
    EXCEPTION_CLASSES,
    STACKTRACE_CONFS,
    retry_delay,
    rpc_failure,
)
from tests.support.servicer import FakeSparkConnect, Script, details_answer, error_info, status


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeSparkConnect]:
    server = FakeSparkConnect()
    try:
        yield server
    finally:
        server.close()


def play(fake: FakeSparkConnect, script: Script) -> tuple[RpcFailure, RpcFailure]:
    """(rpc_failure's, pyspark_failure's) description of the scripted failure."""
    fake.script = script
    ours = fake.ours()
    return ours, fake.theirs()


ANALYSIS = json.dumps(["org.apache.spark.sql.AnalysisException", "java.lang.Exception"])


def test_error_info_without_error_id_is_not_fetched(fake: FakeSparkConnect) -> None:
    info = error_info(
        {"classes": ANALYSIS, "errorClass": "X_Y", "sqlState": "42000", "messageParameters": '{"a": "1"}'}
    )
    ours, theirs = play(fake, Script(status(grpc.StatusCode.INTERNAL, "[X_Y] bad. SQLSTATE: 42000", info)))
    assert ours == theirs
    assert fake.script.fetches == 0
    assert ours.exception_type == "AnalysisException" and ours.message_parameters == {"a": "1"}


def test_fetched_details_replace_the_truncated_ones(fake: FakeSparkConnect) -> None:
    info = error_info({"classes": ANALYSIS, "errorClass": "X_Y", "sqlState": "42000", "errorId": "e1"})
    details = details_answer(
        0,
        {"message": "[X_Y] the whole message", "frames": [("a.B", "c")], "cause": 1, "parameters": {"p": "v"}},
        {"classes": ["java.lang.RuntimeException"], "message": "inner", "frames": [("d.E", "f")], "cause": 2},
        {"classes": ["java.io.IOException"], "message": "innermost"},
    )
    confs = {STACKTRACE_CONFS[0]: "true"}
    ours, theirs = play(fake, Script(status(grpc.StatusCode.INTERNAL, "[X_Y] the wh...", info), details, confs))
    assert ours == theirs
    assert ours.message_parameters == {"p": "v"}
    assert ours.text == (
        "[X_Y] the whole message\n\nJVM stacktrace:\norg.apache.spark.sql.AnalysisException\n\tat a.B.c(F.scala:7)"
        "\nCaused by: java.lang.RuntimeException: inner\n\tat d.E.f(F.scala:7)"
        "\nCaused by: java.io.IOException: innermost"
    )


def test_error_class_only_in_the_details(fake: FakeSparkConnect) -> None:
    info = error_info({"classes": ANALYSIS, "errorId": "e2"})
    details = details_answer(0, {"message": "m", "error_class": "FROM_DETAILS"})
    ours, theirs = play(fake, Script(status(grpc.StatusCode.INTERNAL, "m", info), details))
    assert ours == theirs and ours.error_class == "FROM_DETAILS"


def test_fetch_failing_falls_back_on_the_status(fake: FakeSparkConnect) -> None:
    info = error_info({"classes": ANALYSIS, "errorClass": "X_Y", "errorId": "e3", "stackTrace": "truncated frames"})
    script = Script(status(grpc.StatusCode.INTERNAL, "[X_Y] truncated", info), grpc.StatusCode.INTERNAL)
    script.confs = {STACKTRACE_CONFS[1]: "true"}
    ours, theirs = play(fake, script)
    assert ours == theirs
    assert ours.text == "[X_Y] truncated\n\nJVM stacktrace:\ntruncated frames"
    # fetched once by each side; an answer without a root error counts as none too
    assert fake.script.fetches == 2
    script = Script(status(grpc.StatusCode.INTERNAL, "[X_Y] truncated", info), details_answer(None))
    ours, theirs = play(fake, script)
    assert ours == theirs and "JVM stacktrace" not in ours.text


@pytest.mark.parametrize("error_class", ["CANNOT_MERGE_TYPE", "CANNOT_MERGE_TYPE.SUB", "NOT_PYSPARKS_OWN"])
def test_sqlstate_from_pysparks_own_conditions(fake: FakeSparkConnect, error_class: str) -> None:
    """No SQLSTATE from the server: PySpark's error-conditions.json gives the class's (its
    main class's from PySpark 4.3, its sub-class's before)."""
    info = error_info({"classes": ANALYSIS, "errorClass": error_class, "messageParameters": "{}"})
    ours, theirs = play(fake, Script(status(grpc.StatusCode.INTERNAL, "m", info)))
    assert ours == theirs
    if error_class == "CANNOT_MERGE_TYPE":
        assert ours.sqlstate == "42K09"


@pytest.mark.parametrize(
    ("classes", "reason", "message"),
    [
        ([], "org.example.Odd", "unmapped"),  # UnknownException: "(reason) message"
        (["org.apache.spark.SparkException"], "x", "plain"),  # no engine-neutral kind
        (["org.apache.spark.SparkException"], "x", "wraps net.razorvine.pickle.PickleException: y"),
        (["org.apache.spark.sql.connect.common.InvalidPlanInput"], "x", "bad plan"),
        (["org.apache.spark.api.python.PythonException", "org.apache.spark.SparkException"], "x", "Traceback"),
        (["java.lang.NumberFormatException", "java.lang.IllegalArgumentException"], "x", "nf"),
    ],
)
def test_each_exception_class(fake: FakeSparkConnect, classes: list[str], reason: str, message: str) -> None:
    info = error_info({"classes": json.dumps(classes), "errorClass": "E", "messageParameters": '{"k": "v"}'}, reason)
    ours, theirs = play(fake, Script(status(grpc.StatusCode.INTERNAL, message, info)))
    assert ours == theirs


@pytest.mark.parametrize(
    "code",
    ["INTERNAL", "UNKNOWN", "UNIMPLEMENTED", "PERMISSION_DENIED", "UNAUTHENTICATED", "RESOURCE_EXHAUSTED", "NOT_FOUND"],
)
@pytest.mark.parametrize("rich", [False, True])
def test_bare_status(fake: FakeSparkConnect, code: str, rich: bool) -> None:
    """No ErrorInfo (with or without a google.rpc.Status): described as grpc_failure does,
    and the client maps it to the error PySpark's description maps to."""
    grpc_code = grpc.StatusCode[code]
    failure: Any = status(grpc_code, "what the server said") if rich else (grpc_code, "what the server said")
    ours, theirs = play(fake, Script(failure))
    assert ours == grpc_failure(fake.raw_error())
    assert ours.kind == "status" and ours.status == code and ours.text == "what the server said"
    url = fake.url
    mine, pysparks = server_error(classify(ours), url), server_error(classify(theirs), url)
    if not rich:
        assert (type(mine), mine.message, mine.grpc_status) == (type(pysparks), pysparks.message, pysparks.grpc_status)
    else:
        # PySpark passes on only the Status's message (no "StatusCode." in it for the client
        # to find); described as a bare status, the client names the status and what to check
        assert "what the server said" in mine.message and mine.grpc_status == code
        assert theirs.kind == "server" and theirs.text == "what the server said"


def test_deadline_exceeded_is_a_bare_status(fake: FakeSparkConnect) -> None:
    info = error_info({"classes": ANALYSIS, "errorId": "e4"})
    fake.script = Script(status(grpc.StatusCode.DEADLINE_EXCEEDED, "late", info))
    ours = fake.ours()
    assert ours == grpc_failure(fake.raw_error()) and ours.status == "DEADLINE_EXCEEDED"
    assert fake.script.fetches == 0


@pytest.mark.parametrize("error_id", [False, True])
@pytest.mark.parametrize("shown", [False, True])
def test_round_trips_per_error(fake: FakeSparkConnect, error_id: bool, shown: bool) -> None:
    """At most one FetchErrorDetails (when the server names an error id) and one Config (only
    when there is a stack trace to show or not); PySpark's client reads the confs whenever
    it maps an ErrorInfo, one by one (2 Config calls when stack traces are off)."""
    meta = {"classes": ANALYSIS, "errorClass": "X_Y"} | ({"errorId": "e7"} if error_id else {})
    confs = {STACKTRACE_CONFS[0]: "true" if shown else "false", STACKTRACE_CONFS[1]: "false"}
    details = details_answer(0, {"message": "whole", "frames": [("a.B", "c")]})
    fake.script = Script(status(grpc.StatusCode.INTERNAL, "m", error_info(meta)), details, confs)
    fake.ours()
    assert (fake.script.fetches, fake.script.config_reads) == ((1, 1) if error_id else (0, 0))
    fake.theirs()
    pyspark_configs = 1 if shown else 2
    assert (fake.script.fetches, fake.script.config_reads) == (
        (2, 1 + pyspark_configs) if error_id else (0, pyspark_configs)
    )


# ---------------------------------------------------------------- where PySpark breaks


def test_malformed_json_in_metadata_is_read_as_absent(fake: FakeSparkConnect) -> None:
    """PySpark's client raises JSONDecodeError from its error handler here; rpc_failure
    keeps the error class, SQLSTATE and message and drops only what it cannot read."""
    info = error_info({"classes": "[not json", "errorClass": "X_Y", "sqlState": "42000", "messageParameters": "{"})
    ours, theirs = play(fake, Script(status(grpc.StatusCode.INTERNAL, "[X_Y] m", info)))
    assert theirs.kind == "other" and "JSONDecodeError" in theirs.text
    assert ours.kind == "server" and ours.error_class == "X_Y" and ours.sqlstate == "42000"
    assert ours.exception_type == "UnknownException" and ours.message_parameters == {}
    info = error_info({"classes": '{"a": 1}', "messageParameters": "[1, 2]"})  # JSON of the wrong shape
    fake.script = Script(status(grpc.StatusCode.INTERNAL, "m", info))
    assert fake.ours().exception_type == "UnknownException"


@pytest.mark.parametrize(
    "details",
    [
        details_answer(5, {"message": "root outside"}),
        details_answer(0, {"message": "cause outside", "cause": 9}),
        details_answer(0, {"message": "a cycle", "cause": 1}, {"message": "back", "cause": 0}),
        details_answer(0, {"classes": [], "message": "no class"}),
    ],
)
def test_details_pointing_outside_themselves_are_not_used(fake: FakeSparkConnect, details: Any) -> None:
    """PySpark's client raises IndexError (or recurses without end) on these."""
    info = error_info({"classes": ANALYSIS, "errorClass": "X_Y", "errorId": "e5"})
    fake.script = Script(status(grpc.StatusCode.INTERNAL, "[X_Y] from the status", info), details)
    ours = fake.ours()
    assert ours.kind == "server" and ours.text == "[X_Y] from the status"


# ---------------------------------------------------------------- hand-built errors


class HandBuilt(grpc.RpcError):
    """A gRPC error as a call raises it, built here (code, details, trailing metadata)."""

    def __init__(self, code: grpc.StatusCode, details: str, trailers: tuple[tuple[str, Any], ...] = ()) -> None:
        self._code, self._details, self._trailers = code, details, trailers

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return self._details

    def trailing_metadata(self) -> tuple[tuple[str, Any], ...]:
        return self._trailers


def hand_built(st: Any, code: grpc.StatusCode | None = None) -> HandBuilt:
    return HandBuilt(
        code or grpc.StatusCode.INTERNAL, st.message, (("grpc-status-details-bin", st.SerializeToString()),)
    )


def test_a_status_trailer_that_does_not_match_the_call_is_ignored() -> None:
    """PySpark's client raises ValueError (grpc_status's check) here."""
    info = error_info({"classes": ANALYSIS, "errorClass": "X_Y"})
    exc = hand_built(status(grpc.StatusCode.INTERNAL, "m", info), code=grpc.StatusCode.UNKNOWN)
    assert rpc_failure(exc) == grpc_failure(exc)


def test_fetch_is_called_once_and_may_raise() -> None:
    info = error_info({"classes": ANALYSIS, "errorClass": "X_Y", "errorId": "e6"})
    exc = hand_built(status(grpc.StatusCode.INTERNAL, "[X_Y] m", info))
    calls: list[str] = []

    def fetch(error_id: str) -> Any:
        calls.append(error_id)
        raise HandBuilt(grpc.StatusCode.UNAVAILABLE, "gone")

    failure = rpc_failure(exc, fetch)
    assert calls == ["e6"] and failure.text == "[X_Y] m" and failure.exception_type == "AnalysisException"
    assert rpc_failure(exc, None).text == "[X_Y] m"  # no fetch: the status's own


def test_stack_trace_shown_only_when_there_is_one() -> None:
    asked: list[int] = []

    def show() -> bool:
        asked.append(1)
        return True

    info = error_info({"classes": ANALYSIS, "errorClass": "X_Y"})
    assert rpc_failure(hand_built(status(grpc.StatusCode.INTERNAL, "m", info)), show_stacktrace=show).text == "m"
    assert asked == []  # no Config read for an error without a stack trace
    info = error_info({"classes": ANALYSIS, "errorClass": "X_Y", "stackTrace": "frames"})
    exc = hand_built(status(grpc.StatusCode.INTERNAL, "m", info))
    assert rpc_failure(exc, show_stacktrace=show).text == "m\n\nJVM stacktrace:\nframes" and asked == [1]
    assert rpc_failure(exc, show_stacktrace=False).text == "m"


def test_not_a_grpc_error() -> None:
    failure = rpc_failure(ValueError("nope"))
    assert failure.kind == "other" and failure.text == "ValueError: nope"


def test_retry_delay() -> None:
    retry = error_details_pb2.RetryInfo()
    retry.retry_delay.FromMilliseconds(1500)
    assert (
        retry_delay(hand_built(status(grpc.StatusCode.UNAVAILABLE, "busy", retry), grpc.StatusCode.UNAVAILABLE)) == 1.5
    )
    zero = error_details_pb2.RetryInfo()
    assert retry_delay(hand_built(status(grpc.StatusCode.INTERNAL, "x", zero))) == 0.0  # present: retry
    info = error_info({"classes": ANALYSIS})
    assert retry_delay(hand_built(status(grpc.StatusCode.INTERNAL, "x", info))) is None
    assert retry_delay(HandBuilt(grpc.StatusCode.UNAVAILABLE, "no trailers")) is None
    assert retry_delay(ValueError("x")) is None


def test_retry_delay_as_pyspark_reads_it() -> None:
    from pyspark.sql.connect.client.retries import extract_retry_delay

    retry = error_details_pb2.RetryInfo()
    retry.retry_delay.FromMilliseconds(2345)
    exc = hand_built(status(grpc.StatusCode.UNAVAILABLE, "busy", retry), grpc.StatusCode.UNAVAILABLE)
    assert retry_delay(exc) == extract_retry_delay(exc) / 1000


# ---------------------------------------------------------------- the tables, the imports


def test_exception_classes_are_pysparks() -> None:
    from pyspark.errors.exceptions import connect

    from connect_plan.server_errors import THIRD_PARTY_CLASSES
    from tests.support.reference_transport import _exception_type

    def described(cls: type) -> tuple[str, str | None]:
        return cls.__name__, _exception_type(cls.__new__(cls))

    assert EXCEPTION_CLASSES == {k: described(v) for k, v in connect.EXCEPTION_CLASS_MAPPING.items()}
    assert THIRD_PARTY_CLASSES == {k: described(v) for k, v in connect.THIRD_PARTY_EXCEPTION_CLASS_MAPPING.items()}


def test_importing_and_using_server_errors_imports_neither_pyspark_nor_pandas() -> None:
    code = textwrap.dedent(
        """
        import sys
        import grpc
        from google.rpc import error_details_pb2, status_pb2
        from google.protobuf import any_pb2
        from connect_plan.server_errors import rpc_failure, retry_delay
        from connect_plan.spark_proto import pb

        info = error_details_pb2.ErrorInfo(reason="r")
        info.metadata.update({"classes": '["org.apache.spark.sql.AnalysisException"]', "errorId": "e",
                              "errorClass": "NO_SUCH_CLASS_HERE"})
        packed = any_pb2.Any(); packed.Pack(info)
        st = status_pb2.Status(code=13, message="m", details=[packed])

        class E(grpc.RpcError):
            def code(self): return grpc.StatusCode.INTERNAL
            def details(self): return "m"
            def trailing_metadata(self): return (("grpc-status-details-bin", st.SerializeToString()),)

        resp = pb.FetchErrorDetailsResponse(root_error_idx=0)
        resp.errors.add(error_type_hierarchy=["org.apache.spark.sql.AnalysisException"], message="whole")
        f = rpc_failure(E(), lambda i: resp)
        assert f.text.startswith("whole") and f.exception_type == "AnalysisException", f
        assert retry_delay(E()) is None
        loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("pyspark", "pandas"))
        assert not loaded, loaded
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_the_transport_raises_the_typed_failure_of_what_the_server_sent(fake: FakeSparkConnect) -> None:
    """The production transport maps a failed call once, inside itself: the call raises the
    typed failure (here a ServerFailure) whose record is rpc_failure's of the same answer,
    with the gRPC error as its cause; the client sees nothing else."""
    from connect_plan.call_failures import ServerFailure
    from connect_plan.transport import connector

    info = error_info({"classes": ANALYSIS, "errorClass": "X_Y", "sqlState": "42000", "messageParameters": "{}"})
    fake.script = Script(status(grpc.StatusCode.INTERNAL, "[X_Y] bad. SQLSTATE: 42000", info))
    transport = connector(fake.url, retry_policy={"max_retries": 0}).open(lambda: True)
    try:
        with pytest.raises(ServerFailure) as raised:
            transport.spark_version()
    finally:
        transport.close(wait=False)
    failure = raised.value
    assert failure.status == "INTERNAL" and isinstance(failure.__cause__, grpc.RpcError)
    expected = fake.ours()
    for f in dataclasses.fields(RpcFailure):
        if f.name != "texts":  # the gRPC error's own text names its call (times, peer)
            assert getattr(failure.record, f.name) == getattr(expected, f.name), f.name
