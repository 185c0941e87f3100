"""A failed Spark Connect call described without PySpark's client: :func:`rpc_failure`, typed
by :func:`call_failure`.

A Spark Connect server reports an error as a gRPC status whose details
(``grpc-status-details-bin``, a ``google.rpc.Status``) hold an ``ErrorInfo``: the JVM
exception's classes, Spark's error class, SQLSTATE, message parameters, and an ``errorId``
under which ``FetchErrorDetails`` answers the whole error (its untruncated message, cause
chain, stack trace and query contexts). PySpark's client turns that into one of its
exceptions (``SparkConnectClient._handle_rpc_error`` and
``pyspark.errors.exceptions.connect.convert_exception``); the reference transport of the
tests (tests/support/reference_transport.py) describes those as an :class:`RpcFailure`.

:func:`rpc_failure` gives the same :class:`RpcFailure` straight from the gRPC error, so that
``connect-plan run`` need not import PySpark or pandas; :func:`call_failure` types it
(:func:`~connect_plan.call_failures.classify`): what the production transport raises. What
is written by hand here, after PySpark 4.3.0's ``pyspark/errors/exceptions/connect.py`` and
``pyspark/sql/connect/client/core.py`` and proven equal field by field by
tests/integration/test_server_errors.py:

* when the details are fetched (an ``ErrorInfo`` with an ``errorId``), and what of them is
  kept (the root error's message, error class, parameters; its JVM stack trace with its
  causes, as ``_extract_jvm_stacktrace`` formats it);
* the text of PySpark's exception: the message, ``(reason)`` before it for an unmapped
  error, PySpark's sentence before a Python worker's error, and the JVM stack trace after
  it when the server's conf shows stack traces (:data:`STACKTRACE_CONFS`);
* its class, from the JVM classes the server names (:data:`EXCEPTION_CLASSES`);
* its SQLSTATE: the server's, else the one PySpark's own error-conditions.json gives the
  error class, by the installed PySpark's rule (read as files, PySpark is not imported).

Where PySpark's client itself fails on what the server sent, this does not: metadata that
is not JSON is read as absent (PySpark raises ``JSONDecodeError``), a details answer whose
root or causes point outside it is not used (PySpark raises ``IndexError`` or recurses
without end), a status trailer that does not match the call is ignored (PySpark raises
``ValueError``). Bare statuses (no ``ErrorInfo``; ``DEADLINE_EXCEEDED`` always) are
described as :func:`~connect_plan.call_failures.grpc_failure` describes them.

Imports grpc, grpc_status and the google.rpc protos; nothing of PySpark's except, through
:mod:`connect_plan.spark_proto`, the generated message classes.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import re
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from .call_failures import CallFailure, RpcFailure, chain_status, classify, error_texts, grpc_failure

if TYPE_CHECKING:
    from pyspark.sql.connect import proto as pb

__all__ = [
    "EXCEPTION_CLASSES",
    "STACKTRACE_CONFS",
    "THIRD_PARTY_CLASSES",
    "call_failure",
    "retry_delay",
    "rpc_failure",
    "stacktrace_shown",
]

#: The JVM exception classes PySpark maps to its own, in PySpark 4.3.0's order
#: (``EXCEPTION_CLASS_MAPPING`` and ``THIRD_PARTY_EXCEPTION_CLASS_MAPPING`` of
#: pyspark/errors/exceptions/connect.py): the name of PySpark's Connect exception class and
#: its class in ``pyspark.errors.exceptions.base`` (``RpcFailure.exception_type``; None for
#: the two classes that have none there). tests/unit/test_server_errors.py checks this
#: table against the installed PySpark.
EXCEPTION_CLASSES: dict[str, tuple[str, str | None]] = {
    "org.apache.spark.sql.catalyst.parser.ParseException": ("ParseException", "ParseException"),
    "org.apache.spark.sql.AnalysisException": ("AnalysisException", "AnalysisException"),
    "org.apache.spark.sql.streaming.StreamingQueryException": ("StreamingQueryException", "StreamingQueryException"),
    "org.apache.spark.sql.execution.QueryExecutionException": ("QueryExecutionException", "QueryExecutionException"),
    "java.lang.NumberFormatException": ("NumberFormatException", "NumberFormatException"),
    "java.lang.IllegalArgumentException": ("IllegalArgumentException", "IllegalArgumentException"),
    "java.lang.ArithmeticException": ("ArithmeticException", "ArithmeticException"),
    "java.lang.UnsupportedOperationException": ("UnsupportedOperationException", "UnsupportedOperationException"),
    "java.lang.ArrayIndexOutOfBoundsException": ("ArrayIndexOutOfBoundsException", "ArrayIndexOutOfBoundsException"),
    "java.time.DateTimeException": ("DateTimeException", "DateTimeException"),
    "org.apache.spark.SparkRuntimeException": ("SparkRuntimeException", "SparkRuntimeException"),
    "org.apache.spark.SparkUpgradeException": ("SparkUpgradeException", "SparkUpgradeException"),
    "org.apache.spark.api.python.PythonException": ("PythonException", "PythonException"),
    "org.apache.spark.SparkNoSuchElementException": ("SparkNoSuchElementException", "SparkNoSuchElementException"),
    "org.apache.spark.SparkException": ("SparkException", None),
    "org.apache.spark.sql.connect.common.InvalidPlanInput": ("InvalidPlanInput", None),
    "org.apache.spark.api.python.StreamingPythonRunner$StreamingPythonRunnerInitializationException": (
        "StreamingPythonRunnerInitializationException",
        "StreamingPythonRunnerInitializationException",
    ),
}
#: a SparkException whose message names one of these is PySpark's class for it instead
THIRD_PARTY_CLASSES: dict[str, tuple[str, str | None]] = {
    "net.razorvine.pickle.PickleException": ("PickleException", "PickleException"),
}
_UNKNOWN: tuple[str, str | None] = ("UnknownException", "UnknownException")
_PYTHON_WORKER = "org.apache.spark.api.python.PythonException"
_PYTHON_PREFIX = "\n  An exception was thrown from the Python worker. Please see the stack trace below.\n"

#: the confs PySpark's client reads (``_display_server_stack_trace``) to show the server's
#: JVM stack trace after an error's message: shown when either is "true"
STACKTRACE_CONFS = ("spark.sql.connect.serverStacktrace.enabled", "spark.sql.pyspark.jvmStacktrace.enabled")


def stacktrace_shown(pairs: Iterable[tuple[str, str | None]]) -> bool:
    """Does a Config answer for :data:`STACKTRACE_CONFS` show stack traces (PySpark's rule)?"""
    return any(key in STACKTRACE_CONFS and value == "true" for key, value in pairs)


def rpc_failure(
    exc: BaseException,
    fetch: Callable[[str], pb.FetchErrorDetailsResponse | None] | None = None,
    *,
    show_stacktrace: Callable[[], bool] | bool = True,
) -> RpcFailure:
    """The :class:`RpcFailure` PySpark's client would have led to for ``exc``, a failed
    Spark Connect call (or anything else a transport raised).

    ``fetch(error_id)`` is the transport's ``FetchErrorDetails`` call in the same session
    (None, or raising ``grpc.RpcError``: the details could not be fetched); it is called at
    most once, when the server's ``ErrorInfo`` names an ``errorId`` (the server does when
    ``spark.sql.connect.enrichError.enabled``). ``show_stacktrace`` says whether the text
    ends with the JVM stack trace (PySpark reads :data:`STACKTRACE_CONFS`, and shows it when
    reading them fails; Spark's default shows it); called only when there is one to show."""
    import grpc

    if not isinstance(exc, grpc.RpcError):
        return RpcFailure(
            "other", f"{type(exc).__name__}: {exc}", chain_status=chain_status(exc), texts=error_texts(exc)
        )
    bare = grpc_failure(exc)
    assert bare is not None
    code = exc.code() if hasattr(exc, "code") else None
    if code is None or code == grpc.StatusCode.DEADLINE_EXCEEDED:
        return bare
    status = _status(exc)
    info = _error_info(status) if status is not None else None
    if status is None or info is None:
        return bare
    return _server_failure(info, status.message, code.name, fetch, show_stacktrace)


def call_failure(
    exc: BaseException,
    fetch: Callable[[str], pb.FetchErrorDetailsResponse | None] | None = None,
    *,
    show_stacktrace: Callable[[], bool] | bool = True,
) -> CallFailure:
    """The typed failure a transport raises for ``exc`` (a failed call, or anything else it
    raised): :func:`rpc_failure`'s description, :func:`~connect_plan.call_failures.classify`'d."""
    return classify(rpc_failure(exc, fetch, show_stacktrace=show_stacktrace))


def retry_delay(exc: BaseException) -> float | None:
    """The server's ``RetryInfo.retry_delay`` in ``exc``'s status details, in seconds, whole
    milliseconds as PySpark 4.3's retries.py reads it (``ToMilliseconds``); None when the
    details hold no ``RetryInfo`` (PySpark's default policy retries any error that holds
    one, whatever its status: a 0.0 here still means retry)."""
    import grpc
    from google.rpc import error_details_pb2

    if not isinstance(exc, grpc.RpcError):
        return None
    status = _status(exc)
    if status is None:
        return None
    for detail in status.details:
        if detail.Is(error_details_pb2.RetryInfo.DESCRIPTOR):
            info = error_details_pb2.RetryInfo()
            detail.Unpack(info)
            return int(info.retry_delay.ToMilliseconds()) / 1000.0
    return None


# ---------------------------------------------------------------------------- the status


def _status(exc: Any) -> Any:
    """The call's ``google.rpc.Status`` (None: it sent none, or one that does not match)."""
    from grpc_status import rpc_status

    try:
        return rpc_status.from_call(exc)
    except (ValueError, AttributeError, TypeError):
        return None


def _error_info(status: Any) -> Any:
    """The first ``ErrorInfo`` of the status details (as PySpark reads them), or None."""
    from google.rpc import error_details_pb2

    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            return info
    return None


def _json(text: str | None, kind: type) -> Any:
    """``text`` parsed as JSON of ``kind`` (list or dict), or an empty one."""
    if not text:
        return kind()
    try:
        value = json.loads(text)
    except ValueError:
        return kind()
    return value if isinstance(value, kind) else kind()


# ---------------------------------------------------------------------------- the error


def _server_failure(
    info: Any,
    truncated_message: str,
    status: str,
    fetch: Callable[[str], pb.FetchErrorDetailsResponse | None] | None,
    show_stacktrace: Callable[[], bool] | bool,
) -> RpcFailure:
    """``convert_exception`` of PySpark 4.3.0, to the fields an :class:`RpcFailure` holds."""
    meta: Mapping[str, str] = info.metadata
    classes = [c for c in _json(meta.get("classes"), list) if isinstance(c, str)]
    message_parameters = {str(k): str(v) for k, v in _json(meta.get("messageParameters"), dict).items()}
    sqlstate = meta.get("sqlState")
    error_class = meta.get("errorClass")
    message = truncated_message
    stacktrace = meta.get("stackTrace")
    fetched = _fetched(meta, fetch)
    if fetched is not None:
        errors, root_index = fetched
        root = errors[root_index]
        message = root.message
        stacktrace = _jvm_stacktrace(errors, root_index)
        if error_class is None and root.spark_throwable.HasField("error_class"):
            error_class = root.spark_throwable.error_class
        message_parameters = dict(root.spark_throwable.message_parameters)
    shown = bool(stacktrace) and (show_stacktrace() if callable(show_stacktrace) else bool(show_stacktrace))

    if _PYTHON_WORKER in classes:
        # PySpark builds this one from the message alone: no error class, no parameters
        text = _PYTHON_PREFIX + message
        return RpcFailure(
            "server",
            text,
            status=status,
            chain_status=status,
            message=text,
            exception_type="PythonException",
            texts=(text, "PythonException()", ""),
        )
    python_class, exception_type = _UNKNOWN
    for name in classes:
        found = EXCEPTION_CLASSES.get(name)
        if found is not None and found[0] == "SparkException":
            for third_party, mapped in THIRD_PARTY_CLASSES.items():
                found = mapped if third_party in message else found
        if found is not None:
            python_class, exception_type = found
            break
    text = f"({info.reason}) {message}" if python_class == "UnknownException" else message
    if shown:
        text += f"\n\nJVM stacktrace:\n{stacktrace}"
    if sqlstate is None:
        sqlstate = _pyspark_sqlstate(error_class)
    return RpcFailure(
        "server",
        text,
        status=status,
        chain_status=status,
        error_class=error_class,
        sqlstate=sqlstate,
        message=text,
        # the server's (truncated, or fetched whole) whether or not the text shows it, as
        # PySpark's error keeps it
        stacktrace=stacktrace or None,
        # PySpark keeps parameters only together with an error class
        message_parameters=message_parameters if error_class is not None else {},
        exception_type=exception_type,
        texts=(text, f"{python_class}({message!r})", ""),
    )


def _fetched(
    meta: Mapping[str, str], fetch: Callable[[str], pb.FetchErrorDetailsResponse | None] | None
) -> tuple[list[Any], int] | None:
    """The fetched errors and the root's index, when the server names an error id, the
    fetch answers and its answer holds a root error with causes inside it."""
    import grpc

    error_id = meta.get("errorId")
    if error_id is None or fetch is None:
        return None
    try:
        resp = fetch(error_id)
    except grpc.RpcError:
        return None
    if resp is None or not resp.HasField("root_error_idx"):
        return None
    errors = list(resp.errors)
    index = resp.root_error_idx
    seen: set[int] = set()
    while True:  # the root and every cause inside the answer, no cycle, each with a class
        if not 0 <= index < len(errors) or index in seen or not errors[index].error_type_hierarchy:
            return None
        seen.add(index)
        if not errors[index].HasField("cause_idx"):
            break
        index = errors[index].cause_idx
    return errors, resp.root_error_idx


def _jvm_stacktrace(errors: list[Any], root_index: int) -> str:
    """The root error's stack trace and its causes', as PySpark's ``_extract_jvm_stacktrace``."""
    lines: list[str] = []
    index: int | None = root_index
    while index is not None:
        error = errors[index]
        if not lines:
            lines.append(error.error_type_hierarchy[0])
        else:
            lines.append(f"Caused by: {error.error_type_hierarchy[0]}: {error.message}")
        lines.extend(
            f"\tat {e.declaring_class}.{e.method_name}({e.file_name}:{e.line_number})" for e in error.stack_trace
        )
        index = error.cause_idx if error.HasField("cause_idx") else None
    return "\n".join(lines)


def _pyspark_sqlstate(error_class: str | None) -> str | None:
    """The SQLSTATE PySpark's error-conditions.json gives ``error_class``: from 4.3 its main
    class's; before, the class's own (``A.B``: sub-class B's), else none."""
    if error_class is None:
        return None
    conditions, version = _pyspark_conditions()
    parts = error_class.split(".")
    entry: Any = conditions.get(parts[0], {})
    if version < (4, 3) and len(parts) > 1:
        entry = entry.get("sub_class", {}).get(parts[1], {}) if isinstance(entry, dict) else {}
    state = entry.get("sqlState") if isinstance(entry, dict) else None
    return state if isinstance(state, str) else None


@functools.cache
def _pyspark_conditions() -> tuple[dict[str, Any], tuple[int, int]]:
    """PySpark's own error conditions (pyspark/errors/error-conditions.json) and its version
    (pyspark/version.py), read as files: PySpark is not imported."""
    spec = importlib.util.find_spec("pyspark")
    if spec is None or spec.origin is None:
        return {}, (0, 0)
    folder = os.path.dirname(spec.origin)
    try:
        with open(os.path.join(folder, "version.py"), encoding="utf-8") as f:
            found = re.search(r"""__version__[^=]*=\s*["'](\d+)\.(\d+)""", f.read())
        version = (int(found.group(1)), int(found.group(2))) if found else (0, 0)
        with open(os.path.join(folder, "errors", "error-conditions.json"), encoding="utf-8") as f:
            conditions = json.load(f)
    except (OSError, ValueError):
        return {}, (0, 0)
    return (conditions if isinstance(conditions, dict) else {}), version
