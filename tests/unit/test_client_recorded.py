"""The client without a server: its result path, integrity checks, output-name checks, error
mapping and step location, over a transport that replays answers a real Spark server gave
(tests/support/transport.py; tests/integration/test_recordings.py keeps them true).

The same guarantees are proved against the real server by tests/integration (test_client,
test_integrity, test_streaming, test_faults); here each runs in milliseconds, and the
server's side of the exchange can be scripted exactly: which prefix fails, what a
response says, what fails while a step is being located.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable
from typing import Any

import grpc
import pyarrow as pa
import pytest

import connect_plan
from connect_plan import (
    QueryTimeoutError,
    ResultIntegrityError,
    ServerError,
    ServerUnavailableError,
)
from connect_plan.call_failures import RpcFailure, ServerFailure, classify
from connect_plan.client.failures import Redactor, locate, redact, server_error
from connect_plan.formats import load_plan
from tests.support import tampering
from tests.support.transport import (
    EMPTY_DOC,
    LOCATED_DOC,
    SECRET,
    RecordedTransport,
    decode,
    generated,
    load,
    recorded_client,
    rpc_error,
)

SMALL = generated(1_000)
#: the schema of a generated result: range ids and their strings are never null
GENERATED = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("s", pa.string(), nullable=False)])


def _fails_on_zz(error: Any = "unresolved") -> Callable[[Any], Any]:
    """Analysis answers for LOCATED_DOC: a prefix that selects the missing column ``zz``
    fails with ``error``, any other passes."""
    return lambda plan: error if b"zz" in plan.SerializeToString() else "schema"


# ---------------------------------------------------------------- the result path


def test_execute_returns_the_recorded_result_whole() -> None:
    transport = RecordedTransport("small")
    with recorded_client(transport) as c:
        table = c.execute(SMALL)
    assert table.equals(decode(load("small")))
    assert table.column("id").to_pylist() == list(range(1_000))
    assert table.schema == GENERATED
    (stream,) = transport.streams
    assert stream.read == len(load("small")) and stream.closed == 1 and stream.cancelled == 0
    assert transport.released and transport.closed  # close() released the session


def test_stream_gives_the_schema_first_then_the_batches_as_they_arrive() -> None:
    transport = RecordedTransport("small")
    c = recorded_client(transport)
    reader = c.stream(SMALL)
    (stream,) = transport.streams
    # the call returned once the first batch was there, not after the whole result
    assert reader.schema == GENERATED
    assert stream.read < len(load("small"))
    batches = list(reader)
    assert len(batches) == len(tampering.arrow_indices(load("small")))
    assert all(b.num_rows == 100 for b in batches)
    assert stream.closed == 1
    c.close()


def test_an_empty_result_has_only_its_announced_schema() -> None:
    with recorded_client(RecordedTransport("empty")) as c:
        table = c.execute(EMPTY_DOC)
        reader = c.stream(EMPTY_DOC)
        assert reader.schema == pa.schema([("id", pa.int64()), ("s", pa.string())])
        assert reader.read_all().num_rows == 0
    assert table.num_rows == 0 and table.schema == reader.schema


def _add_columns(struct: Any, **kinds: str) -> None:
    """Append a column of each kind (a ``DataType`` oneof name) to a struct ``DataType``."""
    for name, kind in kinds.items():
        getattr(struct.struct.fields.add(name=name, nullable=True).data_type, kind).SetInParent()


def test_a_result_without_batches_takes_its_schema_from_the_announced_one() -> None:
    """Timestamps in the session's zone (read from the server, with the plan's conf applied),
    intervals as Spark's batches carry them; PySpark's ``to_arrow_schema`` raised for both."""
    responses = [r for r in load("empty") if not r.HasField("arrow_batch")]
    _add_columns(next(r for r in responses if r.HasField("schema")).schema, t="timestamp", n="timestamp_ntz")
    _add_columns(next(r for r in responses if r.HasField("schema")).schema, y="year_month_interval")
    transport = RecordedTransport(responses, conf={"spark.sql.session.timeZone": "Asia/Tokyo"})
    with recorded_client(transport) as c:
        table = c.execute(EMPTY_DOC)
    assert table.num_rows == 0
    assert table.schema.names == ["id", "s", "t", "n", "y"]
    assert table.schema.field("t").type == pa.timestamp("us", tz="Asia/Tokyo")
    assert table.schema.field("n").type == pa.timestamp("us")
    assert table.schema.field("y").type.id == pa.lib.Type_INTERVAL_MONTHS


def test_schema_gives_timestamps_the_sessions_zone_asking_only_when_there_is_one() -> None:
    plan = {"input": {"range": 1}, "plan": []}
    timestamped = load("schema")
    _add_columns(timestamped[0].schema.schema, t="timestamp")
    for answer, zone_reads in (("schema", 0), (timestamped, 1)):
        transport = RecordedTransport(analyze=answer, conf={"spark.sql.session.timeZone": "America/New_York"})
        with recorded_client(transport) as c:
            first = c.schema(plan)
            before = len(transport.config_ops)
            again = c.schema(plan)
            assert transport.config_ops[before:] == ["get"] * zone_reads
        assert first == again
    assert first.names == ["id", "c0", "c1", "c2", "t"]
    assert first.field("t").type == pa.timestamp("us", tz="America/New_York")


def test_a_result_with_neither_schema_nor_batch_is_refused() -> None:
    complete = [r for r in load("empty") if r.HasField("result_complete")]
    with recorded_client(RecordedTransport(complete)) as c:
        with pytest.raises(ResultIntegrityError, match="neither a schema nor any Arrow batch"):
            c.execute(SMALL)


def test_chunked_batches_are_reassembled() -> None:
    responses = load("chunked")
    assert any(r.arrow_batch.num_chunks_in_batch > 2 for r in responses if r.HasField("arrow_batch"))
    with recorded_client(RecordedTransport(responses)) as c:
        table = c.execute(generated(5_000))
    assert table.column("id").to_pylist() == list(range(5_000))


def test_statistics_of_recorded_results_match_them() -> None:
    """QueryWatch reads the same responses the checker does: rows, batches (a chunked batch
    counts once), Arrow bytes, the operation id and the server's operator metrics."""
    for name, doc in (("small", SMALL), ("chunked", generated(5_000))):
        responses = load(name)
        seen: list[Any] = []
        with recorded_client(RecordedTransport(responses)) as c:
            table = c.execute(doc, on_progress=seen.append)
            stats = c.last_query
        assert stats is not None and stats.complete and stats.rows == table.num_rows
        batches = [r.arrow_batch for r in responses if r.HasField("arrow_batch")]
        whole = [
            b for b in batches if not b.HasField("num_chunks_in_batch") or b.chunk_index == b.num_chunks_in_batch - 1
        ]
        assert stats.batches == len(whole) and stats.arrow_bytes == sum(len(b.data) for b in batches)
        assert stats.operation_id == responses[0].operation_id
        assert seen[-1].done and seen[-1].rows == table.num_rows
        metrics = [r for r in responses if r.HasField("metrics")]
        assert len(stats.operators) == (len(metrics[-1].metrics.metrics) if metrics else 0)


# ---------------------------------------------------------------- integrity


@pytest.mark.parametrize(
    "source,tamper,message", tampering.TAMPERINGS, ids=[t[1].__name__ for t in tampering.TAMPERINGS]
)
def test_every_tampering_is_refused_by_execute_and_stream(
    source: str, tamper: Callable[[list[Any]], None], message: str
) -> None:
    responses = load(source)
    tamper(responses)
    transport = RecordedTransport(lambda plan: copy.deepcopy(responses))
    with recorded_client(transport) as c:
        with pytest.raises(ResultIntegrityError, match=message):
            c.execute(SMALL)
        with pytest.raises(ResultIntegrityError, match=message):
            c.stream(SMALL).read_all()
    assert [s.closed for s in transport.streams] == [1, 1]  # released, never left open


def test_the_untampered_recordings_pass_the_checker() -> None:
    assert decode(load("small")).num_rows == 1_000
    assert decode(load("chunked")).num_rows == 5_000


# ---------------------------------------------------------------- bounds


def test_max_bytes_cuts_the_stream_to_a_prefix_and_releases_the_rest() -> None:
    transport = RecordedTransport("small")
    with recorded_client(transport) as c:
        full = c.execute(SMALL)
        budget = full.nbytes // 3
        head = c.execute(SMALL, max_bytes=budget)
        empty = c.execute(SMALL, max_bytes=0)
    assert 0 < head.num_rows < full.num_rows and head.nbytes <= budget
    assert head.equals(full.slice(0, head.num_rows))
    assert empty.num_rows == 0 and empty.schema == full.schema
    everything, cut, nothing = transport.streams
    assert cut.read < everything.read and nothing.read < cut.read
    assert cut.closed == nothing.closed == 1


def test_max_rows_is_a_limit_in_the_plan_sent() -> None:
    transport = RecordedTransport("small")
    with recorded_client(transport) as c:
        c.execute(SMALL, max_rows=25)
    (plan,) = transport.executed
    assert plan.root.limit.limit == 25 and plan.root.limit.input.HasField("sort")


@pytest.mark.parametrize("bad", [{"max_rows": -1}, {"max_bytes": 1.5}, {"max_rows": True}])
def test_bad_bounds_are_refused_before_anything_is_sent(bad: dict[str, Any]) -> None:
    transport = RecordedTransport("small")
    with recorded_client(transport) as c:
        with pytest.raises(ValueError, match="non-negative integer"):
            c.stream(SMALL, **bad)
    assert transport.executed == []


# ---------------------------------------------------------------- output names


def test_exact_duplicate_names_are_refused_whatever_the_session_says() -> None:
    doc = {"input": {"sql": "SELECT 1 AS a, 2 AS a"}, "plan": []}
    transport = RecordedTransport("same_name", conf={"spark.sql.caseSensitive": "true"})
    with recorded_client(transport) as c:
        with pytest.raises(ResultIntegrityError, match="two columns named 'a'"):
            c.execute(doc)
    assert transport.streams[0].closed == 1


def test_names_differing_in_case_ask_the_session_once() -> None:
    doc = {"input": {"sql": "SELECT 1 AS a, 'x' AS A"}, "plan": []}
    insensitive = RecordedTransport("case_pair")
    with recorded_client(insensitive) as c:
        with pytest.raises(ResultIntegrityError, match="two columns named 'A'"):
            c.execute(doc)
    assert insensitive.config_ops == ["get"]
    # the server's own setting, which the client did not make
    sensitive = RecordedTransport("case_pair", conf={"spark.sql.caseSensitive": "true"})
    with recorded_client(sensitive) as c:
        assert c.execute(doc).column_names == ["a", "A"]
    assert sensitive.config_ops == ["get"]
    # the plan document's own conf: known to the client, nothing asked after the result
    documented = RecordedTransport("case_pair")
    with recorded_client(documented) as c:
        assert c.execute({**doc, "conf": {"spark.sql.caseSensitive": "true"}}).column_names == ["a", "A"]
    assert documented.config_ops == ["get_all", "set", "unset"]
    assert "spark.sql.caseSensitive" not in documented.conf  # unset again after the execution


# ---------------------------------------------------------------- errors


def test_a_server_error_keeps_spark_class_sqlstate_message_and_parameters() -> None:
    transport = RecordedTransport(analyze="unresolved")
    with recorded_client(transport) as c:
        with pytest.raises(ServerError) as info:
            c.schema(LOCATED_DOC)
    err = info.value
    assert err.error_class == "UNRESOLVED_COLUMN.WITH_SUGGESTION" and err.sqlstate == "42703"
    assert err.exception_type == "AnalysisException"
    assert "zz" in err.message and "zz" in err.message_parameters["objectName"]
    assert str(err).startswith("[UNRESOLVED_COLUMN.WITH_SUGGESTION]") and "SQLSTATE" in str(err)
    assert "JVM stacktrace" not in str(err)
    # the cause is kept (it holds no secret): the transport's typed failure, and the gRPC error under it
    assert isinstance(err.__cause__, ServerFailure) and isinstance(err.__cause__.__cause__, grpc.RpcError)


def test_a_secret_the_server_echoes_is_scrubbed_and_the_error_keeps_no_cause() -> None:
    doc = {"input": {"table": SECRET}, "plan": []}
    transport = RecordedTransport(execute="secret_table", analyze="secret_table")
    with recorded_client(transport, url=f"sc://recorded:15002/;token={SECRET}") as c:
        with pytest.raises(ServerError) as info:
            c.execute(doc)
        assert SECRET not in repr(c) and "token=***" in c.url
    err = info.value
    assert err.error_class == "TABLE_OR_VIEW_NOT_FOUND" and err.sqlstate == "42P01"
    texts = [str(err), err.message, err.server_stacktrace or "", *err.message_parameters.values()]
    assert not any(SECRET in t for t in texts)
    assert "***" in err.message and "***" in err.message_parameters["relationName"]
    assert err.__cause__ is None and err.__suppress_context__
    assert err.op_index is None  # no step of this plan (it has none) to name


@pytest.mark.parametrize(
    "code,details,kind,says",
    [
        (
            "UNAVAILABLE",
            "failed to connect to all addresses; last error: connection refused",
            ServerUnavailableError,
            "connection refused (is the server running?)",
        ),
        ("UNAVAILABLE", "Socket closed", ServerUnavailableError, "the connection was lost"),
        ("UNAVAILABLE", "keepalive watchdog timeout", ServerUnavailableError, "went silent"),
        ("DEADLINE_EXCEEDED", "Deadline Exceeded", ServerUnavailableError, "Deadline Exceeded (server sc://"),
        (
            "INTERNAL",
            f"bad frame near token={SECRET}",
            ServerError,
            "failed internally (INTERNAL: bad frame near token=***",
        ),
    ],
)
def test_bare_grpc_statuses_are_mapped_and_redacted(code: str, details: str, kind: type, says: str) -> None:
    transport = RecordedTransport(version=rpc_error(code, details))
    with recorded_client(transport, url=f"sc://recorded:15002/;token={SECRET}") as c:
        with pytest.raises(ServerError) as info:
            c.server_version()
    err = info.value
    assert type(err) is kind and says in str(err) and SECRET not in str(err)
    assert err.grpc_status == code
    # the gRPC error is kept as the cause unless its own text held the token
    assert (err.__cause__ is None) == (SECRET in details)


def test_a_deadline_that_passed_is_a_timeout_not_an_unreachable_server() -> None:
    def late() -> Any:
        time.sleep(0.1)
        return rpc_error("DEADLINE_EXCEEDED", "Deadline Exceeded")

    transport = RecordedTransport(version=lambda _: late())
    with recorded_client(transport) as c:
        with pytest.raises(QueryTimeoutError, match=r"ran past its timeout of 0\.05 s") as info:
            c.server_version(timeout=0.05)
    assert info.value.unanswered


def test_the_mapping_of_each_failure_kind() -> None:
    url = "sc://h:1/;token=abc"
    other = server_error(classify(RpcFailure("other", "ValueError: nope")), url)
    assert type(other) is ServerError and other.message == "ValueError: nope"
    refused = RpcFailure("server", 'UNAUTHENTICATED: details = "bad token"', status="UNAUTHENTICATED")
    err = server_error(classify(refused), url)
    assert err.grpc_status == "UNAUTHENTICATED" and "refused the credentials: bad token" in err.message
    assert "abc" not in err.message
    sail = server_error(classify(RpcFailure("server", "x", message="unsupported PySpark version 9")), url)
    assert "use a pysail release that does" in sail.message
    cut = server_error(classify(RpcFailure("server", "x", message="boom\n\nJVM stacktrace:\nat x")), url)
    assert cut.message == "boom"
    assert redact("sc://u:pw@h:1/;token=abc;x=1") == "sc://***@h:1/;token=***;x=1"
    redactor = Redactor(url, ("abc",))
    assert redactor.hide("the value abc in free text") == "the value *** in free text"
    assert "abc" not in repr(redactor) and "abc" not in str(redactor)


# ---------------------------------------------------------------- step location


def test_the_failing_step_is_found_by_binary_search_over_prefixes() -> None:
    transport = RecordedTransport(execute="unresolved", analyze=_fails_on_zz())
    with recorded_client(transport) as c:
        with pytest.raises(ServerError) as info:
            c.execute(LOCATED_DOC)
    err = info.value
    assert (err.op_index, err.op_name) == (3, "select")
    assert str(err).startswith("plan step 3 (select): [UNRESOLVED_COLUMN.WITH_SUGGESTION]")
    # all 5 steps (fails), none (passes), 2, 3 (pass), 4 (fails): O(log n) analyses
    assert len(transport.analysed) == 5
    assert isinstance(err.__cause__, Exception)


def test_stream_locates_the_step_too() -> None:
    transport = RecordedTransport(execute="unresolved", analyze=_fails_on_zz())
    with recorded_client(transport) as c:
        with pytest.raises(ServerError) as info:
            c.stream(LOCATED_DOC)
    assert info.value.op_index == 3


@pytest.mark.parametrize(
    "analyze,why",
    [
        (_fails_on_zz(rpc_error("UNAVAILABLE", "Socket closed")), "the server went away during the search"),
        (_fails_on_zz("secret_table"), "a prefix fails with another error class"),
        (lambda plan: "schema", "the whole plan analyses: the error arose only at execution"),
        (lambda plan: "unresolved", "even the plan's source fails"),
    ],
    ids=["unreachable", "other_error", "only_at_execution", "source_fails"],
)
def test_locating_gives_up_rather_than_name_a_wrong_step(analyze: Any, why: str) -> None:
    transport = RecordedTransport(execute="unresolved", analyze=analyze)
    with recorded_client(transport) as c:
        with pytest.raises(ServerError) as info:
            c.execute(LOCATED_DOC)
    err = info.value
    assert err.op_index is None and err.error_class == "UNRESOLVED_COLUMN.WITH_SUGGESTION", why
    assert 1 <= len(transport.analysed) <= 3


def test_an_error_that_is_not_an_analysis_error_is_not_located() -> None:
    transport = RecordedTransport(execute=rpc_error("INTERNAL", "executor lost"), analyze=_fails_on_zz())
    with recorded_client(transport) as c:
        with pytest.raises(ServerError) as info:
            c.execute(LOCATED_DOC)
    assert info.value.op_index is None and transport.analysed == []


def test_a_failed_write_whose_plan_analyses_names_the_output_step() -> None:
    doc = {"input": {"range": 1}, "plan": [], "output": {"path": "/nowhere", "format": "json"}}
    transport = RecordedTransport(command="unresolved")
    with recorded_client(transport) as c:
        with pytest.raises(ServerError) as info:
            c.execute(doc)
    err = info.value
    output = load_plan(doc).output
    assert output is not None and (err.op_index, err.op_name) == (output.index, output.op)


def test_locate_searches_prefixes_directly() -> None:
    """``failures.locate`` alone, with prefixes judged by their number of steps."""
    plan = load_plan(LOCATED_DOC)
    seen: list[int] = []
    with recorded_client(RecordedTransport(analyze="unresolved")) as c:
        with pytest.raises(ServerError) as info:
            c.schema(LOCATED_DOC)
    wanted = info.value

    def analyse(prefix: Any) -> object:
        seen.append(len(prefix.steps))
        if len(prefix.steps) >= 4:
            raise wanted
        return None

    found = locate(wanted, plan, analyse)
    assert (found.op_index, found.op_name) == (3, "select") and seen == [5, 0, 2, 3, 4]
    assert locate(found, plan, analyse) is found  # already located: nothing asked
    assert seen == [5, 0, 2, 3, 4]


def test_connect_plan_exports_still_resolve() -> None:
    from connect_plan.client import Client, check_unique_names, connect, resolve_remote, url_secrets

    assert connect_plan.connect is not None and Client.__module__ == "connect_plan.client"
    assert callable(check_unique_names) and callable(connect) and callable(resolve_remote)
    assert url_secrets("sc://h:1/;token=a%2Fb") == ("a%2Fb", "a/b")


def test_every_recording_is_listed_and_stored() -> None:
    from tests.support.transport import RECORDINGS, RECORDINGS_DIR

    assert {p.stem for p in RECORDINGS_DIR.glob("*.bin")} == set(RECORDINGS)


# ---------------------------------------------------------------- session renewal

LOST = "INVALID_HANDLE.SESSION_CHANGED: incorrect server side session identifier"


def test_a_lost_session_is_renewed_with_its_conf_and_the_plan_runs_once_more() -> None:
    gone = RecordedTransport(execute=rpc_error("INTERNAL", LOST))
    fresh = RecordedTransport("small")
    c = recorded_client(gone, fresh)
    c.set_conf({"spark.sql.session.timeZone": "UTC"})
    table = c.execute(SMALL)
    assert table.num_rows == 1_000
    assert gone.closed and len(gone.executed) == 1 and len(fresh.executed) == 1
    assert fresh.conf == {"spark.sql.session.timeZone": "UTC"}  # set_conf replayed on the new session
    c.close()
    assert fresh.released and not gone.released


def test_an_append_is_never_run_twice_on_a_new_session() -> None:
    doc = {"input": {"range": 1}, "plan": [], "output": {"path": "/t", "format": "json", "mode": "append"}}
    gone = RecordedTransport(command=rpc_error("INTERNAL", LOST))
    fresh = RecordedTransport()
    with recorded_client(gone, fresh) as c:
        with pytest.raises(ServerError, match="incorrect server side session identifier"):
            c.execute(doc)
    assert len(gone.commands) == 1 and fresh.commands == []


def test_an_error_in_a_group_by_with_a_separate_agg_step_names_the_agg_step() -> None:
    """``groupBy`` without aggs + ``agg`` are one IR step; the error names the ``agg`` step,
    where the aggregates were written (as before the parser paired them)."""
    doc = {
        "input": {"schema": [{"name": "k", "type": "string"}, {"name": "v", "type": "int"}], "rows": []},
        "plan": [
            {"op": "filter", "payload": {"col": "v"}},
            {"op": "groupBy", "payload": {"group_by": ["k"]}},
            {"op": "agg", "payload": {"aggs": [{"agg": "sum", "column": "nope"}]}},
        ],
    }
    plan = load_plan(doc)
    with recorded_client(RecordedTransport(analyze="unresolved")) as c:
        with pytest.raises(ServerError) as info:
            c.schema(LOCATED_DOC)
    wanted = info.value

    def analyse(prefix: Any) -> object:
        if len(prefix.steps) >= 2:
            raise wanted
        return None

    found = locate(wanted, plan, analyse)
    assert (found.op_index, found.op_name) == (2, "agg")
