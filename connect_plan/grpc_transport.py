"""The production transport: Spark Connect's gRPC service driven directly, without PySpark's client.

PySpark's ``SparkConnectClient`` cannot be imported without ``pyspark/__init__``, PySpark's
Connect package and pandas (its ``client/core.py`` imports pandas at module level): 0.5-0.7 s
and ~90 MiB of a cold start that needs none of them (issue 17, docs/performance.md "Cold
start"). This module makes the same RPCs with PySpark's own generated stub and message classes
(:mod:`connect_plan.spark_proto` loads them without PySpark) over the channel of
:mod:`connect_plan.channel`, and keeps every guarantee the module doc of
:mod:`connect_plan.transport` lists. PySpark's own client is the reference it is tested
against, kept under tests/ (tests/support/reference_transport.py).

What is hand-written, and why (each mirrors PySpark 4.3's code, named in brackets):

* requests: session id, user context, client type, the server-side session id observed,
  result chunking and reattach options [``_execute_plan_request_with_metadata`` and its
  siblings]; the session-integrity check of every response [``_verify_response_integrity``];
* :class:`ExecutionStream`, the reattachable execution [``ExecutePlanResponseReattachableIterator``]:
  ReattachExecute after a broken stream or one ended without ``ResultComplete``, a new
  ExecutePlan when the first never reached the server, a fresh stream when a per-stream
  deadline fired, release of consumed responses (every :data:`~connect_plan.results.
  RELEASE_EVERY_BYTES`, not every response) and release-all at the end, from a thread pool
  (:func:`release_pool`); with connect_plan's bound on empty reattached streams; on a
  timeout or Ctrl-C, :func:`release_then_interrupt`;
* retries: :class:`~connect_plan.retries.Backoff` [``DefaultPolicy``];
* artifacts: ArtifactStatus, then AddArtifacts of the missing blobs as cache artifacts, each
  with its CRC, batched up to 32 KiB or chunked [``ArtifactManager.cache_artifacts``];
* errors: every call raises connect_plan's own typed failures
  (:mod:`connect_plan.call_failures`), mapped once, here (:meth:`GrpcTransport.failure`):
  :func:`connect_plan.server_errors.call_failure` fetches Spark's error details and types
  them [``_handle_rpc_error``, ``convert_exception``]; a response of another session is a
  :class:`~connect_plan.call_failures.SessionLost` (or a server failure) at once.

Per-RPC deadlines are PySpark 4.3's [``RpcDeadlines``]: 10 minutes per stream segment (a
stream whose deadline fires is reattached, the execution goes on), an hour for analysis and
uploads, 10 minutes for the rest; the operation's own deadline caps each of them
(:mod:`connect_plan.deadlines`, applied by :class:`~connect_plan.channel.DirectStub`).
"""

from __future__ import annotations

import functools
import logging
import os
import threading
import time
import uuid
import zlib
from collections.abc import Callable, Generator, Mapping, Sequence
from concurrent.futures import Future
from typing import Any, TypeVar

from .call_failures import CallFailure, RpcFailure, classify
from .channel import DirectStub, channel_guard, close_channel, start_call
from .deadlines import grace, remaining, timeout_error
from .errors import ConnectPlanError, ResultIntegrityError
from .responses import Received, from_wire, received
from .results import (
    CANCEL_WAIT_SECONDS,
    EMPTY_STREAM_SECONDS,
    INTERRUPT_GRACE_SECONDS,
    MAX_EMPTY_REATTACHES,
    RELEASE_EVERY_BYTES,
)
from .retries import Backoff, RetryAgain, retrying
from .spark_proto import pb, service_stub

__all__ = ["ExecutionStream", "GrpcConnector", "GrpcTransport", "release_pool", "release_then_interrupt"]

F = TypeVar("F", bound=Callable[..., Any])

log = logging.getLogger("connect_plan")

#: per-RPC deadlines, seconds (PySpark 4.3's ``RpcDeadlines``)
STREAM_SEGMENT_SECONDS = 10 * 60.0
ANALYZE_SECONDS = 60 * 60.0
ARTIFACTS_SECONDS = 60 * 60.0
SHORT_RPC_SECONDS = 10 * 60.0
#: how long closing waits for ReleaseExecute calls still on their way (each takes ~1 ms of a
#: server that answers)
RELEASES_SETTLE_SECONDS = 0.2
#: how long describing a failure may spend fetching Spark's error details
FETCH_ERROR_SECONDS = 10.0
#: artifacts up to this size go in one batched request, larger ones in chunks of it
ARTIFACT_CHUNK = 32 * 1024
_CACHE_PREFIX = "cache"
_LOST_OPERATION = ("INVALID_HANDLE.OPERATION_NOT_FOUND", "INVALID_HANDLE.SESSION_NOT_FOUND")

_RELEASE_POOL: Any = None
_RELEASE_POOL_LOCK = threading.Lock()


def _mapped(method: F) -> F:
    """``method`` of :class:`GrpcTransport` raising only connect_plan's own errors: a typed
    failure (:meth:`GrpcTransport.failure`) for anything else it raised."""

    @functools.wraps(method)
    def call(self: GrpcTransport, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except (ConnectPlanError, CallFailure):
            raise
        except Exception as exc:
            raise self.failure(exc) from exc

    return call  # type: ignore[return-value]


def _session_changed(text: str) -> CallFailure:
    """A response of another session (or server-side session) than this client's, typed:
    :class:`~connect_plan.call_failures.SessionLost` when the server restarted."""
    return classify(RpcFailure("server", text, message=text, texts=(text, f"SessionChanged({text!r})")))


def _result_stub(channel: Any) -> Any:
    """PySpark's service stub over ``channel``, its two result streams (ExecutePlan,
    ReattachExecute) deserialized by :func:`~connect_plan.responses.from_wire`: each response a
    :class:`~connect_plan.responses.Received` whose Arrow bytes are a view of what gRPC
    received, not two more copies of them (a stub a test puts in its place may still answer
    with plain messages: the stream takes either)."""
    stub = service_stub(channel)
    for name, request in (("ExecutePlan", pb.ExecutePlanRequest), ("ReattachExecute", pb.ReattachExecuteRequest)):
        method = channel.unary_stream(
            f"/spark.connect.SparkConnectService/{name}",
            request_serializer=request.SerializeToString,
            response_deserializer=from_wire,
            _registered_method=True,
        )
        setattr(stub, name, method)
    return stub


class GrpcConnector:
    """Opens :class:`GrpcTransport` sessions over ``builder`` (a lean
    :func:`~connect_plan.channel.ChannelBuilder`, made by :func:`~connect_plan.transport.connector`),
    which every session reuses."""

    def __init__(
        self, builder: Any, *, user_id: str | None = None, retry_policy: Mapping[str, Any] | None = None
    ) -> None:
        self.builder = builder
        self.token: str | None = self.builder.token
        self.secure: bool = bool(self.builder.secure)
        # as PySpark: the URL's user_id, else the argument, else the OS user
        if self.builder.userId is not None:
            self.user_id: str | None = self.builder.userId
        elif user_id is not None:
            self.user_id = user_id
        else:
            self.user_id = os.getenv("SPARK_USER", os.getenv("USER"))
        self.client_type = self.builder.userAgent  # raises now for a user agent over 2,048 characters
        self.fixed_session_id = self.builder.session_id  # raises now for one that is not a UUID
        self._retry_policy = dict(retry_policy or {})
        Backoff(lambda: False, **self._retry_policy)  # unknown settings are refused now, not per session

    def open(self, reached: Callable[[], bool]) -> GrpcTransport:
        return GrpcTransport(self, Backoff(reached, **self._retry_policy))


class GrpcTransport:
    """A :class:`~connect_plan.transport.Transport` over one gRPC channel and one session."""

    def __init__(self, connector: GrpcConnector, policy: Backoff) -> None:
        builder = connector.builder
        self.policy = policy
        self._session_id = connector.fixed_session_id or str(uuid.uuid4())
        self._server_session_id: str | None = None
        self._user_id = connector.user_id
        self._client_type = connector.client_type
        self._metadata = list(builder.metadata())
        options = dict(builder._channel_options)
        limit = options.get("grpc.max_send_message_length")
        self._max_message = limit if isinstance(limit, int) and limit > 0 else builder.GRPC_MAX_MESSAGE_LENGTH_DEFAULT
        self._channel = builder.toChannel()
        #: the service stub every call goes through (tests replace it with a recording one)
        self._stub = DirectStub(_result_stub(self._channel), channel_guard(self._channel), builder.call_metadata)
        #: ReleaseExecute calls not yet done (awaited briefly before the channel closes)
        self.release_futures: set[Future[None]] = set()
        self._lock = threading.Lock()
        #: asked of the server for chunked result batches (None: the server's default)
        self.preferred_arrow_chunk_size: int | None = None

    # ------------------------------------------------------------ requests

    @property
    def session_id(self) -> str:
        return self._session_id

    @property
    def max_message_size(self) -> int:
        return int(self._max_message)

    def stamp(self, req: Any, *, observed: bool = True) -> Any:
        """``req`` with this client's session, user and client type (and the server-side
        session it observed, where the request has the field)."""
        req.session_id = self._session_id
        fields = req.DESCRIPTOR.fields_by_name
        if "client_type" in fields:
            req.client_type = self._client_type
        if self._user_id:
            req.user_context.user_id = self._user_id
        if observed and self._server_session_id is not None and "client_observed_server_side_session_id" in fields:
            req.client_observed_server_side_session_id = self._server_session_id
        return req

    def verify(self, resp: Any) -> None:
        """The session-integrity check of every response (PySpark's): the same client session,
        and the same server-side session as every response before."""
        if resp.session_id != self._session_id:
            raise _session_changed(
                f"Received incorrect session identifier for request:{resp.session_id} != {self._session_id}"
            )
        server_side = resp.server_side_session_id
        if self._server_session_id is None:
            self._server_session_id = server_side
        elif server_side and server_side != self._server_session_id:
            raise _session_changed(
                "INVALID_HANDLE.SESSION_CHANGED: Received incorrect server side session identifier for request. "
                f"Please create a new Spark Session to reconnect. ({server_side} != {self._server_session_id})"
            )

    def unary(self, name: str, req: Any, timeout: float, *, check: bool = True) -> Any:
        """One retried unary call of the service, its response checked (``check``: for the
        session, as PySpark checks the answers it checks)."""
        method = getattr(self._stub, name)

        def call() -> Any:
            resp = method(req, metadata=self._metadata, timeout=timeout)
            if check:
                self.verify(resp)
            return resp

        return retrying(self.policy, call)

    # ------------------------------------------------------------ executions

    def execute_request(self, plan: pb.Plan, tags: Sequence[str] = ()) -> pb.ExecutePlanRequest:
        """The reattachable ExecutePlan request of ``plan`` (a new operation id, the
        operation's ``tags``; chunked result batches allowed)."""
        req = self.stamp(pb.ExecutePlanRequest())
        req.plan.CopyFrom(plan)
        req.operation_id = str(uuid.uuid4())
        req.tags.extend(tags)
        chunking = getattr(pb, "ResultChunkingOptions", None)  # Spark 4.1+ protos
        if chunking is not None:
            options = chunking(allow_arrow_batch_chunking=True)
            if self.preferred_arrow_chunk_size is not None:
                options.preferred_arrow_chunk_size = self.preferred_arrow_chunk_size
            req.request_options.append(pb.ExecutePlanRequest.RequestOption(result_chunking_options=options))
        req.request_options.append(
            pb.ExecutePlanRequest.RequestOption(reattach_options=pb.ReattachOptions(reattachable=True))
        )
        return req  # type: ignore[no-any-return]

    def execute_plan(self, plan: pb.Plan, tags: Sequence[str] = ()) -> ExecutionStream:
        return ExecutionStream(self, self.execute_request(plan, tags))

    # ------------------------------------------------------------ analysis and settings

    def _analyze(self, **kind: Any) -> pb.AnalyzePlanResponse:
        req = self.stamp(pb.AnalyzePlanRequest(**kind))
        return self.unary("AnalyzePlan", req, ANALYZE_SECONDS)  # type: ignore[no-any-return]

    @_mapped
    def schema(self, plan: pb.Plan) -> pb.DataType:
        return self._analyze(schema=pb.AnalyzePlanRequest.Schema(plan=plan)).schema.schema

    @_mapped
    def explain(self, plan: pb.Plan, mode: str) -> str:
        modes = {
            "simple": pb.AnalyzePlanRequest.Explain.ExplainMode.EXPLAIN_MODE_SIMPLE,
            "extended": pb.AnalyzePlanRequest.Explain.ExplainMode.EXPLAIN_MODE_EXTENDED,
            "codegen": pb.AnalyzePlanRequest.Explain.ExplainMode.EXPLAIN_MODE_CODEGEN,
            "cost": pb.AnalyzePlanRequest.Explain.ExplainMode.EXPLAIN_MODE_COST,
            "formatted": pb.AnalyzePlanRequest.Explain.ExplainMode.EXPLAIN_MODE_FORMATTED,
        }
        if mode not in modes:
            raise ConnectPlanError(f"unknown explain mode {mode!r}: one of {', '.join(modes)}")
        explain = pb.AnalyzePlanRequest.Explain(plan=plan, explain_mode=modes[mode])
        return str(self._analyze(explain=explain).explain.explain_string)

    @_mapped
    def spark_version(self) -> str:
        return str(self._analyze(spark_version=pb.AnalyzePlanRequest.SparkVersion()).spark_version.version)

    @_mapped
    def config(self, operation: pb.ConfigRequest.Operation) -> list[tuple[str, str | None]]:
        return self._config(operation)

    def _config(self, operation: pb.ConfigRequest.Operation) -> list[tuple[str, str | None]]:
        req = self.stamp(pb.ConfigRequest())
        req.operation.CopyFrom(operation)
        resp = self.unary("Config", req, SHORT_RPC_SECONDS)
        for warning in resp.warnings:
            log.warning("Spark Connect server: %s", warning)
        return [(kv.key, kv.value if kv.HasField("value") else None) for kv in resp.pairs]

    @_mapped
    def cache_artifacts(self, blobs: list[bytes]) -> list[str]:
        import hashlib  # only for uploads (~3 ms of an import otherwise)

        hashes = [hashlib.sha256(blob).hexdigest() for blob in blobs]
        unique = list(dict.fromkeys(hashes))
        names = [f"{_CACHE_PREFIX}/{h}" for h in unique]
        status_req = self.stamp(pb.ArtifactStatusesRequest(names=names), observed=False)
        # artifact answers are not session-checked (PySpark's ArtifactManager does not either)
        statuses = self.unary("ArtifactStatus", status_req, SHORT_RPC_SECONDS, check=False).statuses
        missing = {}
        for blob, h in zip(blobs, hashes):
            status = statuses.get(f"{_CACHE_PREFIX}/{h}")
            if (status is None or not status.exists) and h not in missing:
                missing[h] = blob
        if missing:
            requests = list(self._artifact_requests([(f"{_CACHE_PREFIX}/{h}", b) for h, b in missing.items()]))

            def upload() -> Any:
                return self._stub.AddArtifacts(iter(requests), metadata=self._metadata, timeout=ARTIFACTS_SECONDS)

            retrying(self.policy, upload)
            # the answer's per-artifact ``is_crc_successful`` is not read (nor by PySpark): the
            # field has no presence, so an engine that does not fill it would read as a failure
        return hashes

    def _artifact_requests(self, artifacts: list[tuple[str, bytes]]) -> Generator[pb.AddArtifactsRequest, None, None]:
        """AddArtifacts requests: small artifacts batched up to :data:`ARTIFACT_CHUNK` bytes,
        larger ones in chunks of that size, each piece with its CRC (PySpark's layout)."""
        Req = pb.AddArtifactsRequest
        batch: list[Any] = []
        size = 0

        def flush() -> Generator[Any, None, None]:
            nonlocal batch, size
            if batch:
                yield self.stamp(Req(batch=Req.Batch(artifacts=batch)), observed=False)
            batch, size = [], 0

        for name, blob in artifacts:
            if len(blob) > ARTIFACT_CHUNK:
                yield from flush()
                pieces = [blob[i : i + ARTIFACT_CHUNK] for i in range(0, len(blob), ARTIFACT_CHUNK)]
                first = Req.ArtifactChunk(data=pieces[0], crc=zlib.crc32(pieces[0]))
                begin = Req.BeginChunkedArtifact(
                    name=name, total_bytes=len(blob), num_chunks=len(pieces), initial_chunk=first
                )
                yield self.stamp(Req(begin_chunk=begin), observed=False)
                for piece in pieces[1:]:
                    yield self.stamp(Req(chunk=Req.ArtifactChunk(data=piece, crc=zlib.crc32(piece))), observed=False)
                continue
            if size + len(blob) > ARTIFACT_CHUNK:
                yield from flush()
            data = Req.ArtifactChunk(data=blob, crc=zlib.crc32(blob))
            batch.append(Req.SingleChunkArtifact(name=name, data=data))
            size += len(blob)
        yield from flush()

    def interrupt_request(self, operation_id: str) -> pb.InterruptRequest:
        req = self.stamp(pb.InterruptRequest())
        req.interrupt_type = pb.InterruptRequest.InterruptType.INTERRUPT_TYPE_OPERATION_ID
        req.operation_id = operation_id
        return req  # type: ignore[no-any-return]

    @_mapped
    def interrupt(self, tag: str) -> list[str]:
        req = self.stamp(pb.InterruptRequest())
        req.interrupt_type = pb.InterruptRequest.InterruptType.INTERRUPT_TYPE_TAG
        req.operation_tag = tag
        return list(self.unary("Interrupt", req, SHORT_RPC_SECONDS).interrupted_ids)

    @_mapped
    def operation_statuses(self, operation_ids: Sequence[str] = ()) -> Any:
        """GetStatus of this session's operations (Spark 4.3+; tests read it)."""
        req = self.stamp(pb.GetStatusRequest())
        req.operation_status.operation_ids.extend(operation_ids)
        return self.unary("GetStatus", req, SHORT_RPC_SECONDS)

    @_mapped
    def release_session(self) -> None:
        """ReleaseSession, after the executions' own releases still on their way (up to
        :data:`RELEASES_SETTLE_SECONDS`): one that reached the server after the session was
        gone would be refused (Spark answers INVALID_HANDLE.SESSION_CLOSED and logs it as an
        error; seen in 2 of 3 ``connect-plan run`` processes, whose query's release left a
        millisecond before the session's)."""
        self._settle_releases()
        req = self.stamp(pb.ReleaseSessionRequest(), observed=False)
        self.unary("ReleaseSession", req, SHORT_RPC_SECONDS)

    def _settle_releases(self) -> None:
        import concurrent.futures

        pending = [f for f in self.release_futures if not f.done()]
        if pending:
            concurrent.futures.wait(pending, timeout=RELEASES_SETTLE_SECONDS)

    def close(self, *, wait: bool = True) -> None:
        """Close the channel (calls still running are cancelled); with ``wait``, pending
        releases get :data:`RELEASES_SETTLE_SECONDS` first (against a server that answers
        they are done by then)."""
        if wait:
            self._settle_releases()
        try:
            close_channel(self._channel)
        except Exception as exc:  # closing is best effort
            log.debug("closing the channel: %s", exc)

    # ------------------------------------------------------------ failures

    def fetch_error_details(self, error_id: str) -> pb.FetchErrorDetailsResponse | None:
        """FetchErrorDetails of ``error_id`` (None when the server cannot be asked)."""
        req = self.stamp(pb.FetchErrorDetailsRequest(error_id=error_id))
        try:
            with grace(FETCH_ERROR_SECONDS):
                left = remaining()
                resp = self._stub.FetchErrorDetails(req, metadata=self._metadata, timeout=left)
            # not checked for the session: Spark leaves this answer's session ids empty (PySpark
            # does not check it either)
            return resp  # type: ignore[no-any-return]
        except Exception as exc:
            log.debug("could not fetch the details of error %s: %s", error_id, exc)
            return None

    def _stacktrace_shown(self) -> bool:
        """Whether the session shows JVM stack traces in error texts (PySpark asks the same
        Config when an error has one; shown when the answer cannot be had)."""
        from .server_errors import STACKTRACE_CONFS, stacktrace_shown

        try:
            with grace(FETCH_ERROR_SECONDS):
                op = pb.ConfigRequest.Operation(get_option=pb.ConfigRequest.GetOption(keys=list(STACKTRACE_CONFS)))
                return stacktrace_shown(self._config(op))
        except Exception:
            return True

    def failure(self, exc: BaseException) -> CallFailure:
        """The typed failure of ``exc``, raised by a call of this transport (the mapping of
        every public call: the client only ever sees these, see :func:`_mapped`)."""
        from .server_errors import call_failure

        if isinstance(exc, CallFailure):
            return exc
        return call_failure(exc, self.fetch_error_details, show_stacktrace=self._stacktrace_shown)

    # ------------------------------------------------------------ releases

    def release(self, req: pb.ReleaseExecuteRequest) -> None:
        """ReleaseExecute in the background (retried; a failure is only logged: the server
        drops abandoned executions itself)."""
        stub, metadata, policy = self._stub, self._metadata, self.policy

        def target() -> None:
            try:
                with grace(SHORT_RPC_SECONDS):
                    retrying(policy, lambda: stub.ReleaseExecute(req, metadata=metadata))
            except Exception as exc:
                log.info("ReleaseExecute of operation %s failed: %s", req.operation_id, exc)

        future = release_pool().submit(target)
        with self._lock:
            self.release_futures = {f for f in self.release_futures if not f.done()}
            self.release_futures.add(future)


class ExecutionStream:
    """The ``ExecutePlanResponse`` messages of one reattachable execution (a
    :class:`~connect_plan.transport.ResultStream`); the request goes out on the first read.

    Reattached (ReattachExecute after the last response received) when a stream breaks with
    a retryable error or ends without ``ResultComplete``; started again with ExecutePlan when
    the server does not know the operation and no response came yet (the first request never
    reached it); a new stream when a per-stream deadline fired (the execution goes on).
    Consumed responses are released every :data:`~connect_plan.results.RELEASE_EVERY_BYTES`
    of Arrow data and at the end; after :data:`~connect_plan.results.MAX_EMPTY_REATTACHES`
    reattached streams in a row that end at once and empty it gives up."""

    def __init__(self, transport: GrpcTransport, request: pb.ExecutePlanRequest) -> None:
        self._transport = transport
        self.operation_id = request.operation_id
        self._request = request
        self._release_every = RELEASE_EVERY_BYTES
        self._unreleased = 0
        self._last_id: str | None = None
        #: the whole execution was released (or interrupted): nothing more to release
        self.released_all = False
        self.reattaches = 0
        self.empty_streams = 0
        self._calls: Any = None  # the gRPC response iterator being read
        self._requested = False
        self._responses = self._run()

    def __iter__(self) -> ExecutionStream:
        return self

    def __next__(self) -> Received:
        try:
            return next(self._responses)
        except (ConnectPlanError, CallFailure, StopIteration):
            raise
        except Exception as exc:
            raise self._transport.failure(exc) from exc

    def _open(self, reattach: bool) -> Any:
        t = self._transport
        if reattach:
            req = pb.ReattachExecuteRequest(
                session_id=self._request.session_id,
                user_context=self._request.user_context,
                operation_id=self.operation_id,
                client_type=self._request.client_type,
            )
            if self._request.HasField("client_observed_server_side_session_id"):
                req.client_observed_server_side_session_id = self._request.client_observed_server_side_session_id
            if self._last_id:
                req.last_response_id = self._last_id
            self.reattaches += 1
            return t._stub.ReattachExecute(req, metadata=t._metadata, timeout=STREAM_SEGMENT_SECONDS)
        return t._stub.ExecutePlan(self._request, metadata=t._metadata, timeout=STREAM_SEGMENT_SECONDS)

    def _next_response(self) -> Received | None:
        """The next response (None at the true end), reattaching as needed; one attempt of
        the retry loop."""
        import grpc

        while True:
            if self._calls is None:
                self._calls = self._open(reattach=True)
                self._opened, self._stream_responses = time.monotonic(), 0
            try:
                resp = next(self._calls)
            except StopIteration:
                # ended without ResultComplete: reattach (bounded when it keeps ending at once and empty)
                quick = time.monotonic() - self._opened < EMPTY_STREAM_SECONDS
                if quick and not self._stream_responses:
                    self.empty_streams += 1
                    if self.empty_streams > MAX_EMPTY_REATTACHES:
                        raise ResultIntegrityError(
                            f"the server ended {self.empty_streams} result streams in a row at once, with no "
                            "response and without ResultComplete; giving up instead of reattaching forever"
                        ) from None
                else:
                    self.empty_streams = 0
                self._calls = None
                continue
            except grpc.RpcError as exc:
                self._calls = None
                text = f"{exc.details() if hasattr(exc, 'details') else exc}"
                lost = next((m for m in _LOST_OPERATION if m in text), None)
                if lost is not None:
                    if self._last_id is not None:
                        raise ResultIntegrityError(
                            f"the server lost the execution ({lost}) after responses were received; "
                            "the rest of the result cannot be had"
                        ) from exc
                    # the ExecutePlan never reached the server: start it again
                    self._calls = self._open(reattach=False)
                    self._opened, self._stream_responses = time.monotonic(), 0
                    raise RetryAgain() from exc
                if hasattr(exc, "code") and exc.code() == grpc.StatusCode.DEADLINE_EXCEEDED:
                    left = remaining()
                    if left is None or left > 0:  # the stream's own deadline: the execution goes on
                        raise RetryAgain() from exc
                raise
            self._stream_responses += 1
            self.empty_streams = 0
            return resp if isinstance(resp, Received) else received(resp)

    def _run(self) -> Generator[Received, None, None]:
        t = self._transport
        self._requested = True
        try:
            self._calls = self._open(reattach=False)
            self._opened, self._stream_responses = time.monotonic(), 0
            complete = False
            while not complete:
                resp = retrying(t.policy, self._next_response)
                if resp is None:
                    break
                message = resp.message
                t.verify(message)
                self._last_id = message.response_id
                if message.HasField("result_complete"):
                    complete = True
                elif resp.arrow_data is not None:
                    self._unreleased += len(resp.arrow_data)
                    if self._unreleased >= self._release_every:
                        self._unreleased = 0
                        self._release(self._last_id)
                yield resp
            # the server ends the stream right after ResultComplete: read it to its end, so
            # that the call ends OK rather than cancelled (anything more is the checker's to refuse),
            # and only then release the execution: a release that reached the server before it
            # ended the stream made it end the stream with INVALID_CURSOR.DISCONNECTED instead
            calls = self._calls
            if calls is not None:
                try:
                    for extra in calls:
                        yield extra if isinstance(extra, Received) else received(extra)
                except Exception as exc:  # the result is whole; the stream's end is not ours to report
                    log.debug("the stream of operation %s ended with %s after ResultComplete", self.operation_id, exc)
                self._calls = None
            self._release_all()
        except GeneratorExit:
            raise
        except ConnectPlanError:
            self._release_all()
            raise
        except BaseException as error:
            self._release_all()
            left = remaining()
            if left is not None and left <= 0 and not isinstance(error, CallFailure):  # (a session check's)
                raise timeout_error() from error
            raise

    def _release_request(self, until: str | None) -> pb.ReleaseExecuteRequest:
        req = pb.ReleaseExecuteRequest(
            session_id=self._request.session_id,
            user_context=self._request.user_context,
            operation_id=self.operation_id,
            client_type=self._request.client_type,
        )
        if until:
            req.release_until.response_id = until
        else:
            req.release_all.SetInParent()
        return req

    def _release(self, until: str) -> None:
        if not self.released_all:
            self._transport.release(self._release_request(until))

    def _release_all(self) -> None:
        if not self.released_all:
            self.released_all = True
            self._transport.release(self._release_request(None))

    def cancel(self) -> bool | None:
        """Release the execution, then interrupt it (:func:`release_then_interrupt`); False
        when no request was made yet."""
        if not self._requested:
            return False
        t = self._transport
        release = None if self.released_all else self._release_request(None)
        self.released_all = True  # nothing else releases it after the interrupt
        return release_then_interrupt(
            t._stub,
            t._channel,
            t._metadata,
            release,
            t.interrupt_request(self.operation_id),
            list(t.release_futures),
            self.operation_id,
        )

    def close(self) -> None:
        """ReleaseExecute of everything the server still holds (also after an early stop)."""
        started = self._requested
        self._responses.close()
        calls, self._calls = self._calls, None
        if calls is not None and hasattr(calls, "cancel"):
            # a stream not read to its end: stopped early, or given up on (``cancel``). It is
            # read in the calling thread (see channel.SINGLE_THREADED_STREAMS), so nothing would
            # notice its end until the channel closes. (A complete stream is read to its end by
            # ``_run`` and is None here.)
            calls.cancel()
        if started:
            self._release_all()


# ---------------------------------------------------------------------------- releases and interrupts


def release_pool() -> Any:
    """The process's thread pool for ReleaseExecute calls (started on first use; threads are
    started only when all are busy, and end with the process). Up to 16, so that releases
    stuck retrying a server that went away do not hold up the releases of other clients."""
    global _RELEASE_POOL
    if _RELEASE_POOL is None:
        with _RELEASE_POOL_LOCK:
            if _RELEASE_POOL is None:
                from concurrent.futures import ThreadPoolExecutor

                _RELEASE_POOL = ThreadPoolExecutor(max_workers=16, thread_name_prefix="connect-plan-release")
    return _RELEASE_POOL


def release_then_interrupt(
    stub: Any,
    channel: Any,
    metadata: Any,
    release: Any,
    interrupt: Any,
    pending: list[Any],
    operation_id: str,
) -> bool | None:
    """Stop an operation the caller gave up on (timeout, Ctrl-C): send
    ``release`` (a ReleaseExecute request, or None when nothing is left to release), then
    ``interrupt``, after the ``pending`` releases. True if the server answered the Interrupt,
    False if it could not be reached, None if it had not answered within
    :data:`CANCEL_WAIT_SECONDS`.

    Both RPCs run in a helper thread within :data:`INTERRUPT_GRACE_SECONDS` of their own;
    the caller waits for them at most :data:`CANCEL_WAIT_SECONDS`, so that ``timeout=`` bounds
    the call even when the server does not answer at all (a hung server, a black-holed
    network: the RPCs would only wait for their deadline). A server that is slow to answer
    still gets them, unless the client is closed first (closing releases the whole session).

    The order matters: a ReleaseExecute that reaches the server while an interrupted
    execution is still winding down is refused (Spark 4 reports an illegal state
    transition) and the operation then lingers as RUNNING until the server's own timeout;
    a release first ends the execution (release-all interrupts a running one) and the
    Interrupt after it is a no-op, or stops it if the release was lost.
    """
    import concurrent.futures

    outcome: list[bool] = []
    calls = [("release", stub.ReleaseExecute, release)] if release is not None else []
    calls.append(("interrupt", stub.Interrupt, interrupt))

    def tell_the_server() -> None:
        # each call is started under the channel's guard (the client may close the channel
        # meanwhile: a call started after that would crash gRPC) and awaited outside it
        with grace(INTERRUPT_GRACE_SECONDS):
            if pending:
                concurrent.futures.wait(pending, timeout=max(0.0, remaining() or 0.0))
            for what, method, request in calls:
                try:
                    call = start_call(channel, method, request, metadata=metadata)
                    if call is None:
                        log.info("could not %s operation %s: the client was closed", what, operation_id)
                        outcome.append(False)
                        return
                    call.result()
                except Exception as exc:
                    log.info("could not %s operation %s: %s", what, operation_id, exc)
                    if what == "interrupt":
                        outcome.append(False)
                        return
        log.debug("interrupted operation %s", operation_id)
        outcome.append(True)

    helper = threading.Thread(target=tell_the_server, name=f"connect_plan-interrupt-{operation_id[:8]}", daemon=True)
    helper.start()
    helper.join(CANCEL_WAIT_SECONDS)
    return outcome[0] if outcome else None
