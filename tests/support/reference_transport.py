"""PySpark's Connect client as a transport: the oracle the production transport is tested against.

connect_plan has one production transport, :class:`connect_plan.grpc_transport.GrpcTransport`,
which re-does what PySpark 4.3's ``SparkConnectClient`` does (request stamping, session
checks, reattach, retries, URL parsing, artifact upload, error texts) without importing
PySpark's package or pandas. The tests keep PySpark's own client as the reference of that
re-doing (httpx's shape: reference implementations and doubles live under tests/, not in
the package):

* :class:`PySparkTransport`, a :class:`~connect_plan.transport.Transport` over one
  ``SparkConnectClient`` (its request metadata, retry policy, error details, artifact
  upload), over a channel with connect_plan's credential rules
  (:class:`~connect_plan.channel.ChannelRules` mixed into PySpark's ``DefaultChannelBuilder``,
  the deadline cap and the RPC log as gRPC interceptors), results read through PySpark's
  reattachable iterator (:class:`ReattachableStream`); its failures are described by
  :func:`pyspark_failure` and typed by connect_plan's own
  :func:`~connect_plan.call_failures.classify`, as the production transport types its own.
* :func:`reference_connector` opens it for a URL, as :func:`connect_plan.transport.connector`
  opens the production one; :func:`use_reference_transport` makes every ``Client`` of a test
  use it (the switch ``CONNECT_PLAN_TRANSPORT=pyspark`` was, when it lived in the package).

Field-by-field comparisons of the two: tests/integration/test_server_errors.py (failure
descriptions), tests/unit/test_channel_url.py (URLs and retry rules), tests/unit/test_transport.py
(credentials), tests/integration/test_integrity.py, test_streaming.py and test_progress.py
(results).
"""

from __future__ import annotations

import collections
import contextlib
import logging
import threading
import time
import warnings
from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from connect_plan import _pyspark_import  # noqa: F401  (before any PySpark import: its check of __main__)
from connect_plan.call_failures import (
    CallFailure,
    RpcFailure,
    chain_status,
    classify,
    error_texts,
    grpc_failure,
    status_name,
)
from connect_plan.channel import (
    ChannelBuilder,
    ChannelRules,
    _ChannelGuard,
    _log_when_done,
    capped_timeout,
    close_channel,
)
from connect_plan.deadlines import remaining, timeout_error
from connect_plan.errors import ConnectPlanError, ResultIntegrityError
from connect_plan.grpc_transport import release_pool, release_then_interrupt
from connect_plan.responses import Received, received
from connect_plan.results import EMPTY_STREAM_SECONDS, MAX_EMPTY_REATTACHES, RELEASE_EVERY_BYTES
from connect_plan.retries import never_connected
from connect_plan.transport import DEFAULT_MAX_MESSAGE, ResultStream

if TYPE_CHECKING:
    import os

    import pytest
    from pyspark.sql.connect import proto as pb

log = logging.getLogger("connect_plan")

_ITERATOR_CLASS: Any = None


def reference_connector(
    url: str,
    *,
    token: str | None = None,
    use_ssl: bool | None = None,
    ca_cert: str | bytes | os.PathLike[str] | None = None,
    headers: Mapping[str, str] | None = None,
    allow_insecure_token: bool = False,
    channel_options: Sequence[tuple[str, Any]] | None = None,
    user_id: str | None = None,
    retry_policy: Mapping[str, Any] | None = None,
) -> PySparkConnector:
    """:func:`connect_plan.transport.connector`'s twin: PySpark's client for ``url``."""
    builder = ChannelBuilder(
        url,
        token=token,
        use_ssl=use_ssl,
        ca_cert=ca_cert,
        headers=headers,
        allow_insecure_token=allow_insecure_token,
        channel_options=list(channel_options) if channel_options is not None else None,
        builder_class=_builder_class(),
    )
    return PySparkConnector(builder, user_id=user_id, retry_policy=retry_policy)


def use_reference_transport(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every ``connect_plan.Client`` made in the test opens PySpark's client as its transport."""
    import connect_plan.transport

    monkeypatch.setattr(connect_plan.transport, "connector", reference_connector)


# ---------------------------------------------------------------------------- the channel and retries


def _interceptor(adjust: Callable[[Any], Any], doc: str) -> Any:
    """A gRPC client interceptor for all four call kinds that passes each call's details
    through ``adjust`` (which may replace them, or raise to refuse the call)."""
    import grpc

    bases: tuple[Any, ...] = (
        grpc.UnaryUnaryClientInterceptor,
        grpc.UnaryStreamClientInterceptor,
        grpc.StreamUnaryClientInterceptor,
        grpc.StreamStreamClientInterceptor,
    )

    class Interceptor(*bases):  # type: ignore[misc]
        __doc__ = doc

        def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
            return continuation(adjust(details), request)

        def intercept_unary_stream(self, continuation: Any, details: Any, request: Any) -> Any:
            return continuation(adjust(details), request)

        def intercept_stream_unary(self, continuation: Any, details: Any, requests: Any) -> Any:
            return continuation(adjust(details), requests)

        def intercept_stream_stream(self, continuation: Any, details: Any, requests: Any) -> Any:
            return continuation(adjust(details), requests)

    return Interceptor()


def _guard_interceptor(guard: _ChannelGuard) -> Any:
    def refuse_when_closed(details: Any) -> Any:
        if guard.closed:
            raise ConnectPlanError(f"{details.method}: this connect_plan client's channel is closed")
        return details

    return _interceptor(refuse_when_closed, "Refuses calls on a closed channel (instead of crashing the process).")


def _rpc_logger() -> Any:
    """A gRPC client interceptor that logs each RPC at DEBUG when it ends (see module doc).
    Costs one ``isEnabledFor`` check per call when DEBUG is off."""
    import grpc

    bases: tuple[Any, ...] = (
        grpc.UnaryUnaryClientInterceptor,
        grpc.UnaryStreamClientInterceptor,
        grpc.StreamUnaryClientInterceptor,
        grpc.StreamStreamClientInterceptor,
    )

    def logged(continuation: Any, details: Any, request: Any) -> Any:
        if not log.isEnabledFor(logging.DEBUG):
            return continuation(details, request)
        started = time.monotonic()
        call = continuation(details, request)
        _log_when_done(call, str(details.method).rpartition("/")[2], request, started)
        return call

    class Interceptor(*bases):  # type: ignore[misc]
        """Logs every RPC at DEBUG: method, status, duration, operation id."""

        def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
            return logged(continuation, details, request)

        def intercept_unary_stream(self, continuation: Any, details: Any, request: Any) -> Any:
            return logged(continuation, details, request)

        def intercept_stream_unary(self, continuation: Any, details: Any, requests: Any) -> Any:
            return logged(continuation, details, requests)

        def intercept_stream_stream(self, continuation: Any, details: Any, requests: Any) -> Any:
            return logged(continuation, details, requests)

    return Interceptor()


class _Details(
    collections.namedtuple(
        "_Details", ("method", "timeout", "metadata", "credentials", "wait_for_ready", "compression")
    ),
):
    """A ``grpc.ClientCallDetails`` with the timeout (and metadata) replaced."""


def _call_interceptor(metadata: tuple[tuple[str, str], ...] = ()) -> Any:
    def bounded(details: Any) -> Any:
        timeout = capped_timeout(details.timeout)
        extra = details.metadata
        if metadata:
            extra = [*(extra or ()), *metadata]
        new = _Details(
            details.method,
            timeout,
            extra,
            details.credentials,
            getattr(details, "wait_for_ready", None),
            getattr(details, "compression", None),
        )
        return _as_call_details(new)

    return _interceptor(bounded, "Caps each call's timeout by the thread's operation deadline; adds metadata.")


_CALL_DETAILS: Any = None


def _as_call_details(details: _Details) -> Any:
    global _CALL_DETAILS
    if _CALL_DETAILS is None:
        import grpc

        class CallDetails(_Details, grpc.ClientCallDetails):  # type: ignore[misc]
            pass

        _CALL_DETAILS = CallDetails
    return _CALL_DETAILS(*details)


def _policy_class() -> type:
    from pyspark.sql.connect.client.retries import DefaultPolicy, RetryPolicyState

    class State(RetryPolicyState):
        """PySpark's retry state; its waits end at the thread's operation deadline."""

        def next_attempt(self, *args: Any, **kwargs: Any) -> int | None:
            wait: int | None = super().next_attempt(*args, **kwargs)
            left = remaining()
            if wait is None or left is None:
                return wait
            if left <= 0:
                return None  # no retry after the deadline: the last error stands
            # a backoff (up to max_backoff, 2 s by default) would overshoot the deadline: wait
            # only what is left; the next attempt is then refused as a timeout
            return min(wait, int(left * 1000) + 1)

    class Policy(DefaultPolicy):
        """PySpark's default policy; a refused connection before the first answer from this
        server is final (nothing is listening: retrying only delays the error), and no wait
        between retries runs past the operation's deadline (:func:`deadline`)."""

        def __init__(self, reached: Callable[[], bool], **kwargs: Any) -> None:
            super().__init__(**kwargs)
            self._reached = reached

        def can_retry(self, e: BaseException) -> bool:
            if not super().can_retry(e):
                return False
            return self._reached() or not never_connected(e)

        def to_state(self) -> Any:
            return State(self)

    return Policy


def RetryPolicy(reached: Callable[[], bool], **kwargs: Any) -> Any:
    return _policy_class()(reached, **kwargs)


_BUILDER_CLASS: Any = None


def _builder_class() -> type:
    """PySpark's ``DefaultChannelBuilder`` with connect_plan's credential rules; PySpark's own
    client calls its own stub, so the guard, the deadline cap and the RPC log are gRPC
    interceptors on its channel."""
    global _BUILDER_CLASS
    if _BUILDER_CLASS is None:
        from pyspark.sql.connect.client import DefaultChannelBuilder

        class PySparkChannelBuilder(ChannelRules, DefaultChannelBuilder):  # type: ignore[misc]
            """PySpark's builder; only ``toChannel`` (credentials) differs."""

            def _guarded(self, channel: Any, guard: _ChannelGuard) -> Any:
                import grpc

                return grpc.intercept_channel(channel, _guard_interceptor(guard), _rpc_logger())

            def _token_in_plaintext(self, header: tuple[tuple[str, str], ...]) -> None:
                self.add_interceptor(_call_interceptor(header))

            def finish(self) -> None:
                self.add_interceptor(_call_interceptor())  # operation deadlines

        _BUILDER_CLASS = PySparkChannelBuilder
    return _BUILDER_CLASS  # type: ignore[no-any-return]


# ---------------------------------------------------------------------------- PySpark's errors


class _QuietPySparkErrors(logging.Filter):
    """PySpark logs every server error with a query context on stderr; we raise it instead."""

    active = threading.local()

    def filter(self, record: logging.LogRecord) -> bool:
        return not getattr(self.active, "depth", 0)


_QUIET = _QuietPySparkErrors()


def _install_quiet_filter() -> None:
    # created through PySparkLogger.getLogger so PySpark's own logger class is kept
    # (a plain logging.Logger would reject its extra keyword arguments)
    from pyspark.logger import PySparkLogger

    for name in ("DataFrameQueryContextLogger", "SQLQueryContextLogger"):
        logger = PySparkLogger.getLogger(name)
        if _QUIET not in logger.filters:
            logger.addFilter(_QUIET)


# PySpark warns "[RETRIES_EXCEEDED]" just before it raises the error that ended its retries;
# that error reaches the caller as a ServerError saying so, so the warning is only noise
# (and under warnings-as-errors it would replace the real error)
warnings.filterwarnings(
    "ignore", message=r"\[RETRIES_EXCEEDED\]", category=UserWarning, module=r"pyspark\.sql\.connect\.client\.retries"
)


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    _QUIET.active.depth = getattr(_QUIET.active, "depth", 0) + 1
    try:
        yield
    finally:
        _QUIET.active.depth -= 1


def pyspark_failure(exc: BaseException) -> RpcFailure:
    """The description of an error PySpark's client raised (or gRPC, under it)."""
    from pyspark.errors import PySparkException

    bare = grpc_failure(exc)
    if bare is not None:
        return bare
    if not isinstance(exc, PySparkException):
        return RpcFailure(
            "other", f"{type(exc).__name__}: {exc}", chain_status=chain_status(exc), texts=error_texts(exc)
        )
    # the server's stack trace: PySpark's Connect errors keep it in _stacktrace (whether or not
    # their text shows it), its classic (py4j) errors in _stackTrace
    stack = getattr(exc, "_stacktrace", None) or getattr(exc, "_stackTrace", None)
    params = exc.getMessageParameters() if hasattr(exc, "getMessageParameters") else None
    return RpcFailure(
        "server",
        str(exc),
        status=status_name(getattr(exc, "_grpc_status_code", None)),
        chain_status=chain_status(exc),
        error_class=exc.getCondition(),
        sqlstate=exc.getSqlState(),
        message=exc.getMessage() if hasattr(exc, "getMessage") else str(exc),
        stacktrace=stack if isinstance(stack, str) else None,
        message_parameters=dict(params or {}),
        exception_type=_exception_type(exc),
        texts=error_texts(exc),
    )


def _exception_type(exc: BaseException) -> str | None:
    """The engine-neutral PySpark error kind of ``exc`` (its class in
    ``pyspark.errors.exceptions.base``: AnalysisException, ParseException ...)."""
    for cls in type(exc).__mro__:
        if cls.__module__ == "pyspark.errors.exceptions.base" and cls.__name__ != "PySparkException":
            return cls.__name__
    return None


def _typed(exc: BaseException) -> BaseException:
    """What the reference raises for ``exc``: connect_plan's own errors as they are, anything
    else as the typed failure of its description (the production transport's mapping)."""
    if isinstance(exc, (ConnectPlanError, CallFailure)):
        return exc
    return classify(pyspark_failure(exc))


@contextlib.contextmanager
def _failures() -> Iterator[None]:
    try:
        yield
    except StopIteration:
        raise
    except Exception as exc:
        typed = _typed(exc)
        if typed is exc:
            raise
        raise typed from exc


# ---------------------------------------------------------------------------- PySpark's client


class PySparkConnector:
    """Opens :class:`PySparkTransport` sessions over ``builder`` (a
    :func:`~connect_plan.channel.ChannelBuilder` over PySpark's, made by
    :func:`reference_connector`), which every session's client reuses."""

    def __init__(
        self, builder: Any, *, user_id: str | None = None, retry_policy: Mapping[str, Any] | None = None
    ) -> None:
        self.builder = builder
        self.token: str | None = builder.token
        self.secure: bool = bool(builder.secure)
        self._user_id = user_id
        self._retry_policy = dict(retry_policy or {})

    def open(self, reached: Callable[[], bool]) -> PySparkTransport:
        from pyspark.sql.connect.client import SparkConnectClient

        _install_quiet_filter()

        with _quiet():
            sc = SparkConnectClient(self.builder, user_id=self._user_id, retry_policy=self._retry_policy)
        sc.set_retry_policies([RetryPolicy(reached, **self._retry_policy)])
        return PySparkTransport(sc)


class PySparkTransport:
    """A :class:`~connect_plan.transport.Transport` over one PySpark ``SparkConnectClient``
    (``sc``: tests reach PySpark's stub and internals through it); every call raises typed
    failures, as the production transport's do."""

    def __init__(self, sc: Any) -> None:
        self.sc = sc

    @property
    def session_id(self) -> str:
        return str(self.sc._session_id)

    @property
    def max_message_size(self) -> int:
        options = dict(getattr(getattr(self.sc, "_builder", None), "_channel_options", None) or [])
        value = options.get("grpc.max_send_message_length", DEFAULT_MAX_MESSAGE)
        return int(value) if isinstance(value, int) and value > 0 else DEFAULT_MAX_MESSAGE

    def execute_plan(self, plan: pb.Plan, tags: Sequence[str] = ()) -> ResultStream:
        return _QuietStream(reattachable_stream(self.sc, plan, tags))

    def interrupt(self, tag: str) -> list[str]:
        return list(self.sc.interrupt_tag(tag))

    def execute_request(self, plan: pb.Plan) -> pb.ExecutePlanRequest:
        """The reattachable ExecutePlan request of ``plan``, as PySpark's client makes it
        (tests send it themselves, as over the production transport)."""
        from pyspark.sql.connect import proto

        req = self.sc._execute_plan_request_with_metadata()
        req.plan.CopyFrom(plan)
        req.request_options.append(
            proto.ExecutePlanRequest.RequestOption(reattach_options=proto.ReattachOptions(reattachable=True))
        )
        return req  # type: ignore[no-any-return]

    @property
    def _stub(self) -> Any:
        return self.sc._stub

    @property
    def _metadata(self) -> Any:
        return self.sc._builder.metadata()

    def schema(self, plan: pb.Plan) -> pb.DataType:
        with _failures(), _quiet():
            req = self.sc._analyze_plan_request_with_metadata()
            req.schema.plan.CopyFrom(plan)
            return self._analyze(req).schema.schema

    def _analyze(self, req: pb.AnalyzePlanRequest) -> pb.AnalyzePlanResponse:
        """One AnalyzePlan as PySpark's ``_analyze`` makes it (retries, per-RPC deadline,
        session check, error details), answered as the proto rather than PySpark's types."""
        sc = self.sc
        deadlines = getattr(sc, "_rpc_deadlines", None)
        timeout = {} if deadlines is None else {"timeout": deadlines.analyze_plan}
        try:
            for attempt in sc._retrying():
                with attempt:
                    resp = sc._stub.AnalyzePlan(req, metadata=sc._builder.metadata(), **timeout)
                    sc._verify_response_integrity(resp)
                    return resp  # type: ignore[no-any-return]
            raise ConnectPlanError("AnalyzePlan: no attempt was made")  # PySpark's retrying always makes one
        except Exception as error:
            sc._handle_error(error)  # raises PySpark's error for it
            raise

    def explain(self, plan: pb.Plan, mode: str) -> str:
        with _failures(), _quiet():
            return str(self.sc.explain_string(plan, mode))

    def spark_version(self) -> str:
        with _failures(), _quiet():
            return str(self.sc._analyze(method="spark_version").spark_version)

    def config(self, operation: pb.ConfigRequest.Operation) -> list[tuple[str, str | None]]:
        with _failures(), _quiet():
            return list(self.sc.config(operation).pairs)

    def cache_artifacts(self, blobs: list[bytes]) -> list[str]:
        sc = self.sc
        with _failures(), _quiet():
            if hasattr(sc, "cache_artifacts"):
                return list(sc.cache_artifacts(blobs))
            return [sc.cache_artifact(b) for b in blobs]  # PySpark 4.0: one call per blob

    def release_session(self) -> None:
        with _failures(), _quiet():
            self.sc.release_session()

    def close(self, *, wait: bool = True) -> None:
        """Close the PySpark client's channel without waiting on a server that does not answer.

        PySpark's ``close()`` first waits up to 10 s for its pending ReleaseExecute calls,
        which against a hung server only end at their deadline (none) or when the connection
        fails; closing the gRPC channel first cancels them, so that wait ends at once.
        Against a server that answers they are done by now (given ``wait``, 0.2 s at most),
        and the session release before this ended the session's executions anyway."""
        import concurrent.futures

        sc = self.sc
        pending = list(getattr(sc, "_release_futures", ()))
        if pending and wait:
            concurrent.futures.wait(pending, timeout=0.2)
        channel = getattr(sc, "_channel", None)
        if channel is not None:
            with contextlib.suppress(Exception):
                close_channel(channel)
        with contextlib.suppress(Exception):
            sc.close()


class _QuietStream:
    """A result stream whose reads do not let PySpark log the errors they raise."""

    def __init__(self, stream: ResultStream) -> None:
        self._stream = stream

    @property
    def operation_id(self) -> str:
        return self._stream.operation_id

    def __iter__(self) -> _QuietStream:
        return self

    def __next__(self) -> Received:
        with _failures(), _quiet():
            return next(self._stream)

    def cancel(self) -> bool | None:
        with _quiet():
            return self._stream.cancel()

    def close(self) -> None:
        with _quiet():
            self._stream.close()


# ---------------------------------------------------------------------------- PySpark's reattachable stream


def _throttled_iterator_class() -> Any:
    global _ITERATOR_CLASS
    if _ITERATOR_CLASS is None:
        from pyspark.sql.connect.client.reattach import ExecutePlanResponseReattachableIterator

        class ThrottledReleaseIterator(ExecutePlanResponseReattachableIterator):
            """PySpark's reattachable iterator; ``_release_until`` waits until
            :data:`RELEASE_EVERY_BYTES` of Arrow data were consumed, and ``_call_iter``
            counts streams that end at once and empty (see module doc)."""

            unreleased_bytes = 0
            empty_streams = 0
            reattaches = 0
            _stream_opened = 0.0
            _stream_responses = 0

            def __init__(self, *args: Any, **kwargs: Any) -> None:
                super().__init__(*args, **kwargs)
                self._stream_opened = time.monotonic()

            @property
            def _release_thread_pool(self) -> Any:
                # PySpark means one pool per process, but assigns it to the instance
                # (``self._release_thread_pool_instance = ...``), so every query made a pool
                # and started a thread for its ReleaseExecute: ~1 ms of a 4 ms query on Sail
                return release_pool()

            def _release_until(self, until_response_id: str) -> None:
                if self.unreleased_bytes >= RELEASE_EVERY_BYTES:
                    self.unreleased_bytes = 0
                    super()._release_until(until_response_id)

            def send(self, value: Any) -> Any:
                response = super().send(value)
                self._stream_responses += 1
                self.empty_streams = 0
                return response

            def _call_iter(self, iter_fun: Any) -> Any:
                if self._iterator is None:  # a ReattachExecute is opened now
                    self.reattaches += 1
                    self._stream_opened = time.monotonic()
                    self._stream_responses = 0
                try:
                    return super()._call_iter(iter_fun)
                except StopIteration:
                    quick = time.monotonic() - self._stream_opened < EMPTY_STREAM_SECONDS
                    if quick and not self._stream_responses:
                        self.empty_streams += 1
                        if self.empty_streams > MAX_EMPTY_REATTACHES:
                            raise ResultIntegrityError(
                                f"the server ended {self.empty_streams} result streams in a row at once, with no "
                                "response and without ResultComplete; giving up instead of reattaching forever"
                            ) from None
                    else:
                        self.empty_streams = 0
                    raise

        _ITERATOR_CLASS = ThrottledReleaseIterator
    return _ITERATOR_CLASS


#: what :class:`ReattachableStream` uses of PySpark's ``SparkConnectClient`` (PySpark 4.0
#: through 4.3 have them all; ``_session_hooks``, ``_release_futures`` and ``_rpc_deadlines``,
#: which 4.0 lacks, are used when present)
REQUIRED_INTERNALS = (
    "_execute_plan_request_with_metadata",
    "_stub",
    "_retrying",
    "_builder",
    "_verify_response_integrity",
    "_handle_error",
)


def reattachable_stream(sc: Any, plan: pb.Plan, tags: Sequence[str] = ()) -> ReattachableStream:
    """The responses of one ExecutePlan of ``plan`` on PySpark client ``sc``: a
    :class:`ReattachableStream`.

    Always reattachable, whatever PySpark's own ``disable_reattachable_execute()`` switch
    says: without reattachable execution the server sends no ``ResultComplete``, and a
    stream cut short could not be told from a whole one by the :class:`ResultChecker`.
    There is no unchecked path: a PySpark without the internals this needs is an error
    that names them, not a silent fallback."""
    missing = [name for name in REQUIRED_INTERNALS if not hasattr(sc, name)]
    if missing:
        import pyspark

        raise ConnectPlanError(
            f"this PySpark ({getattr(pyspark, '__version__', '?')}) lacks the Connect client internals connect_plan "
            f"reads results with ({', '.join(missing)}); install pyspark or pyspark-client 4.0 to 4.3"
        )
    return ReattachableStream(sc, plan, tags)


class ReattachableStream:
    """The ``ExecutePlanResponse`` messages of one execution, through PySpark's reattachable
    iterator (a :class:`~connect_plan.transport.ResultStream`: each a
    :class:`~connect_plan.responses.Received`). Kept as connect_plan's result path first
    read them: PySpark's request, session hooks, retry policy and iterator; connect_plan's
    releases every :data:`~connect_plan.results.RELEASE_EVERY_BYTES`, bound on empty
    reattached streams and release-then-interrupt on a timeout or Ctrl-C.

    The request is made on the first ``next()``. A failure is raised as PySpark reports it
    (``_handle_error``, which fetches Spark's error details), except that one past the
    operation's deadline is a :class:`~connect_plan.errors.QueryTimeoutError`. The reader
    calls :meth:`cancel` on a timeout or Ctrl-C, and :meth:`close` in every case (it
    releases whatever the server still holds)."""

    def __init__(self, sc: Any, plan: pb.Plan, tags: Sequence[str] = ()) -> None:
        self._sc = sc
        self._plan = plan
        self._tags = tuple(tags)
        self._iterator: Any = None  # PySpark's iterator, made with the request
        self.operation_id = ""
        self._responses = self._run()

    def __iter__(self) -> ReattachableStream:
        return self

    def __next__(self) -> Received:
        return next(self._responses)

    def _run(self) -> Generator[Received, None, None]:
        sc = self._sc
        req = sc._execute_plan_request_with_metadata()
        req.plan.CopyFrom(self._plan)
        req.tags.extend(self._tags)
        operation_id = req.operation_id
        for hook in getattr(sc, "_session_hooks", ()):  # PySpark 4.1+
            req = hook.on_execute_plan(req)
            req.operation_id = operation_id
        self.operation_id = operation_id
        deadlines = getattr(sc, "_rpc_deadlines", None)
        timeouts = (
            {}
            if deadlines is None
            else {
                "reattachable_execute_plan_timeout": deadlines.reattachable_execute_plan,
                "reattach_execute_timeout": deadlines.reattach_execute,
            }
        )
        try:
            self._iterator = _throttled_iterator_class()(
                req, sc._stub, sc._retrying, sc._builder.metadata(), **timeouts
            )
            for resp in self._iterator:
                sc._verify_response_integrity(resp)
                item = received(resp)
                if item.arrow_data is not None:
                    self._iterator.unreleased_bytes += len(item.arrow_data)
                yield item
        except ConnectPlanError:
            raise
        except Exception as error:
            left = remaining()
            if left is not None and left <= 0:
                # the deadline passed inside PySpark's own handling (a gRPC DEADLINE_EXCEEDED)
                raise timeout_error() from error
            sc._handle_error(error)

    def cancel(self) -> bool | None:
        """Release the execution, then interrupt it (see :func:`_cancel`); False when no
        request was made yet (there is nothing to stop)."""
        if not self.operation_id:
            return False
        return _cancel(self._sc, self._iterator, self.operation_id)

    def close(self) -> None:
        """ReleaseExecute of everything (also when the reader stopped early)."""
        self._responses.close()
        responses, self._iterator = self._iterator, None
        if responses is not None:
            responses.close()
            if hasattr(self._sc, "_release_futures"):  # PySpark 4.1+: awaited before the channel closes
                self._sc._release_futures.update(responses.release_futures)


def _cancel(sc: Any, responses: Any, operation_id: str) -> bool | None:
    """Stop an operation of PySpark's client ``sc`` the caller gave up on (timeout, Ctrl-C):
    :func:`release_then_interrupt` with the requests PySpark's client makes."""
    pending: list[Any] = []
    release: Any = None
    if responses is not None:
        pending = list(getattr(responses, "release_futures", ()))  # PySpark's own release-all, on errors
        if not responses._result_complete:
            try:
                release = responses._create_release_execute_request(None)
            except Exception as exc:
                log.info("could not release operation %s: %s", operation_id, exc)
            # set here, not in the helper: PySpark's own close() must not release it again
            # after the Interrupt (see release_then_interrupt)
            responses._result_complete = True
    # everything taken from the PySpark client now: the client may be closed meanwhile
    return release_then_interrupt(
        sc._stub,
        sc._channel,
        sc._builder.metadata(),
        release,
        sc._interrupt_request("operation", operation_id),
        pending,
        operation_id,
    )
