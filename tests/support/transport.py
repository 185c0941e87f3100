"""A transport that replays Spark Connect responses recorded from a real server.

:class:`RecordedTransport` implements :class:`connect_plan.transport.Transport` from the
recordings in ``tests/golden/transport/<name>.bin``, so that the client's result path,
integrity checks, error mapping and step location run without a server
(``Client._over(RecordedConnector(...), url)``). Errors are replayed as the gRPC error the
server sent (the recorded ``google.rpc.Status`` in its trailer, the recorded
``FetchErrorDetailsResponse`` as the answer to FetchErrorDetails) and typed by the production
transport's own mapping (:func:`connect_plan.server_errors.call_failure`): the mapping under
test is the production one.

**File format.** A recording is a sequence of frames, one protobuf message each::

    <1 byte: length of the type name> <type name, ASCII: the message's full proto name>
    <4 bytes, big-endian: length of the message> <the serialised message>

An execution is its ``spark.connect.ExecutePlanResponse`` messages as the server sent them;
an analysis its ``spark.connect.AnalyzePlanResponse``; an error its ``google.rpc.Status``
(code, message, ``ErrorInfo``) then the ``spark.connect.FetchErrorDetailsResponse``.

**Re-recording** (after a server upgrade, or to add one to :data:`RECORDINGS`), against the
test server the suite starts itself::

    CONNECT_PLAN_RECORD=1 python -m pytest tests/integration/test_recordings.py

Without the variable that test checks that the server still answers as recorded.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import inspect
import struct
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa

from connect_plan import _pyspark_import  # noqa: F401  (before any PySpark import)
from connect_plan.call_failures import CallFailure
from connect_plan.errors import ConnectPlanError
from connect_plan.formats import load_plan
from connect_plan.responses import message_of
from connect_plan.results import ResultChecker
from connect_plan.server_errors import call_failure
from connect_plan.transport import DEFAULT_MAX_MESSAGE, received

RECORDINGS_DIR = Path(__file__).resolve().parent.parent / "golden" / "transport"

#: a value the recordings put in a server error (a table name) and tests put in the URL's
#: token: the error must reach the caller without it
SECRET = "s3cr3t_t0ken_value"
SMALL_BATCHES = {"spark.sql.execution.arrow.maxRecordsPerBatch": "100"}
#: Arrow chunks the client asks for when recording ``chunked`` (PySpark's preferred_arrow_chunk_size)
CHUNK_BYTES = 16 * 1024


def generated(n: int) -> dict[str, Any]:
    """A plan document: ``n`` rows made on the server (id, and a string of it)."""
    return {
        "input": {"range": n},
        "plan": [
            {"op": "withColumn", "payload": {"name": "s", "expr": {"fn": "cast", "args": [{"col": "id"}, "string"]}}},
            {"op": "orderBy", "payload": {"columns": ["id"]}},
        ],
    }


#: five steps; the fourth (index 3) selects a column that does not exist
LOCATED_PLAN = [{"op": "withColumn", "payload": {"name": f"c{i}", "expr": {"lit": i}}} for i in range(3)] + [
    {"op": "select", "payload": ["zz"]},
    {"op": "limit", "payload": {"n": 1}},
]
#: (its input is SQL, whose columns only the server knows: with a range input the missing
#: column would be a PlanError before anything is sent)
LOCATED_DOC = {"input": {"sql": "SELECT id FROM range(1)"}, "plan": LOCATED_PLAN}
EMPTY_DOC = {
    "input": {"schema": [("id", "bigint"), ("s", "string")], "rows": [[1, "x"]]},
    "plan": [{"op": "filter", "payload": {"op": "lt", "left": {"col": "id"}, "right": {"lit": 0}}}],
}

#: name → (what is recorded: "execute" a plan's result, "analyze" its schema (an answer or
#: an error), "version"; the plan document)
RECORDINGS: dict[str, tuple[str, Any]] = {
    "small": ("execute", {**generated(1_000), "conf": SMALL_BATCHES}),  # 10 batches of 100 rows
    "chunked": ("execute", generated(5_000)),  # one batch in chunks of CHUNK_BYTES
    "empty": ("execute", EMPTY_DOC),  # a schema, no rows
    "case_pair": ("execute", {"input": {"sql": "SELECT 1 AS a, 'x' AS A"}, "plan": []}),
    "same_name": ("execute", {"input": {"sql": "SELECT 1 AS a, 2 AS a"}, "plan": []}),
    "version": ("version", None),
    "schema": ("analyze", {"input": {"range": 1}, "plan": LOCATED_PLAN[:3]}),
    "unresolved": ("analyze", LOCATED_DOC),  # UNRESOLVED_COLUMN.WITH_SUGGESTION
    "secret_table": ("analyze", {"input": {"table": SECRET}, "plan": []}),  # TABLE_OR_VIEW_NOT_FOUND
}


# ---------------------------------------------------------------- the file format


def _message_types() -> dict[str, Any]:
    from google.rpc import status_pb2
    from pyspark.sql.connect import proto as pb

    kinds = (pb.ExecutePlanResponse, pb.AnalyzePlanResponse, pb.FetchErrorDetailsResponse, status_pb2.Status)
    return {k.DESCRIPTOR.full_name: k for k in kinds}


def dump(messages: list[Any]) -> bytes:
    out = bytearray()
    for message in messages:
        name = message.DESCRIPTOR.full_name.encode("ascii")
        data = message.SerializeToString(deterministic=True)
        out += struct.pack(">B", len(name)) + name + struct.pack(">I", len(data)) + data
    return bytes(out)


def parse(blob: bytes) -> list[Any]:
    types = _message_types()
    messages, at = [], 0
    while at < len(blob):
        (n,) = struct.unpack_from(">B", blob, at)
        name = blob[at + 1 : at + 1 + n].decode("ascii")
        (size,) = struct.unpack_from(">I", blob, at + 1 + n)
        start = at + 5 + n
        messages.append(types[name].FromString(blob[start : start + size]))
        at = start + size
    return messages


@functools.cache
def _stored(name: str) -> tuple[Any, ...]:
    return tuple(parse((RECORDINGS_DIR / f"{name}.bin").read_bytes()))


def load(name: str) -> list[Any]:
    """The messages of recording ``name`` (copies: tests may tamper with them)."""
    return copy.deepcopy(list(_stored(name)))


def save(name: str, messages: list[Any]) -> None:
    RECORDINGS_DIR.mkdir(parents=True, exist_ok=True)
    (RECORDINGS_DIR / f"{name}.bin").write_bytes(dump(messages))


def is_error(messages: list[Any]) -> bool:
    return bool(messages) and messages[0].DESCRIPTOR.full_name == "google.rpc.Status"


def decode(responses: list[Any]) -> pa.Table:
    """The table recorded responses hold, checked as the client checks them."""
    checker = ResultChecker()
    batches = [b for r in responses for b in checker.feed(r) if isinstance(b, pa.RecordBatch)]
    checker.finish()
    return pa.Table.from_batches(batches, checker.schema)


# ---------------------------------------------------------------- replaying errors


def replayed_error(messages: list[Any]) -> Exception:
    """The exception PySpark's client raises for a recorded error (``_handle_rpc_error``:
    the status' ``ErrorInfo`` with the fetched details, through ``convert_exception``)."""
    import grpc
    from google.rpc import error_details_pb2
    from pyspark.errors.exceptions.connect import SparkConnectGrpcException, convert_exception

    status, fetched = messages[0], (messages[1] if len(messages) > 1 else None)
    code = next((c for c in grpc.StatusCode if c.value[0] == status.code), grpc.StatusCode.UNKNOWN)
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            args: list[Any] = [info, status.message, fetched, False]
            if "grpc_status_code" in inspect.signature(convert_exception).parameters:  # PySpark 4.1+
                args.append(code)
            return convert_exception(*args)  # type: ignore[no-any-return]
    return SparkConnectGrpcException(message=status.message, grpc_status_code=code)


class FakeRpcError(Exception):
    """A gRPC error as gRPC raises it: a status, its details and (``trailer``: a
    ``google.rpc.Status``) the rich status Spark sends in ``grpc-status-details-bin``."""

    def __init__(self, code: str, details: str, trailer: Any = None) -> None:
        import grpc

        super().__init__(details)
        self._code, self._details = getattr(grpc.StatusCode, code), details
        self._trailer = trailer

    def code(self) -> Any:
        return self._code

    def details(self) -> str:
        return self._details

    def trailing_metadata(self) -> Any:
        if self._trailer is None:
            return None
        return (("grpc-status-details-bin", self._trailer.SerializeToString()),)


def rpc_error(code: str, details: str, trailer: Any = None) -> Exception:
    """A :class:`FakeRpcError` that is also a ``grpc.RpcError``."""
    import grpc

    cls = type("RpcError", (FakeRpcError, grpc.RpcError), {})
    return cls(code, details, trailer)  # type: ignore[no-any-return]


def recorded_failure(messages: list[Any]) -> CallFailure:
    """The typed failure the production transport raises for a recorded error: the gRPC
    error with the recorded status, its details fetched from the recording (as PySpark's
    client, the recordings' first reader, asked: stack traces not shown)."""
    import grpc

    status, fetched = messages[0], (messages[1] if len(messages) > 1 else None)
    code = next((c for c in grpc.StatusCode if c.value[0] == status.code), grpc.StatusCode.UNKNOWN)
    error = rpc_error(code.name, status.message, status)
    failure = call_failure(error, lambda _: fetched, show_stacktrace=False)
    failure.__cause__ = error
    return failure


def raised(error: BaseException) -> BaseException:
    """What a transport raises for ``error``: connect_plan's own errors as they are, anything
    else typed by the production mapping (with ``error`` as its cause)."""
    if isinstance(error, (ConnectPlanError, CallFailure)):
        return error
    failure = call_failure(error)
    failure.__cause__ = error
    return failure


# ---------------------------------------------------------------- the transport

#: what the transport answers for one request: a recording's name, messages (a tampered
#: copy), an exception to raise, or a function of the request's plan giving one of those
Answer = Any


def _answer(answer: Answer, plan: Any) -> Any:
    if callable(answer) and not isinstance(answer, BaseException):
        answer = answer(plan)
    if isinstance(answer, str):
        return load(answer)
    return answer


def _command_responses(observed: Any) -> list[Any]:
    """A command's responses: each ``ObservedMetrics`` given, then ``ResultComplete``."""
    from connect_plan.spark_proto import pb

    responses = [pb.ExecutePlanResponse(observed_metrics=[o]) for o in observed]
    return [*responses, pb.ExecutePlanResponse(result_complete=pb.ExecutePlanResponse.ResultComplete())]


class ReplayedStream:
    """A :class:`~connect_plan.transport.ResultStream` over recorded responses (or an error
    raised on the first read); it counts what the client did with it."""

    def __init__(self, answer: Any) -> None:
        self.operation_id = "recorded-operation"
        self._answer = answer
        self._responses: Iterator[Any] | None = None
        self.read = 0
        self.cancelled = 0
        self.closed = 0

    def __iter__(self) -> ReplayedStream:
        return self

    def __next__(self) -> Any:
        if self._responses is None:
            if isinstance(self._answer, BaseException):
                raise raised(self._answer)
            if is_error(self._answer):
                raise recorded_failure(self._answer)
            self._responses = iter(self._answer)
        response = next(self._responses)
        self.read += 1
        return received(response)

    def cancel(self) -> bool | None:
        self.cancelled += 1
        return True

    def close(self) -> None:
        self.closed += 1


class RecordedTransport:
    """A :class:`~connect_plan.transport.Transport` answering from recordings.

    ``execute`` answers ExecutePlan of a query, ``command`` that of a command (the
    ``ObservedMetrics`` it sends, or an error), ``analyze`` AnalyzePlan's schema requests (see
    :data:`Answer`); ``conf`` is the session's configuration, which Config reads and sets.
    Everything asked is kept (``executed``, ``analysed``, ``config_ops``, ``streams``)."""

    def __init__(
        self,
        execute: Answer = "small",
        analyze: Answer = "schema",
        *,
        command: Answer = (),
        version: Answer = "version",
        conf: dict[str, str] | None = None,
    ) -> None:
        self._execute, self._analyze, self._command, self._version = execute, analyze, command, version
        self.conf: dict[str, str] = dict(conf or {})
        self.executed: list[Any] = []
        self.analysed: list[Any] = []
        self.commands: list[Any] = []
        self.config_ops: list[str] = []
        self.streams: list[ReplayedStream] = []
        self.uploaded: dict[str, bytes] = {}
        self.released = False
        self.closed = False

    @property
    def session_id(self) -> str:
        return "recorded-session"

    @property
    def max_message_size(self) -> int:
        return DEFAULT_MAX_MESSAGE

    def execute_plan(self, plan: Any, tags: Any = ()) -> ReplayedStream:
        if plan.HasField("command"):  # a write or a view: answered by ``command``
            self.commands.append(plan.command)
            answer = _answer(self._command, plan.command)
            if not isinstance(answer, BaseException) and not is_error(answer):
                answer = _command_responses(answer)
        else:
            self.executed.append(plan)
            answer = _answer(self._execute, plan)
        stream = ReplayedStream(answer)
        self.streams.append(stream)
        return stream

    def _analysis(self, plan: Any) -> Any:
        self.analysed.append(plan)
        answer = _answer(self._analyze, plan)
        if isinstance(answer, BaseException):
            raise raised(answer)
        if is_error(answer):
            raise recorded_failure(answer)
        return answer[0]

    def schema(self, plan: Any) -> Any:
        return self._analysis(plan).schema.schema

    def explain(self, plan: Any, mode: str) -> str:
        self._analysis(plan)
        return f"== Recorded plan ({mode}) =="

    def spark_version(self) -> str:
        answer = _answer(self._version, None)
        if isinstance(answer, BaseException):
            raise raised(answer)
        return str(answer[0].spark_version.version)

    def config(self, operation: Any) -> list[tuple[str, str | None]]:
        kind = operation.WhichOneof("op_type")
        self.config_ops.append(kind)
        if kind == "set":
            self.conf.update({p.key: p.value for p in operation.set.pairs})
            return []
        if kind == "unset":
            for key in operation.unset.keys:
                self.conf.pop(key, None)
            return []
        if kind == "get_all":
            return list(self.conf.items())
        keys = getattr(operation, kind).keys
        return [(k, self.conf.get(k)) for k in keys]

    def cache_artifacts(self, blobs: list[bytes]) -> list[str]:
        hashes = [hashlib.sha256(b).hexdigest() for b in blobs]
        self.uploaded.update(zip(hashes, blobs))
        return hashes

    def release_session(self) -> None:
        self.released = True

    def close(self, *, wait: bool = True) -> None:
        self.closed = True


class RecordedConnector:
    """Opens the given transports, one per session (the last one again when they run out)."""

    token: str | None = None
    secure = False

    def __init__(self, *transports: RecordedTransport) -> None:
        self.transports = list(transports) or [RecordedTransport()]
        self.opened: list[RecordedTransport] = []

    def open(self, reached: Callable[[], bool]) -> RecordedTransport:
        transport = self.transports[min(len(self.opened), len(self.transports) - 1)]
        self.opened.append(transport)
        return transport


def recorded_client(*transports: RecordedTransport, url: str = "sc://recorded:15002", **kw: Any) -> Any:
    """A :class:`connect_plan.Client` over recorded transports (no server, no channel)."""
    from connect_plan.client import Client

    return Client._over(RecordedConnector(*transports), url, **kw)


def counting_client(policy: Any = None) -> tuple[Any, CountingConnector]:
    """A :class:`connect_plan.Client` (under ``policy``) whose transport answers nothing and
    counts what it was asked: a test that nothing was sent asserts ``transport.calls == []``."""
    from connect_plan.client import Client

    connector = CountingConnector()
    return Client._over(connector, "sc://counting:15002", policy=policy), connector


# ---------------------------------------------------------------- recording (needs a server)


def record_execution(client: Any, doc: Any) -> list[Any]:
    """The ExecutePlanResponses the server sends for ``doc``, as they came: one reattachable
    ExecutePlan call (as the client makes them), read to the end, then released."""
    from pyspark.sql.connect import proto as pb

    ir_plan = load_plan(doc)
    with client.internals.session.plan_conf(ir_plan.conf):
        plan = client.internals.executor.prepare(ir_plan).plan
        t = client.internals.transport
        req = t.execute_request(plan)
        stub, metadata = t._stub, t._metadata
        responses = [message_of(r) for r in stub.ExecutePlan(req, metadata=metadata)]
        stub.ReleaseExecute(
            pb.ReleaseExecuteRequest(
                session_id=req.session_id,
                user_context=req.user_context,
                operation_id=req.operation_id,
                release_all=pb.ReleaseExecuteRequest.ReleaseAll(),
            ),
            metadata=metadata,
        )
        return responses


def record_analysis(client: Any, doc: Any) -> list[Any]:
    """The server's answer to an AnalyzePlan of ``doc``'s schema: the response, or the
    error's status followed by its FetchErrorDetails answer."""
    import grpc
    from google.rpc import error_details_pb2
    from grpc_status import rpc_status
    from pyspark.sql.connect import proto as pb

    ir_plan = load_plan(doc)
    plan = client.internals.executor.prepare(ir_plan).plan
    t = client.internals.transport
    req = t.stamp(pb.AnalyzePlanRequest())
    req.schema.plan.CopyFrom(plan)
    try:
        return [t._stub.AnalyzePlan(req, metadata=t._metadata)]
    except grpc.RpcError as error:
        status = rpc_status.from_call(error)
        assert status is not None, error
    out: list[Any] = [status]
    for detail in status.details:
        info = error_details_pb2.ErrorInfo()
        if detail.Is(info.DESCRIPTOR) and detail.Unpack(info) and "errorId" in info.metadata:
            fetch = pb.FetchErrorDetailsRequest(
                session_id=req.session_id, user_context=req.user_context, error_id=info.metadata["errorId"]
            )
            out.append(t._stub.FetchErrorDetails(fetch, metadata=t._metadata))
    return out


def record_version(client: Any) -> list[Any]:
    from pyspark.sql.connect import proto as pb

    t = client.internals.transport
    req = t.stamp(pb.AnalyzePlanRequest())
    req.spark_version.SetInParent()
    return [t._stub.AnalyzePlan(req, metadata=t._metadata)]


def record(url: str, name: str) -> list[Any]:
    """Recording ``name`` of :data:`RECORDINGS`, made now on the server at ``url``."""
    import connect_plan

    kind, doc = RECORDINGS[name]
    with connect_plan.connect(url) as client:
        if name == "chunked":
            client.internals.transport.preferred_arrow_chunk_size = CHUNK_BYTES
        if kind == "execute":
            return record_execution(client, doc)
        if kind == "analyze":
            return record_analysis(client, doc)
        return record_version(client)


# ---------------------------------------------------------------- a transport that counts


class CountingTransport:
    """A transport that records every call made of it and answers none (each raises): a
    test that something was *not* sent asserts ``calls == []``."""

    session_id = "counting"
    max_message_size = DEFAULT_MAX_MESSAGE

    def __init__(self) -> None:
        self.calls: list[str] = []

    def _called(self, name: str) -> Any:
        self.calls.append(name)
        raise AssertionError(f"the client sent {name} to the server")

    def execute_plan(self, plan: Any, tags: Any = ()) -> Any:
        return self._called("execute_plan")

    def schema(self, plan: Any) -> Any:
        return self._called("schema")

    def explain(self, plan: Any, mode: str) -> str:
        return str(self._called("explain"))

    def spark_version(self) -> str:
        return str(self._called("spark_version"))

    def config(self, operation: Any) -> Any:
        return self._called("config")

    def cache_artifacts(self, blobs: list[bytes]) -> Any:
        return self._called("cache_artifacts")

    def release_session(self) -> None:
        self.calls.append("release_session")  # closing the client is not sending a plan

    def close(self, *, wait: bool = True) -> None:
        pass


class CountingConnector:
    """Opens one :class:`CountingTransport` for every session."""

    token: str | None = None
    secure = False

    def __init__(self) -> None:
        self.transport = CountingTransport()

    def open(self, reached: Callable[[], bool]) -> CountingTransport:
        return self.transport
