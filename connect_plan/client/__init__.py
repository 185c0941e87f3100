"""Connections to a Spark Connect server: execute translated plans, return Arrow.

:class:`Client` is a facade over three parts, each talking to the server only through a
:class:`~connect_plan.transport.Transport` (the gRPC transport; tests put a recorded one there):

* :mod:`.session` — the server session: renewed after a server restart, configuration
  (``set_conf``, a plan document's ``conf``), the server version check, the UDF registry;
* :mod:`.execute` — one plan's way: translate, place inline inputs, send, check every
  Arrow batch, cut at ``max_bytes``, assemble; writes;
* :mod:`.failures` — errors mapped to :class:`~connect_plan.errors.ServerError` with the
  failing plan step, and no credential in any text.

Its verbs on the session rather than a plan (``set_conf``, ``get_conf``, ``server_version``,
the UDF registry) are its base class's (:mod:`.verbs`). :func:`spark_batches` is
:meth:`Client.stream` with each batch's Arrow IPC message as Spark sent it (``connect-plan
serve`` forwards those).

Every verb runs the same way (:mod:`.calls`): the plan is loaded
(:func:`~connect_plan.formats.load_plan`) and checked against the call's (or the client's)
:class:`~connect_plan.policy.Policy` before anything is sent, then runs under the call's
deadline, with the plan's ``conf`` applied, once more on a new session if the server lost this one.

Reliability (docs/reliability.md lists each guarantee with the test that proves it):
``timeout=`` bounds a whole operation (every RPC in it, retry waits included; the release
and Interrupt sent when it expires add at most 0.5 s, and go on in the background against
a server slow to answer them); ``close()`` never waits on a server that does not answer; a
server that restarted is met with a new session and the operation runs again
once, if nothing of its result had arrived; a token implies TLS (:mod:`connect_plan.channel`).

Threads: one :class:`Client` may be shared by any number of threads. gRPC channels are
thread-safe, each call keeps its state on its own stack, and the few shared caches
(schema names, uploaded inputs, the session itself) are replaced under a lock. What is
*not* isolated between threads is the Spark session: ``set_conf`` and a plan document's
``conf`` apply to every query running on the client at that moment, and temporary views
one plan creates are visible to the others. Use one client per thread for those.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from .. import ir, transport
from ..errors import ConnectPlanError
from .calls import Calls, SparkResult, tags
from .execute import Executor, check_unique_names
from .failures import TOKEN_RE, Redactor, redact, url_secrets
from .session import CLOSE_GRACE_SECONDS, COMPRESSIONS, Session, check_compression, check_timeout
from .verbs import SessionVerbs

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql.connect import proto as pb

    from ..drawing import PlanDrawing
    from ..policy import Policy
    from ..telemetry import ProgressCallback, QueryStats

__all__ = [
    "CLOSE_GRACE_SECONDS",
    "COMPRESSIONS",
    "DEFAULT_RETRY_POLICY",
    "Client",
    "Internals",
    "check_unique_names",
    "connect",
    "owned_stream",
    "redact",
    "resolve_remote",
    "spark_batches",
    "url_secrets",
]

T = TypeVar("T")

#: how long :meth:`Client.interrupt` may take unless told (an Interrupt takes milliseconds of a
#: server that answers)
INTERRUPT_SECONDS = 10.0

#: retries of transient failures (UNAVAILABLE...) stop after ~6 s in all, not PySpark's 10 min
DEFAULT_RETRY_POLICY: dict[str, Any] = {
    "max_retries": 6,
    "initial_backoff": 50,
    "max_backoff": 2000,
    "backoff_multiplier": 4.0,
}


def resolve_remote(remote: str | None) -> str:
    """The server URL: ``remote``, else ``SPARK_REMOTE``, else the local server's.

    The local server is the one ``connect-plan server start`` launched (its state file
    records the port). The library never starts a JVM; ``remote="sail"`` starts an
    in-process Sail server (``pysail``, no JVM).
    """
    from ..errors import ServerUnavailableError

    remote = remote or os.environ.get("SPARK_REMOTE")
    if remote == "sail":
        from ..sail import in_process_url

        return in_process_url()
    if remote:
        return remote
    from ..server import running_server_url

    url = running_server_url()
    if url:
        return url
    raise ServerUnavailableError(
        "no Spark Connect server given: pass remote='sc://host:port', set SPARK_REMOTE, "
        "or start a local one with `connect-plan server start`"
    )


def _connector(url: str, *, token: str | None, **options: Any) -> tuple[transport.Connector, Redactor]:
    """The connector of a client of ``url`` (the URL and credentials parsed once) and the
    redactor of its errors (every credential of the URL and the options, hidden); a
    malformed URL is a ConnectPlanError naming it with its secrets hidden."""
    redactor = Redactor(url, (*url_secrets(url), *(t for t in (token,) if t)))
    try:
        connector = transport.connector(url, token=token, **options)
    except ConnectPlanError:
        raise
    except Exception as exc:  # ValueError for a malformed URL
        hint = ""
        if TOKEN_RE.search(url):
            hint = (
                " (a token holding '/', '=' or ';' must be percent-encoded in the URL, e.g. '/' as %2F,"
                " or be passed as token=... or SPARK_CONNECT_AUTHENTICATE_TOKEN)"
            )
        raise ConnectPlanError(
            f"invalid Spark Connect URL {redactor.hide(url)!r}: {redactor.hide(str(exc))}{hint}"
        ) from None
    if connector.token and connector.token not in redactor.secrets:
        redactor = Redactor(url, (*redactor.secrets, connector.token))
    return connector, redactor


class Internals(NamedTuple):
    """A client's parts (:attr:`Client.internals`), for tests and tools that fake or measure
    what the public calls do underneath; not a stable API."""

    #: opens the client's sessions (a new one after a server restart)
    connector: transport.Connector
    #: the server session and everything cached for it (:mod:`.session`)
    session: Session
    #: prepares and runs the plans (:mod:`.execute`)
    executor: Executor
    #: the current session's transport (the seam every RPC goes through)
    transport: transport.Transport


class Client(SessionVerbs):
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
        compression: str = "auto",
        policy: Policy | None = None,
    ) -> None:
        """``remote`` is an ``sc://host:port/;param=value`` URL (see :func:`resolve_remote`).

        Credentials follow the ``sc://`` convention: a ``token`` (here or in the URL, or
        ``SPARK_CONNECT_AUTHENTICATE_TOKEN``) is sent as a bearer token and implies TLS;
        sending it without TLS needs ``use_ssl=False`` *and* ``allow_insecure_token=True``,
        and warns. ``ca_cert`` (a PEM file path or bytes) replaces the system's root
        certificates; ``headers`` are sent with every call. ``timeout`` (seconds) is the
        default bound of every operation (``execute``, ``stream``, ``schema``...), which
        each call may override. ``retry_policy`` bounds the retries of transient failures
        (PySpark's policy and settings, :class:`~connect_plan.retries.Backoff`; default
        :data:`DEFAULT_RETRY_POLICY`, ~7 s in all).

        ``compression`` (``auto``, ``zstd``, ``none``): ask the server to compress result
        batches (Spark 4.1+ ``spark.sql.execution.arrow.compression.codec``; older servers
        ignore it and answer uncompressed); ``auto`` does for a server that is not on this
        machine. Results are decoded as they stream. A codec chosen with ``set_conf`` or
        ``conf=`` wins.

        ``policy`` (:class:`~connect_plan.policy.Policy`; default trusted) is checked on every
        plan this client runs, translates or explains, before anything is sent; a call's own
        ``policy=`` replaces it for that call. Its result bounds (``max_rows``, ``max_bytes``,
        ``timeout``) tighten each call's.
        """
        if policy is not None:  # the policy module (~10 ms to import) only when a policy is given
            from ..policy import Policy

            if not isinstance(policy, Policy):
                raise TypeError(f"policy must be a connect_plan.policy.Policy, got {type(policy).__name__}")
        url = resolve_remote(remote)
        codec = check_compression(compression, url)
        connector, redactor = _connector(
            url,
            token=token,
            use_ssl=use_ssl,
            ca_cert=ca_cert,
            headers=headers,
            allow_insecure_token=allow_insecure_token,
            channel_options=channel_options,
            user_id=user_id,
            retry_policy=retry_policy if retry_policy is not None else DEFAULT_RETRY_POLICY,
        )
        self._start(connector, redactor, check_timeout(timeout), codec, policy)
        from ..server import is_local_server

        self._session.local_files = is_local_server(url)
        if conf:
            self.set_conf(conf)

    def _start(
        self,
        connector: transport.Connector,
        redactor: Redactor,
        timeout: float | None,
        compression: str | None = None,
        policy: Policy | None = None,
    ) -> None:
        self._connector = connector
        self._session = Session(connector, redactor, timeout=timeout, compression=compression)
        self._executor = Executor(self._session)
        self._calls = Calls(self._session, self._executor, policy)

    @classmethod
    def _over(
        cls, connector: transport.Connector, url: str, *, timeout: float | None = None, policy: Policy | None = None
    ) -> Client:
        """A client of ``url`` whose sessions ``connector`` opens (tests/support: a recorded
        transport); its parts are :attr:`internals`."""
        client = cls.__new__(cls)
        client._start(connector, Redactor(url, url_secrets(url)), timeout, policy=policy)
        return client

    @property
    def policy(self) -> Policy | None:
        """The policy every call of this client is checked against (None: trusted)."""
        return self._calls.policy

    @property
    def internals(self) -> Internals:
        """This client's parts — its connector, session, executor and current transport — for
        tests and tools that fake or measure what the public calls do underneath (the one
        hook into a client's inside; not a stable API)."""
        return Internals(self._connector, self._session, self._executor, self._session.transport)

    # ------------------------------------------------------------ lifecycle

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._session.closed else "open"
        return f"<connect_plan.Client {self.url} {state}>"

    @property
    def url(self) -> str:
        """The server URL with any token redacted."""
        redactor = self._session.redactor
        return redactor.hide(redactor.url)

    @property
    def session_id(self) -> str:
        return self._session.transport.session_id

    @property
    def last_query(self) -> QueryStats | None:
        """What the last query whose result ended on this client cost (time to first batch,
        total time, rows, batches, Arrow bytes, the server's metrics per operator, the
        operation id): a :class:`~connect_plan.telemetry.QueryStats`, None before any.
        Shared by the client's threads: use ``on_stats=`` to get each query's own."""
        return self._session.last_query

    def close(self) -> None:
        """Release the server session (best effort, within :data:`CLOSE_GRACE_SECONDS`) and
        close the channel; it never waits longer on a server that does not answer."""
        self._session.close()

    # ------------------------------------------------------------ plans

    def translate(
        self,
        plan: Any,
        data: Any = None,
        schema: Any = None,
        *,
        policy: Policy | None = None,
        tables: Mapping[str, Any] | None = None,
    ) -> pb.Plan:
        """Like :func:`connect_plan.translate`, but asks the server for column names the
        translator cannot know statically (only when a join needs them), and sends the
        Python UDFs registered with this client inline. Relative file paths are made
        absolute, as :meth:`execute` sends them, when the server is the local one."""
        ir_plan, _ = self._calls.load(plan, data, schema, policy, tables)
        return self._executor.translate(ir_plan)

    def execute(
        self,
        plan: Any,
        data: Any = None,
        schema: Any = None,
        *,
        max_rows: int | None = None,
        max_bytes: int | None = None,
        timeout: float | None = None,
        policy: Policy | None = None,
        tables: Mapping[str, Any] | None = None,
        on_progress: ProgressCallback | None = None,
        on_stats: Callable[[QueryStats], object] | None = None,
        tag: str | None = None,
    ) -> pa.Table:
        """Run a plan and return its result as one ``pyarrow.Table``.

        The table is assembled from the same batches :meth:`stream` yields, without copies.
        ``max_rows``/``max_bytes`` bound the result as in :meth:`stream`. A plan with an
        output (a final ``write``/``createOrReplaceTempView`` step or a document ``output``)
        returns a one-row report of what it wrote instead. ``timeout`` (seconds, default the client's) bounds the whole call; when it expires
        the operation is interrupted on the server and released, and
        :class:`~connect_plan.errors.QueryTimeoutError` is raised. Ctrl-C does the same
        and raises ``KeyboardInterrupt``. ``policy`` replaces the client's for this call (see
        :class:`Client`). ``tag`` names the call's Spark execution for :meth:`interrupt`.

        ``on_progress`` is called with a :class:`~connect_plan.telemetry.Progress` record
        while the query runs (the server's stages and tasks, rows received, elapsed time),
        the last time with ``done=True``; ``on_stats`` once with the query's
        :class:`~connect_plan.telemetry.QueryStats` (also :attr:`last_query`). Both run in
        the calling thread; one that raises is logged and ignored. A plan that writes
        reports its stages and tasks the same way; its statistics count no rows received.
        """
        operation_tags = tags(tag)
        ir_plan, effective = self._calls.load(plan, data, schema, policy, tables)
        max_rows, max_bytes, timeout = self._calls.bounds(effective, max_rows, max_bytes, timeout)
        executor = self._executor
        output = ir_plan.output
        if output is None:
            return self._calls.run(
                ir_plan,
                lambda at: executor.table(ir_plan, max_rows, max_bytes, at, on_progress, on_stats, operation_tags),
                timeout,
            )
        # an append may have happened on the server that went away: never twice
        again = not (isinstance(output, ir.Write) and output.mode == "append")
        return self._calls.run(
            ir_plan,
            lambda _: executor.write(executor.prepare(ir_plan), output, on_progress, on_stats, operation_tags),
            timeout,
            again=again,
            locate=True,
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
        policy: Policy | None = None,
        tables: Mapping[str, Any] | None = None,
        on_progress: ProgressCallback | None = None,
        on_stats: Callable[[QueryStats], object] | None = None,
        tag: str | None = None,
    ) -> pa.RecordBatchReader:
        """Run a plan and return a ``pyarrow.RecordBatchReader`` over its result.

        Batches are yielded as they arrive from the server, so client memory is bounded by
        a few batches, not by the result (write it to parquet with ``pyarrow.parquet``, or
        iterate it). The call returns once the first batch (or the empty result's schema)
        has arrived, so plan and analysis errors are raised here; a failure later in the
        stream is raised by the read that meets it. Closing the reader early releases the
        execution on the server. ``max_rows`` adds a ``Limit`` on top of the plan (the server computes no more);
        ``max_bytes`` stops reading once that many bytes of Arrow data have arrived (the last
        batch is cut to fit) and releases the rest of the execution. ``timeout`` bounds the
        whole stream, from this call to its last batch (see :meth:`execute`); ``policy``
        replaces the client's for this call. ``on_progress``/``on_stats`` as in
        :meth:`execute`: progress goes on while the reader is read, the statistics come when
        it is exhausted or closed. ``tag`` as in :meth:`execute`.
        """
        ir_plan, effective = self._calls.load(plan, data, schema, policy, tables)
        return self._calls.reader(
            ir_plan,
            *self._calls.bounds(effective, max_rows, max_bytes, timeout),
            on_progress=on_progress,
            on_stats=on_stats,
            tag=tag,
        )

    def interrupt(self, tag: str, *, timeout: float | None = INTERRUPT_SECONDS) -> tuple[str, ...]:
        """End the calls made with ``tag=tag``, from any thread; the ids interrupted (:meth:`Calls.interrupt`)."""
        return self._calls.interrupt(tag, timeout)

    def explain(
        self,
        plan: Any,
        data: Any = None,
        schema: Any = None,
        mode: str = "extended",
        *,
        timeout: float | None = None,
        policy: Policy | None = None,
        tables: Mapping[str, Any] | None = None,
    ) -> str:
        """Spark's explain string for the plan (the server's analyzed/optimized plans)."""
        ir_plan, effective = self._calls.load(plan, data, schema, policy, tables)
        timeout = self._calls.bounds(effective, None, None, timeout)[2]
        return str(self._calls.run(ir_plan, lambda _: self._executor.explain(ir_plan, mode), timeout, locate=True))

    def draw(
        self,
        plan: Any,
        data: Any = None,
        schema: Any = None,
        *,
        analyzed: bool = False,
        failed_step: int | None = None,
        timeout: float | None = None,
        policy: Policy | None = None,
        tables: Mapping[str, Any] | None = None,
        title: str | None = None,
    ) -> PlanDrawing:
        """The plan drawn as a tree (see :func:`connect_plan.draw`, also for ``title``); column
        names a static analysis cannot know are asked of the server. With ``analyzed``, Spark's optimized
        logical and physical plans are drawn as two more trees; when the server refuses the
        plan, the step that caused it is highlighted and the drawing's ``error`` says why
        (nothing is raised for that error: the drawing shows it). ``policy`` as in
        :meth:`explain` (a plan it refuses raises ``PolicyError``)."""
        from ..formats import title_of

        ir_plan, effective = self._calls.load(plan, data, schema, policy, tables)
        return self._calls.draw(ir_plan, effective, analyzed, failed_step, timeout, title or title_of(plan))

    def schema(
        self,
        plan: Any,
        data: Any = None,
        schema: Any = None,
        *,
        timeout: float | None = None,
        policy: Policy | None = None,
        tables: Mapping[str, Any] | None = None,
    ) -> pa.Schema:
        """The Arrow schema of the plan's result, from the server's analysis: what its batches
        carry (timestamps in the session's time zone)."""
        ir_plan, effective = self._calls.load(plan, data, schema, policy, tables)
        timeout = self._calls.bounds(effective, None, None, timeout)[2]
        return self._calls.run(ir_plan, lambda _: self._executor.schema(ir_plan), timeout)


def owned_stream(
    client: Client,
    plan: Any,
    data: Any,
    schema: Any,
    *,
    max_rows: int | None,
    max_bytes: int | None,
    on_progress: ProgressCallback | None = None,
    on_stats: Callable[[QueryStats], object] | None = None,
    tables: Mapping[str, Any] | None = None,
) -> pa.RecordBatchReader:
    """A reader over ``plan``'s result that owns ``client``: the client closes when the
    reader is exhausted or dropped, and at once when the stream cannot start."""
    try:
        ir_plan, effective = client._calls.load(plan, data, schema, None, tables)
        max_rows, max_bytes, timeout = client._calls.bounds(effective, max_rows, max_bytes, None)
        return client._calls.reader(
            ir_plan,
            max_rows,
            max_bytes,
            timeout,
            on_close=client.close,
            on_progress=on_progress,
            on_stats=on_stats,
        )
    except BaseException:
        client.close()
        raise


def spark_batches(
    client: Client,
    plan: Any,
    *,
    policy: Policy | None = None,
    tables: Mapping[str, Any] | None = None,
    tag: str | None = None,
) -> SparkResult:
    """``plan``'s result as :meth:`Client.stream` reads it (the same checks, bounds, policy and
    ``tag``), each batch with its Arrow IPC message as Spark sent it, where the batch is Spark's
    own (:class:`~connect_plan.client.calls.SparkResult`): what ``connect-plan serve`` forwards
    to a Flight client without encoding the batch again."""
    ir_plan, effective = client._calls.load(plan, None, None, policy, tables)
    max_rows, max_bytes, timeout = client._calls.bounds(effective, None, None, None)
    return client._calls.spark_batches(ir_plan, max_rows, max_bytes, timeout, tag)


def connect(remote: str | None = None, **kwargs: Any) -> Client:
    """Open a :class:`Client` (``remote`` defaults to ``SPARK_REMOTE``, then the local server)."""
    return Client(remote, **kwargs)
