"""How a transport describes a failed call: :class:`RpcFailure`, in terms of no client library.

Here, not in :mod:`connect_plan.transport`, so that a transport without PySpark
(:mod:`connect_plan.server_errors`) describes failures without importing PySpark's client:
``transport`` imports PySpark (its error-logging filter) and re-exports these names.
Imports nothing of PySpark's; ``grpc`` only when a failure is described.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field
from typing import Any

from .records import Value, frozen

__all__ = ["RpcFailure", "chain_status", "error_texts", "grpc_failure", "status_name"]


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
    """The gRPC status of ``exc``: a gRPC error's, or the one PySpark's error kept (its own
    or its cause's), else None."""
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
