"""Connections to a Spark Connect server: execute translated plans, return Arrow.

The transport is PySpark's own Connect client (``SparkConnectClient``): its channel
builder parses ``sc://`` URLs (token, use_ssl, user_id, session_id), its retry policy
retries transient gRPC failures, and its reattachable execution resumes a result stream
that broke off. connect_plan adds what a plan runner needs on top: translation with
schema resolution, checks on every Arrow batch, errors mapped to
:class:`~connect_plan.errors.ServerError` with the failing plan step, and no pandas.

Reliability (docs/reliability.md lists each guarantee with the test that proves it):
``timeout=`` bounds a whole operation (every RPC in it, retry waits included; the release
and Interrupt sent when it expires add at most 0.5 s, and go on in the background against
a server slow to answer them); ``close()`` never waits on a server that does not answer; a
server that restarted is met with a new session and the operation runs again
once, if nothing of its result had arrived; a token implies TLS (:mod:`connect_plan.transport`).

Threads: one :class:`Client` may be shared by any number of threads. gRPC channels are
thread-safe, each call keeps its state on its own stack, and the few shared caches
(schema names, uploaded inputs, the session itself) are replaced under a lock. What is
*not* isolated between threads is the Spark session: ``set_conf`` and a plan document's
``conf`` apply to every query running on the client at that moment, and temporary views
one plan creates are visible to the others. Use one client per thread for those.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import threading
import time
import warnings
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from . import (
    _pyspark_import,  # noqa: F401  (before any PySpark import: its check of __main__)
    ir,
    transport,
)
from .errors import (
    ConnectPlanError,
    PlanError,
    PlanTooLargeError,
    QueryTimeoutError,
    ResultIntegrityError,
    ServerError,
    ServerUnavailableError,
)
from .formats import load_plan

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql.connect import proto as pb

    from .translator import LocalData, Translation
    from .translator.expressions import InlineUdf

__all__ = ["Client", "connect", "redact", "resolve_remote", "url_secrets"]

log = logging.getLogger("connect_plan")

#: retries of transient failures (UNAVAILABLE...) stop after ~6 s in all, not PySpark's 10 min
DEFAULT_RETRY_POLICY: dict[str, Any] = {
    "max_retries": 6,
    "initial_backoff": 50,
    "max_backoff": 2000,
    "backoff_multiplier": 4.0,
}

#: a token's value runs to the next URL parameter (';'): base64 tokens hold '/', '+' and
#: '=' (percent-encoded or not); in free text it also ends at whitespace or a quote
_TOKEN_RE = re.compile(r"""(?i)(token=)[^;\s'"]*""")
#: the userinfo of a URL (``sc://user:password@host``, also as PySpark rewrites it to
#: ``http://``): PySpark ignores it, but a password there must not be echoed; greedy up to
#: the last '@' before the path, as URL parsers split it
_USERINFO_RE = re.compile(r"""(?i)\b([a-z][a-z0-9+.-]*://)[^/\s'"]*@""")
_DETAILS_RE = re.compile(r'details = "([^"]*)"')


def redact(url: str) -> str:
    """The URL (or any text holding one) with its token and the password of its userinfo
    replaced by ``***`` (safe for logs, errors and repr)."""
    return _USERINFO_RE.sub(r"\1***@", _TOKEN_RE.sub(r"\1***", url))


def url_secrets(url: str) -> tuple[str, ...]:
    """The credentials written in an ``sc://`` URL, as written and percent-decoded: the
    ``token`` parameter's value and the userinfo's password. Texts that echo them in any
    other form than ``token=...`` (a server message naming the value) are scrubbed of
    them literally."""
    from urllib.parse import unquote, urlsplit

    found: list[str] = []
    try:
        parts = urlsplit("http" + url[2:] if url[:5].lower() == "sc://" else url)
        userinfo, _, _ = parts.netloc.rpartition("@")
        if ":" in userinfo:
            found.append(userinfo.split(":", 1)[1])
    except ValueError:
        pass
    _, _, params = url.partition(";")
    for param in params.split(";"):
        key, _, value = param.partition("=")
        if key.strip().lower() == "token":
            found.append(value)
    out: list[str] = []
    for secret in found:
        for form in (secret, unquote(secret)):
            if form and form not in out:
                out.append(form)
    return tuple(out)


def _hide(text: str, secrets: Sequence[str]) -> str:
    for secret in sorted(secrets, key=len, reverse=True):  # 'a%2Fb' before its decoded 'a/b'
        if secret:
            text = text.replace(secret, "***")
    return text


def resolve_remote(remote: str | None) -> str:
    """The server URL: ``remote``, else ``SPARK_REMOTE``, else the local server's.

    The local server is the one ``connect-plan server start`` launched (its state file
    records the port). The library never starts a JVM; ``remote="sail"`` starts an
    in-process Sail server (``pysail``, no JVM).
    """
    remote = remote or os.environ.get("SPARK_REMOTE")
    if remote == "sail":
        from .sail import in_process_url

        return in_process_url()
    if remote:
        return remote
    from .server import running_server_url

    url = running_server_url()
    if url:
        return url
    raise ServerUnavailableError(
        "no Spark Connect server given: pass remote='sc://host:port', set SPARK_REMOTE, "
        "or start a local one with `connect-plan server start`"
    )


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


_install_quiet_filter()

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


def server_error(exc: BaseException, url: str) -> ServerError:
    """Map a PySpark/gRPC exception to our tree (message, error class, SQLSTATE)."""
    import grpc
    from pyspark.errors import PySparkException

    if isinstance(exc, ServerError):
        return exc
    if isinstance(exc, grpc.RpcError):
        code = exc.code() if hasattr(exc, "code") else None
        details = exc.details() if hasattr(exc, "details") else str(exc)
        if code == grpc.StatusCode.UNAVAILABLE:
            return ServerUnavailableError(
                f"cannot reach the Spark Connect server at {redact(url)}: {_unavailable_reason(str(details))}",
                grpc_status="UNAVAILABLE",
            )
        cls = ServerUnavailableError if code == grpc.StatusCode.DEADLINE_EXCEEDED else ServerError
        return cls(
            f"{details} (server {redact(url)})",
            grpc_status=code.name if code is not None else None,
        )
    if isinstance(exc, PySparkException):
        error_class = exc.getCondition()
        sqlstate = exc.getSqlState()
        message = exc.getMessage() if hasattr(exc, "getMessage") else str(exc)
        message = _strip_stacktrace(message)
        grpc_status = None
        stack = getattr(exc, "_stackTrace", None)
        retry_text = str(exc)
        status = getattr(exc, "_grpc_status_code", None)
        unavailable = error_class is None and (
            "UNAVAILABLE" in retry_text[:200] or getattr(status, "name", None) == "UNAVAILABLE"
        )
        if unavailable or "failed to connect to all addresses" in retry_text:
            return ServerUnavailableError(
                f"cannot reach the Spark Connect server at {redact(url)}: {_unavailable_reason(retry_text)}",
                grpc_status="UNAVAILABLE",
            )
        if error_class is None and getattr(status, "name", None) == "UNAUTHENTICATED":
            return ServerError(
                f"the Spark Connect server at {redact(url)} refused the credentials: {_grpc_details(retry_text)}",
                grpc_status="UNAUTHENTICATED",
            )
        if "unsupported PySpark version" in message:
            message += (
                " (Sail reads the version of the PySpark installed next to it; this pysail does not"
                " support it: use a pysail release that does, or pyspark-client of a supported version)"
            )
        params = exc.getMessageParameters() if hasattr(exc, "getMessageParameters") else None
        return ServerError(
            message,
            error_class=error_class,
            sqlstate=sqlstate,
            grpc_status=grpc_status,
            server_stacktrace=stack if isinstance(stack, str) else None,
            message_parameters=params or None,
            exception_type=_exception_type(exc),
        )
    return ServerError(f"{type(exc).__name__}: {exc}")


def _grpc_code(exc: BaseException) -> Any:
    """The gRPC status code of ``exc``: a gRPC error's, or the one PySpark's error kept
    (its own or its cause's), else None."""
    import grpc

    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, grpc.RpcError) and hasattr(seen, "code"):
            return seen.code()
        code = getattr(seen, "_grpc_status_code", None)
        if code is not None:
            return code
        seen = seen.__cause__
    return None


def _grpc_details(text: str) -> str:
    """The ``details`` of a gRPC error's text (PySpark passes on the call's repr)."""
    m = _DETAILS_RE.search(text)
    return m.group(1) if m else _first_line(text)


def _unavailable_reason(text: str) -> str:
    details = _grpc_details(text)
    low = details.lower()
    if "connection refused" in low:
        return f"connection refused (is the server running?) [{details}]"
    if "keepalive" in low or "ping" in low:
        return f"the connection went silent (keepalive pings unanswered) [{details}]"
    if "socket closed" in low or "connection reset" in low or "broken pipe" in low or "goaway" in low:
        return f"the connection was lost [{details}]"
    return details


def _strip_stacktrace(message: str) -> str:
    cut = message.find("\n\nJVM stacktrace:")
    if cut >= 0:
        message = message[:cut]
    return message.rstrip()


def _first_line(text: str) -> str:
    for line in text.splitlines():
        line = line.strip()
        if line:
            return line[:300]
    return text[:300]


class Client:
    """A connection to one Spark Connect server (and one Spark session on it).

    Use :func:`connect` to make one; close it (or use it as a context manager) to release
    the server-side session.
    """

    def __init__(
        self,
        remote: str | None = None,
        *,
        user_id: str | None = None,
        retry_policy: Mapping[str, Any] | None = None,
        conf: Mapping[str, str] | None = None,
        token: str | None = None,
        use_ssl: bool | None = None,
        ca_cert: str | bytes | os.PathLike[str] | None = None,
        headers: Mapping[str, str] | None = None,
        allow_insecure_token: bool = False,
        timeout: float | None = None,
        channel_options: Sequence[tuple[str, Any]] | None = None,
    ) -> None:
        """``remote`` is an ``sc://host:port/;param=value`` URL (see :func:`resolve_remote`).

        Credentials follow the ``sc://`` convention: a ``token`` (here or in the URL, or
        ``SPARK_CONNECT_AUTHENTICATE_TOKEN``) is sent as a bearer token and implies TLS;
        sending it without TLS needs ``use_ssl=False`` *and* ``allow_insecure_token=True``,
        and warns. ``ca_cert`` (a PEM file path or bytes) replaces the system's root
        certificates; ``headers`` are sent with every call. ``timeout`` (seconds) is the
        default bound of every operation (``execute``, ``stream``, ``schema``...), which
        each call may override. ``retry_policy`` bounds PySpark's retries of transient
        failures (default :data:`DEFAULT_RETRY_POLICY`, ~7 s in all).
        """
        self._url = resolve_remote(remote)
        self._secrets = (*url_secrets(self._url), *(t for t in (token,) if t))
        try:
            self._builder = transport.ChannelBuilder(
                self._url,
                token=token,
                use_ssl=use_ssl,
                ca_cert=ca_cert,
                headers=headers,
                allow_insecure_token=allow_insecure_token,
                channel_options=list(channel_options) if channel_options is not None else None,
            )
        except ConnectPlanError:
            raise
        except Exception as exc:  # PySparkValueError for malformed URLs
            hint = ""
            if _TOKEN_RE.search(self._url):
                hint = (
                    " (a token holding '/', '=' or ';' must be percent-encoded in the URL, e.g. '/' as %2F,"
                    " or be passed as token=... or SPARK_CONNECT_AUTHENTICATE_TOKEN)"
                )
            raise ConnectPlanError(
                f"invalid Spark Connect URL {self._hide(self._url)!r}: {self._hide(str(exc))}{hint}"
            ) from None
        if self._builder.token and self._builder.token not in self._secrets:
            self._secrets = (*self._secrets, self._builder.token)
        self._user_id = user_id
        self._retry_policy = dict(retry_policy if retry_policy is not None else DEFAULT_RETRY_POLICY)
        self._timeout = _check_timeout(timeout)
        self._reached = False  # True once the server answered this client
        self._unanswered = False  # True while the server has not answered an interrupt (see close)
        self._observed_writes = True  # False once the server refused CollectMetrics (Sail)
        self._streams: weakref.WeakSet[Any] = weakref.WeakSet()  # result generators not yet finished
        self._lock = threading.Lock()
        self._closed = False
        self._schema_cache: dict[bytes, list[str]] = {}
        self._case_sensitive = False
        self._session_conf: dict[str, str] = {}  # set_conf() calls, replayed on a new session
        self._udfs: dict[str, InlineUdf] = {}
        self._sessions = 0
        self._server_version: str | None = None
        self._sc = self._new_session()
        if conf:
            self.set_conf(conf)

    def _new_session(self) -> Any:
        """A PySpark ``SparkConnectClient`` (new channel, new session id) for this client."""
        from pyspark.sql.connect.client import SparkConnectClient

        from .inputs import InputPlacer

        try:
            with _quiet():
                sc = SparkConnectClient(self._builder, user_id=self._user_id, retry_policy=self._retry_policy)
        except ConnectPlanError:
            raise
        except Exception as exc:
            raise ConnectPlanError(f"cannot connect to {self._hide(self._url)}: {self._hide(str(exc))}") from None
        sc.set_retry_policies([transport.RetryPolicy(lambda: self._reached, **self._retry_policy)])
        self._server_version = None  # a restarted server may be another version
        self._inputs = InputPlacer(sc, self._call, self.server_version)
        self._sessions += 1
        return sc

    def _hide(self, text: str) -> str:
        return _hide(redact(text), self._secrets)

    # ------------------------------------------------------------ lifecycle

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._closed else "open"
        return f"<connect_plan.Client {self._hide(self._url)} {state}>"

    @property
    def url(self) -> str:
        """The server URL with any token redacted."""
        return self._hide(self._url)

    @property
    def session_id(self) -> str:
        return str(self._sc._session_id)

    def close(self) -> None:
        """Release the server session (best effort, within :data:`CLOSE_GRACE_SECONDS`) and
        close the channel; it never waits longer on a server that does not answer."""
        if self._closed:
            return
        # results still open are closed (their executions released) while the channel is
        # open: a stream left to the garbage collector would release on a closed channel
        # from PySpark's release thread, which crashed gRPC (seen with pyspark-client 4.2)
        for stream in list(self._streams):
            with contextlib.suppress(Exception):
                stream.close()
        self._closed = True
        answers = not self._unanswered  # a server that ignored the last interrupt would ignore these too
        if answers:
            with _quiet(), transport.grace(CLOSE_GRACE_SECONDS), contextlib.suppress(Exception):
                self._sc.release_session()  # ends the session's executions on the server too
        _close_channel(self._sc, wait=answers)

    # ------------------------------------------------------------ session

    def set_conf(self, conf: Mapping[str, str], *, timeout: float | None = None) -> None:
        """Set Spark SQL configuration on this client's session (and on any new session
        the client opens after a server restart)."""
        values = {str(k): str(v).lower() if isinstance(v, bool) else str(v) for k, v in conf.items()}
        with self._operation(timeout):
            self._session_retry(lambda: self._set_conf(values))
        self._session_conf.update(values)

    def _set_conf(self, conf: Mapping[str, str]) -> None:
        from pyspark.sql.connect import proto as pb

        op = pb.ConfigRequest.Operation()
        for k, v in conf.items():
            pair = op.set.pairs.add()
            pair.key = str(k)
            pair.value = str(v).lower() if isinstance(v, bool) else str(v)
        try:
            self._call(lambda: self._sc.config(op))
        finally:  # the input cache settings among them are read again when next needed
            self._inputs.conf_changed(conf)
        if "spark.sql.caseSensitive" in conf:
            self._case_sensitive = str(conf["spark.sql.caseSensitive"]).lower() == "true"

    def get_conf(self, *keys: str, timeout: float | None = None) -> dict[str, str | None]:
        """The session's values of ``keys`` (a registered key that is not set reads as its
        default; an unknown one as None). With no keys: every key set for the session, the
        server's own Spark configuration included (a key at its default is not listed)."""
        with self._operation(timeout):
            if keys:
                return dict(self._session_retry(lambda: self._call(lambda: self._sc.get_config_dict(*keys))))
            return dict(self._session_retry(self._explicit_conf))

    def _explicit_conf(self) -> list[tuple[str, str | None]]:
        # GetAll lists only what the session has set; GetOption would answer a registered
        # key's default, and restoring that would pin the key instead of unsetting it
        from pyspark.sql.connect import proto as pb

        op = pb.ConfigRequest.Operation()
        op.get_all.SetInParent()
        return list(self._call(lambda: self._sc.config(op)).pairs)

    def server_version(self, *, timeout: float | None = None) -> str:
        """The Spark version of the server: one AnalyzePlan round trip the first time, then
        remembered for this session (features are chosen by it, see connect_plan.versions)."""
        if self._server_version is None:
            with self._operation(timeout):
                self._server_version = str(
                    self._session_retry(
                        lambda: self._call(lambda: self._sc._analyze(method="spark_version").spark_version)
                    )
                )
        return self._server_version

    def _check_server(self) -> None:
        """Refuse a server older than connect_plan supports, once per session, before its
        first plan (inside the caller's operation and retries: no nested ones here)."""
        from .versions import check_server

        if self._server_version is None:
            try:
                self._server_version = str(self._call(lambda: self._sc._analyze(method="spark_version").spark_version))
            except ServerError as err:
                if isinstance(err, (ServerUnavailableError, QueryTimeoutError)):
                    raise
                self._server_version = ""  # no answer to the question: assumed current, as supports() does
        check_server(self._server_version)

    # ------------------------------------------------------------ reliability

    @contextlib.contextmanager
    def _operation(self, timeout: float | None) -> Iterator[float | None]:
        """The deadline of one public call: ``timeout``, else the client's default."""
        seconds = _check_timeout(timeout) if timeout is not None else self._timeout
        with transport.deadline(seconds) as at:
            yield at

    def _session_retry(self, run: Callable[[], Any]) -> Any:
        """``run()``; if the server lost this client's session (it restarted), open a new
        session and ``run()`` once more. Only the outermost call retries."""
        if getattr(_RETRYING, "active", False):
            return run()
        _RETRYING.active = True
        try:
            sc = self._sc
            try:
                return run()
            except ConnectPlanError as err:
                if not _session_lost(err):
                    raise
                self._renew_session(sc)
            return run()
        finally:
            _RETRYING.active = False

    def _renew_session(self, lost: Any) -> None:
        """Replace the PySpark client whose server session is gone (once, whichever thread
        notices first): a new channel and session, with ``set_conf`` values applied again."""
        with self._lock:
            if self._sc is not lost or self._closed:
                return
            log.warning(
                "the Spark Connect server at %s no longer has this client's session (it restarted?); "
                "continuing on a new session",
                self.url,
            )
            new = self._new_session()
            self._sc = new
            self._schema_cache = {}
            _close_channel(lost)
            if self._session_conf:
                self._set_conf(self._session_conf)

    def _check_size(self, plan: pb.Plan) -> None:
        """Refuse a plan the server could not accept: over its gRPC message limit (read once
        per session, with the input cache settings) — measured only for large plans."""
        size = plan.ByteSize()
        if size < _SIZE_CHECK_FROM:
            return
        limit = self._inputs.settings().max_message
        if size > limit - _REQUEST_OVERHEAD:
            raise PlanTooLargeError(
                f"the plan is {size:,} bytes serialised, over the server's gRPC message limit of {limit:,} bytes; "
                "it was not sent. Make it smaller (fewer or shorter literals, inline data read from files instead)",
                size=size,
                limit=limit,
            )

    # ------------------------------------------------------------ UDFs

    def register_udf(
        self,
        name: str,
        func: Callable[..., Any],
        return_type: Any = "string",
        *,
        kind: str = "scalar",
        deterministic: bool = True,
        pickle_by_value: bool | None = None,
    ) -> None:
        """Register a Python function as UDF ``name`` for plans run by this client.

        Plans call it with ``{"udf": name, "args": [...]}``, ``{"op": "udf", ...}``,
        ``{"fn": "call_udf", "args": [name, ...]}`` (anywhere an expression goes, filters
        included), or, for ``kind="grouped_agg"``, with the ``python_grouped_udf``
        aggregation entry. ``return_type`` is a type string or a PySpark ``DataType``.
        ``kind``: ``scalar`` (row at a time), ``arrow`` (the same, Arrow transfer),
        ``pandas`` (Series → Series), ``grouped_agg`` (Series → scalar, an aggregate).
        The function travels inline (cloudpickled) with each plan that calls it and runs in
        the server's Python workers, which need the same Python minor version (and pandas
        and pyarrow for pandas UDFs). Functions of your own modules are pickled by value, so
        the server does not need those modules (``pickle_by_value`` overrides this).
        Registering a name again replaces it.
        """
        from .udf import make_inline_udf

        self._udfs[name] = make_inline_udf(
            name, func, return_type, kind=kind, deterministic=deterministic, pickle_by_value=pickle_by_value
        )

    def udf(
        self, return_type: Any = "string", *, name: str | None = None, kind: str = "scalar", deterministic: bool = True
    ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Decorator form of :meth:`register_udf` (the name defaults to the function's)::

        @client.udf("bigint")
        def plus_one(x):
            return None if x is None else x + 1
        """

        def register(func: Callable[..., Any]) -> Callable[..., Any]:
            self.register_udf(name or func.__name__, func, return_type, kind=kind, deterministic=deterministic)
            return func

        return register

    def unregister_udf(self, name: str) -> bool:
        """Forget UDF ``name``; True if it was registered."""
        return self._udfs.pop(name, None) is not None

    @property
    def udfs(self) -> tuple[str, ...]:
        """Names of the UDFs registered with this client."""
        return tuple(self._udfs)

    # ------------------------------------------------------------ translation

    def translate(self, plan: Any, data: Any = None, schema: Any = None) -> pb.Plan:
        """Like :func:`connect_plan.translate`, but asks the server for column names the
        translator cannot know statically (only when a join needs them), and sends the
        Python UDFs registered with this client inline."""
        from .translator import translate_ir

        ir_plan = load_plan(plan, data, schema)
        return translate_ir(
            ir_plan, case_sensitive=self._case_sensitive_for(ir_plan), resolver=self._resolve_names, udfs=self._udfs
        ).plan

    def _case_sensitive_for(self, plan: ir.Plan) -> bool:
        """The plan document's own ``spark.sql.caseSensitive`` wins over the session's."""
        for k, v in plan.conf:
            if k == "spark.sql.caseSensitive":
                return v.lower() == "true"
        return self._case_sensitive

    @contextlib.contextmanager
    def _plan_conf(self, conf: tuple[tuple[str, str], ...]) -> Iterator[None]:
        """Apply a plan document's ``conf`` for one execution, then restore the previous
        values (keys that were unset are unset again). The configuration belongs to the
        session, so concurrent executions on one client see each other's settings.

        Round trips: one ``Config`` read of what the session has set, then, for the keys
        whose value differs from the document's only, one set before and one set and/or
        unset after; none when the session already has the document's values."""
        if not conf:
            yield
            return
        from pyspark.sql.connect import proto as pb

        wanted = {k for k, _ in conf}
        before = {k: v for k, v in self._explicit_conf() if k in wanted}
        changes = {k: v for k, v in conf if before.get(k) != v}
        if changes:
            self._set_conf(changes)
        try:
            yield
        finally:
            restore = {k: v for k, v in before.items() if k in changes and v is not None}
            unset = [k for k in changes if before.get(k) is None]
            with contextlib.suppress(ConnectPlanError):
                if restore:
                    self._set_conf(restore)
                if unset:
                    op = pb.ConfigRequest.Operation()
                    op.unset.keys.extend(unset)
                    try:
                        self._call(lambda: self._sc.config(op))
                    finally:
                        self._inputs.conf_changed(unset)
            if "spark.sql.caseSensitive" in dict(conf):
                self._case_sensitive = str(before.get("spark.sql.caseSensitive") or "false").lower() == "true"

    def _prepare(self, plan: ir.Plan, limit: int | None = None) -> Translation:
        """Translate for execution: inline tables are placed by the session's
        :class:`~connect_plan.inputs.InputPlacer` (inline, or cached artifacts)."""
        from .translator import translate_ir

        self._check_server()
        tr = translate_ir(
            plan,
            case_sensitive=self._case_sensitive_for(plan),
            resolver=self._resolve_names,
            udfs=self._udfs,
            inline_data=False,
            limit=limit,
        )
        self._inputs.fill(tr.plan, tr.local_data)
        self._check_size(tr.plan)
        return tr

    def _resolve_names(self, relation: pb.Relation, local: Sequence[LocalData] = ()) -> list[str]:
        self._inputs.fill(relation, local)
        key = relation.SerializeToString(deterministic=True)
        cached = self._schema_cache.get(key)
        if cached is not None:
            return cached
        from pyspark.sql.connect import proto as pb

        plan = pb.Plan()
        plan.root.CopyFrom(relation)
        schema = self._call(lambda: self._sc.schema(plan))
        names = [f.name for f in schema.fields]
        if len(self._schema_cache) > 256:
            self._schema_cache.clear()
        self._schema_cache[key] = names
        return names

    # ------------------------------------------------------------ execution

    def execute(
        self,
        plan: Any,
        data: Any = None,
        schema: Any = None,
        *,
        max_rows: int | None = None,
        max_bytes: int | None = None,
        timeout: float | None = None,
    ) -> pa.Table:
        """Run a plan and return its result as one ``pyarrow.Table``.

        The table is assembled from the same batches :meth:`stream` yields, without copies.
        ``max_rows``/``max_bytes`` bound the result as in :meth:`stream`. A plan with an
        output (a final ``write``/``createOrReplaceTempView`` step or a document ``output``)
        returns a one-row report of what it wrote instead.

        ``timeout`` (seconds, default the client's) bounds the whole call; when it expires
        the operation is interrupted on the server and released, and
        :class:`~connect_plan.errors.QueryTimeoutError` is raised. Ctrl-C does the same
        and raises ``KeyboardInterrupt``.
        """
        import pyarrow as pa

        ir_plan = load_plan(plan, data, schema)
        with self._operation(timeout) as at:
            if ir_plan.output is not None:
                output = ir_plan.output

                def run_output() -> pa.Table:
                    with self._plan_conf(ir_plan.conf):
                        return self._run_output(self._prepare(ir_plan), output)

                # an append may have happened on the server that went away: never twice
                again = not (isinstance(output, ir.Write) and output.mode == "append")
                try:
                    return self._session_retry(run_output) if again else run_output()
                except ServerError as err:
                    raise self._locate(err, ir_plan) from err.__cause__

            def run() -> pa.Table:
                with self._plan_conf(ir_plan.conf):
                    result_schema, batches = self._open(ir_plan, max_rows, max_bytes, at=at)
                    return pa.Table.from_batches(list(batches), result_schema)

            return self._session_retry(run)

    def _run_output(self, tr: Translation, output: ir.Output) -> pa.Table:
        import pyarrow as pa

        from .translator.outputs import METRICS_NAME, ROWS_METRIC, describe

        command = tr.plan.command
        counted = command.write_operation.input if command.HasField("write_operation") else None
        if counted is not None and not counted.HasField("collect_metrics"):
            counted = None
        if counted is not None and not self._observed_writes:
            _drop_observation(counted)
        try:
            _, _, info = self._call(lambda: self._sc.execute_command(command))
        except ServerError as err:
            if counted is None or not counted.HasField("collect_metrics") or not _no_observations(err):
                raise
            # the server cannot observe metrics (Sail): it refused the plan before writing
            # anything, so the write runs again without the row count ("rows" is null)
            log.info("the server does not support CollectMetrics; writes report no row count")
            self._observed_writes = False
            _drop_observation(counted)
            _, _, info = self._call(lambda: self._sc.execute_command(command))
        rows = None
        for observed in getattr(info, "_observations", None) or []:
            if observed.name == METRICS_NAME:
                values = dict(zip(observed.keys, observed.metrics))
                if ROWS_METRIC in values:
                    rows = int(values[ROWS_METRIC].long)
        report = describe(output)
        return pa.table(
            {
                "operation": pa.array([report["operation"]], pa.string()),
                "target": pa.array([report["target"]], pa.string()),
                "format": pa.array([report["format"]], pa.string()),
                "mode": pa.array([report["mode"]], pa.string()),
                "partition_by": pa.array([report["partition_by"]], pa.list_(pa.string())),
                "rows": pa.array([rows], pa.int64()),
            }
        )

    def stream(
        self,
        plan: Any,
        data: Any = None,
        schema: Any = None,
        *,
        max_rows: int | None = None,
        max_bytes: int | None = None,
        timeout: float | None = None,
    ) -> pa.RecordBatchReader:
        """Run a plan and return a ``pyarrow.RecordBatchReader`` over its result.

        Batches are yielded as they arrive from the server, so client memory is bounded by
        a few batches, not by the result (write it to parquet with ``pyarrow.parquet``, or
        iterate it). The call returns once the first batch (or the empty result's schema)
        has arrived, so plan and analysis errors are raised here; a failure later in the
        stream is raised by the read that meets it. Closing the reader early releases the
        execution on the server.

        ``max_rows`` adds a ``Limit`` on top of the plan (the server computes no more);
        ``max_bytes`` stops reading once that many bytes of Arrow data have arrived (the last
        batch is cut to fit) and releases the rest of the execution. ``timeout`` bounds the
        whole stream, from this call to its last batch (see :meth:`execute`).
        """
        return self._stream(load_plan(plan, data, schema), max_rows, max_bytes, timeout)

    def _stream(
        self,
        ir_plan: ir.Plan,
        max_rows: int | None,
        max_bytes: int | None,
        timeout: float | None,
        on_close: Callable[[], None] | None = None,
    ) -> pa.RecordBatchReader:
        import pyarrow as pa

        if ir_plan.output is not None:
            raise PlanError.single(
                "not_streamable", ir_plan.loc, "a plan that writes has no result to stream; use execute()"
            )
        with self._operation(timeout) as at:

            def start() -> tuple[pa.Schema, Iterator[pa.RecordBatch]]:
                # a document's conf holds while the query is planned (until its first batch)
                with self._plan_conf(ir_plan.conf):
                    return self._open(ir_plan, max_rows, max_bytes, on_close, at=at)

            result_schema, batches = self._session_retry(start)
        return pa.RecordBatchReader.from_batches(result_schema, batches)

    def _open(
        self,
        ir_plan: ir.Plan,
        max_rows: int | None,
        max_bytes: int | None,
        on_close: Callable[[], None] | None = None,
        at: float | None = None,
    ) -> tuple[pa.Schema, Iterator[pa.RecordBatch]]:
        for name, value in (("max_rows", max_rows), ("max_bytes", max_bytes)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
                raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
        if at is None:
            at = transport.remaining()
            at = None if at is None else time.monotonic() + at
        tr = self._prepare(ir_plan, limit=max_rows)
        results = self._results(tr.plan, max_bytes, on_close, at, case_sensitive=self._case_sensitive_for(ir_plan))
        self._streams.add(results)
        try:
            result_schema = next(results)
        except ServerError as err:
            raise self._locate(err, ir_plan) from err.__cause__
        return result_schema, results

    def explain(
        self, plan: Any, data: Any = None, schema: Any = None, mode: str = "extended", *, timeout: float | None = None
    ) -> str:
        """Spark's explain string for the plan (the server's analyzed/optimized plans)."""
        ir_plan = load_plan(plan, data, schema)

        def run() -> str:
            with self._plan_conf(ir_plan.conf):
                return str(self._call(lambda: self._sc.explain_string(self._prepare(ir_plan).plan, mode)))

        with self._operation(timeout):
            return str(self._session_retry(run))

    def schema(self, plan: Any, data: Any = None, schema: Any = None, *, timeout: float | None = None) -> pa.Schema:
        """The Arrow schema of the plan's result, from the server's analysis."""
        from pyspark.sql.pandas.types import to_arrow_schema

        ir_plan = load_plan(plan, data, schema)

        def run() -> Any:
            with self._plan_conf(ir_plan.conf):
                return self._call(lambda: self._sc.schema(self._prepare(ir_plan).plan))

        with self._operation(timeout):
            struct = self._session_retry(run)
        return to_arrow_schema(struct)

    def _call(self, fn: Any) -> Any:
        if self._closed:
            raise ConnectPlanError("this connect_plan.Client is closed")
        try:
            with _quiet():
                out = fn()
        except ConnectPlanError as err:
            self._note_timeout(err)
            raise
        except Exception as exc:
            failure = exc
        else:
            self._reached, self._unanswered = True, False
            return out
        raise self._raisable(failure)

    def _note_timeout(self, err: ConnectPlanError) -> None:
        if isinstance(err, QueryTimeoutError) and err.unanswered:
            self._unanswered = True

    def _raisable(self, exc: BaseException) -> ServerError:
        """``exc`` mapped to a ServerError whose cause is ``exc`` — unless ``exc``'s own text
        holds a credential: then the error is scrubbed and has no cause. Called outside the
        ``except`` block, so that the error does not keep ``exc`` as its context either."""
        err = self._server_error(exc)
        self._note_timeout(err)
        if err.__cause__ is None and not err.__suppress_context__:
            err.__cause__ = None if self._leaks(exc) else exc
            err.__suppress_context__ = True
        return err

    def _leaks(self, exc: BaseException) -> bool:
        texts = [str(exc), repr(exc), str(getattr(exc, "_stackTrace", "") or "")]
        return any(self._hide(t) != t for t in texts)

    def _server_error(self, exc: BaseException) -> ServerError:
        import grpc

        if _grpc_code(exc) == grpc.StatusCode.DEADLINE_EXCEEDED:
            left = transport.remaining()
            if left is not None and left <= 0.05:  # our operation deadline, not PySpark's per-RPC one
                timed_out = transport.timeout_error()
                timed_out.unanswered = True
                return timed_out
        err = server_error(exc, self._url)
        texts = [err.message, err.server_stacktrace or "", *err.message_parameters.values()]
        if any(self._hide(t) != t for t in texts):
            # every field kept (exception_type too: locating the failing step needs it)
            return err.replace(
                message=self._hide(err.message),
                server_stacktrace=self._hide(err.server_stacktrace or "") or None,
                message_parameters={k: self._hide(v) for k, v in err.message_parameters.items()},
            )
        return err

    def _results(
        self,
        plan: pb.Plan,
        max_bytes: int | None,
        on_close: Callable[[], None] | None = None,
        at: float | None = None,
        *,
        case_sensitive: bool = False,
    ) -> Iterator[Any]:
        """Yield the result's Arrow schema, then every Arrow batch as it arrives, checked.

        The transport is :func:`connect_plan.results.arrow_stream` (PySpark's reattachable
        execution, decoded zero-copy to batches and checked by its ``ResultChecker``: row
        counts and offsets, chunks, schema equal across batches and to the announced one,
        ``ResultComplete``). Here: the result's schema is the first batch's (or the
        announced one for an empty result), names must be unique (as the session compares
        them: ``case_sensitive``, see :meth:`_check_names`), ``max_bytes`` cuts the stream,
        and every read runs under the operation's deadline ``at``.
        """
        from pyspark.sql.types import StructType

        from .results import arrow_stream

        if self._closed:
            raise ConnectPlanError("this connect_plan.Client is closed")
        source = arrow_stream(self._sc, plan)
        first_batch: pa.RecordBatch | None = None
        started = False
        try:
            announced: StructType | None = None
            while first_batch is None:
                item = self._next(source, at)
                if item is None:
                    break
                if isinstance(item, StructType):
                    announced = item
                else:
                    first_batch = item
            if first_batch is not None:
                first = first_batch.schema
            elif announced is not None:
                from pyspark.sql.pandas.types import to_arrow_schema

                first = to_arrow_schema(announced)
            else:
                raise ResultIntegrityError("the server sent neither a schema nor any Arrow batch")
            self._check_names(first, case_sensitive)
            started = True
            yield first
            budget = max_bytes
            batch = first_batch
            while batch is not None:
                if not isinstance(batch, StructType):
                    if not batch.schema.equals(first):
                        raise ResultIntegrityError(
                            f"the server changed the result schema mid-stream: {first} then {batch.schema}"
                        )
                    if budget is not None:
                        size = batch.nbytes
                        if size > budget:
                            cut = _head_within(batch, budget)
                            if cut.num_rows:
                                yield cut
                            return
                        budget -= size
                    yield batch
                batch = self._next(source, at)
        finally:
            with _quiet(), transport.grace(5.0), contextlib.suppress(Exception):
                source.close()  # releases the execution on the server if we stopped early
            if on_close is not None and started:  # before that, the caller handles the error
                on_close()

    def _check_names(self, schema: pa.Schema, case_sensitive: bool) -> None:
        """Output names must be unique as the session compares them: two columns that differ
        only in case (``a``, ``A``) are distinct under ``spark.sql.caseSensitive=true``.
        ``case_sensitive`` is what this client knows (``set_conf``, the plan document's
        ``conf``); when it says no and only case tells two names apart, the session is asked
        (its setting may come from the server's own configuration), once, in that case only.
        The plan's ``conf`` is still applied at this point, so the answer is the effective one."""
        check_unique_names(schema, case_sensitive=True)
        if case_sensitive:
            return
        try:
            check_unique_names(schema, case_sensitive=False)
        except ResultIntegrityError:
            values = self._call(lambda: self._sc.get_config_dict("spark.sql.caseSensitive"))
            if str(values.get("spark.sql.caseSensitive") or "false").lower() != "true":
                raise

    def _next(self, source: Iterator[Any], at: float | None = None) -> Any:
        try:
            with _quiet(), transport.deadline(at=at):
                item = next(source, None)
        except ConnectPlanError as err:
            self._note_timeout(err)
            raise
        except Exception as exc:
            failure = exc
        else:
            self._reached, self._unanswered = True, False
            return item
        raise self._raisable(failure)

    def _locate(self, err: ServerError, plan: ir.Plan) -> ServerError:
        """Find the first plan step whose prefix fails analysis (binary search, O(log n)
        AnalyzePlan calls); only for analysis errors, which a prefix reproduces.

        A prefix fails only if its analysis raises the same kind of error (see
        :func:`_same_analysis_error`). Anything else during the search — a timeout, an
        unreachable server, another error — gives up locating: ``err`` is returned as it
        is, naming no step rather than a wrong one."""
        if err.op_index is not None or not _is_analysis_error(err):
            return err

        class GiveUp(Exception):
            pass

        def fails(k: int) -> bool:
            prefix = ir.Plan(plan.source, plan.steps[:k], plan.loc, conf=plan.conf)
            try:
                tr = self._prepare(prefix)
                self._call(lambda: self._sc.schema(tr.plan))
            except PlanError:
                return False
            except ServerError as other:
                if _same_analysis_error(other, err):
                    return True
                log.info("not locating the failing plan step: a prefix's analysis failed otherwise (%s)", other)
                raise GiveUp from None
            except ConnectPlanError as other:
                log.info("not locating the failing plan step: %s", other)
                raise GiveUp from None
            return False

        try:
            lo, hi = 0, len(plan.steps)  # prefix of lo steps passes, of hi steps fails
            if not fails(hi):
                # the whole query analyses: the write itself failed, or the error arose only at
                # execution (Sail checks some expressions, e.g. a filter's type, only then),
                # where no prefix says which step caused it
                return err.with_step(plan.output.index, plan.output.op) if plan.output is not None else err
            if not plan.steps or fails(0):
                return err
            while hi - lo > 1:
                mid = (lo + hi) // 2
                if fails(mid):
                    hi = mid
                else:
                    lo = mid
        except GiveUp:
            return err
        step = plan.steps[hi - 1]
        return err.with_step(step.index, step.op)


#: how long close() waits for the server to release the session
CLOSE_GRACE_SECONDS = 1.0


def _close_channel(sc: Any, *, wait: bool = True) -> None:
    """Close a PySpark client's channel without waiting on a server that does not answer.

    PySpark's ``close()`` first waits up to 10 s for its pending ReleaseExecute calls, which
    against a hung server only end at their deadline (none) or when the connection fails;
    closing the gRPC channel first cancels them, so that wait ends at once. Against a server
    that answers they are done by now (given ``wait``, 0.2 s at most), and the session
    release before this ended the session's executions anyway."""
    import concurrent.futures

    pending = list(getattr(sc, "_release_futures", ()))
    if pending and wait:
        concurrent.futures.wait(pending, timeout=0.2)
    channel = getattr(sc, "_channel", None)
    if channel is not None:
        with contextlib.suppress(Exception):
            transport.close_channel(channel)
    with contextlib.suppress(Exception):
        sc.close()


_RETRYING = threading.local()
#: plans smaller than this are sent without measuring them against the message limit
#: (no Connect server's limit is that small; Spark's default is 128 MiB)
_SIZE_CHECK_FROM = 1024 * 1024
#: room left in the message for the request around the plan (session, ids, options)
_REQUEST_OVERHEAD = 64 * 1024
_SESSION_LOST = (
    "INVALID_HANDLE.SESSION_CHANGED",
    "INVALID_HANDLE.SESSION_NOT_FOUND",
    "NO_ACTIVE_SESSION",
    "incorrect server side session identifier",
)


def _session_lost(err: ConnectPlanError) -> bool:
    """The server no longer knows this client's session (it restarted, or closed it)."""
    if not isinstance(err, ServerError) or isinstance(err, QueryTimeoutError):
        return False
    text = f"{err.error_class or ''} {err.message}"
    return any(marker in text for marker in _SESSION_LOST)


def _check_timeout(timeout: float | None) -> float | None:
    if timeout is None:
        return None
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
        raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
    return float(timeout)


def _no_observations(err: ServerError) -> bool:
    """Did the server refuse a plan for its CollectMetrics relation? (Sail: an
    UnsupportedOperationException 'collect metrics'; Spark has them since 3.4)"""
    return err.error_class is None and "collect metrics" in err.message.lower()


def _drop_observation(counted: Any) -> None:
    """Replace a CollectMetrics relation by its input, in place."""
    inner = type(counted)()
    inner.CopyFrom(counted.collect_metrics.input)
    counted.CopyFrom(inner)


def _exception_type(exc: BaseException) -> str | None:
    """The engine-neutral PySpark error kind of ``exc`` (its class in
    ``pyspark.errors.exceptions.base``: AnalysisException, ParseException ...)."""
    for cls in type(exc).__mro__:
        if cls.__module__ == "pyspark.errors.exceptions.base" and cls.__name__ != "PySparkException":
            return cls.__name__
    return None


#: PySpark's kinds of analysis error (Spark sends SQLSTATE class 42 with them; servers
#: without error classes, such as Sail, send only the kind)
_ANALYSIS_TYPES = frozenset({"AnalysisException", "ParseException", "TempTableAlreadyExistsException"})


def _is_analysis_error(err: ServerError) -> bool:
    return (
        bool(err.sqlstate and err.sqlstate[:2] == "42")
        or err.exception_type in _ANALYSIS_TYPES
        or "AnalysisException" in err.message
    )


def _same_analysis_error(found: ServerError, wanted: ServerError) -> bool:
    """Is ``found`` (a plan prefix's analysis error) the kind of error ``wanted`` is? The same
    error class (its main part: a prefix may offer other suggestions), else the same
    SQLSTATE, else (servers without either, such as Sail) the same kind of analysis error."""
    if not _is_analysis_error(found):
        return False
    if wanted.error_class:
        return (found.error_class or "").split(".")[0] == wanted.error_class.split(".")[0]
    if wanted.sqlstate:
        return found.sqlstate == wanted.sqlstate
    return found.exception_type == wanted.exception_type


def _head_within(batch: pa.RecordBatch, budget: int) -> pa.RecordBatch:
    """The longest head of ``batch`` whose Arrow data fits in ``budget`` bytes."""
    lo, hi = 0, batch.num_rows  # head of lo rows fits, of hi rows does not
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if batch.slice(0, mid).nbytes <= budget:
            lo = mid
        else:
            hi = mid
    return batch.slice(0, lo)


def check_unique_names(schema: pa.Schema, *, case_sensitive: bool = False) -> None:
    """Raise :class:`ResultIntegrityError` if two output columns have the same name (compared
    as ``spark.sql.caseSensitive`` says: by default ``a`` and ``A`` are the same name)."""
    seen: set[str] = set()
    for name in schema.names:
        key = name if case_sensitive else name.lower()
        if key in seen:
            raise ResultIntegrityError(
                f"the result has two columns named {name!r}; output names must be unique "
                "(PLAN_FORMAT.md Policy 3) — alias one of them"
            )
        seen.add(key)


def connect(remote: str | None = None, **kwargs: Any) -> Client:
    """Open a :class:`Client` (``remote`` defaults to ``SPARK_REMOTE``, then the local server)."""
    return Client(remote, **kwargs)
