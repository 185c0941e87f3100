"""Connections to a Spark Connect server: execute translated plans, return Arrow.

The transport is PySpark's own Connect client (``SparkConnectClient``): its channel
builder parses ``sc://`` URLs (token, use_ssl, user_id, session_id), its retry policy
retries transient gRPC failures, and its reattachable execution resumes a result stream
that broke off. connect_plan adds what a plan runner needs on top: translation with
schema resolution, checks on every Arrow batch, errors mapped to
:class:`~connect_plan.errors.ServerError` with the failing plan step, and no pandas.

A :class:`Client` is safe to share between threads: gRPC channels are thread-safe and each
call keeps its state on its own stack.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from . import ir
from .errors import (
    ConnectPlanError,
    PlanError,
    ResultIntegrityError,
    ServerError,
    ServerUnavailableError,
)

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql.connect import proto as pb

    from .translator import LocalData, Translation
    from .translator.expressions import InlineUdf

__all__ = ["Client", "connect", "redact", "resolve_remote"]

log = logging.getLogger("connect_plan")

#: retries of transient failures (UNAVAILABLE...) stop after ~6 s in all, not PySpark's 10 min
DEFAULT_RETRY_POLICY: dict[str, Any] = {
    "max_retries": 6,
    "initial_backoff": 50,
    "max_backoff": 2000,
    "backoff_multiplier": 4.0,
}

_TOKEN_RE = re.compile(r"(?i)(token=)[^;/]*")


def redact(url: str) -> str:
    """The URL with any token replaced by ``***`` (safe for logs, errors and repr)."""
    return _TOKEN_RE.sub(r"\1***", url)


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
        cls = ServerUnavailableError if code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED) else ServerError
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
        unavailable = "UNAVAILABLE" in retry_text[:200] and error_class is None
        if unavailable or "failed to connect to all addresses" in retry_text:
            return ServerUnavailableError(
                f"cannot reach the Spark Connect server at {redact(url)}: {_first_line(retry_text)}",
                grpc_status="UNAVAILABLE",
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
        )
    return ServerError(f"{type(exc).__name__}: {exc}")


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


def load_plan(plan: Any, data: Any = None, schema: Any = None) -> ir.Plan:
    """Any accepted plan input → IR: a plan document (dict or JSON text), a list of steps
    (with ``data``/``schema``), or JSON text of a list of steps."""
    from .parse import load_json, parse_document, parse_plan

    if isinstance(plan, ir.Plan):
        return plan
    if isinstance(plan, (str, bytes)):
        plan = load_json(plan)
    if isinstance(plan, Mapping) and "plan" in plan:
        if data is not None or schema is not None:
            raise PlanError.single(
                "conflicting_input", "/input",
                "the plan document has its own 'input'; do not also pass data or schema",
            )
        return parse_document(plan)
    if schema is None:
        from .parse import is_table_input

        if is_table_input(data):
            schema = []  # Arrow/pandas data carries its own schema
        elif not _starts_with_read(plan):
            raise PlanError.single("missing_key", "/input/schema", "a schema is needed for the data (pass schema=...)")
    return parse_plan([] if data is None else data, schema, plan)


def _starts_with_read(plan: Any) -> bool:
    """A step list whose first step is ``read`` brings its own source (no data/schema)."""
    return (
        isinstance(plan, (list, tuple)) and bool(plan)
        and isinstance(plan[0], Mapping) and plan[0].get("op") == "read"
    )


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
    ) -> None:
        from pyspark.sql.connect.client import SparkConnectClient

        self._url = resolve_remote(remote)
        try:
            self._sc = SparkConnectClient(
                self._url,
                user_id=user_id,
                retry_policy=dict(retry_policy if retry_policy is not None else DEFAULT_RETRY_POLICY),
            )
        except Exception as exc:  # PySparkValueError for malformed URLs
            raise ConnectPlanError(f"invalid Spark Connect URL {redact(self._url)!r}: {exc}") from None
        self._closed = False
        self._schema_cache: dict[bytes, list[str]] = {}
        self._case_sensitive = False
        self._udfs: dict[str, InlineUdf] = {}
        from .inputs import InputPlacer

        self._server_version: str | None = None
        self._inputs = InputPlacer(self._sc, self._call, self.server_version)
        if conf:
            self.set_conf(conf)

    # ------------------------------------------------------------ lifecycle

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._closed else "open"
        return f"<connect_plan.Client {redact(self._url)} {state}>"

    @property
    def url(self) -> str:
        """The server URL with any token redacted."""
        return redact(self._url)

    @property
    def session_id(self) -> str:
        return str(self._sc._session_id)

    def close(self) -> None:
        """Release the server session (best effort) and close the channel."""
        if self._closed:
            return
        self._closed = True
        with _quiet(), contextlib.suppress(Exception):
            self._sc.release_session()
        with contextlib.suppress(Exception):
            self._sc.close()

    # ------------------------------------------------------------ session

    def set_conf(self, conf: Mapping[str, str]) -> None:
        """Set Spark SQL configuration on this client's session."""
        from pyspark.sql.connect import proto as pb

        op = pb.ConfigRequest.Operation()
        for k, v in conf.items():
            pair = op.set.pairs.add()
            pair.key = str(k)
            pair.value = str(v).lower() if isinstance(v, bool) else str(v)
        self._call(lambda: self._sc.config(op))
        if "spark.sql.caseSensitive" in conf:
            self._case_sensitive = str(conf["spark.sql.caseSensitive"]).lower() == "true"

    def get_conf(self, *keys: str) -> dict[str, str | None]:
        return dict(self._call(lambda: self._sc.get_config_dict(*keys)))

    def server_version(self) -> str:
        """The Spark version of the server: one AnalyzePlan round trip the first time, then
        remembered for this session (features are chosen by it, see connect_plan.versions)."""
        if self._server_version is None:
            self._server_version = str(self._call(lambda: self._sc._analyze(method="spark_version").spark_version))
        return self._server_version

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
        session, so concurrent executions on one client see each other's settings."""
        if not conf:
            yield
            return
        from pyspark.sql.connect import proto as pb

        keys = [k for k, _ in conf]
        get = pb.ConfigRequest.Operation()
        get.get_option.keys.extend(keys)
        before = dict(self._call(lambda: self._sc.config(get)).pairs)
        self.set_conf(dict(conf))
        try:
            yield
        finally:
            restore = {k: v for k, v in before.items() if v is not None}
            unset = [k for k in keys if before.get(k) is None]
            with contextlib.suppress(ConnectPlanError):
                if restore:
                    self.set_conf(restore)
                if unset:
                    op = pb.ConfigRequest.Operation()
                    op.unset.keys.extend(unset)
                    self._call(lambda: self._sc.config(op))
            if "spark.sql.caseSensitive" in dict(conf):
                self._case_sensitive = str(before.get("spark.sql.caseSensitive") or "false").lower() == "true"

    def _prepare(self, plan: ir.Plan, limit: int | None = None) -> Translation:
        """Translate for execution: inline tables are placed by the session's
        :class:`~connect_plan.inputs.InputPlacer` (inline, or cached artifacts)."""
        from .translator import translate_ir

        tr = translate_ir(
            plan,
            case_sensitive=self._case_sensitive_for(plan),
            resolver=self._resolve_names,
            udfs=self._udfs,
            inline_data=False,
            limit=limit,
        )
        self._inputs.fill(tr.plan, tr.local_data)
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
        self, plan: Any, data: Any = None, schema: Any = None, *, max_rows: int | None = None, max_bytes: int | None = None
    ) -> pa.Table:
        """Run a plan and return its result as one ``pyarrow.Table``.

        The table is assembled from the same batches :meth:`stream` yields, without copies.
        ``max_rows``/``max_bytes`` bound the result as in :meth:`stream`. A plan with an
        output (a final ``write``/``createOrReplaceTempView`` step or a document ``output``)
        returns a one-row report of what it wrote instead.
        """
        import pyarrow as pa

        ir_plan = load_plan(plan, data, schema)
        with self._plan_conf(ir_plan.conf):
            if ir_plan.output is not None:
                tr = self._prepare(ir_plan)
                try:
                    return self._run_output(tr, ir_plan.output)
                except ServerError as err:
                    raise self._locate(err, ir_plan) from err.__cause__
            result_schema, batches = self._open(ir_plan, max_rows, max_bytes)
            return pa.Table.from_batches(list(batches), result_schema)

    def _run_output(self, tr: Translation, output: ir.Output) -> pa.Table:
        import pyarrow as pa

        from .translator.outputs import METRICS_NAME, ROWS_METRIC, describe

        _, _, info = self._call(lambda: self._sc.execute_command(tr.plan.command))
        rows = None
        for observed in getattr(info, "_observations", None) or []:
            if observed.name == METRICS_NAME:
                values = dict(zip(observed.keys, observed.metrics))
                if ROWS_METRIC in values:
                    rows = int(values[ROWS_METRIC].long)
        report = describe(output)
        return pa.table({
            "operation": pa.array([report["operation"]], pa.string()),
            "target": pa.array([report["target"]], pa.string()),
            "format": pa.array([report["format"]], pa.string()),
            "mode": pa.array([report["mode"]], pa.string()),
            "partition_by": pa.array([report["partition_by"]], pa.list_(pa.string())),
            "rows": pa.array([rows], pa.int64()),
        })
    def stream(
        self, plan: Any, data: Any = None, schema: Any = None, *, max_rows: int | None = None, max_bytes: int | None = None
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
        batch is cut to fit) and releases the rest of the execution.
        """
        import pyarrow as pa

        ir_plan = load_plan(plan, data, schema)
        if ir_plan.output is not None:
            raise PlanError.single("not_streamable", ir_plan.loc, "a plan that writes has no result to stream; use execute()")
        # a document's conf holds while the query is planned (until its first batch)
        with self._plan_conf(ir_plan.conf):
            result_schema, batches = self._open(ir_plan, max_rows, max_bytes)
        return pa.RecordBatchReader.from_batches(result_schema, batches)

    def _open(
        self,
        ir_plan: ir.Plan,
        max_rows: int | None,
        max_bytes: int | None,
        on_close: Callable[[], None] | None = None,
    ) -> tuple[pa.Schema, Iterator[pa.RecordBatch]]:
        for name, value in (("max_rows", max_rows), ("max_bytes", max_bytes)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
                raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
        tr = self._prepare(ir_plan, limit=max_rows)
        results = self._results(tr.plan, max_bytes, on_close)
        try:
            result_schema = next(results)
        except ServerError as err:
            raise self._locate(err, ir_plan) from err.__cause__
        return result_schema, results

    def explain(self, plan: Any, data: Any = None, schema: Any = None, mode: str = "extended") -> str:
        """Spark's explain string for the plan (the server's analyzed/optimized plans)."""
        tr = self._prepare(load_plan(plan, data, schema))
        return str(self._call(lambda: self._sc.explain_string(tr.plan, mode)))

    def schema(self, plan: Any, data: Any = None, schema: Any = None) -> pa.Schema:
        """The Arrow schema of the plan's result, from the server's analysis."""
        from pyspark.sql.pandas.types import to_arrow_schema

        tr = self._prepare(load_plan(plan, data, schema))
        struct = self._call(lambda: self._sc.schema(tr.plan))
        return to_arrow_schema(struct)

    def _call(self, fn: Any) -> Any:
        if self._closed:
            raise ConnectPlanError("this connect_plan.Client is closed")
        try:
            with _quiet():
                return fn()
        except ConnectPlanError:
            raise
        except Exception as exc:
            raise server_error(exc, self._url) from exc

    def _results(
        self, plan: pb.Plan, max_bytes: int | None, on_close: Callable[[], None] | None = None
    ) -> Iterator[Any]:
        """Yield the result's Arrow schema, then every Arrow batch as it arrives, checked.

        The transport is :func:`connect_plan.results.arrow_stream` (PySpark's reattachable
        execution, decoded zero-copy to batches). Here: the schema is the first batch's
        (or the announced one for an empty result), every later batch must match it, names
        must be unique, and ``max_bytes`` cuts the stream.
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
                item = self._next(source)
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
            check_unique_names(first)
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
                batch = self._next(source)
        finally:
            with _quiet(), contextlib.suppress(Exception):
                source.close()  # releases the execution on the server if we stopped early
            if on_close is not None and started:  # before that, the caller handles the error
                on_close()

    def _next(self, source: Iterator[Any]) -> Any:
        try:
            with _quiet():
                return next(source, None)
        except ConnectPlanError:
            raise
        except Exception as exc:
            raise server_error(exc, self._url) from exc

    def _locate(self, err: ServerError, plan: ir.Plan) -> ServerError:
        """Find the first plan step whose prefix fails analysis (binary search, O(log n)
        AnalyzePlan calls); only for analysis errors, which a prefix reproduces."""
        if err.op_index is not None or not _is_analysis_error(err):
            return err

        def fails(k: int) -> bool:
            prefix = ir.Plan(plan.source, plan.steps[:k], plan.loc, conf=plan.conf)
            try:
                tr = self._prepare(prefix)
                with _quiet():
                    self._sc.schema(tr.plan)
            except PlanError:
                return False
            except Exception:
                return True
            return False

        lo, hi = 0, len(plan.steps)  # prefix of lo steps passes, of hi steps fails
        if plan.output is not None and not fails(hi):
            return err.with_step(plan.output.index, plan.output.op)  # the write itself failed
        if not plan.steps or fails(0):
            return err
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if fails(mid):
                hi = mid
            else:
                lo = mid
        step = plan.steps[hi - 1]
        return err.with_step(step.index, step.op)


def _is_analysis_error(err: ServerError) -> bool:
    return bool(err.sqlstate and err.sqlstate[:2] == "42") or "AnalysisException" in err.message


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


def check_unique_names(schema: pa.Schema) -> None:
    seen: set[str] = set()
    for name in schema.names:
        key = name.lower()
        if key in seen:
            raise ResultIntegrityError(
                f"the result has two columns named {name!r}; output names must be unique "
                "(PLAN_FORMAT.md Policy 3) — alias one of them"
            )
        seen.add(key)


def connect(remote: str | None = None, **kwargs: Any) -> Client:
    """Open a :class:`Client` (``remote`` defaults to ``SPARK_REMOTE``, then the local server)."""
    return Client(remote, **kwargs)
