"""Running one plan: translate, place inputs, send, check the result, hand back Arrow.

The path of a query, one way down and back up::

    ir.Plan ─ prepare: translate_ir → InputPlacer.fill → size check ─→ pb.Plan
            ─ Transport.execute_plan ─→ ExecutePlanResponse …
            ─ decoded: ResultChecker (rows, offsets, chunks, schema, ResultComplete) ─→ batches
            ─ Executor.results: first schema, unique names, max_bytes cut ─→ pyarrow

A write goes ``prepare`` → ``Transport.execute_plan`` of its command → the same checks
(``ResultComplete``), progress and statistics → a one-row report. A failure on
the way is mapped by the session (:meth:`~connect_plan.client.session.Session.call`) and,
for analysis errors, located on a plan step (:func:`~connect_plan.client.failures.locate`).
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
from collections.abc import Callable, Generator, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from .. import ir
from ..arrow_types import NoArrowType, arrow_schema, has_timestamp
from ..arrow_types import announced as announced_schema
from ..call_failures import refuses_observed_metrics
from ..contract import check_schema
from ..deadlines import grace, remaining
from ..errors import (
    ConnectPlanError,
    PlanTooLargeError,
    QueryTimeoutError,
    ResultIntegrityError,
    ServerError,
)
from ..results import ResultChecker, SparkBatch, timed_out
from ..telemetry import ProgressCallback, QueryStats, QueryWatch
from .failures import locate
from .paths import absolute_paths

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql.connect import proto as pb

    from ..translator import LocalData, Translation
    from ..transport import ResultStream
    from .session import Session

__all__ = ["Executor", "check_unique_names", "decoded"]

log = logging.getLogger("connect_plan")

#: plans smaller than this are sent without measuring them against the message limit
#: (no Connect server's limit is that small; Spark's default is 128 MiB)
_SIZE_CHECK_FROM = 1024 * 1024
#: room left in the message for the request around the plan (session, ids, options)
_REQUEST_OVERHEAD = 64 * 1024
#: resolved schema names kept per session before the cache starts again
_SCHEMA_CACHE_SIZE = 256
#: how long closing a result stream may take to release it on the server
_CLOSE_GRACE_SECONDS = 5.0


def decoded(
    stream: ResultStream, watch: QueryWatch | None = None, *, messages: bool = False
) -> Generator[Any, None, None]:
    """The announced schema (an :class:`~connect_plan.arrow_types.AnnouncedSchema`) and
    every Arrow batch of ``stream`` (each a :class:`~connect_plan.results.SparkBatch` with
    ``messages``), checked by a :class:`~connect_plan.results.ResultChecker`. On a timeout or Ctrl-C the execution
    is released and interrupted on the server before the error is raised; the stream is
    closed (released) in every case. ``watch`` is fed every response (progress, metrics)
    and finished when the stream is: complete, or not (stopped early, failed)."""
    checker = ResultChecker(messages=messages)
    complete = False
    try:
        for resp, arrow_data in stream:
            if watch is not None:
                watch.feed(resp, arrow_data)
            yield from checker.feed(resp, arrow_data)
        checker.finish()
        complete = True
    except KeyboardInterrupt:
        stream.cancel()
        raise
    except QueryTimeoutError as err:
        # the cause is the transport's error when the deadline passed inside its own handling
        raise timed_out(err.message, stream.cancel()) from err.__cause__
    finally:
        try:
            stream.close()
        finally:
            if watch is not None:
                if not watch.operation_id:
                    watch.operation_id = stream.operation_id
                watch.finish(complete)


class Executor:
    """Prepares and runs the plans of one client session."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self._observed_writes = True  # False once the server refused CollectMetrics (Sail)

    # ------------------------------------------------------------ preparing

    def prepare(self, plan: ir.Plan, limit: int | None = None) -> Translation:
        """Translate for execution: inline tables are placed by the session's
        :class:`~connect_plan.inputs.InputPlacer` (inline, or cached artifacts)."""
        from ..translator import translate_ir

        session = self.session
        session.check_server(inputs=_has_inline_data(plan), plan_conf=plan.conf)
        tr = translate_ir(
            plan,
            case_sensitive=session.case_sensitive_for(plan),
            resolver=self.resolve_names,
            udfs=session.udfs,
            inline_data=False,
            limit=limit,
        )
        session.inputs.fill(tr.plan, tr.local_data)
        if session.local_files and tr.files:
            absolute_paths(tr.plan, os.getcwd())
        self._check_size(tr.plan)
        return tr

    def translate(self, plan: ir.Plan) -> pb.Plan:
        """The plan as :meth:`Client.translate` gives it: the server asked for the names
        static analysis cannot know, the client's UDFs inline, relative file paths absolute
        for the local server."""
        from ..translator import translate_ir

        session = self.session
        proto = translate_ir(
            plan, case_sensitive=session.case_sensitive_for(plan), resolver=self.resolve_names, udfs=session.udfs
        ).plan
        if session.local_files:
            absolute_paths(proto, os.getcwd())
        return proto

    def resolve_names(self, relation: pb.Relation, local: Sequence[LocalData] = ()) -> list[str]:
        """The output names of ``relation``, asked of the server (translation's resolver)."""
        from ..spark_proto import pb

        session = self.session
        session.inputs.fill(relation, local)
        if session.local_files:
            absolute_paths(relation, os.getcwd())
        key = relation.SerializeToString(deterministic=True)
        cached = session.schema_cache.get(key)
        if cached is not None:
            return cached
        plan = pb.Plan()
        plan.root.CopyFrom(relation)
        names = _names(session.call(lambda: session.transport.schema(plan)))
        if len(session.schema_cache) > _SCHEMA_CACHE_SIZE:
            session.schema_cache.clear()
        session.schema_cache[key] = names
        return names

    def _check_size(self, plan: pb.Plan) -> None:
        """Refuse a plan the server could not accept: over its gRPC message limit (read once
        per session, with the input cache settings) — measured only for large plans."""
        size = plan.ByteSize()
        if size < _SIZE_CHECK_FROM:
            return
        limit = self.session.inputs.settings().max_message
        if size > limit - _REQUEST_OVERHEAD:
            raise PlanTooLargeError(
                f"the plan is {size:,} bytes serialised, over the server's gRPC message limit of {limit:,} bytes; "
                "it was not sent. Make it smaller (fewer or shorter literals, inline data read from files instead)",
                size=size,
                limit=limit,
            )

    def locate(self, err: ServerError, plan: ir.Plan) -> ServerError:
        """``err`` naming the plan step that caused it, when analysis of prefixes tells."""
        session = self.session

        def analyse(prefix: ir.Plan) -> object:
            tr = self.prepare(prefix)
            return session.call(lambda: session.transport.schema(tr.plan))

        return locate(err, plan, analyse)

    # ------------------------------------------------------------ analysis

    def schema(self, plan: ir.Plan) -> pa.Schema:
        """The result's Arrow schema from the server's analysis: what its batches carry (in
        the types the plan declares, held to them: :func:`~connect_plan.contract.check_schema`)."""
        session = self.session
        analysed = self._arrow_schema(session.call(lambda: session.transport.schema(self.prepare(plan).plan)))
        return check_schema(plan.contract, analysed).schema

    def _arrow_schema(self, dt: pb.DataType) -> pa.Schema:
        """The Arrow schema of a result Spark announced as ``dt``, as Spark's batches carry it:
        timestamps in the session's time zone (asked of the server only when there is one),
        year-month and calendar intervals as Arrow intervals (PySpark maps neither)."""
        zone = "UTC"
        if has_timestamp(dt):
            key = "spark.sql.session.timeZone"
            zone = self.session.get_conf((key,)).get(key) or zone
        try:
            return arrow_schema(dt, timezone=zone, intervals=True)
        except NoArrowType as exc:
            raise ConnectPlanError(f"the result has a column whose type {exc}") from None
        except ValueError as exc:
            raise ResultIntegrityError(f"the server announced a result schema that is not a table: {exc}") from None

    def interrupt(self, tag: str) -> list[str]:
        """Interrupt every execution of the session tagged ``tag`` (:meth:`Client.interrupt`)."""
        session = self.session
        return session.call(lambda: session.transport.interrupt(tag))

    def explain(self, plan: ir.Plan, mode: str) -> str:
        """Spark's plans for the query; for a plan that writes, those of what it writes (the
        server explains relations, not commands)."""
        session = self.session
        proto = self.prepare(plan).plan
        if proto.HasField("command"):
            which = proto.command.WhichOneof("command_type")
            source = getattr(proto.command, which) if which else None
            if source is not None and hasattr(source, "input") and source.HasField("input"):
                relation = type(proto)()
                relation.root.CopyFrom(source.input)
                proto = relation
        return str(session.call(lambda: session.transport.explain(proto, mode)))

    # ------------------------------------------------------------ results

    def open(
        self,
        plan: ir.Plan,
        max_rows: int | None,
        max_bytes: int | None,
        on_close: Callable[[], None] | None = None,
        at: float | None = None,
        on_progress: ProgressCallback | None = None,
        on_stats: Callable[[QueryStats], object] | None = None,
        tags: Sequence[str] = (),
        messages: bool = False,
    ) -> tuple[pa.Schema, Iterator[Any]]:
        """Send the plan (its operation carrying ``tags``); its result's schema (once the first
        batch or the empty result's schema arrived) and the batches still to come (with
        ``messages``: :class:`~connect_plan.results.SparkBatch` items, see :meth:`results`).
        ``on_progress`` and ``on_stats`` watch the query
        (:class:`~connect_plan.telemetry.QueryWatch`); its statistics also become the
        session's ``last_query``."""
        watch = QueryWatch(on_progress, self._stats_sink(on_stats))
        for name, value in (("max_rows", max_rows), ("max_bytes", max_bytes)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
                raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
        if at is None:
            at = remaining()
            at = None if at is None else time.monotonic() + at
        tr = self.prepare(plan, limit=max_rows)
        case_sensitive = self.session.case_sensitive_for(plan)
        results = self.results(
            tr.plan,
            max_bytes,
            on_close,
            at,
            case_sensitive=case_sensitive,
            watch=watch,
            contract=plan.contract,
            tags=tags,
            messages=messages,
        )
        self.session.streams.add(results)
        try:
            result_schema = next(results)
        except ServerError as err:
            raise self.locate(err, plan) from err.__cause__
        return result_schema, results

    def _stats_sink(self, on_stats: Callable[[QueryStats], object] | None) -> Callable[[QueryStats], object]:
        session = self.session

        def record(stats: QueryStats) -> None:
            session.last_query = stats
            if on_stats is not None:
                on_stats(stats)

        return record

    def table(
        self,
        plan: ir.Plan,
        max_rows: int | None,
        max_bytes: int | None,
        at: float | None,
        on_progress: ProgressCallback | None = None,
        on_stats: Callable[[QueryStats], object] | None = None,
        tags: Sequence[str] = (),
    ) -> pa.Table:
        """The whole result as one table, from the same batches :meth:`open` yields."""
        import pyarrow as pa

        result_schema, batches = self.open(
            plan, max_rows, max_bytes, at=at, on_progress=on_progress, on_stats=on_stats, tags=tags
        )
        return pa.Table.from_batches(list(batches), result_schema)

    def results(
        self,
        plan: pb.Plan,
        max_bytes: int | None,
        on_close: Callable[[], None] | None = None,
        at: float | None = None,
        *,
        case_sensitive: bool = False,
        watch: QueryWatch | None = None,
        contract: ir.Contract | None = None,
        tags: Sequence[str] = (),
        messages: bool = False,
    ) -> Iterator[Any]:
        """Yield the result's Arrow schema, then every Arrow batch as it arrives, checked
        (with ``messages``: each a :class:`~connect_plan.results.SparkBatch`, its IPC message
        None where the batch is not the one Spark sent: cast to the declared types, or cut).

        The responses come from the transport's reattachable execution and are checked by
        :func:`decoded` (row counts and offsets, chunks, schema equal across batches and to
        the announced one, ``ResultComplete``). Here: the result's schema is the first
        batch's (or the announced one for an empty result), names must be unique (as the
        session compares them: ``case_sensitive``, see :meth:`_check_names`), the result
        must be what the plan declares (``contract``, :func:`~connect_plan.contract.check_schema`:
        before the first row is yielded; the batches come in the declared types),
        ``max_bytes`` cuts the stream, and every read runs under the operation's deadline ``at``.
        """
        import pyarrow as pa

        session = self.session
        if session.closed:
            raise ConnectPlanError("this connect_plan.Client is closed")
        source = decoded(session.transport.execute_plan(plan, tags), watch, messages=messages)
        item: Any = None
        started = False
        try:
            announced: Any = None
            while True:  # to the first batch, or the end of an empty result
                item = session.next(source, at)
                if item is None or isinstance(item, (SparkBatch, pa.RecordBatch)):
                    break
                announced = item
            if item is not None:
                first = (item.batch if isinstance(item, SparkBatch) else item).schema
            elif announced is not None:
                first = self._arrow_schema(announced.proto)
            else:
                raise ResultIntegrityError("the server sent neither a schema nor any Arrow batch")
            self._check_names(first, case_sensitive)
            declared = check_schema(contract, first)
            started = True
            yield declared.schema
            budget = max_bytes
            while item is not None:
                batch, message = item if isinstance(item, SparkBatch) else (item, None)
                if isinstance(batch, pa.RecordBatch):
                    if not batch.schema.equals(first):
                        raise ResultIntegrityError(
                            f"the server changed the result schema mid-stream: {first} then {batch.schema}"
                        )
                    conformed = declared.batch(batch)
                    if conformed is not batch:
                        batch, message = conformed, None
                    if budget is not None:
                        size = batch.nbytes
                        if size > budget:
                            cut = head_within(batch, budget)
                            if cut.num_rows:
                                yield SparkBatch(cut, None) if messages else cut
                            return
                        budget -= size
                    yield SparkBatch(batch, message) if messages else batch
                item = session.next(source, at)
        finally:
            with grace(_CLOSE_GRACE_SECONDS), contextlib.suppress(Exception):
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
            values = self.session.get_conf(("spark.sql.caseSensitive",))
            if str(values.get("spark.sql.caseSensitive") or "false").lower() != "true":
                raise

    # ------------------------------------------------------------ outputs

    def write(
        self,
        tr: Translation,
        output: ir.Output,
        on_progress: ProgressCallback | None = None,
        on_stats: Callable[[QueryStats], object] | None = None,
        tags: Sequence[str] = (),
    ) -> pa.Table:
        """Run a plan's output command (its operation carrying ``tags``); a one-row report of what it wrote (``rows`` from
        the observed row count, null where the server cannot observe metrics).

        The command's responses are read as a query's are (:func:`decoded`: the stream must
        end with ``ResultComplete``; released, and interrupted on a timeout or Ctrl-C), and
        watched as a query is: ``on_progress`` gets the stages and tasks of the write,
        ``on_stats`` its statistics (no rows or batches come back), which also become the
        session's ``last_query``."""
        import pyarrow as pa

        from ..translator.outputs import METRICS_NAME, ROWS_METRIC, describe

        session = self.session
        command = tr.plan.command
        counted = command.write_operation.input if command.HasField("write_operation") else None
        if counted is not None and not counted.HasField("collect_metrics"):
            counted = None
        if counted is not None and not self._observed_writes:
            _drop_observation(counted)
        stats = self._stats_sink(on_stats)

        def run() -> list[Any]:
            watch = QueryWatch(on_progress, stats)
            for _ in decoded(session.transport.execute_plan(tr.plan, tags), watch):
                pass  # a command sends no rows: its progress, metrics and ResultComplete
            return watch.observed

        try:
            observed = session.call(run)
        except ServerError as err:
            if counted is None or not counted.HasField("collect_metrics") or not refuses_observed_metrics(err):
                raise
            # the server cannot observe metrics (Sail): it refused the plan before writing
            # anything, so the write runs again without the row count ("rows" is null)
            log.info("the server does not support CollectMetrics; writes report no row count")
            self._observed_writes = False
            _drop_observation(counted)  # in tr.plan's command
            observed = session.call(run)
        rows = None
        for metrics in observed:
            if metrics.name == METRICS_NAME:
                values = dict(zip(metrics.keys, metrics.values))
                if ROWS_METRIC in values:
                    rows = int(values[ROWS_METRIC].long)
        report = describe(output)
        if isinstance(output, ir.Write) and output.path is not None and command.HasField("write_operation"):
            report["target"] = command.write_operation.path  # as sent: absolute for the local server
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


def _names(dt: pb.DataType) -> list[str]:
    """The column names of a result schema the server sent."""
    try:
        return announced_schema(dt).names
    except ValueError as exc:
        raise ResultIntegrityError(f"the server announced a result schema that is not a table: {exc}") from None


def _has_inline_data(plan: ir.Plan) -> bool:
    """Does ``plan`` (or a plan it joins or unions) start from inline rows? (A cheap guess:
    it only decides whether the input cache settings are read ahead.)"""
    if isinstance(plan.source, (ir.InlineData, ir.SharedPlan)):
        return True
    return any(isinstance(getattr(step, "right", None), ir.Plan) for step in plan.steps)


def _drop_observation(counted: Any) -> None:
    """Replace a CollectMetrics relation by its input, in place."""
    inner = type(counted)()
    inner.CopyFrom(counted.collect_metrics.input)
    counted.CopyFrom(inner)


def head_within(batch: pa.RecordBatch, budget: int) -> pa.RecordBatch:
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
