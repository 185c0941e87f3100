"""Errors as Flight (gRPC) statuses: chosen by the error's type and fields, never by its text.

=========================================  =======================  =========================================
raised                                     status                   trailers (shown by ADBC as error details)
=========================================  =======================  =========================================
a malformed command, ticket or action      INVALID_ARGUMENT
``PolicyError``                            PERMISSION_DENIED        ``connect-plan-codes``
``PlanError``                              INVALID_ARGUMENT         ``connect-plan-codes``
``ResultContractError``                    FAILED_PRECONDITION      ``connect-plan-codes``
``ResultIntegrityError``                   DATA_LOSS
``QueryTimeoutError``                      DEADLINE_EXCEEDED        Spark's, as below
``ServerUnavailableError``                 UNAVAILABLE
``PlanTooLargeError``                      RESOURCE_EXHAUSTED
``ServerError`` with a SQLSTATE            42, 22: INVALID_ARGUMENT; 0A: UNIMPLEMENTED;   ``spark-error-class``,
                                           08: UNAVAILABLE; else INTERNAL                 ``spark-sqlstate``,
                                                                                          ``spark-exception-type``
``ServerError``, a bare gRPC status        the same status (Spark refusing *this server's* credentials:
                                           INTERNAL, so that no caller reads it as its own token refused)
anything else                              INTERNAL, with a reference to the server's log (no traceback)
=========================================  =======================  =========================================

The message is the error's own text (every located problem of a ``PlanError``; Spark's error
class and SQLSTATE), cut at :data:`MAX_MESSAGE` characters so that it fits in gRPC's trailers.
"""

from __future__ import annotations

import logging
import uuid

from ..errors import (
    ConnectPlanError,
    PlanError,
    PlanTooLargeError,
    PolicyError,
    QueryTimeoutError,
    ResultContractError,
    ResultIntegrityError,
    ServerError,
    ServerUnavailableError,
    UnsupportedServerError,
)
from ..records import Value, frozen
from .messages import CommandError

__all__ = ["MAX_MESSAGE", "Status", "status_of"]

log = logging.getLogger("connect_plan.serve")

#: the longest message sent (gRPC's clients refuse trailers over 8 KiB by default)
MAX_MESSAGE = 6000

#: a SQLSTATE's class → the status of a Spark error of that class
_SQLSTATE_CLASSES = {
    "42": "INVALID_ARGUMENT",  # syntax error or access rule violation (analysis)
    "22": "INVALID_ARGUMENT",  # data exception (a cast, a division by zero in ANSI mode)
    "0A": "UNIMPLEMENTED",  # feature not supported
    "08": "UNAVAILABLE",  # connection exception
}
#: bare gRPC statuses of Spark passed on as they are (the others become INTERNAL)
_PASSED_ON = frozenset(
    {
        "RESOURCE_EXHAUSTED",
        "INVALID_ARGUMENT",
        "NOT_FOUND",
        "FAILED_PRECONDITION",
        "ABORTED",
        "OUT_OF_RANGE",
        "UNIMPLEMENTED",
        "CANCELLED",
        "DATA_LOSS",
        "UNAVAILABLE",
        "DEADLINE_EXCEEDED",
    }
)
_ANALYSIS_TYPES = frozenset({"AnalysisException", "ParseException"})


@frozen
class Status(Value):
    """A status to end a call with: the gRPC code's name, the message, trailing metadata."""

    code: str
    message: str
    trailers: tuple[tuple[str, str], ...] = ()


def _cut(text: str) -> str:
    if len(text) <= MAX_MESSAGE:
        return text
    return (
        text[: MAX_MESSAGE - 80].rstrip()
        + f"\n  ... ({len(text) - MAX_MESSAGE + 80} more characters: see the server's log)"
    )


def _codes(err: PlanError | ResultContractError) -> tuple[tuple[str, str], ...]:
    return (("connect-plan-codes", ",".join(dict.fromkeys(err.codes))),) if err.codes else ()


def _spark(err: ServerError) -> tuple[tuple[str, str], ...]:
    pairs = (
        ("spark-error-class", err.error_class),
        ("spark-sqlstate", err.sqlstate),
        ("spark-exception-type", err.exception_type),
    )
    return tuple((k, v) for k, v in pairs if v)


def _server_code(err: ServerError) -> str:
    if isinstance(err, QueryTimeoutError):
        return "DEADLINE_EXCEEDED"
    if isinstance(err, ServerUnavailableError):
        return "UNAVAILABLE"
    if err.sqlstate:
        return _SQLSTATE_CLASSES.get(err.sqlstate[:2], "INTERNAL")
    if err.error_class is None and err.grpc_status:
        return err.grpc_status if err.grpc_status in _PASSED_ON else "INTERNAL"
    if err.exception_type in _ANALYSIS_TYPES:
        return "INVALID_ARGUMENT"
    return "INTERNAL"


def status_of(exc: BaseException, what: str) -> Status:
    """The status a call that raised ``exc`` ends with (``what``: the call, for the log)."""
    if isinstance(exc, CommandError):
        return Status("INVALID_ARGUMENT", _cut(str(exc)))
    if isinstance(exc, PolicyError):
        return Status("PERMISSION_DENIED", _cut(str(exc)), _codes(exc))
    if isinstance(exc, PlanError):
        return Status("INVALID_ARGUMENT", _cut(str(exc)), _codes(exc))
    if isinstance(exc, ResultContractError):
        return Status("FAILED_PRECONDITION", _cut(str(exc)), _codes(exc))
    if isinstance(exc, ResultIntegrityError):
        return Status("DATA_LOSS", _cut(str(exc)))
    if isinstance(exc, ServerError):
        code = _server_code(exc)
        message = str(exc)
        if exc.grpc_status in ("UNAUTHENTICATED", "PERMISSION_DENIED") and exc.error_class is None:
            code = "INTERNAL"
            message = f"the Spark Connect server refused this Flight SQL server's own credentials: {message}"
        return Status(code, _cut(message), _spark(exc))
    if isinstance(exc, PlanTooLargeError):
        return Status("RESOURCE_EXHAUSTED", _cut(str(exc)))
    if isinstance(exc, UnsupportedServerError):
        return Status("FAILED_PRECONDITION", _cut(str(exc)))
    if isinstance(exc, ConnectPlanError):
        return Status("INTERNAL", _cut(str(exc)))
    reference = uuid.uuid4().hex[:12]
    log.error("internal error in %s (reference %s)", what, reference, exc_info=exc)
    return Status(
        "INTERNAL",
        f"internal error in connect_plan's Flight SQL server ({type(exc).__name__}; reference {reference}: "
        "the server's log has the details)",
    )
