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

from ..call_failures import CallFailure
from ..deadlines import deadline, grace
from ..errors import ConnectPlanError, QueryTimeoutError, ServerError, ServerUnavailableError
from ..inputs import InputPlacer

if TYPE_CHECKING:
    from .. import ir
    from ..telemetry import QueryStats
    from ..translator.expressions import InlineUdf
    from ..transport import Connector, Transport
    from .failures import Redactor

__all__ = [
    "CLOSE_GRACE_SECONDS",
    "COMPRESSIONS",
    "COMPRESSION_KEY",
    "Session",
    "check_compression",
    "check_timeout",
    "session_lost",
]

log = logging.getLogger("connect_plan")

T = TypeVar("T")

#: how long close() waits for the server to release the session
CLOSE_GRACE_SECONDS = 1.0
_CASE_SENSITIVE = "spark.sql.caseSensitive"
#: the session setting that makes Spark (4.1 and later) compress the Arrow batches of results
COMPRESSION_KEY = "spark.sql.execution.arrow.compression.codec"
#: what ``compression=`` accepts: ``auto`` is zstd for a server that is not on this machine.
#: Spark also knows lz4, which its Java Arrow writer compresses so slowly (minutes of CPU per
#: 10,000-row batch, measured on Spark 4.3) that it is refused here.
COMPRESSIONS = ("auto", "zstd", "none")
_LOOPBACK = ("localhost", "127.", "::1", "[::1]", "0.0.0.0")

_RETRYING = threading.local()


def session_lost(err: ConnectPlanError) -> bool:
    """The server no longer knows this client's session (it restarted, or closed it): the
    transport said so (:class:`~connect_plan.call_failures.SessionLost`)."""
    return isinstance(err, ServerError) and err.session_lost and not isinstance(err, QueryTimeoutError)


def check_timeout(timeout: float | None) -> float | None:
    if timeout is None:
        return None
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
        raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
    return float(timeout)


def check_compression(compression: str, url: str) -> str | None:
    """The codec to ask the server for (None: leave the server's setting alone): ``auto`` is
    zstd unless ``url``'s host is this machine (where bytes cost nothing and compressing them
    costs CPU on both sides), ``zstd`` always, ``none`` never."""
    if compression not in COMPRESSIONS:
        raise ValueError(f"compression must be one of {', '.join(COMPRESSIONS)}, got {compression!r}")
    if compression == "auto":
        from urllib.parse import urlparse

        host = urlparse("http" + url[2:] if url.startswith("sc") else url).hostname or ""
        return None if not host or host.startswith(_LOOPBACK) or host == "::1" else "zstd"
    return None if compression == "none" else compression


def _config_op(**kind: Any) -> Any:
    from ..spark_proto import pb  # PySpark's message classes, without PySpark's package (and pandas)

    return pb.ConfigRequest.Operation(**kind)


class Session:
    """The server session of one client, and everything cached for it."""

    def __init__(
        self, connector: Connector, redactor: Redactor, *, timeout: float | None = None, compression: str | None = None
    ) -> None:
        self._connector = connector
        self.compression = compression  # the result codec asked of each new session (None: none asked)
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
        #: relative file paths resolve in this directory (the client's working directory at
        #: each call) when the server is the local one, which shares this machine's files
        self.local_files = False
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
        self.compression_asked = False
        self.inputs = InputPlacer(transport, self.call, self.server_version)
        self.sessions += 1
        return transport

    # ------------------------------------------------------------ calls

    def call(self, fn: Callable[[], T]) -> T:
        """``fn()``, one or more server calls; its failure (a transport's typed
        :class:`~connect_plan.call_failures.CallFailure`) raised as a ServerError."""
        if self.closed:
            raise ConnectPlanError("this connect_plan.Client is closed")
        try:
            out = fn()
        except ConnectPlanError as err:
            self.note_timeout(err)
            raise
        except CallFailure as exc:
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
        except CallFailure as exc:
            failure = exc
        else:
            self.reached, self.unanswered = True, False
            return item
        raise self.raisable(failure)

    def raisable(self, failure: CallFailure) -> ServerError:
        """``failure`` mapped (:meth:`Redactor.raisable`); called outside the ``except`` block."""
        err = self.redactor.raisable(failure)
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
        from ..spark_proto import pb

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

    def check_server(self, *, inputs: bool = False, plan_conf: tuple[tuple[str, str], ...] = ()) -> None:
        """Refuse a server older than connect_plan supports, once per session, before its
        first plan (inside the caller's operation and retries: no nested ones here).

        The session's other first-plan calls go out together with this version probe, so
        that the first query costs one round trip more than later ones, not more: the
        input cache settings read (``inputs``: the plan carries inline data, see
        :meth:`InputPlacer.prefetch`) and the result compression setting
        (:attr:`compression`, unless ``set_conf`` or the plan's own ``plan_conf`` chose the
        codec)."""
        from ..versions import check_server

        chosen = COMPRESSION_KEY in self.conf or any(k == COMPRESSION_KEY for k, _ in plan_conf)
        ask = self.compression is not None and not self.compression_asked and not chosen
        if self.version is None:
            waits = [self.inputs.prefetch()] if inputs else []
            if ask:
                waits.append(self._alongside(self._ask_compression))
            try:
                self.version = self.call(lambda: self.transport.spark_version())
            except ServerError as err:
                if isinstance(err, (ServerUnavailableError, QueryTimeoutError)):
                    raise  # the helpers are not waited for: they end with their calls, unheeded
                self.version = ""  # no answer to the question: assumed current, as supports() does
            for wait in waits:  # (Ctrl-C and timeouts above do not wait for a hung server either)
                wait()
            log.info(
                "server %s: Spark %s, session %s",
                self.redactor.hide(self.redactor.url),
                self.version or "(version not said)",
                self.transport.session_id,
            )
        elif ask:  # the version was asked on its own before (server_version()): one more round trip
            self._ask_compression()
        check_server(self.version)

    def _ask_compression(self) -> None:
        """Ask this session for compressed results (best effort: a server that cannot
        still answers, uncompressed). Replayed on a new session like ``set_conf``."""
        assert self.compression is not None
        self.compression_asked = True
        try:
            self.set_conf({COMPRESSION_KEY: self.compression})
        except Exception as err:  # best effort, in a helper thread
            log.debug("result compression not set: %s", err)
            return
        self.conf.setdefault(COMPRESSION_KEY, self.compression)

    @staticmethod
    def _alongside(fn: Callable[[], None]) -> Callable[[], None]:
        """Run ``fn`` in a helper thread under this thread's operation deadline; the
        function that waits for it. ``fn`` must not raise (its errors would be lost)."""
        with deadline() as at:
            pass

        def run() -> None:
            with deadline(at=at):
                fn()

        helper = threading.Thread(target=run, name="connect-plan-first-calls", daemon=True)
        helper.start()
        return helper.join
