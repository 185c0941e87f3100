"""Failed Spark Connect calls, typed: what a transport raises, in terms of no client library.

A transport maps every failure of a call once, inside itself (httpx's shape: the client
never sees a foreign error), to one of these::

    CallFailure                 a call failed; ``record`` (an RpcFailure) describes it
    ├── ServerUnavailable       no server answered (gRPC UNAVAILABLE); ``reason`` says why
    │   └── NeverReached        ... no connection could be made at all (refused, unresolvable):
    │                           the call never reached a server
    ├── CredentialsRefused      the server refused the credentials (UNAUTHENTICATED)
    ├── StatusFailure           a bare gRPC status, no Spark error record (``status``,
    │                           ``details``; ``http_status`` when a plain HTTP server answered)
    ├── ServerFailure           the server's error record: Spark's error class, SQLSTATE,
    │                           message and parameters, stack trace, kind of error
    └── SessionLost             the server no longer has this client's session (it restarted,
                                or closed it); ``failure`` is what the server said, typed
                                (a ServerFailure, a StatusFailure...)

Every class carries its gRPC status (``status``, None when there was none) and the whole
record, so a front door maps a failure to a gRPC or Flight status by its type and fields,
never by its text. :func:`classify` is the one place that reads a record's text to choose
the type (the sentences of PySpark's wrapped errors, the session markers); the client maps
types to :mod:`connect_plan.errors` (:mod:`connect_plan.client.failures`).

Imports nothing of PySpark's; ``grpc`` only when a gRPC error is described.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import field
from typing import TYPE_CHECKING, Any

from .records import Value, frozen

if TYPE_CHECKING:
    from .errors import ServerError

__all__ = [
    "SESSION_LOST_MARKERS",
    "STATUS_SENTENCES",
    "UNREACHABLE",
    "CallFailure",
    "CredentialsRefused",
    "NeverReached",
    "RpcFailure",
    "ServerFailure",
    "ServerUnavailable",
    "SessionLost",
    "StatusFailure",
    "chain_status",
    "classify",
    "error_texts",
    "grpc_failure",
    "is_analysis_error",
    "refuses_observed_metrics",
    "status_name",
]


@frozen
class RpcFailure(Value):
    """A failed call as a transport describes it, in terms of no client library.

    ``kind`` says what failed: ``"status"`` a bare gRPC status (``text`` is its details),
    ``"server"`` the server's error record (Spark's error class, SQLSTATE, message...;
    ``text`` is the whole text the transport has for it), ``"other"`` anything else
    (``text`` is ``"<type>: <message>"``)."""

    kind: str
    text: str
    #: the gRPC status name the error carries itself
    status: str | None = None
    #: the first gRPC status found along the error and its causes (a deadline that passed
    #: inside a retry shows only there)
    chain_status: str | None = None
    error_class: str | None = None
    sqlstate: str | None = None
    message: str = ""
    stacktrace: str | None = None
    message_parameters: Mapping[str, str] = field(default_factory=dict)
    #: the engine-neutral kind of error (``AnalysisException``, ``ParseException``...)
    exception_type: str | None = None
    #: every text of the original error (its str, repr, stack trace): a credential in any
    #: of them means the error may not be kept as the cause of what is raised
    texts: tuple[str, ...] = ()


# ---------------------------------------------------------------------------- the types


class CallFailure(Exception):
    """A Spark Connect call failed (see the module doc for the kinds); ``record`` describes it.
    This base class itself is a failure of no known kind (``record.kind`` ``"other"``)."""

    def __init__(self, record: RpcFailure) -> None:
        super().__init__(record.text)
        self.record = record

    @property
    def status(self) -> str | None:
        """The gRPC status name of the failure (None: not a gRPC status)."""
        return self.record.status


class ServerUnavailable(CallFailure):
    """No server answered: ``reason`` says what happened (a refused connection, a silent
    one, a lost one), with gRPC's own details in brackets."""

    def __init__(self, record: RpcFailure, reason: str) -> None:
        super().__init__(record)
        self.reason = reason

    @property
    def status(self) -> str | None:
        return "UNAVAILABLE"


class NeverReached(ServerUnavailable):
    """No connection could be made (refused, a name that does not resolve): the call never
    reached a server, so nothing of it ran."""


class CredentialsRefused(CallFailure):
    """The server refused the call's credentials (UNAUTHENTICATED); ``details`` are its words."""

    def __init__(self, record: RpcFailure, details: str) -> None:
        super().__init__(record)
        self.details = details

    @property
    def status(self) -> str | None:
        return "UNAUTHENTICATED"


#: a bare gRPC status (no Spark error record) as a sentence: what the server answered and
#: what to check; ``{url}`` and ``{details}`` are filled in (:meth:`StatusFailure.sentence`)
STATUS_SENTENCES: dict[str, str] = {
    "UNIMPLEMENTED": "the server at {url} answered, but does not implement the Spark Connect call "
    "(UNIMPLEMENTED: {details}); check that the URL names a Spark Connect endpoint (Spark 4.0+ with "
    "Connect, or Sail) and its gRPC port (Spark's default is 15002), not another service",
    "NOT_FOUND": "the server at {url} answered NOT_FOUND ({details}); check that the URL names a "
    "Spark Connect endpoint and its gRPC port",
    "PERMISSION_DENIED": "the server at {url} refused the call (PERMISSION_DENIED: {details}); check "
    "the token and user_id in the URL",
    "RESOURCE_EXHAUSTED": "the server at {url} refused the call as over a limit (RESOURCE_EXHAUSTED: "
    "{details}); a message may be larger than the server accepts "
    "(spark.connect.grpc.maxInboundMessageSize), or the server is out of resources",
    "INTERNAL": "the server at {url} failed internally (INTERNAL: {details}); its log says more",
    "UNKNOWN": "the server at {url} failed with an unknown error (UNKNOWN: {details}); its log says "
    "more, or the endpoint is not a Spark Connect server",
    "CANCELLED": "the call to the server at {url} was cancelled (CANCELLED: {details})",
    "INVALID_ARGUMENT": "the server at {url} refused the request (INVALID_ARGUMENT: {details})",
    "FAILED_PRECONDITION": "the server at {url} refused the call in its current state (FAILED_PRECONDITION: {details})",
    "ABORTED": "the server at {url} aborted the call (ABORTED: {details}); retry it",
    "DATA_LOSS": "the server at {url} reported lost data (DATA_LOSS: {details})",
    "OUT_OF_RANGE": "the server at {url} answered OUT_OF_RANGE ({details})",
    "ALREADY_EXISTS": "the server at {url} answered ALREADY_EXISTS ({details})",
}
#: an HTTP/2 server that is not a gRPC service (a web server, a proxy without the route)
_HTTP_STATUS_RE = re.compile(r"http2 header with status: (\d+)")


class StatusFailure(CallFailure):
    """A bare gRPC status with no Spark error record: ``status`` and gRPC's ``details``;
    ``http_status`` when what answered was an HTTP server that is not a gRPC service."""

    def __init__(self, record: RpcFailure, status: str | None, details: str) -> None:
        super().__init__(record)
        self._status = status
        self.details = details
        http = _HTTP_STATUS_RE.search(details)
        self.http_status: int | None = int(http.group(1)) if http else None

    @property
    def status(self) -> str | None:
        return self._status

    @property
    def has_sentence(self) -> bool:
        """Whether the status reads as a sentence of its own (an HTTP answer, or a status of
        :data:`STATUS_SENTENCES`): the client words it so."""
        return self.http_status is not None or (self._status or "") in STATUS_SENTENCES


class ServerFailure(CallFailure):
    """The server's error record (``record``: Spark's error class, SQLSTATE, message and its
    parameters, stack trace, kind of error); ``message`` is the record's message without the
    JVM stack trace its text may end with."""

    def __init__(self, record: RpcFailure, message: str) -> None:
        super().__init__(record)
        self.message = message


class SessionLost(CallFailure):
    """The server no longer has this client's session (it restarted, or closed it): the
    client opens a new session and runs the operation once more. ``failure`` is what the
    server said, as it is typed otherwise (the error the caller sees if the second run
    fails the same way)."""

    def __init__(self, failure: CallFailure) -> None:
        super().__init__(failure.record)
        self.failure = failure

    @property
    def status(self) -> str | None:
        return self.failure.status


# ---------------------------------------------------------------------------- the mapping

#: what a server says of a session it no longer has (it restarted, or closed it)
SESSION_LOST_MARKERS = (
    "INVALID_HANDLE.SESSION_CHANGED",
    "INVALID_HANDLE.SESSION_NOT_FOUND",
    "NO_ACTIVE_SESSION",
    "incorrect server side session identifier",
)
_DETAILS_RE = re.compile(r'details = "([^"]*)"')
_STATUS_RE = re.compile(r"StatusCode\.([A-Z_]+)")
_SAIL_VERSION_HINT = (
    " (Sail reads the version of the PySpark installed next to it; this pysail does not"
    " support it: use a pysail release that does, or pyspark-client of a supported version)"
)


def classify(record: RpcFailure) -> CallFailure:
    """The typed failure of ``record``: the one place a failure's text chooses its type.

    A bare status is typed by its status. A server error record without an error class is
    read as PySpark's client passed bare statuses on (``UNAVAILABLE``, ``StatusCode.X`` and
    ``details = "..."`` in the text of its wrapper). A server error, bare status or other
    failure whose words (error class, message, details) name a session the server no longer
    has is a :class:`SessionLost` of it."""
    failure = _typed(record)
    if isinstance(failure, ServerFailure):
        said = f"{record.error_class or ''} {failure.message}"
    elif isinstance(failure, StatusFailure):
        said = failure.details
    elif type(failure) is CallFailure:
        said = record.text
    else:  # the server was not reached, or refused the credentials: no session was lost
        return failure
    if any(marker in said for marker in SESSION_LOST_MARKERS):
        return SessionLost(failure)
    return failure


def _typed(record: RpcFailure) -> CallFailure:
    if record.kind == "status":
        details = record.text
        if record.status == "UNAVAILABLE":
            return _unavailable(record, details)
        if record.status == "UNAUTHENTICATED":
            return CredentialsRefused(record, details)
        return StatusFailure(record, record.status, details)
    if record.kind != "server":
        return CallFailure(record)
    error_class, text = record.error_class, record.text
    unavailable = error_class is None and ("UNAVAILABLE" in text[:200] or record.status == "UNAVAILABLE")
    if unavailable or "failed to connect to all addresses" in text:
        return _unavailable(record, text)
    if error_class is None and record.status == "UNAUTHENTICATED":
        return CredentialsRefused(record, _grpc_details(text))
    if error_class is None and "StatusCode." in text:  # a bare status, as PySpark passes it on
        m = _STATUS_RE.search(text)
        bare = StatusFailure(record, record.status or (m.group(1) if m else None), _grpc_details(text))
        if bare.has_sentence:
            return bare
    message = _strip_stacktrace(record.message)
    if "unsupported PySpark version" in message:
        message += _SAIL_VERSION_HINT
    return ServerFailure(record, message)


#: gRPC's words for a connection that could not be made at all (refused, unresolvable)
UNREACHABLE = ("failed to connect to all addresses", "connection refused", "name resolution", "dns resolution")


def _unavailable(record: RpcFailure, text: str) -> ServerUnavailable:
    details = _grpc_details(text)
    low = details.lower()
    if "connection refused" in low:
        reason = f"connection refused (is the server running?) [{details}]"
    elif "keepalive" in low or "ping" in low:
        reason = f"the connection went silent (keepalive pings unanswered) [{details}]"
    elif "socket closed" in low or "connection reset" in low or "broken pipe" in low or "goaway" in low:
        reason = f"the connection was lost [{details}]"
    else:
        reason = details
    never = any(s in text.lower() for s in UNREACHABLE)
    return (NeverReached if never else ServerUnavailable)(record, reason)


def _grpc_details(text: str) -> str:
    """The ``details`` of a gRPC error's text (PySpark passes on the call's repr)."""
    m = _DETAILS_RE.search(text)
    return m.group(1) if m else _first_line(text)


def _first_line(text: str) -> str:
    for line in text.splitlines():
        line = line.strip()
        if line:
            return line[:300]
    return text[:300]


def _strip_stacktrace(message: str) -> str:
    cut = message.find("\n\nJVM stacktrace:")
    if cut >= 0:
        message = message[:cut]
    return message.rstrip()


# ---------------------------------------------------------------------------- kinds of server error

#: PySpark's kinds of analysis error (Spark sends SQLSTATE class 42 with them; servers
#: without error classes, such as Sail, send only the kind)
_ANALYSIS_TYPES = frozenset({"AnalysisException", "ParseException", "TempTableAlreadyExistsException"})


def is_analysis_error(err: ServerError) -> bool:
    """Did the server refuse the plan in analysis (an error a prefix of the plan reproduces)?"""
    return (
        bool(err.sqlstate and err.sqlstate[:2] == "42")
        or err.exception_type in _ANALYSIS_TYPES
        or "AnalysisException" in err.message
    )


def refuses_observed_metrics(err: ServerError) -> bool:
    """Did the server refuse a plan for its CollectMetrics relation? (Sail: an
    UnsupportedOperationException 'collect metrics'; Spark has them since 3.4)"""
    return err.error_class is None and "collect metrics" in err.message.lower()


# ---------------------------------------------------------------------------- describing gRPC errors


def grpc_failure(exc: BaseException) -> RpcFailure | None:
    """The description of a bare gRPC error (None: ``exc`` is not one)."""
    import grpc

    if not isinstance(exc, grpc.RpcError):
        return None
    code = exc.code() if hasattr(exc, "code") else None
    details = exc.details() if hasattr(exc, "details") else str(exc)
    return RpcFailure(
        "status",
        str(details),
        status=code.name if code is not None else None,
        chain_status=chain_status(exc),
        texts=error_texts(exc),
    )


def chain_status(exc: BaseException) -> str | None:
    """The gRPC status of ``exc``: a gRPC error's, or the one a wrapping error kept (its own
    or its cause's, as PySpark's errors keep it in ``_grpc_status_code``), else None."""
    import grpc

    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, grpc.RpcError) and hasattr(seen, "code"):
            return status_name(seen.code())
        code = getattr(seen, "_grpc_status_code", None)
        if code is not None:
            return status_name(code)
        seen = seen.__cause__
    return None


def status_name(code: Any) -> str | None:
    """The name of a ``grpc.StatusCode`` (None for anything else)."""
    name = getattr(code, "name", None)
    return name if isinstance(name, str) else None


def error_texts(exc: BaseException) -> tuple[str, ...]:
    """Every text of ``exc``: its str, its repr, the JVM stack trace PySpark's classic
    errors keep in ``_stackTrace``."""
    return (str(exc), repr(exc), str(getattr(exc, "_stackTrace", "") or ""))
