"""``kill`` (SIGTERM) of a running ``connect-plan run`` does what Ctrl-C does: the running
operation is released and interrupted on the server before the process exits (Python's
default action for SIGTERM ends the process at once and leaves the query running on the
server, holding its task slots). Proved through the real entry point in a subprocess, with the
``-vv`` RPC log showing the Interrupt RPC the server answered for that very operation."""

from __future__ import annotations

import json
import os
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.integration.test_cli_progress import ROOT

TASKS = 64  # 64 tasks sleeping 1 s each in the JVM: over 30 s on two cores, whatever the load


def slow_doc() -> dict[str, object]:
    sleep = {
        "fn": "reflect",
        "args": [{"lit": "java.lang.Thread"}, {"lit": "sleep"}, {"fn": "cast", "args": [{"lit": 1000}, "bigint"]}],
    }
    return {
        "input": {"range": {"start": 0, "end": TASKS, "step": 1, "numPartitions": TASKS}},
        "plan": [
            {"op": "withColumn", "payload": {"name": "slept", "expr": sleep}},
            {"op": "groupBy", "payload": {"group_by": [], "aggs": [{"agg": "count", "column": "slept", "alias": "n"}]}},
        ],
    }


@pytest.mark.spark_only("a JVM sleep through reflect (Sail has no reflect)")
def test_sigterm_interrupts_the_query_on_the_server_and_exits_143(spark_url: str, tmp_path: Path) -> None:
    plan = tmp_path / "slow.json"
    plan.write_text(json.dumps(slow_doc()))
    env = {"PATH": os.environ.get("PATH", os.defpath), "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "connect_plan", "run", str(plan), "-vv", "--remote", spark_url],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert proc.stderr is not None
    err = b""
    try:
        # the plan was analysed (AnalyzePlan logged), so ExecutePlan is next: let it start
        deadline = time.monotonic() + 120
        while b"rpc AnalyzePlan" not in err and time.monotonic() < deadline:
            ready, _, _ = select.select([proc.stderr], [], [], 0.5)
            if ready:
                err += os.read(proc.stderr.fileno(), 65536)
        assert b"rpc AnalyzePlan" in err, err.decode(errors="replace")
        time.sleep(3)
        sent = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        out, rest = proc.communicate(timeout=60)
        ended = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
    text = (err + rest).decode()
    assert proc.returncode == 128 + signal.SIGTERM, text
    assert out == b""
    assert "connect-plan: terminated (SIGTERM)" in text
    assert "Traceback" not in text
    executed = re.search(r"rpc ExecutePlan \w+ in [\d.]+ ms operation (\S+)", text)
    assert executed, text
    operation = executed.group(1)
    # the server answered an Interrupt for this operation before the process ended
    assert re.search(rf"rpc Interrupt OK in [\d.]+ ms operation {re.escape(operation)}", text), text
    assert ended < 30, f"the process took {ended:.1f} s to end after SIGTERM"
