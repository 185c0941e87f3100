"""The transport seam: how the client reaches a Spark Connect server, one RPC at a time.

The client (:mod:`connect_plan.client`) and the input placer (:mod:`connect_plan.inputs`)
reach a server only through a :class:`Transport`, which one :class:`Connector` opens per
server session. Through it pass Spark Connect protos and plain values, never a client
library's object, and failures are connect_plan's own typed ones
(:mod:`connect_plan.call_failures`), so that another implementation can take its place
without a change to the client.

One production implementation, httpx's shape:
:class:`~connect_plan.grpc_transport.GrpcTransport` drives Spark Connect's gRPC service with
PySpark's generated stub and messages but without PySpark's client, so that running a plan
imports neither PySpark's package nor pandas (issue 17; see that module for what it re-does
and why). PySpark's own ``SparkConnectClient`` as a transport is the reference it is tested
against, and lives with the other doubles under tests/ (tests/support/). What any
implementation must keep:

* **Deadlines.** Every RPC started inside :func:`connect_plan.deadlines.deadline` is capped
  by what is left of it, none is started after it passed (``QueryTimeoutError``), and no
  retry wait runs past it.
* **Results.** :meth:`Transport.execute_plan` is reattachable (a broken stream, or one the
  server ended without ``ResultComplete``, is reattached after the last response
  received); :meth:`ResultStream.close` releases the execution on the server;
  :meth:`ResultStream.cancel` releases it, then interrupts it, within
  :data:`~connect_plan.results.CANCEL_WAIT_SECONDS` of the caller's time.
* **Failures.** A call raises a ``ConnectPlanError`` of its own (a timeout, a broken
  result) or a :class:`~connect_plan.call_failures.CallFailure`, mapped once inside the
  transport: the server unavailable or never reached, the session lost, a bare gRPC status,
  or the server's error record (Spark's error class, SQLSTATE, message and parameters, as
  ``FetchErrorDetails`` gives them). The client maps those types to the exception tree
  (:mod:`connect_plan.client.failures`); it reads no failure's text.
* **Credentials.** A token implies TLS (:mod:`connect_plan.channel`); retries of a refused
  connection stop at once for a server this client never reached.

Also re-exported here, where they always were: the channel's parts and the deadlines.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from .call_failures import CallFailure, RpcFailure, grpc_failure
from .channel import (
    CHANNEL_DEFAULTS,
    ChannelBuilder,
    InsecureTokenWarning,
    close_channel,
    start_call,
)
from .deadlines import deadline, grace, remaining, timeout_error
from .responses import Received, received
from .retries import never_connected

if TYPE_CHECKING:
    import os

    from pyspark.sql.connect import proto as pb

__all__ = [
    "CHANNEL_DEFAULTS",
    "DEFAULT_MAX_MESSAGE",
    "CallFailure",
    "ChannelBuilder",
    "Connector",
    "InsecureTokenWarning",
    "Received",
    "ResultStream",
    "RpcFailure",
    "Transport",
    "close_channel",
    "connector",
    "deadline",
    "grace",
    "grpc_failure",
    "never_connected",
    "received",
    "remaining",
    "start_call",
    "timeout_error",
]

#: gRPC message limit of a channel whose options do not say (PySpark's and Spark's default)
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
    """One session on one Spark Connect server. Every call may raise a typed
    :class:`~connect_plan.call_failures.CallFailure` or a ``ConnectPlanError`` of its own,
    nothing else (reading a :meth:`execute_plan` stream too)."""

    @property
    def session_id(self) -> str:
        """The client-side session id sent with every request."""
        ...

    @property
    def max_message_size(self) -> int:
        """The largest message this side's channel sends, in bytes."""
        ...

    def execute_plan(self, plan: pb.Plan, tags: Sequence[str] = ()) -> ResultStream:
        """ExecutePlan of a plan (a query, or a command: a write, a view), reattachable, its
        operation carrying ``tags`` (see :meth:`interrupt`); the request goes out on the
        first read."""
        ...

    def interrupt(self, tag: str) -> list[str]:
        """Interrupt (by tag): every execution of this session whose request carried ``tag``
        ends on the server; the ids of those the server interrupted (none: no such execution
        was running, or it had not reached the server yet)."""
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
) -> Connector:
    """The connector the client uses for ``url``: the gRPC transport
    (:class:`~connect_plan.grpc_transport.GrpcConnector`). The URL and credentials are parsed
    here, once (:func:`~connect_plan.channel.ChannelBuilder`), and raise as they are invalid."""
    from .grpc_transport import GrpcConnector

    builder = ChannelBuilder(
        url,
        token=token,
        use_ssl=use_ssl,
        ca_cert=ca_cert,
        headers=headers,
        allow_insecure_token=allow_insecure_token,
        channel_options=list(channel_options) if channel_options is not None else None,
    )
    return GrpcConnector(builder, user_id=user_id, retry_policy=retry_policy)
