"""Client CPU per MiB of a table in each allocator state, each client in its own process.

The suite empties the allocators before every measured run (:func:`~benchmarks.measure.release_memory`),
so every table it times is built in freshly faulted memory. A process that serves one query
after another never empties them. This A/B measures both states for connect_plan's table and
PySpark's ``toArrow()``, one client per process (neither reuses memory the other freed), in
alternating pairs of processes::

    python -m benchmarks.allocator_state --remote sc://host:port [--rows 10000000] [--pairs 6] [--runs 4]

It prints a Markdown table of medians (docs/performance.md quotes one). It is not part of
``python -m benchmarks``: one run at 1e7 rows takes ~5 minutes.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from .measure import Series, paired, release_memory

CLIENTS = ("connect_plan", "pyspark")
STATES = ("emptied", "steady")
_ROOT = Path(__file__).resolve().parent.parent  # where `python -m benchmarks...` finds the package


def _worker(client: str, remote: str, rows: int, runs: int, state: str) -> list[dict[str, float]]:
    """``runs`` timed tables of ``rows`` rows by ``client`` after one warm-up, in this process."""
    from . import workloads as w

    if client == "pyspark":
        from pyspark.sql import SparkSession

        spark = SparkSession.builder.remote(remote).getOrCreate()
        df = w.generated_df(spark, rows)
        df.schema  # noqa: B018 - PySpark caches the analysed schema; read it once, as the suite does

        def table() -> Any:
            return df.toArrow()
    else:
        import connect_plan
        from connect_plan.formats import load_plan

        session = connect_plan.Client(remote)
        data, schema, steps = w.generated_plan(rows)
        plan = load_plan(steps, data, schema)

        def table() -> Any:
            return session.execute(plan)

    table()
    out = []
    for _ in range(runs):
        if state == "emptied":
            release_memory()
        before, t0 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
        result = table()
        wall, after = time.perf_counter() - t0, resource.getrusage(resource.RUSAGE_SELF)
        if result.num_rows != rows:
            raise AssertionError(f"{client} returned {result.num_rows} rows, not {rows}")
        mib = result.nbytes / 2**20
        cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
        out.append({"cpu_ms_per_mib": cpu * 1e3 / mib, "wall_s": wall, "faults": after.ru_minflt - before.ru_minflt})
        del result
    return out


def measure(remote: str, rows: int, pairs: int, runs: int) -> dict[str, dict[str, list[dict[str, float]]]]:
    """Samples by state and client: ``pairs`` processes per client and state, alternating
    which client goes first; sample i of one client pairs with sample i of the other."""
    samples: dict[str, dict[str, list[dict[str, float]]]] = {s: {c: [] for c in CLIENTS} for s in STATES}
    for i in range(pairs):
        for state in STATES:
            for client in CLIENTS if i % 2 == 0 else CLIENTS[::-1]:
                command = [sys.executable, "-m", "benchmarks.allocator_state", "--worker", client]
                command += ["--remote", remote, "--rows", str(rows), "--runs", str(runs), "--state", state]
                done = subprocess.run(command, cwd=_ROOT, capture_output=True, text=True, check=False)
                if done.returncode != 0:
                    raise RuntimeError(f"the {client} worker failed:\n{done.stderr[-3000:]}")
                samples[state][client].extend(json.loads(done.stdout.splitlines()[-1]))
    return samples


def summary(samples: dict[str, dict[str, list[dict[str, float]]]]) -> str:
    """A Markdown table: per state, each client's medians and the paired CPU and speed ratios."""

    def series(runs: list[dict[str, float]], key: str) -> Series:
        return Series(key, [r[key] for r in runs])

    lines = [
        "| allocator state | connect_plan CPU/MiB | faults | PySpark CPU/MiB | faults | CPU ratio (range) | speed ratio |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for state in STATES:
        ours, theirs = samples[state]["connect_plan"], samples[state]["pyspark"]
        cpu_ours, cpu_theirs = series(ours, "cpu_ms_per_mib"), series(theirs, "cpu_ms_per_mib")
        each = [a / b for a, b in zip(cpu_ours.samples, cpu_theirs.samples)]
        lines.append(
            f"| {state} | {cpu_ours.median:.2f} ms | {series(ours, 'faults').median:,.0f} "
            f"| {cpu_theirs.median:.2f} ms | {series(theirs, 'faults').median:,.0f} "
            f"| {paired(cpu_ours, cpu_theirs):.3f}× ({min(each):.2f}–{max(each):.2f}) "
            f"| {paired(series(theirs, 'wall_s'), series(ours, 'wall_s')):.2f}× |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--remote", required=True, help="Spark Connect URL of a running server")
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--pairs", type=int, default=6, help="processes per client and state")
    parser.add_argument("--runs", type=int, default=4, help="measured tables per process")
    parser.add_argument("--worker", choices=CLIENTS, help=argparse.SUPPRESS)
    parser.add_argument("--state", choices=STATES, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(_worker(args.worker, args.remote, args.rows, args.runs, args.state)))
        return 0
    print(summary(measure(args.remote, args.rows, args.pairs, args.runs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
