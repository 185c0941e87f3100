"""Run the benchmark suite: ``python -m benchmarks [--remote sc://...|sail] [--size full|tiny]``.

Without ``--remote`` (or ``SPARK_REMOTE``) a local Spark Connect server is started for the
run (``--driver-memory``, default 6g: the 1e7-row scenarios need it) and stopped after.
``--remote sail`` starts an in-process Sail server (pysail; its targets are Sail's), as
connect_plan's ``remote="sail"`` does. Writes ``report.json`` (every sample, the code's
commit, the command and the machine's load) and ``summary.md`` (medians, ratios, targets)
to ``--out`` (default ``benchmarks/results``, not committed), or with ``--publish`` to
``docs/benchmarks/<engine>/``, the committed report the README's figures come from.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shlex
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from . import flight_sql, peers, scenarios
from .measure import env_info

#: scenario sizes: full (the issue's) and tiny (the smoke test's)
SIZES: dict[str, dict[str, Any]] = {
    "full": {
        "translation": (10, 100, 1000),
        "throughput": (1_000_000, 10_000_000),
        # throughput's rounds beyond --repeat (its medians moved with the server's state)
        "throughput_extra_rounds": 2,
        "upload": (100_000, 1_000_000),
        "analytical": 10_000_000,
        "link_throughput": 1_000_000,
        "cold_start": 5,
        # rows of the throughput case, concurrent clients, their seconds, connect-plan run processes
        "flight_sql": (10_000_000, 32, 60.0, 5),
        "peers": (10_000_000, 1_000_000),
        "samples": 20,
    },
    "tiny": {
        "translation": (10, 20),
        "throughput": (10_000,),
        "throughput_extra_rounds": 0,
        "upload": (1_000, 5_000),
        "analytical": 10_000,
        "link_throughput": 10_000,
        "cold_start": 1,
        "flight_sql": (10_000, 4, 2.0, 1),
        "peers": (10_000, 10_000),
        "samples": 5,
    },
}
SCENARIOS = (
    "translation",
    "small_query",
    "throughput",
    "upload",
    "analytical",
    "link_latency",
    "link_throughput",
    "cold_start",
    "flight_sql",
    "peers",
)
ENGINES = ("spark", "sail")
ROOT = Path(__file__).resolve().parent.parent
#: where ``--publish`` writes the committed report (one folder per engine)
PUBLISHED = ROOT / "docs" / "benchmarks"


def resolve_server(remote: str) -> tuple[str, str]:
    """(URL, engine) of ``remote``: ``sail`` starts (once per process) an in-process Sail
    server and answers its ``sc://`` URL; anything else is a Spark Connect URL of a Spark
    server (``--engine sail`` says otherwise)."""
    if remote == "sail":
        from connect_plan.sail import in_process_url

        return in_process_url(), "sail"
    return remote, "spark"


#: the published reports, as git names them: changes there are not changes to the code measured
_REPORTS = PUBLISHED.relative_to(ROOT).as_posix() + "/"


def code_version(root: Path = ROOT) -> dict[str, Any]:
    """The commit of the code measured; the tracked files changed in the work tree
    (``changed``); and whether any of them is more than a published report (``dirty``: a
    report committed after the run of one engine is not a change to the code the next measures)."""

    def git(*args: str) -> str | None:
        try:
            out = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, timeout=10)
        except (OSError, subprocess.SubprocessError):
            return None
        return out.stdout if out.returncode == 0 else None

    status = git("status", "--porcelain", "--untracked-files=no")
    commit = git("rev-parse", "HEAD")
    if status is None:
        return {"commit": commit and commit.strip(), "dirty": None, "changed": None}
    changed = sorted(line[3:] for line in status.splitlines() if line.strip())
    return {"commit": commit and commit.strip(), "dirty": bool(_outside_reports(changed)), "changed": changed}


def _outside_reports(paths: Any) -> list[str]:
    return [p for p in paths or () if not p.startswith(_REPORTS)]


def _code_changes(code: dict[str, Any]) -> list[str]:
    """The changed files a summary names: those outside the published reports (the first 5)."""
    paths = _outside_reports(code.get("changed"))
    return paths[:5] + ([f"{len(paths) - 5} more"] if len(paths) > 5 else [])


def load_average() -> list[float] | None:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def run_suite(
    url: str,
    *,
    size: str = "full",
    repeat: int = 3,
    only: Sequence[str] = SCENARIOS,
    robin: bool = True,
    engine: str | None = None,
    log: Callable[[str], None] = lambda m: print(m, file=sys.stderr, flush=True),
) -> dict[str, Any]:
    """Run the scenarios against ``url`` (a Spark Connect URL, or ``sail``) and return the
    report (see module doc). ``engine``: the server's, when ``url`` does not say."""
    from pyspark.sql import SparkSession

    import connect_plan

    url, found = resolve_server(url)
    engine = engine or found
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
    load_before = load_average()
    results: list[dict[str, Any]] = []
    try:
        ctx = scenarios.Context(url, client, spark, repeat, robin_mod, log, engine, sizes["samples"])
        server_version = client.server_version()
        runners: dict[str, Callable[[], list[dict[str, Any]]]] = {
            "translation": lambda: scenarios.translation(ctx, sizes["translation"]),
            "small_query": lambda: scenarios.small_query(ctx),
            "throughput": lambda: scenarios.throughput(ctx, sizes["throughput"], sizes["throughput_extra_rounds"]),
            "upload": lambda: scenarios.upload(ctx, sizes["upload"]),
            "analytical": lambda: scenarios.analytical(ctx, sizes["analytical"]),
            "link_latency": lambda: scenarios.link_latency(ctx),
            "link_throughput": lambda: scenarios.link_throughput(ctx, sizes["link_throughput"]),
            "cold_start": lambda: scenarios.cold_start(ctx, sizes["cold_start"] * repeat),
            "flight_sql": lambda: flight_sql.flight_sql(ctx, *sizes["flight_sql"]),
            "peers": lambda: peers.peers(ctx, *sizes["peers"]),
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
        "server": {
            "engine": engine,
            "spark_version": server_version,
            "in_process": engine == "sail" and url.startswith("sc://127.0.0.1"),
        },
        "code": code_version(),
        "environment": {**env_info(), "load_average_before": load_before, "load_average_after": load_average()},
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
    server = report["server"]
    engine = server.get("engine", "spark")
    if engine == "sail":
        where = (
            "Sail server"
            + (" in the benchmark's process" if server.get("in_process") else "")
            + f" (reports Spark {server['spark_version']})"
        )
    else:
        where = f"Spark {server['spark_version']} server"
    code = report.get("code") or {}
    load = env.get("load_average_before"), env.get("load_average_after")
    lines = [
        "# connect_plan benchmark summary",
        "",
        f"{report['started']}, size `{report['size']}`, {report['repeat']} repetitions; {where}; "
        f"client: Python {env['python']}, PySpark {env['pyspark']}, pyarrow {env['pyarrow']}, {env['cpus']} CPUs"
        + (f", robin-sparkless {env['robin_sparkless']}" if env.get("robin_sparkless") else "")
        + (f"; load average {load[0][0]} before, {load[1][0]} after" if load[0] and load[1] else "")
        + (
            f"; code {code['commit'][:12]}"
            + (f" with uncommitted changes to {', '.join(_code_changes(code))}" if code.get("dirty") else "")
            if code.get("commit")
            else ""
        )
        + ". Medians; every sample is in report.json.",
        "",
    ]
    if report.get("command"):
        lines += [f"Measured with `{shlex.join(report['command'])}`.", ""]
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
            lines.append(
                f"- {'met' if t['met'] else 'MISSED'}: {t['name']} — measured {_fmt(t['value'])} ({op} {t['limit']})"
            )
        if r["targets"]:
            lines.append("")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--remote",
        help="Spark Connect URL, or 'sail' for an in-process Sail server "
        "(default: $SPARK_REMOTE, else a local Spark server started for the run)",
    )
    parser.add_argument(
        "--engine",
        choices=ENGINES,
        help="the server's engine, for its targets (default: sail for --remote sail, else spark)",
    )
    parser.add_argument("--size", choices=sorted(SIZES), default="full")
    parser.add_argument(
        "--repeat", type=int, default=3, help="repetitions per measurement (small cases run 10× as many)"
    )
    parser.add_argument(
        "--only", nargs="+", choices=SCENARIOS, default=list(SCENARIOS), help="run only these scenarios"
    )
    parser.add_argument("--no-robin", action="store_true", help="leave robin-sparkless out")
    parser.add_argument("--driver-memory", default="6g", help="driver memory of a local server started for the run")
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--out", help="directory for report.json and summary.md (default: benchmarks/results, git-ignored)"
    )
    where.add_argument(
        "--publish",
        action="store_true",
        help="write them to docs/benchmarks/<engine>/ (committed: the report the README quotes); full size only",
    )
    args = parser.parse_args(argv)
    if args.publish and args.size != "full":
        parser.error("--publish writes the committed report: run it at --size full")

    url = args.remote or os.environ.get("SPARK_REMOTE")
    server = None
    if not url:
        from connect_plan.server import LocalServer

        server = LocalServer(tempfile.mkdtemp(prefix="connect-plan-bench-"))
        print(f"starting a local Spark Connect server (driver memory {args.driver_memory})...", file=sys.stderr)
        url = server.start(driver_memory=args.driver_memory).url
    try:
        report = run_suite(
            url, size=args.size, repeat=args.repeat, only=args.only, robin=not args.no_robin, engine=args.engine
        )
    finally:
        if server is not None:
            server.stop()
    report["command"] = ["python", "-m", "benchmarks", *(sys.argv[1:] if argv is None else argv)]
    engine = report["server"]["engine"]
    out = PUBLISHED / engine if args.publish else Path(args.out) if args.out else ROOT / "benchmarks" / "results"
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
