"""Run the benchmark suite: ``python -m benchmarks [--remote sc://...] [--size full|tiny]``.

Without ``--remote`` (or ``SPARK_REMOTE``) a local Spark Connect server is started for the
run (``--driver-memory``, default 6g: the 1e7-row scenarios need it) and stopped after.
Writes ``report.json`` (every sample) and ``summary.md`` (medians, ratios, targets) to
``--out`` (default ``benchmarks/results``).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from . import scenarios
from .measure import env_info

#: scenario sizes: full (the issue's) and tiny (the smoke test's)
SIZES: dict[str, dict[str, Any]] = {
    "full": {"translation": (10, 100, 1000), "throughput": (1_000_000, 10_000_000), "upload": (100_000, 1_000_000), "analytical": 10_000_000},
    "tiny": {"translation": (10, 20), "throughput": (10_000,), "upload": (1_000, 20_000), "analytical": 10_000},
}
SCENARIOS = ("translation", "small_query", "throughput", "upload", "analytical")


def run_suite(
    url: str,
    *,
    size: str = "full",
    repeat: int = 3,
    only: Sequence[str] = SCENARIOS,
    robin: bool = True,
    log: Callable[[str], None] = lambda m: print(m, file=sys.stderr, flush=True),
) -> dict[str, Any]:
    """Run the scenarios against ``url`` and return the report (see module doc)."""
    from pyspark.sql import SparkSession

    import connect_plan

    sizes = SIZES[size]
    robin_mod = None
    if robin:
        try:
            import robin_sparkless as robin_mod
        except ImportError:
            log("robin-sparkless is not installed; its columns are left out")
    spark = SparkSession.builder.remote(url).create()
    client = connect_plan.connect(url)
    started = time.time()
    results: list[dict[str, Any]] = []
    try:
        ctx = scenarios.Context(url, client, spark, repeat, robin_mod, log)
        server_version = client.server_version()
        runners: dict[str, Callable[[], list[dict[str, Any]]]] = {
            "translation": lambda: scenarios.translation(ctx, sizes["translation"]),
            "small_query": lambda: scenarios.small_query(ctx),
            "throughput": lambda: scenarios.throughput(ctx, sizes["throughput"]),
            "upload": lambda: scenarios.upload(ctx, sizes["upload"]),
            "analytical": lambda: scenarios.analytical(ctx, sizes["analytical"]),
        }
        for name in only:
            log(f"== {name}")
            results.extend(runners[name]())
    finally:
        client.close()
        spark.stop()
    return {
        "suite": "connect_plan benchmarks",
        "size": size,
        "repeat": repeat,
        "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started)),
        "seconds": round(time.time() - started, 1),
        "server": {"spark_version": server_version},
        "environment": env_info(),
        "results": results,
    }


def _fmt(v: float) -> str:
    if isinstance(v, float) and math.isnan(v):
        return "n/a"
    if abs(v) >= 100:
        return f"{v:,.0f}"
    if abs(v) >= 10:
        return f"{v:.1f}"
    return f"{v:.3g}"


def summary_markdown(report: dict[str, Any]) -> str:
    env = report["environment"]
    lines = [
        "# connect_plan benchmark summary",
        "",
        f"{report['started']}, size `{report['size']}`, {report['repeat']} repetitions; Spark {report['server']['spark_version']} "
        f"server; client: Python {env['python']}, PySpark {env['pyspark']}, pyarrow {env['pyarrow']}, {env['cpus']} CPUs"
        + (f", robin-sparkless {env['robin_sparkless']}" if env.get("robin_sparkless") else "")
        + ". Medians; every sample is in report.json.",
        "",
    ]
    scenario = None
    for r in report["results"]:
        if r["scenario"] != scenario:
            scenario = r["scenario"]
            lines += [f"## {scenario}", ""]
        lines.append(f"**{r['case']}**" + ("" if r.get("same_result", True) else " — RESULTS DIFFER"))
        lines.append("")
        if r["metrics"]:
            lines += ["| measure | median |", "|---|---|"]
            for name, m in r["metrics"].items():
                lines.append(f"| {name} | {_fmt(m['median'])} {m['unit']} |")
            lines.append("")
        if r["ratios"]:
            lines.append("Ratios: " + "; ".join(f"{k} = **{_fmt(v)}**" for k, v in r["ratios"].items()))
            lines.append("")
        for t in r["targets"]:
            op = "≤" if t["kind"] == "max" else "≥"
            lines.append(f"- {'met' if t['met'] else 'MISSED'}: {t['name']} — measured {_fmt(t['value'])} ({op} {t['limit']})")
        if r["targets"]:
            lines.append("")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split("\n\n")[0])
    parser.add_argument("--remote", help="Spark Connect URL (default: $SPARK_REMOTE, else a local server started for the run)")
    parser.add_argument("--size", choices=sorted(SIZES), default="full")
    parser.add_argument("--repeat", type=int, default=3, help="repetitions per measurement (small cases run 10× as many)")
    parser.add_argument("--only", nargs="+", choices=SCENARIOS, default=list(SCENARIOS), help="run only these scenarios")
    parser.add_argument("--no-robin", action="store_true", help="leave robin-sparkless out")
    parser.add_argument("--driver-memory", default="6g", help="driver memory of a local server started for the run")
    parser.add_argument("--out", default=str(Path(__file__).resolve().parent / "results"), help="directory for report.json and summary.md")
    args = parser.parse_args(argv)

    url = args.remote or os.environ.get("SPARK_REMOTE")
    server = None
    if not url:
        from connect_plan.server import LocalServer

        server = LocalServer(tempfile.mkdtemp(prefix="connect-plan-bench-"))
        print(f"starting a local Spark Connect server (driver memory {args.driver_memory})...", file=sys.stderr)
        url = server.start(driver_memory=args.driver_memory).url
    try:
        report = run_suite(url, size=args.size, repeat=args.repeat, only=args.only, robin=not args.no_robin)
    finally:
        if server is not None:
            server.stop()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "report.json").write_text(json.dumps(report, indent=1, default=str) + "\n")
    (out / "summary.md").write_text(summary_markdown(report) + "\n")
    print(summary_markdown(report))
    print(f"\nwrote {out / 'report.json'} and {out / 'summary.md'}", file=sys.stderr)
    missed = [t["name"] for r in report["results"] for t in r["targets"] if not t["met"]]
    differ = [f"{r['scenario']} {r['case']}" for r in report["results"] if not r.get("same_result", True)]
    if differ:
        print(f"results differ between clients: {differ}", file=sys.stderr)
        return 1
    if missed:
        print(f"{len(missed)} target(s) missed (see the summary)", file=sys.stderr)
    return 0
