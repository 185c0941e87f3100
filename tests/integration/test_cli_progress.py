"""The CLI's live progress line under a real pseudo-terminal, and ``run --stats``.

The CLI runs with its standard error on a pty (``pty.openpty``) and its standard output on
a pipe; what it writes to the terminal is fed to a terminal emulator (pyte), so the test
sees the screen as a user would: the line appears, advances, and is gone at the end,
while standard output holds only the result."""

from __future__ import annotations

import json
import math
import os
import re
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import engine

ROOT = Path(__file__).resolve().parent.parent.parent
TASKS = 16
SLEEP_MS = 500


def multi_stage_doc() -> dict[str, Any]:
    """16 scan tasks that each sleep 0.5 s in the JVM (``reflect`` of ``Thread.sleep``: the
    time does not depend on how busy the machine's CPUs are), a group-by and a global sort
    (three stages): about 4 s on two cores, tasks finishing one by one."""
    sleep = {
        "fn": "reflect",
        "args": [{"lit": "java.lang.Thread"}, {"lit": "sleep"}, {"fn": "cast", "args": [{"lit": SLEEP_MS}, "bigint"]}],
    }
    return {
        "input": {"range": {"start": 0, "end": TASKS, "step": 1, "numPartitions": TASKS}},
        "plan": [
            {"op": "withColumn", "payload": {"name": "slept", "expr": sleep}},
            {"op": "withColumn", "payload": {"name": "k", "expr": {"fn": "pmod", "args": [{"col": "id"}, {"lit": 4}]}}},
            {
                "op": "groupBy",
                "payload": {"group_by": ["k"], "aggs": [{"agg": "count", "column": "slept", "alias": "n"}]},
            },
            {"op": "orderBy", "payload": {"columns": ["k"]}},
        ],
    }


def env() -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", os.defpath), "PYTHONPATH": str(ROOT), "TERM": "xterm-256color"}


@pytest.mark.spark_only("Spark's ExecutionProgress responses (Sail sends none)")
def test_progress_line_under_a_pty_appears_advances_and_is_cleared(spark_url: str, tmp_path: Path) -> None:
    import pty

    pyte = pytest.importorskip("pyte")
    plan = tmp_path / "slow.json"
    plan.write_text(json.dumps(multi_stage_doc()))
    master, slave = pty.openpty()
    started = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", "connect_plan", "run", str(plan), "--format", "json", "--remote", spark_url],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=slave,
        env=env(),
    )
    os.close(slave)
    screen = pyte.Screen(120, 10)
    stream = pyte.ByteStream(screen)
    frames: list[tuple[float, str]] = []  # (seconds, the terminal's first line) after each write
    try:
        while True:
            ready, _, _ = select.select([master], [], [], 0.2)
            if ready:
                try:
                    data = os.read(master, 65536)
                except OSError:  # the child closed the pty
                    break
                if not data:
                    break
                stream.feed(data)
                frames.append((time.monotonic() - started, screen.display[0].rstrip()))
            elif proc.poll() is not None:
                break
            assert time.monotonic() - started < 240, "the query did not end in time"
        out, _ = proc.communicate(timeout=30)
        assert proc.returncode == 0
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    seconds = time.monotonic() - started
    shown = [(t, line) for t, line in frames if "tasks " in line]
    # the line appeared (after the first second), with stages, tasks, input read, rows, elapsed
    assert shown, f"no progress line in {len(frames)} writes over {seconds:.1f} s"
    first = shown[0][1]
    assert re.search(r"stages \d+/\d+ +tasks \d+/\d+.* read [\d.]+ \w*B +rows \d+", first), first
    assert shown[0][0] >= 0.9
    # it advanced: tasks done went up while it was shown, and so did the clock
    done = [int(m.group(1)) for _, line in shown if (m := re.search(r"tasks (\d+)/", line))]
    assert len(set(done)) >= 2 and done == sorted(done), done
    clocks = {m.group(0) for _, line in shown if (m := re.search(r"\d+:\d\d:\d\d", line))}
    assert len(clocks) >= 2, clocks
    # it was cleared: the terminal is blank at the end
    assert all(not row.strip() for row in screen.display), screen.display
    # standard output holds the result and nothing else
    rows = json.loads(out.decode())
    assert rows == [{"k": k, "n": TASKS // 4} for k in range(4)]
    assert b"\x1b" not in out


def test_no_progress_and_a_pipe_print_nothing_but_the_result(spark_url: str, tmp_path: Path) -> None:
    plan = tmp_path / "small.json"
    plan.write_text(json.dumps({"input": {"range": {"start": 0, "end": 5, "step": 1}}, "plan": []}))
    for flag in ("--no-progress", None):
        args = [sys.executable, "-m", "connect_plan", "run", str(plan), "--format", "json", "--remote", spark_url]
        out = subprocess.run(args + ([flag] if flag else []), capture_output=True, timeout=300, env=env())
        assert out.returncode == 0 and out.stderr == b"", out.stderr
        assert len(json.loads(out.stdout)) == 5


def run_with_stats(doc: dict[str, Any], tmp_path: Path, url: str) -> subprocess.CompletedProcess[str]:
    """``connect-plan run PLAN --format json --stats`` of ``doc``, which must succeed."""
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(doc))
    out = subprocess.run(
        [sys.executable, "-m", "connect_plan", "run", str(plan), "--format", "json", "--stats", "--remote", url],
        capture_output=True,
        text=True,
        timeout=300,
        env=env(),
    )
    assert out.returncode == 0, out.stderr
    return out


def test_stats_match_the_result(spark_url: str, tmp_path: Path) -> None:
    n, per_batch = 20, 3
    doc = {
        "input": {"range": {"start": 0, "end": n, "step": 1, "numPartitions": 1}},
        "plan": [{"op": "orderBy", "payload": {"columns": ["id"]}}],
        "conf": {"spark.sql.execution.arrow.maxRecordsPerBatch": str(per_batch)},
    }
    out = run_with_stats(doc, tmp_path, spark_url)
    rows = json.loads(out.stdout)  # stdout: only the result
    m = re.search(r"result +([\d,]+) rows? in ([\d,]+) batch(?:es)?, [\d.]+ \w*B of Arrow", out.stderr)
    assert m, out.stderr
    assert int(m.group(1).replace(",", "")) == len(rows) == n
    if engine() == "spark":
        assert int(m.group(2)) == math.ceil(n / per_batch)  # Spark cuts batches at maxRecordsPerBatch
        assert re.search(r"operation +[0-9a-f-]{36}", out.stderr) and "time           first batch" in out.stderr
        assert "Range #" in out.stderr  # the server's metrics per operator


@pytest.mark.spark_only("Spark's ExecutionProgress responses (Sail sends none)")
def test_stats_of_a_write(spark_url: str, tmp_path: Path) -> None:
    """``--stats`` on a plan that writes: the report on stdout, the write's own statistics
    (its operation, stages and tasks; no rows received) on stderr. Two write tasks each
    sleep 4 × 0.4 s in the JVM, so the write outlasts its first 100 ms progress report
    whatever the machine's speed. Spark reports only changes, and both tasks end together:
    the one stage is last seen at 0 of 2 tasks done, and still counts as run (it was once
    counted as skipped: "no stages reported", in 3 of 6 runs here)."""
    target = tmp_path / "out"
    sleep = {
        "fn": "reflect",
        "args": [{"lit": "java.lang.Thread"}, {"lit": "sleep"}, {"fn": "cast", "args": [{"lit": 400}, "bigint"]}],
    }
    doc = {
        "input": {"range": {"start": 0, "end": 8, "step": 1, "numPartitions": 2}},
        "plan": [{"op": "withColumn", "payload": {"name": "slept", "expr": sleep}}],
        "output": {"format": "json", "path": str(target)},
        "conf": {"spark.connect.progress.reportInterval": "100ms"},
    }
    out = run_with_stats(doc, tmp_path, spark_url)
    (report,) = json.loads(out.stdout)
    assert (report["operation"], report["target"], report["rows"]) == ("write", str(target), 8)
    written = [json.loads(line) for f in sorted(target.glob("part-*")) for line in f.read_text().splitlines()]
    assert sorted(r["id"] for r in written) == list(range(8))
    assert re.search(r"result +0 rows in 0 batches, 0 B of Arrow\n", out.stderr), out.stderr
    assert re.search(r"operation +[0-9a-f-]{36}", out.stderr)
    m = re.search(r"spark +(\d+) stages?: (\d+) run\b.*; (\d+) tasks? run", out.stderr)
    assert m and int(m.group(2)) >= 1 and int(m.group(3)) == 2, out.stderr  # the 2 partitions written


@pytest.mark.spark_only("Spark's explain text (its optimized and physical plans) and step location")
def test_explain_draws_the_plan_in_every_format(spark_url: str, tmp_path: Path) -> None:
    example = ROOT / "examples" / "sales_by_region.json"
    base = [sys.executable, "-m", "connect_plan", "explain", str(example), "--remote", spark_url]
    mermaid = subprocess.run([*base, "--format", "mermaid"], capture_output=True, text=True, timeout=300, env=env())
    assert mermaid.returncode == 0 and mermaid.stdout.startswith("flowchart TD"), mermaid.stderr
    dot = subprocess.run(
        [*base, "--format", "dot", "--analyzed"], capture_output=True, text=True, timeout=300, env=env()
    )
    assert dot.returncode == 0 and "Spark: physical plan" in dot.stdout and "2: groupBy" in dot.stdout
    for fmt in ("svg", "png"):
        target = tmp_path / f"plan.{fmt}"
        out = subprocess.run(
            [*base, "--format", fmt, "--output", str(target)], capture_output=True, timeout=300, env=env()
        )
        assert out.returncode == 0 and out.stdout == b"", out.stderr
        data = target.read_bytes()
        assert data.startswith(b"\x89PNG") if fmt == "png" else b"<svg" in data
    # a plan the server refuses: drawn with its failing step marked, the error on stderr, exit 3
    bad = tmp_path / "bad.json"
    doc = json.loads(example.read_text())
    # (a field of a string column: the name resolves, so only the server can refuse it; a
    # column no input has would be a PlanError found before the network)
    doc["plan"][2]["payload"]["group_by"] = ["store.nope"]
    bad.write_text(json.dumps(doc))
    refused = subprocess.run(
        [
            sys.executable,
            "-m",
            "connect_plan",
            "explain",
            str(bad),
            "--remote",
            spark_url,
            "--format",
            "mermaid",
            "--analyzed",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env=env(),
    )
    assert refused.returncode == 3 and "server error" in refused.stderr
    assert "class n4 failed" in refused.stdout and "2: groupBy" in refused.stdout


def test_verbose_says_what_a_normal_run_does(spark_url: str) -> None:
    """``-v`` on a plain run of an example (through the installed entry point): the plan as
    read, the server and session, and the operation with its rows, batches and times, on
    stderr; stdout holds the same result as without ``-v``."""
    from tests.support.processes import connect_plan

    plain = connect_plan("run", "examples/sales_by_region.json", "--format", "json", remote=spark_url, cwd=ROOT)
    out = connect_plan("run", "examples/sales_by_region.json", "--format", "json", "-v", remote=spark_url, cwd=ROOT)
    assert plain.returncode == out.returncode == 0 and not plain.stderr, out.stderr
    assert json.loads(out.stdout) == json.loads(plain.stdout)
    lines = out.stderr.splitlines()
    assert "connect-plan INFO plan: 5 inline rows x 4 columns; 4 steps: Filter, Join, GroupBy, OrderBy" in lines
    assert any(
        re.fullmatch(rf"connect-plan INFO server {re.escape(spark_url)}: \S+ \S+, session [0-9a-f-]{{36}}", x)
        for x in lines
    )
    done = [x for x in lines if x.startswith("connect-plan INFO operation ")]
    assert len(done) == 1 and re.search(r" complete: 2 rows in 1 batch, first batch [\d.]+ s, total [\d.]+ s", done[0])
