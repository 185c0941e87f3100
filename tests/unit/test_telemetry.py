"""Progress and statistics read from ExecutePlanResponse protos (QueryWatch), and the DEBUG
log of every RPC: no server here, the protos are made by hand as Spark 4 sends them."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from connect_plan import _pyspark_import  # noqa: F401  (before any PySpark import)
from connect_plan.telemetry import Progress, QueryStats, QueryWatch, operator_metrics

# isort: split
from pyspark.sql.connect import proto as pb

OP = "op-1234"


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def progress(*stages: tuple[int, int, int, bool], running: int = 0, read: int = 0) -> pb.ExecutePlanResponse:
    resp = pb.ExecutePlanResponse(operation_id=OP)
    resp.execution_progress.num_inflight_tasks = running
    for sid, tasks, done_tasks, done in stages:
        resp.execution_progress.stages.add(
            stage_id=sid, num_tasks=tasks, num_completed_tasks=done_tasks, input_bytes_read=read, done=done
        )
    return resp


def batch(rows: int, data: bytes = b"x" * 10, chunk: tuple[int, int] | None = None) -> pb.ExecutePlanResponse:
    resp = pb.ExecutePlanResponse(operation_id=OP)
    resp.arrow_batch.row_count = rows
    resp.arrow_batch.data = data
    if chunk is not None:
        resp.arrow_batch.chunk_index, resp.arrow_batch.num_chunks_in_batch = chunk
    return resp


def metrics() -> pb.ExecutePlanResponse:
    resp = pb.ExecutePlanResponse(operation_id=OP)
    top = resp.metrics.metrics.add(name="HashAggregate", plan_id=7, parent=3)
    top.execution_metrics["numOutputRows"].CopyFrom(
        pb.ExecutePlanResponse.Metrics.MetricValue(name="number of output rows", value=97, metric_type="sum")
    )
    top.execution_metrics["peakMemory"].CopyFrom(
        pb.ExecutePlanResponse.Metrics.MetricValue(name="peak memory", value=2048, metric_type="size")
    )
    scan = resp.metrics.metrics.add(name="Range", plan_id=9, parent=7)
    scan.execution_metrics["numOutputRows"].CopyFrom(
        pb.ExecutePlanResponse.Metrics.MetricValue(name="number of output rows", value=1000, metric_type="sum")
    )
    return resp


def test_progress_records_in_order_and_the_last_at_100_percent_with_skipped_stages() -> None:
    clock = Clock()
    seen: list[Progress] = []
    stats: list[QueryStats] = []
    watch = QueryWatch(seen.append, stats.append, clock=clock)
    clock.now += 0.5
    watch.feed(progress((1, 8, 2, False), running=2))
    watch.feed(progress((1, 8, 2, False), running=2))  # repeated as Spark does: not called again
    clock.now += 0.5
    # stage 2 is a stage the plan did not need (its shuffle reused): Spark numbers it before the
    # result stage 3, which a complete result ran
    watch.feed(progress((1, 8, 8, True), (2, 8, 0, False), (3, 4, 1, False), running=3, read=100))
    clock.now += 0.5
    watch.feed(batch(60))
    clock.now += 0.01
    watch.feed(batch(40))  # within BATCH_NOTIFY_SECONDS of the last call: no call
    watch.feed(metrics())
    out = watch.finish(complete=True)
    assert [p.tasks_done for p in seen] == [2, 9, 9, 12]
    assert [p.rows for p in seen] == [0, 0, 60, 100]
    assert [p.done for p in seen] == [False, False, False, True]
    first, *_, last = seen
    assert (first.stages, first.tasks, first.running_tasks, first.elapsed) == (1, 8, 2, 0.5)
    # stage 2 never ran: skipped, its tasks out of the totals, and the last call at 100%
    assert (last.stages, last.stages_skipped, last.tasks, last.tasks_done, last.fraction) == (2, 1, 12, 12, 1.0)
    assert last.complete and last.running_tasks == 0 and last.bytes_read == 200
    assert stats == [out]
    assert (out.operation_id, out.rows, out.batches, out.arrow_bytes, out.complete) == (OP, 100, 2, 20, True)
    assert out.first_batch_seconds == pytest.approx(1.5) and out.total_seconds == pytest.approx(1.51)
    assert (out.stages, out.stages_skipped, out.tasks) == (2, 1, 12)
    assert [o.name for o in out.operators] == ["HashAggregate", "Range"]
    assert out.operators[0].value("numOutputRows") == 97 and out.operators[0].value("nope") is None
    assert out.totals["numOutputRows"] == 1097 and "peakMemory" not in out.totals  # sums only
    assert watch.finish(complete=True) is out  # once
    text = out.describe()
    assert OP in text and "100 rows in 2 batches" in text and "peak memory 2.0 KiB" in text
    assert "spark          3 stages: 2 run, 1 skipped; 12 tasks run, 200 B read" in text
    assert out.as_dict()["operators"][0]["metrics"]["numOutputRows"] == {"value": 97, "kind": "sum"}


def test_the_result_stage_last_seen_before_any_task_ended_ran() -> None:
    """Spark reports progress only when something changed: a one-stage write whose two
    tasks end together is last seen at 0 of 2 tasks, then the stream completes. That stage
    (the highest id: the last job's result stage) ran; lower ones seen the same way may
    have run after the last report or been skipped: not reported, said so. An incomplete
    result counts what was seen."""
    watch = QueryWatch()
    watch.feed(progress((4, 2, 0, False), running=2))
    last = watch.finish(complete=True)
    assert (last.stages, last.stages_skipped, last.stages_unreported, last.tasks) == (1, 0, 0, 2)
    watch = QueryWatch()
    watch.feed(progress((4, 8, 0, False), (5, 2, 0, False), (6, 2, 0, False), running=2))
    out = watch.finish(complete=True)
    assert (out.stages, out.stages_skipped, out.stages_unreported, out.tasks) == (1, 0, 2, 2)
    assert "3 stages: 1 run, 2 not reported before the result ended; 2 tasks run" in out.describe()
    seen: list[Progress] = []
    watch = QueryWatch(seen.append)
    watch.feed(progress((4, 2, 0, False), running=2))
    out = watch.finish(complete=False)
    assert (out.stages, out.stages_skipped, out.tasks, out.complete) == (1, 0, 2, False)
    assert (seen[-1].done, seen[-1].tasks_done, seen[-1].fraction) == (True, 0, 0.0)  # as seen, not 100%


def test_chunks_of_one_batch_count_once() -> None:
    watch = QueryWatch()
    watch.feed(batch(5, b"ab", chunk=(0, 3)))
    watch.feed(batch(5, b"cd", chunk=(1, 3)))
    assert (watch.rows, watch.batches) == (0, 0)
    watch.feed(batch(5, b"ef", chunk=(2, 3)))
    watch.feed(batch(2, b"gh"))
    assert (watch.rows, watch.batches, watch.arrow_bytes) == (7, 2, 8)


def test_arrow_bytes_already_read_are_counted_instead_of_the_messages() -> None:
    """The result stream reads a batch's bytes once and hands them on: the watch counts the
    bytes it is handed, not the message's (emptied here to tell the two apart)."""
    watch = QueryWatch()
    watch.feed(batch(3, b""), b"abcdef")
    watch.feed(batch(2, b"xyz"))
    assert (watch.rows, watch.batches, watch.arrow_bytes) == (5, 2, 9)


def test_an_incomplete_query_keeps_its_counts(caplog: pytest.LogCaptureFixture) -> None:
    seen: list[Progress] = []
    watch = QueryWatch(seen.append)
    watch.feed(progress((1, 8, 3, False), running=2))
    out = watch.finish(complete=False)
    assert seen[-1].done and not seen[-1].complete and seen[-1].tasks_done == 3 and seen[-1].tasks == 8
    assert not out.complete and out.first_batch_seconds is None and out.stages_skipped == 0


def test_a_raising_callback_is_logged_once_and_ignored(caplog: pytest.LogCaptureFixture) -> None:
    calls: list[Progress] = []

    def bad(p: Progress) -> None:
        calls.append(p)
        raise RuntimeError("display broke")

    def bad_stats(s: QueryStats) -> None:
        raise ValueError("stats broke")

    watch = QueryWatch(bad, bad_stats)
    with caplog.at_level(logging.DEBUG, logger="connect_plan"):
        watch.feed(progress((1, 2, 1, False)))
        watch.feed(progress((1, 2, 2, True)))
        out = watch.finish(complete=True)
    assert len(calls) == 3 and out.complete
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 2  # on_progress once (then DEBUG), on_stats once
    assert "display broke" in warnings[0].getMessage() and "stats broke" in warnings[1].getMessage()


def test_operator_metrics_of_an_empty_response() -> None:
    assert operator_metrics(pb.ExecutePlanResponse.Metrics()) == ()


class _Call:
    def __init__(self) -> None:
        self.callbacks: list[Any] = []

    def add_done_callback(self, fn: Any) -> None:
        self.callbacks.append(fn)

    def code(self) -> Any:
        import grpc

        return grpc.StatusCode.OK


def test_every_rpc_is_logged_at_debug_without_metadata(caplog: pytest.LogCaptureFixture) -> None:
    """The transport's stub logs each RPC when it ends (a stream when its call is done),
    never its metadata; with DEBUG off it registers nothing."""
    from connect_plan.channel import DirectStub, _ChannelGuard

    secret = "Bearer s3cr3t-token"
    calls: list[_Call] = []

    class Stream(_Call):
        def __next__(self) -> Any:
            raise StopIteration

    class Stub:
        def ExecutePlan(self, request: Any, timeout: Any = None, metadata: Any = None) -> Any:
            assert ("authorization", secret) in metadata  # sent, not logged
            calls.append(Stream())
            return calls[-1]

    stub = DirectStub(Stub(), _ChannelGuard(), (("authorization", secret),))
    request = pb.ExecutePlanRequest(session_id="sess-1", operation_id=OP)
    with caplog.at_level(logging.DEBUG, logger="connect_plan"):
        stub.ExecutePlan(request, timeout=5.0)
        for fn in calls[-1].callbacks:
            fn(calls[-1])
    (record,) = [r for r in caplog.records if r.name == "connect_plan"]
    text = record.getMessage()
    assert text.startswith("rpc ExecutePlan OK in ") and f"operation {OP}" in text and "session sess-1" in text
    assert "s3cr3t" not in text and "s3cr3t" not in repr(record.args)
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="connect_plan"):  # DEBUG off: nothing registered
        stub.ExecutePlan(request, timeout=5.0)
    assert not calls[-1].callbacks and not caplog.records


def test_stages_are_counted_as_sparks_ui_counts_them() -> None:
    """The reports of a query with adaptive execution (recorded from Spark 4.3 with reports
    every 10 ms, ids shortened): each later job lists the stages whose output it reuses under
    new ids, never run (skipped); a stage once reported run stays run when a job lists it
    again with no task done; one row, one batch, one task and one stage are said in the
    singular."""
    watch = QueryWatch()
    for report in (
        [(77, 2, 0, False)],
        [(77, 2, 2, True)],
        [(77, 2, 2, True), (78, 2, 2, True)],
        [(77, 2, 2, True), (78, 2, 2, True), (81, 1, 1, True), (80, 2, 0, False)],
        [(77, 2, 0, False), (78, 2, 2, True), (81, 1, 1, True), (80, 2, 0, False), (83, 1, 0, False)],
        [(78, 2, 2, True), (81, 1, 1, True), (80, 2, 0, False), (83, 1, 1, True), (82, 2, 0, False)],
        [(81, 1, 1, True), (83, 1, 1, True), (86, 1, 1, True), (85, 1, 0, False), (84, 2, 0, False)],
    ):
        watch.feed(progress(*report))
    watch.feed(batch(1))
    out = watch.finish(complete=True)
    assert (out.stages, out.stages_skipped, out.stages_unreported, out.tasks) == (5, 4, 0, 7)
    assert "9 stages: 5 run, 4 skipped; 7 tasks run" in out.describe()
    assert "1 row in 1 batch," in out.describe()
    one = QueryWatch()
    one.feed(progress((3, 1, 1, True)))
    assert "spark          1 stage: 1 run; 1 task run, 0 B read" in one.finish(complete=True).describe()
    silent = QueryWatch()
    silent.feed(batch(2))
    text = silent.finish(complete=True).describe()
    assert "no stage reported: the query ended before the server's first progress report" in text
