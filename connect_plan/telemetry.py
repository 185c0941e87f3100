"""Watching one query: progress while it runs, and what it cost once it ended.

A Spark Connect server (4.0+) streams ``ExecutionProgress`` messages (every stage of the
query with its tasks done of total and the input it read, and the tasks running) on the
same stream as the result, every ``spark.connect.progress.reportInterval`` (2 s by
default, settable per session), and sends the executed plan's metrics per operator
(``Metrics``) just before ``ResultComplete``. :class:`QueryWatch` reads them from the
``ExecutePlanResponse`` protos themselves, whatever transport received them, so that the
client's result path only feeds it every response (:func:`connect_plan.client.execute.decoded`).

It hands out two immutable records:

* :class:`Progress`, to an ``on_progress`` callback, on every progress message and, at most
  every :data:`BATCH_NOTIFY_SECONDS`, on Arrow batches; the last call has ``done=True``.
  A callback that raises is logged (once per query, at WARNING) and the query goes on.
* :class:`QueryStats`, once the query ended (whole, stopped early or failed): time to the
  first batch, total time, rows, batches, Arrow bytes, the server's metrics per operator
  and the operation id.

Stages are counted as Spark's UI counts them, by what the reports said (each report lists
every stage of the query's jobs so far; a report comes at most every
``spark.connect.progress.reportInterval`` and only when something changed, so the last state
of a fast query is often never sent):

* *run*: reported with a task done or done (a later report listing the stage anew, with no
  task done, does not undo that), and, in a complete result, the stage with the highest id:
  the result stage of the last job, which a complete result ran;
* *skipped*: never run, and reported pending while a stage with a higher id had tasks done:
  Spark numbers a job's stages before its result stage and runs a stage only once the stages
  it reads are available, so a stage passed over so was not needed (adaptive execution lists
  the stages whose output it reuses again, under new ids, in each later job);
* *not reported*: never run as far as the reports said, with no report showing it passed over:
  it ran after the last report, or was skipped; the reports cannot tell which.

The last record of a complete result counts the three apart and leaves the tasks of the
stages not run out, so it stands at 100% of tasks.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from .records import Value, frozen

if TYPE_CHECKING:
    from pyspark.sql.connect import proto as pb

__all__ = [
    "BATCH_NOTIFY_SECONDS",
    "Metric",
    "OperatorMetrics",
    "Progress",
    "ProgressCallback",
    "QueryStats",
    "QueryWatch",
    "StageProgress",
    "count",
    "human_bytes",
    "operator_metrics",
]

log = logging.getLogger("connect_plan")

#: Arrow batches notify the callback at most this often (progress messages always do)
BATCH_NOTIFY_SECONDS = 0.1


@frozen
class StageProgress(Value):
    """One Spark stage as the server last reported it."""

    stage_id: int
    tasks: int
    tasks_done: int
    bytes_read: int
    done: bool


@frozen
class Progress(Value):
    """How far one query is. Counts are the server's (stages, tasks, input bytes read) and
    this client's (rows, batches and Arrow bytes received so far)."""

    operation_id: str
    #: seconds since the call started (translation and input uploads included)
    elapsed: float
    stages: int
    stages_done: int
    tasks: int
    tasks_done: int
    running_tasks: int
    #: input bytes the stages read (files, tables; 0 for inline data and ranges)
    bytes_read: int
    rows: int
    batches: int
    arrow_bytes: int
    #: True on the last call: the query ended (``complete`` says whether its result is whole)
    done: bool = False
    complete: bool = False
    #: stages that never ran although the query completed (counted only on the last call)
    stages_skipped: int = 0
    stage_list: tuple[StageProgress, ...] = field(default=(), repr=False)
    #: stages no report showed run or skipped, when the query completed (see the module doc)
    stages_unreported: int = 0

    @property
    def fraction(self) -> float | None:
        """Tasks done of all tasks known so far (None before the server reported any)."""
        return self.tasks_done / self.tasks if self.tasks else None


ProgressCallback = Callable[[Progress], object]


@frozen
class Metric(Value):
    """One execution metric of an operator: ``kind`` is Spark's metric type (``sum``,
    ``size`` in bytes, ``timing`` in ms, ``nsTiming`` in ns, ``average``)."""

    key: str
    label: str
    value: int
    kind: str


@frozen
class OperatorMetrics(Value):
    """One operator of the executed (physical) plan and its metrics, as the server sent
    them; ``parent_id`` links the operators into Spark's tree."""

    name: str
    plan_id: int
    parent_id: int
    metrics: tuple[Metric, ...] = ()

    def value(self, key: str) -> int | None:
        """The value of metric ``key`` (``numOutputRows``...), None if the server sent none."""
        for m in self.metrics:
            if m.key == key:
                return m.value
        return None


@frozen
class QueryStats(Value):
    """What one query cost, from the client's side and the server's."""

    operation_id: str
    #: the whole result arrived (False: stopped early, cut by max_bytes, failed)
    complete: bool
    #: seconds from the call to the first Arrow batch (None: no batch arrived)
    first_batch_seconds: float | None
    total_seconds: float
    rows: int
    batches: int
    #: bytes of Arrow IPC data received
    arrow_bytes: int
    #: stages run, skipped, and not reported (see the module doc); ``tasks`` are the run ones'
    stages: int
    stages_skipped: int
    tasks: int
    bytes_read: int
    #: the executed plan's operators with their metrics (empty when the server sent none)
    operators: tuple[OperatorMetrics, ...] = ()
    #: the server's own counts, by metric key, summed over operators (``numOutputRows``...)
    totals: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    stages_unreported: int = 0

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of the record."""
        return {
            "operation_id": self.operation_id,
            "complete": self.complete,
            "first_batch_seconds": self.first_batch_seconds,
            "total_seconds": self.total_seconds,
            "rows": self.rows,
            "batches": self.batches,
            "arrow_bytes": self.arrow_bytes,
            "stages": self.stages,
            "stages_skipped": self.stages_skipped,
            "stages_unreported": self.stages_unreported,
            "tasks": self.tasks,
            "bytes_read": self.bytes_read,
            "operators": [
                {
                    "name": o.name,
                    "plan_id": o.plan_id,
                    "parent_id": o.parent_id,
                    "metrics": {m.key: {"value": m.value, "kind": m.kind} for m in o.metrics},
                }
                for o in self.operators
            ],
        }

    def describe(self) -> str:
        """The record as a few lines of text (``connect-plan run --stats``)."""
        first = "-" if self.first_batch_seconds is None else f"{self.first_batch_seconds:.3f} s"
        lines = [
            f"operation      {self.operation_id}",
            f"result         {count(self.rows, 'row')} in {count(self.batches, 'batch', 'batches')}, "
            f"{human_bytes(self.arrow_bytes)} of Arrow" + ("" if self.complete else " (not complete)"),
            f"time           first batch {first}, total {self.total_seconds:.3f} s",
            f"spark          {self.stage_text()}",
        ]
        if self.operators:
            lines.append("operators (physical plan, server metrics):")
            for op in self.operators:
                shown = [m for m in op.metrics if m.value]
                text = ", ".join(f"{m.label} {_metric_text(m)}" for m in shown[:6])
                more = f", +{len(shown) - 6} more" if len(shown) > 6 else ""
                lines.append(f"  {op.name} #{op.plan_id}" + (f": {text}{more}" if text else ""))
        return "\n".join(lines)

    def stage_text(self) -> str:
        """Spark's stages and tasks as Spark's UI counts them (see the module doc)."""
        listed = self.stages + self.stages_skipped + self.stages_unreported
        if not listed:
            return (
                "no stage reported: the query ended before the server's first progress report "
                "(spark.connect.progress.reportInterval), or the server sends none"
            )
        parts = [f"{self.stages:,} run"]
        if self.stages_skipped:
            parts.append(f"{self.stages_skipped:,} skipped")
        if self.stages_unreported:
            parts.append(f"{self.stages_unreported:,} not reported before the result ended")
        return (
            f"{count(listed, 'stage')}: {', '.join(parts)}; {count(self.tasks, 'task')} run, "
            f"{human_bytes(self.bytes_read)} read"
        )


def count(n: int, word: str, plural: str | None = None) -> str:
    """``1 row``, ``2 rows``, ``1,000 batches``."""
    return f"{n:,} {word if n == 1 else plural or word + 's'}"


def human_bytes(n: int) -> str:
    value = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if value < 1024 or unit == "TiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{n} B"  # pragma: no cover


def _metric_text(m: Metric) -> str:
    if m.kind == "size":
        return human_bytes(m.value)
    if m.kind == "timing":
        return f"{m.value} ms"
    if m.kind == "nsTiming":
        return f"{m.value / 1e6:.1f} ms"
    return f"{m.value:,}"


def operator_metrics(metrics: pb.ExecutePlanResponse.Metrics) -> tuple[OperatorMetrics, ...]:
    """The operators of a ``Metrics`` response, in the order the server sent them."""
    out = []
    for obj in metrics.metrics:
        values = tuple(
            Metric(key, v.name, int(v.value), v.metric_type) for key, v in sorted(obj.execution_metrics.items())
        )
        out.append(OperatorMetrics(obj.name, int(obj.plan_id), int(obj.parent), values))
    return tuple(out)


class QueryWatch:
    """Reads one execution's ``ExecutePlanResponse`` messages for progress and metrics (no
    I/O: recorded responses can be fed as well); see the module doc.

    ``feed`` every response in order, then ``finish`` once (``complete``: the result
    arrived whole). ``on_progress`` gets :class:`Progress` records, ``on_stats`` the
    :class:`QueryStats` when the query ended; both run in the thread reading the result."""

    def __init__(
        self,
        on_progress: ProgressCallback | None = None,
        on_stats: Callable[[QueryStats], object] | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._on_progress = on_progress
        self._on_stats = on_stats
        self._clock = clock
        self.started = clock()
        self.operation_id = ""
        self._stages: dict[int, StageProgress] = {}
        #: stages reported pending while a stage with a higher id had tasks done (skipped if never run)
        self._passed: set[int] = set()
        self._running = 0
        self.rows = 0
        self.batches = 0
        self.arrow_bytes = 0
        self.first_batch: float | None = None
        self.operators: tuple[OperatorMetrics, ...] = ()
        #: the ``ObservedMetrics`` responses, in order (a write's row count comes this way)
        self.observed: list[pb.ExecutePlanResponse.ObservedMetrics] = []
        self.finished: QueryStats | None = None
        self._last_notified = float("-inf")
        self._last_state: tuple[Any, ...] = ()
        self._callback_failed = False

    def feed(self, resp: pb.ExecutePlanResponse, arrow_data: bytes | memoryview | None = None) -> None:
        """Take in one response (``arrow_data``: its Arrow batch's bytes, when already read;
        see :class:`~connect_plan.responses.Received`)."""
        if resp.operation_id and not self.operation_id:
            self.operation_id = resp.operation_id
        if resp.HasField("execution_progress"):
            progress = resp.execution_progress
            moved = max((s.stage_id for s in progress.stages if s.num_completed_tasks or s.done), default=None)
            for s in progress.stages:
                seen = self._stages.get(s.stage_id)
                tasks_done, done = s.num_completed_tasks, s.done
                if seen is not None:  # a stage listed anew by a later job keeps what it did
                    tasks_done, done = max(tasks_done, seen.tasks_done), done or seen.done
                self._stages[s.stage_id] = StageProgress(s.stage_id, s.num_tasks, tasks_done, s.input_bytes_read, done)
                if moved is not None and s.stage_id < moved and not (tasks_done or done):
                    self._passed.add(s.stage_id)
            self._running = progress.num_inflight_tasks
            self._notify(force=True)
        if resp.HasField("arrow_batch"):
            ab = resp.arrow_batch
            self.arrow_bytes += len(ab.data if arrow_data is None else arrow_data)
            if self.first_batch is None:
                self.first_batch = self._clock() - self.started
            fields = ab.DESCRIPTOR.fields_by_name
            chunks = (
                ab.num_chunks_in_batch if "num_chunks_in_batch" in fields and ab.HasField("num_chunks_in_batch") else 1
            )
            index = ab.chunk_index if "chunk_index" in fields else 0
            if index >= chunks - 1:  # the chunk that completes a batch
                self.rows += ab.row_count
                self.batches += 1
                self._notify(force=False)
        if resp.HasField("metrics"):
            self.operators = operator_metrics(resp.metrics)
        if resp.observed_metrics:
            self.observed.extend(resp.observed_metrics)

    def finish(self, complete: bool) -> QueryStats:
        """The query ended: the last progress call (``done=True``), then the statistics."""
        if self.finished is not None:
            return self.finished
        skipped = unreported = 0
        if complete:  # the stages not run are out of the totals (see the module doc)
            # A stage seen with no task done may have run after the last report: Spark sends a
            # report only when something changed, so a stage whose tasks all end together
            # (a one-stage write) can be last seen at 0 done. The stage with the highest id
            # ran: Spark numbers a job's parent stages before its result stage, so it is the
            # result stage of the last job, and a complete result ran every job's result stage.
            last = max(self._stages, default=None)
            ran = {k: s for k, s in self._stages.items() if s.done or s.tasks_done or k == last}
            skipped = sum(1 for k in self._stages if k not in ran and k in self._passed)
            unreported = len(self._stages) - len(ran) - skipped
            self._stages = {k: StageProgress(s.stage_id, s.tasks, s.tasks, s.bytes_read, True) for k, s in ran.items()}
            self._running = 0
        record = self.progress(done=True, complete=complete, skipped=skipped, unreported=unreported)
        self._call(record)
        totals: dict[str, int] = {}
        for op in self.operators:
            for m in op.metrics:
                if m.kind == "sum":
                    totals[m.key] = totals.get(m.key, 0) + m.value
        self.finished = QueryStats(
            operation_id=self.operation_id,
            complete=complete,
            first_batch_seconds=self.first_batch,
            total_seconds=record.elapsed,
            rows=self.rows,
            batches=self.batches,
            arrow_bytes=self.arrow_bytes,
            stages=record.stages,
            stages_skipped=skipped,
            tasks=record.tasks,
            bytes_read=record.bytes_read,
            operators=self.operators,
            totals=MappingProxyType(totals),
            stages_unreported=unreported,
        )
        if log.isEnabledFor(logging.INFO):
            done = self.finished
            listed = done.stages + done.stages_skipped + done.stages_unreported
            log.info(
                "operation %s %s: %s in %s%s, total %.3f s%s",
                done.operation_id or "(no id)",
                "complete" if complete else "ended early",
                count(done.rows, "row"),
                count(done.batches, "batch", "batches"),
                "" if done.first_batch_seconds is None else f", first batch {done.first_batch_seconds:.3f} s",
                done.total_seconds,
                f"; {done.stage_text()}" if listed else "",
            )
        if self._on_stats is not None:
            try:
                self._on_stats(self.finished)
            except Exception as exc:
                log.warning("the on_stats callback raised %s: %s (ignored)", type(exc).__name__, exc)
        return self.finished

    def progress(
        self, *, done: bool = False, complete: bool = False, skipped: int = 0, unreported: int = 0
    ) -> Progress:
        """The record of now."""
        stages = tuple(self._stages.values())
        return Progress(
            operation_id=self.operation_id,
            elapsed=self._clock() - self.started,
            stages=len(stages),
            stages_done=sum(s.done for s in stages),
            tasks=sum(s.tasks for s in stages),
            tasks_done=sum(s.tasks_done for s in stages),
            running_tasks=self._running,
            bytes_read=sum(s.bytes_read for s in stages),
            rows=self.rows,
            batches=self.batches,
            arrow_bytes=self.arrow_bytes,
            done=done,
            complete=complete,
            stages_skipped=skipped,
            stage_list=stages,
            stages_unreported=unreported,
        )

    def _notify(self, *, force: bool) -> None:
        if self._on_progress is None:
            return
        now = self._clock()
        if not force and now - self._last_notified < BATCH_NOTIFY_SECONDS:
            return
        record = self.progress()
        state = (record.stage_list, record.running_tasks, record.rows)
        if state == self._last_state:  # the server repeats a report when nothing moved
            return
        self._last_notified, self._last_state = now, state
        self._call(record)

    def _call(self, record: Progress) -> None:
        if self._on_progress is None:
            return
        try:
            self._on_progress(record)
        except Exception as exc:
            # the query goes on: a display or a logging hook must not cost the result
            level = logging.DEBUG if self._callback_failed else logging.WARNING
            self._callback_failed = True
            log.log(
                level, "the on_progress callback raised %s: %s (ignored; the query goes on)", type(exc).__name__, exc
            )
