"""One client's Spark session: its transport, renewed when the server loses it, and its state.

A :class:`Session` owns what outlives a single query: the current
:class:`~connect_plan.transport.Transport` (a new one after a server restart, with the
``set_conf`` values replayed), the operation deadline and the session retry of each
public call, the server's version (probed once per session), the configuration this
client set, the schema names and uploaded inputs it cached, and the UDFs registered with
it. Every server call goes through :meth:`Session.call` (or :meth:`Session.next` for a
result stream), which maps its failure (:mod:`connect_plan.client.failures`).

Threads: the transport and the caches are replaced under a lock; each call keeps its
state on its own stack. The Spark session itself (its configuration, its temporary views)
is shared by every thread using the client.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import weakref
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from ..deadlines import deadline, grace
from ..errors import ConnectPlanError, QueryTimeoutError, ServerError, ServerUnavailableError
from ..inputs import InputPlacer

if TYPE_CHECKING:
    from .. import ir
    from ..telemetry import QueryStats
    from ..translator.expressions import InlineUdf
    from ..transport import Connector, Transport
    from .failures import Redactor

__all__ = ["CLOSE_GRACE_SECONDS", "Session", "check_timeout", "session_lost"]

log = logging.getLogger("connect_plan")

T = TypeVar("T")

#: how long close() waits for the server to release the session
CLOSE_GRACE_SECONDS = 1.0
#: what a server says of a session it no longer has (it restarted, or closed it)
_SESSION_LOST = (
    "INVALID_HANDLE.SESSION_CHANGED",
    "INVALID_HANDLE.SESSION_NOT_FOUND",
    "NO_ACTIVE_SESSION",
    "incorrect server side session identifier",
)
_CASE_SENSITIVE = "spark.sql.caseSensitive"

_RETRYING = threading.local()


def session_lost(err: ConnectPlanError) -> bool:
    """The server no longer knows this client's session (it restarted, or closed it)."""
    if not isinstance(err, ServerError) or isinstance(err, QueryTimeoutError):
        return False
    text = f"{err.error_class or ''} {err.message}"
    return any(marker in text for marker in _SESSION_LOST)


def check_timeout(timeout: float | None) -> float | None:
    if timeout is None:
        return None
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
        raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
    return float(timeout)


def _config_op(**kind: Any) -> Any:
    from pyspark.sql.connect import proto as pb

    return pb.ConfigRequest.Operation(**kind)


class Session:
    """The server session of one client, and everything cached for it."""

    def __init__(self, connector: Connector, redactor: Redactor, *, timeout: float | None = None) -> None:
        self._connector = connector
        self.redactor = redactor
        self._timeout = timeout
        self.reached = False  # True once the server answered this client
        self.unanswered = False  # True while the server has not answered an interrupt (see close)
        self.closed = False
        self.streams: weakref.WeakSet[Any] = weakref.WeakSet()  # result generators not yet finished
        self._lock = threading.Lock()
        self.schema_cache: dict[bytes, list[str]] = {}
        self.case_sensitive = False
        self.conf: dict[str, str] = {}  # set_conf() calls, replayed on a new session
        self.udfs: dict[str, InlineUdf] = {}
        self.sessions = 0
        self.version: str | None = None
        #: the statistics of the last query whose result ended on this client (any thread)
        self.last_query: QueryStats | None = None
        self.transport = self._open()

    def _open(self) -> Transport:
        """A new transport (new channel, new session id) for this client."""
        try:
            transport = self._connector.open(lambda: self.reached)
        except ConnectPlanError:
            raise
        except Exception as exc:
            hide = self.redactor.hide
            raise ConnectPlanError(f"cannot connect to {hide(self.redactor.url)}: {hide(str(exc))}") from None
        self.version = None  # a restarted server may be another version
        self.inputs = InputPlacer(transport, self.call, self.server_version)
        self.sessions += 1
        return transport

    # ------------------------------------------------------------ calls

    def call(self, fn: Callable[[], T]) -> T:
        """``fn()``, one or more server calls; its failure raised as a ServerError."""
        if self.closed:
            raise ConnectPlanError("this connect_plan.Client is closed")
        try:
            out = fn()
        except ConnectPlanError as err:
            self.note_timeout(err)
            raise
        except Exception as exc:
            failure = exc
        else:
            self.reached, self.unanswered = True, False
            return out
        raise self.raisable(failure)

    def next(self, source: Iterator[T], at: float | None = None) -> T | None:
        """The next item of a result ``source`` (None at its end), read under the deadline ``at``."""
        try:
            with deadline(at=at):
                item = next(source, None)
        except ConnectPlanError as err:
            self.note_timeout(err)
            raise
        except Exception as exc:
            failure = exc
        else:
            self.reached, self.unanswered = True, False
            return item
        raise self.raisable(failure)

    def raisable(self, exc: BaseException) -> ServerError:
        """``exc`` mapped (:meth:`Redactor.raisable`); called outside the ``except`` block."""
        err = self.redactor.raisable(exc, self.transport.failure(exc))
        self.note_timeout(err)
        return err

    def note_timeout(self, err: ConnectPlanError) -> None:
        if isinstance(err, QueryTimeoutError) and err.unanswered:
            self.unanswered = True

    # ------------------------------------------------------------ reliability

    @property
    def default_timeout(self) -> float | None:
        """The client's default bound of every operation (None: unbounded)."""
        return self._timeout

    @contextlib.contextmanager
    def operation(self, timeout: float | None) -> Iterator[float | None]:
        """The deadline of one public call: ``timeout``, else the client's default."""
        seconds = check_timeout(timeout) if timeout is not None else self._timeout
        with deadline(seconds) as at:
            yield at

    def retrying(self, run: Callable[[], T]) -> T:
        """``run()``; if the server lost this client's session (it restarted), open a new
        session and ``run()`` once more. Only the outermost call retries."""
        if getattr(_RETRYING, "active", False):
            return run()
        _RETRYING.active = True
        try:
            transport = self.transport
            try:
                return run()
            except ConnectPlanError as err:
                if not session_lost(err):
                    raise
                self._renew(transport)
            return run()
        finally:
            _RETRYING.active = False

    def _renew(self, lost: Transport) -> None:
        """Replace the transport whose server session is gone (once, whichever thread
        notices first): a new channel and session, with ``set_conf`` values applied again."""
        with self._lock:
            if self.transport is not lost or self.closed:
                return
            log.warning(
                "the Spark Connect server at %s no longer has this client's session (it restarted?); "
                "continuing on a new session",
                self.redactor.hide(self.redactor.url),
            )
            self.transport = self._open()
            self.schema_cache = {}
            lost.close()
            if self.conf:
                self.set_conf(self.conf)

    def close(self) -> None:
        """Close the open results, release the server session (best effort, within
        :data:`CLOSE_GRACE_SECONDS`) and close the transport; it never waits longer on a
        server that does not answer."""
        if self.closed:
            return
        # results still open are closed (their executions released) while the channel is
        # open: a stream left to the garbage collector would release on a closed channel
        # from PySpark's release thread, which crashed gRPC (seen with pyspark-client 4.2)
        for stream in list(self.streams):
            with contextlib.suppress(Exception):
                stream.close()
        self.closed = True
        answers = not self.unanswered  # a server that ignored the last interrupt would ignore these too
        transport = self.transport
        if answers:
            with grace(CLOSE_GRACE_SECONDS), contextlib.suppress(Exception):
                transport.release_session()  # ends the session's executions on the server too
        transport.close(wait=answers)

    # ------------------------------------------------------------ configuration

    def set_conf(self, conf: Mapping[str, str]) -> None:
        """Set ``conf`` on the session (one Config RPC); no replay bookkeeping here."""
        op = _config_op()
        for k, v in conf.items():
            pair = op.set.pairs.add()
            pair.key = str(k)
            pair.value = str(v).lower() if isinstance(v, bool) else str(v)
        try:
            self.call(lambda: self.transport.config(op))
        finally:  # the input cache settings among them are read again when next needed
            self.inputs.conf_changed(conf)
        if _CASE_SENSITIVE in conf:
            self.case_sensitive = str(conf[_CASE_SENSITIVE]).lower() == "true"

    def get_conf(self, keys: tuple[str, ...]) -> dict[str, str | None]:
        """The session's values of ``keys`` (Config ``get``)."""
        from pyspark.sql.connect import proto as pb

        op = _config_op(get=pb.ConfigRequest.Get(keys=keys))
        return dict(self.call(lambda: self.transport.config(op)))

    def explicit_conf(self) -> list[tuple[str, str | None]]:
        """Every key the session has set. GetAll lists only those; GetOption would answer a
        registered key's default, and restoring that would pin the key instead of unsetting it."""
        op = _config_op()
        op.get_all.SetInParent()
        return self.call(lambda: self.transport.config(op))

    @contextlib.contextmanager
    def plan_conf(self, conf: tuple[tuple[str, str], ...]) -> Iterator[None]:
        """Apply a plan document's ``conf`` for one execution, then restore the previous
        values (keys that were unset are unset again). The configuration belongs to the
        session, so concurrent executions on one client see each other's settings.

        Round trips: one ``Config`` read of what the session has set, then, for the keys
        whose value differs from the document's only, one set before and one set and/or
        unset after; none when the session already has the document's values."""
        if not conf:
            yield
            return
        wanted = {k for k, _ in conf}
        before = {k: v for k, v in self.explicit_conf() if k in wanted}
        changes = {k: v for k, v in conf if before.get(k) != v}
        if changes:
            self.set_conf(changes)
        try:
            yield
        finally:
            restore = {k: v for k, v in before.items() if k in changes and v is not None}
            unset = [k for k in changes if before.get(k) is None]
            with contextlib.suppress(ConnectPlanError):
                if restore:
                    self.set_conf(restore)
                if unset:
                    op = _config_op()
                    op.unset.keys.extend(unset)
                    try:
                        self.call(lambda: self.transport.config(op))
                    finally:
                        self.inputs.conf_changed(unset)
            if _CASE_SENSITIVE in dict(conf):
                self.case_sensitive = str(before.get(_CASE_SENSITIVE) or "false").lower() == "true"

    def case_sensitive_for(self, plan: ir.Plan) -> bool:
        """The plan document's own ``spark.sql.caseSensitive`` wins over the session's."""
        for k, v in plan.conf:
            if k == _CASE_SENSITIVE:
                return v.lower() == "true"
        return self.case_sensitive

    # ------------------------------------------------------------ server version

    def server_version(self, *, timeout: float | None = None) -> str:
        """The Spark version of the server: one AnalyzePlan round trip the first time, then
        remembered for this session (features are chosen by it, see connect_plan.versions)."""
        if self.version is None:
            with self.operation(timeout):
                self.version = self.retrying(lambda: self.call(lambda: self.transport.spark_version()))
        return self.version

    def check_server(self) -> None:
        """Refuse a server older than connect_plan supports, once per session, before its
        first plan (inside the caller's operation and retries: no nested ones here)."""
        from ..versions import check_server

        if self.version is None:
            try:
                self.version = self.call(lambda: self.transport.spark_version())
            except ServerError as err:
                if isinstance(err, (ServerUnavailableError, QueryTimeoutError)):
                    raise
                self.version = ""  # no answer to the question: assumed current, as supports() does
        check_server(self.version)
