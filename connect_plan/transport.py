"""The transport seam: how the client reaches a Spark Connect server, one RPC at a time.

The client (:mod:`connect_plan.client`) and the input placer (:mod:`connect_plan.inputs`)
reach a server only through a :class:`Transport`, which one :class:`Connector` opens per
server session. Through it pass Spark Connect protos and plain values, never a PySpark
client object, and failures are described by :class:`RpcFailure` records, so that
another implementation can take PySpark's place without a change to the client.

Two implementations: :class:`~connect_plan.grpc_transport.GrpcTransport`, the default, drives
Spark Connect's gRPC service with PySpark's generated stub and messages but without PySpark's
client, so that running a plan imports neither PySpark's package nor pandas (issue 17; see
that module for what it re-does and why). :class:`PySparkTransport`, chosen with
``CONNECT_PLAN_TRANSPORT=pyspark``, is PySpark's ``SparkConnectClient`` (its request metadata,
retry policy, error details, artifact upload) over the channel of :mod:`connect_plan.channel`,
with results read by :mod:`connect_plan.results`' reattachable stream: kept as the reference
the lean one is tested against. What any implementation must keep:

* **Deadlines.** Every RPC started inside :func:`connect_plan.deadlines.deadline` is capped
  by what is left of it, none is started after it passed (``QueryTimeoutError``), and no
  retry wait runs past it.
* **Results.** :meth:`Transport.execute_plan` is reattachable (a broken stream, or one the
  server ended without ``ResultComplete``, is reattached after the last response
  received); :meth:`ResultStream.close` releases the execution on the server;
  :meth:`ResultStream.cancel` releases it, then interrupts it, within
  :data:`~connect_plan.results.CANCEL_WAIT_SECONDS` of the caller's time.
* **Failures.** What a call raises is the transport's own; :meth:`Transport.failure`
  describes it (gRPC status, and the server's error record where it sent one: Spark's
  error class, SQLSTATE, message and parameters, as ``FetchErrorDetails`` gives them), and
  the client maps that description (:mod:`connect_plan.client.failures`).
* **Credentials.** A token implies TLS (:mod:`connect_plan.channel`); retries of a refused
  connection stop at once for a server this client never reached.

Also re-exported here, where they always were: the channel's parts and the deadlines.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from .call_failures import RpcFailure, chain_status, error_texts, grpc_failure, status_name
from .channel import (
    CHANNEL_DEFAULTS,
    ChannelBuilder,
    InsecureTokenWarning,
    RetryPolicy,
    close_channel,
    never_connected,
    start_call,
)
from .deadlines import deadline, grace, remaining, timeout_error
from .errors import ConnectPlanError
from .responses import Received, received

if TYPE_CHECKING:
    import os

    from pyspark.sql.connect import proto as pb

__all__ = [
    "CHANNEL_DEFAULTS",
    "DEFAULT_MAX_MESSAGE",
    "ChannelBuilder",
    "Connector",
    "InsecureTokenWarning",
    "PySparkConnector",
    "PySparkTransport",
    "Received",
    "ResultStream",
    "RetryPolicy",
    "RpcFailure",
    "Transport",
    "close_channel",
    "connector",
    "deadline",
    "grace",
    "grpc_failure",
    "never_connected",
    "pyspark_failure",
    "received",
    "remaining",
    "start_call",
    "timeout_error",
]

#: gRPC message limit of PySpark's channel when its options do not say
DEFAULT_MAX_MESSAGE = 128 * 1024 * 1024


# ---------------------------------------------------------------------------- the seam


class ResultStream(Protocol):
    """The ``ExecutePlanResponse`` messages of one execution, in order, reattached as needed,
    each with its Arrow bytes (a :class:`Received`).

    The reader calls :meth:`cancel` when it gives up (timeout, Ctrl-C) and :meth:`close`
    in every case, after the end, a failure or an early stop."""

    @property
    def operation_id(self) -> str:
        """The execution's id (empty until the request was made)."""
        ...

    def __iter__(self) -> Iterator[Received]: ...

    def __next__(self) -> Received: ...

    def cancel(self) -> bool | None:
        """Release the execution, then interrupt it: True if the server confirmed the
        interrupt, False if it could not be told, None if it had not answered in time."""
        ...

    def close(self) -> None:
        """Release whatever of the execution the server still holds."""
        ...


class Transport(Protocol):
    """One session on one Spark Connect server. Every call may raise the transport's own
    errors (described by :meth:`failure`) or a ``ConnectPlanError`` of its own."""

    @property
    def session_id(self) -> str:
        """The client-side session id sent with every request."""
        ...

    @property
    def max_message_size(self) -> int:
        """The largest message this side's channel sends, in bytes."""
        ...

    def execute_plan(self, plan: pb.Plan) -> ResultStream:
        """ExecutePlan of a plan (a query, or a command: a write, a view), reattachable; the
        request goes out on the first read."""
        ...

    def schema(self, plan: pb.Plan) -> pb.DataType:
        """AnalyzePlan: the schema of the plan's result."""
        ...

    def explain(self, plan: pb.Plan, mode: str) -> str:
        """AnalyzePlan: the explain string (``mode``: simple, extended, codegen, cost, formatted)."""
        ...

    def spark_version(self) -> str:
        """AnalyzePlan: the server's Spark version."""
        ...

    def config(self, operation: pb.ConfigRequest.Operation) -> list[tuple[str, str | None]]:
        """Config: one operation (set, unset, get, get_option, get_all); the pairs answered."""
        ...

    def cache_artifacts(self, blobs: list[bytes]) -> list[str]:
        """ArtifactStatus, then AddArtifacts of the blobs the server lacks, as cache
        artifacts named by their SHA-256; their hashes, in order."""
        ...

    def release_session(self) -> None:
        """ReleaseSession: the server ends the session and its executions."""
        ...

    def close(self, *, wait: bool = True) -> None:
        """Close the channel without waiting on a server that does not answer (``wait``:
        give pending releases a moment first)."""
        ...

    def failure(self, exc: BaseException) -> RpcFailure:
        """What ``exc``, raised by one of these calls, says."""
        ...


class Connector(Protocol):
    """Opens transports to one server: its URL and credentials are parsed once, each
    :meth:`open` is a new channel and a new session."""

    #: the bearer token the transports send (scrubbed from every error text)
    token: str | None
    #: True when the channel uses TLS
    secure: bool

    def open(self, reached: Callable[[], bool]) -> Transport:
        """A new session; ``reached()`` tells whether this client's server ever answered
        (a refused connection is retried only then)."""
        ...


def connector(
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
    kind: str | None = None,
) -> Connector:
    """The connector the client uses for ``url``: the lean gRPC transport
    (:class:`~connect_plan.grpc_transport.GrpcConnector`, ``kind="grpc"``), or PySpark's client
    (:class:`PySparkConnector`, ``kind="pyspark"``); by default what the environment's
    ``CONNECT_PLAN_TRANSPORT`` says, else the lean one. The URL and credentials are parsed
    here, once (:func:`~connect_plan.channel.ChannelBuilder`), and raise as they are invalid."""
    import os

    if kind is None:
        kind = os.environ.get("CONNECT_PLAN_TRANSPORT", "grpc").strip().lower() or "grpc"
    if kind not in ("grpc", "pyspark"):
        raise ConnectPlanError(f"CONNECT_PLAN_TRANSPORT must be grpc or pyspark, got {kind!r}")
    builder = ChannelBuilder(
        url,
        token=token,
        use_ssl=use_ssl,
        ca_cert=ca_cert,
        headers=headers,
        allow_insecure_token=allow_insecure_token,
        channel_options=list(channel_options) if channel_options is not None else None,
        lean=kind == "grpc",
    )
    if kind == "grpc":
        from .grpc_transport import GrpcConnector

        return GrpcConnector(builder, user_id=user_id, retry_policy=retry_policy)
    return PySparkConnector(builder, user_id=user_id, retry_policy=retry_policy)


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


# ---------------------------------------------------------------------------- PySpark's client


class PySparkConnector:
    """Opens :class:`PySparkTransport` sessions over ``builder`` (a
    :func:`~connect_plan.channel.ChannelBuilder` over PySpark's, made by :func:`connector`),
    which every session's client reuses."""

    def __init__(
        self, builder: Any, *, user_id: str | None = None, retry_policy: Mapping[str, Any] | None = None
    ) -> None:
        self.builder = builder
        self.token: str | None = builder.token
        self.secure: bool = bool(builder.secure)
        self._user_id = user_id
        self._retry_policy = dict(retry_policy or {})

    def open(self, reached: Callable[[], bool]) -> PySparkTransport:
        from . import _pyspark_import  # noqa: F401  (before any PySpark import: its check of __main__)

        # isort: split
        from pyspark.sql.connect.client import SparkConnectClient

        _install_quiet_filter()

        with _quiet():
            sc = SparkConnectClient(self.builder, user_id=self._user_id, retry_policy=self._retry_policy)
        sc.set_retry_policies([RetryPolicy(reached, **self._retry_policy)])
        return PySparkTransport(sc)


class PySparkTransport:
    """A :class:`Transport` over one PySpark ``SparkConnectClient`` (``sc``: tests reach
    PySpark's stub and internals through it)."""

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

    def execute_plan(self, plan: pb.Plan) -> ResultStream:
        from .results import reattachable_stream

        return _QuietStream(reattachable_stream(self.sc, plan))

    def schema(self, plan: pb.Plan) -> pb.DataType:
        with _quiet():
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
        with _quiet():
            return str(self.sc.explain_string(plan, mode))

    def spark_version(self) -> str:
        with _quiet():
            return str(self.sc._analyze(method="spark_version").spark_version)

    def config(self, operation: pb.ConfigRequest.Operation) -> list[tuple[str, str | None]]:
        with _quiet():
            return list(self.sc.config(operation).pairs)

    def cache_artifacts(self, blobs: list[bytes]) -> list[str]:
        sc = self.sc
        with _quiet():
            if hasattr(sc, "cache_artifacts"):
                return list(sc.cache_artifacts(blobs))
            return [sc.cache_artifact(b) for b in blobs]  # PySpark 4.0: one call per blob

    def release_session(self) -> None:
        with _quiet():
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

    def failure(self, exc: BaseException) -> RpcFailure:
        return pyspark_failure(exc)


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
        with _quiet():
            return next(self._stream)

    def cancel(self) -> bool | None:
        with _quiet():
            return self._stream.cancel()

    def close(self) -> None:
        with _quiet():
            self._stream.close()
