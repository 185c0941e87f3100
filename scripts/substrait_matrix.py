"""The Substrait interoperability matrix: every plan of the team's recorded corpus (TPC-H, TPC-DS
and the features suite: tests/data/substrait/<suite>/<producer>/<id>.json, written by DataFusion,
DuckDB, Isthmus and ibis-substrait) run on each consumer, each answer compared with Spark SQL's
answer to the suite's SQL on the same data (tests/substrait_corpus.py: the data, the comparison,
the producer bugs).

Consumers: connect_plan on the Spark Connect server SPARK_REMOTE names, DuckDB's
``from_substrait``, DataFusion's ``Consumer`` and Arrow Acero (``pyarrow.substrait.run_query``).
The three engine consumers run in a worker process each (a crash or a hang costs one plan, not
the run); every consumer is given each table under the name the plan uses (Isthmus upper-cases
them) and gets the plan in binary protobuf form (the recorded JSON re-encoded through
connect_plan's superset schema, which loses no field). No producer runs: the plans are recorded.

The oracle is Spark SQL through PySpark Connect on the same server, in the suite's session
settings: the suite's query texts (DuckDB's ``tpch_queries()``/``tpcds_queries()``, the features
queries), or the producer's own SQL where it planned its own expressions (ibis' TPC-H).

Each cell counts a producer's plans of a suite and what the consumer did with them: *equal* (ran,
Spark SQL's answer: same rows, in order where the SQL orders them, numbers to 1e-6 relative or a
decimal's last digit), *wrong* (ran, another answer), *refused* (an error; for connect_plan a
located PlanError before any network call or an error from the server), *crashed* (the process
died), *timeout*.

Usage:
  SPARK_REMOTE=sc://127.0.0.1:15002 python scripts/substrait_matrix.py [--suites tpch,tpcds,features]
      [--producers datafusion,duckdb,isthmus,ibis] [--consumers connect_plan,duckdb,datafusion,acero]
      [--only q01,q06] [--out DIR] [--work DIR]
--out defaults to docs/ (docs/substrait-matrix.md and .json); --work keeps the generated data
between runs (default: a temporary folder); --render rewrites the markdown from a JSON report;
--merge A.json B.json joins runs of the same plans on other consumers (one run per consumer).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from importlib import metadata
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SUITES = ("tpch", "tpcds", "features")
PRODUCERS = ("datafusion", "duckdb", "isthmus", "ibis")
CONSUMERS = ("connect_plan", "duckdb", "datafusion", "acero")
ENGINE_CONSUMERS = ("duckdb", "datafusion", "acero")
STATUSES = ("equal", "wrong", "refused", "crashed", "timeout")
PLAN_TIMEOUT = 120.0

SUITE_TITLES = {"tpch": "TPC-H (sf 0.01)", "tpcds": "TPC-DS (sf 0.01)", "features": "Features (the team's queries)"}
PRODUCER_TITLES = {
    "datafusion": "DataFusion",
    "duckdb": "DuckDB",
    "isthmus": "Isthmus",
    "ibis": "ibis-substrait",
}
CONSUMER_TITLES = {
    "connect_plan": "connect_plan on Spark",
    "duckdb": "DuckDB `from_substrait`",
    "datafusion": "DataFusion `Consumer`",
    "acero": "Arrow Acero `run_query`",
}


def _one_line(text: str, limit: int = 240) -> str:
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


# ------------------------------------------------------------------ worker (one engine consumer)


def _worker(consumer: str, job_file: str) -> int:
    """Run the job's plans on one engine consumer: for each, a ``start`` line, then a result line
    (``ran``: the answer in KEY.arrow; ``refused``: the error) in the job's results file."""
    import pyarrow as pa

    job = json.loads(Path(job_file).read_text())
    tables: dict[str, str] = job["tables"]
    out = Path(job["out"])
    log = open(job["results"], "a", encoding="utf-8")  # one line per event, flushed

    def event(**fields: Any) -> None:
        log.write(json.dumps(fields) + "\n")
        log.flush()

    run = _engine(consumer, tables)
    for key, path in job["plans"]:
        event(key=key, event="start")
        try:
            table = run(Path(path).read_bytes())
        except Exception as e:  # the consumer's refusal: recorded, it is the measurement
            event(key=key, event="done", status="refused", error=_one_line(f"{type(e).__name__}: {e}"))
            run = _engine(consumer, tables)  # a failed plan may leave the engine unusable
            continue
        with pa.OSFile(str(out / f"{key}.arrow"), "wb") as f, pa.ipc.new_file(f, table.schema) as w:
            w.write_table(table)
        event(key=key, event="done", status="ran")
    log.close()
    return 0


def _engine(consumer: str, tables: dict[str, str]) -> Any:
    """A function plan bytes → Arrow table on a fresh instance of the consumer, each table
    registered under its own name and in upper case (Isthmus' spelling)."""
    if consumer == "duckdb":
        from tests.substrait_producers import duckdb_with_tables

        con = duckdb_with_tables(tables)
        return lambda blob: con.from_substrait(proto=blob).arrow()
    if consumer == "datafusion":
        from datafusion import SessionContext
        from datafusion.substrait import Consumer, Serde

        ctx = SessionContext()
        import pyarrow as pa
        import pyarrow.parquet as pq

        for name, path in tables.items():
            ctx.register_parquet(name, path)
            # Isthmus' spelling: table and column names in upper case (quoted: DataFusion folds
            # unquoted names to lower case)
            upper = pq.read_table(path)
            upper = upper.rename_columns([c.upper() for c in upper.column_names])
            # an empty table has no batch, and DataFusion takes a table's schema from its batches
            batches = upper.to_batches() or [pa.RecordBatch.from_pylist([], schema=upper.schema)]
            ctx.register_record_batches(f'"{name.upper()}"', [batches])

        def run_datafusion(blob: bytes) -> Any:
            plan = Consumer.from_substrait_plan(ctx, Serde.deserialize_bytes(blob))
            return ctx.create_dataframe_from_logical_plan(plan).to_arrow_table()

        return run_datafusion
    if consumer == "acero":
        import pyarrow as pa
        import pyarrow.parquet as pq
        import pyarrow.substrait as ps

        data = {name.lower(): pq.read_table(path) for name, path in tables.items()}

        def provide(names: list[str], schema: Any) -> Any:
            return data[".".join(names).lower()]

        return lambda blob: ps.run_query(pa.py_buffer(blob), table_provider=provide).read_all()
    raise ValueError(f"unknown consumer {consumer}")


# ------------------------------------------------------------------ parent


def _run_engine(
    consumer: str, producer: str, plans: dict[str, bytes], tables: dict[str, str], work: Path
) -> dict[str, Any]:
    """key → ("ran", table) or (status, error), running a worker process that is restarted after
    a crash or a hang (that plan is recorded as such)."""
    import pyarrow as pa

    base = work / "consumers" / consumer / producer
    shutil.rmtree(base, ignore_errors=True)
    (base / "plans").mkdir(parents=True)
    paths = []
    for key, blob in plans.items():
        p = base / "plans" / f"{key}.pb"
        p.write_bytes(blob)
        paths.append((key, str(p)))
    results: dict[str, Any] = {}
    log_path = base / "results.jsonl"
    log_path.touch()
    while len(results) < len(paths):
        todo = [(k, p) for k, p in paths if k not in results]
        job = base / "job.json"
        job.write_text(json.dumps({"tables": tables, "plans": todo, "out": str(base), "results": str(log_path)}))
        proc = subprocess.Popen(
            [sys.executable, __file__, "--worker", consumer, str(job)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        started: dict[str, float] = {}
        seen = 0
        while True:
            lines = log_path.read_text(encoding="utf-8").splitlines()
            for line in lines[seen:]:
                ev = json.loads(line)
                if ev["event"] == "start":
                    started[ev["key"]] = time.monotonic()
                elif ev["status"] == "ran":
                    with pa.memory_map(str(base / f"{ev['key']}.arrow")) as f:
                        results[ev["key"]] = ("ran", pa.ipc.open_file(f).read_all())
                else:
                    results[ev["key"]] = (ev["status"], ev["error"])
            seen = len(lines)
            running = [k for k in started if k not in results]
            if proc.poll() is not None:
                if running:  # it died in the middle of this plan
                    err = _one_line((proc.stderr.read() if proc.stderr else "")[-400:]) or "no message"
                    results[running[0]] = ("crashed", f"exit {proc.returncode}: {err}")
                elif proc.returncode != 0 and len(results) < len(paths):  # died before any plan
                    err = _one_line((proc.stderr.read() if proc.stderr else "")[-400:])
                    for k, _ in todo:
                        results.setdefault(k, ("refused", f"the consumer could not start: {err}"))
                break
            if running and time.monotonic() - started[running[0]] > PLAN_TIMEOUT:
                proc.kill()
                proc.wait()
                results[running[0]] = ("timeout", f"no answer in {PLAN_TIMEOUT:.0f} s")
                break
            time.sleep(0.05)
        if proc.stderr:
            proc.stderr.close()
    return results


# ------------------------------------------------------------------ measuring


def measure_suite(
    name: str,
    producers: list[str],
    consumers: list[str],
    only: set[str],
    url: str,
    work: Path,
    census: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """One suite's part of the report: per producer, the plans it made and the ones it could not,
    and per consumer and plan ``{"status": ..., "error": ...}``; connect_plan's cells taken from
    ``census`` (scripts/substrait_corpus.py's census.json) where it is given."""
    import connect_plan
    from connect_plan.formats.substrait.proto import parse_substrait
    from tests import substrait_corpus as sc

    suite = sc.read_suite(name)
    files = sc.suite_tables(name, work / name / "data")
    tables = sc.sources(files)
    plans = {
        p: {q: text for q, text in suite.plans.get(p, {}).items() if not only or q in only}
        for p in producers
        if p in suite.plans
    }
    not_made = {
        p: {q: _one_line(e, 240) for q, e in suite.errors.get(p, {}).items() if not only or q in only} for p in plans
    }
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.remote(url).create()
    for k, v in sc.SPARK_CONF.items():
        spark.conf.set(k, v)
    for table, path in files.items():
        spark.read.parquet(path).createOrReplaceTempView(table)
    answers: dict[str, Any] = {}

    def judge(producer: str, qid: str, outcome: tuple[str, Any]) -> dict[str, str]:
        status, value = outcome
        if status != "ran":
            return {"status": status, "error": _one_line(value)}
        sql = suite.sql(producer, qid)
        if sql not in answers:
            answers[sql] = spark.sql(sql).toArrow()
        diff = sc.difference(value, answers[sql], ordered=sc.is_ordered(sql))
        return {"status": "equal"} if diff is None else {"status": "wrong", "error": _one_line(diff)}

    cells: dict[str, dict[str, dict[str, dict[str, str]]]] = {p: {c: {} for c in consumers} for p in plans}
    if "connect_plan" in consumers and census is not None:
        for producer, by_id in plans.items():
            for qid in by_id:
                cells[producer]["connect_plan"][qid] = census_cell(census["suites"][name][producer][qid])
    elif "connect_plan" in consumers:
        with connect_plan.connect(url, conf={"spark.sql.session.timeZone": "UTC"}) as client:
            for producer, by_id in plans.items():
                start = time.monotonic()
                for qid, text in by_id.items():
                    try:
                        outcome: tuple[str, Any] = ("ran", client.execute(text, tables=tables, timeout=300))
                    except Exception as e:
                        outcome = ("refused", f"{type(e).__name__}: {e}")
                    cells[producer]["connect_plan"][qid] = judge(producer, qid, outcome)
                print(f"{name}: connect_plan on {producer} in {time.monotonic() - start:.0f} s", flush=True)
    for consumer in consumers:
        if consumer == "connect_plan":
            continue
        for producer, by_id in plans.items():
            start = time.monotonic()
            blobs = {f"{producer}-{qid}": parse_substrait(text).SerializeToString() for qid, text in by_id.items()}
            results = _run_engine(consumer, f"{name}-{producer}", blobs, files, work)
            for qid in by_id:
                cells[producer][consumer][qid] = judge(producer, qid, results[f"{producer}-{qid}"])
            print(f"{name}: {consumer} on {producer} in {time.monotonic() - start:.0f} s", flush=True)
    spark.stop()
    return {
        "plans": {p: sorted(by_id) for p, by_id in plans.items()},
        "not_produced": not_made,
        "producer_bugs": {
            p: {q: why for (s, pp, q), why in sorted(sc.PRODUCER_BUGS.items()) if s == name and pp == p and q in by_id}
            for p, by_id in plans.items()
        },
        "cells": {p: {c: dict(sorted(by_q.items())) for c, by_q in by_c.items()} for p, by_c in cells.items()},
    }


def census_cell(result: dict[str, Any]) -> dict[str, str]:
    """connect_plan's cell of a plan from its census.json entry (scripts/substrait_corpus.py runs
    every plan through connect_plan and compares its answer with Spark SQL's as this script does,
    with the same tests/substrait_corpus.difference): equal and wrong as they are, a refusal,
    server error or other exception as *refused*; a producer bug's plan as what it gave."""
    ran = result.get("ran", result)
    outcome = ran["outcome"]
    error = _one_line("; ".join(ran.get("details", [])))
    if outcome == "equal":
        return {"status": "equal"}
    if outcome == "wrong":
        return {"status": "wrong", "error": error}
    if outcome in ("refused", "spark_error", "connect_plan_error"):
        return {"status": "refused", "error": f"{ran.get('error_class') or ','.join(ran.get('codes', []))}: {error}"}
    raise SystemExit(f"--connect-plan-from: a census outcome the matrix has no cell for: {outcome}")


def _versions(spark_version: str) -> dict[str, str]:
    def v(dist: str) -> str:
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            return "not installed"

    try:
        head = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
        ).stdout.strip()
    except OSError:
        head = "?"
    return {
        "connect_plan": f"{v('connect-plan')} (git {head or '?'})",
        "spark": spark_version,
        "pyspark": v("pyspark") if v("pyspark") != "not installed" else v("pyspark-client"),
        "datafusion (consumer)": v("datafusion"),
        "duckdb (consumer)": f"{v('duckdb')}, substrait extension {v('duckdb-extension-substrait')}",
        "pyarrow (Acero)": v("pyarrow"),
        "plans (recorded)": "DataFusion 55, DuckDB 1.1.3, Isthmus 0.5.0, ibis 9.5 + ibis-substrait 4.0.1 "
        "(scripts/record_substrait_corpus.py)",
        "python": platform.python_version(),
    }


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--out", type=Path, default=ROOT / "docs", help="folder for substrait-matrix.md/.json")
    ap.add_argument("--work", type=Path, default=None, help="folder kept between runs (the generated data)")
    ap.add_argument("--suites", default=",".join(SUITES))
    ap.add_argument("--only", default="", help="comma-separated plan ids (q01, win_cume_dist...)")
    ap.add_argument("--producers", default=",".join(PRODUCERS))
    ap.add_argument("--consumers", default=",".join(CONSUMERS))
    ap.add_argument(
        "--render", type=Path, default=None, help="only rewrite substrait-matrix.md (in --out) from this report"
    )
    ap.add_argument(
        "--merge",
        type=Path,
        nargs="+",
        default=None,
        help="no run: join reports of the same plans measured on other consumers (e.g. one run per consumer) "
        "into one, written to --out",
    )
    ap.add_argument(
        "--connect-plan-from",
        type=Path,
        default=None,
        help="connect_plan's cells from this census.json of scripts/substrait_corpus.py (the same plans, "
        "run and compared the same way) instead of running them again",
    )
    args = ap.parse_args(argv)
    if args.merge:
        report = merge_reports([json.loads(p.read_text()) for p in args.merge])
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "substrait-matrix.json").write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n")
        (args.out / "substrait-matrix.md").write_text(markdown(report))
        print(summary_lines(report))
        return 0
    if args.render:
        report = json.loads(args.render.read_text())
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "substrait-matrix.md").write_text(markdown(report))
        print(summary_lines(report))
        return 0
    suites = [s for s in args.suites.split(",") if s]
    producers = [p for p in args.producers.split(",") if p]
    consumers = [c for c in args.consumers.split(",") if c]
    for name, known in (
        *((s, SUITES) for s in suites),
        *((p, PRODUCERS) for p in producers),
        *((c, CONSUMERS) for c in consumers),
    ):
        if name not in known:
            ap.error(f"unknown name {name!r} (known: {', '.join(known)})")
    if not os.environ.get("SPARK_REMOTE"):
        ap.error("SPARK_REMOTE must name the Spark Connect server (sc://host:port)")
    import logging

    logging.getLogger("SQLQueryContextLogger").setLevel(logging.CRITICAL)  # PySpark logs every SQL error
    started = time.monotonic()
    work = (args.work or Path(tempfile.mkdtemp(prefix="substrait-matrix-"))).resolve()
    work.mkdir(parents=True, exist_ok=True)
    from pyspark.sql import SparkSession

    from connect_plan.client import resolve_remote

    url = resolve_remote(os.environ["SPARK_REMOTE"])
    only = {q for q in args.only.split(",") if q}
    report: dict[str, Any] = {"producers": producers, "consumers": consumers, "suites": {}}
    census = json.loads(args.connect_plan_from.read_text()) if args.connect_plan_from else None
    if census is not None:
        report["connect_plan_from"] = (
            f"{args.connect_plan_from.name} of scripts/substrait_corpus.py, measured {census.get('date', '?')} "
            f"at connect_plan {census.get('git', '?')}"
        )
    for name in suites:
        report["suites"][name] = measure_suite(name, producers, consumers, only, url, work, census)
    spark = SparkSession.builder.remote(url).create()
    spark_version = spark.version
    spark.stop()
    options = (
        ("suites", args.suites, ",".join(SUITES)),
        ("only", args.only, ""),
        ("producers", args.producers, ",".join(PRODUCERS)),
        ("consumers", args.consumers, ",".join(CONSUMERS)),
    )
    report["command"] = "SPARK_REMOTE=sc://HOST:PORT python scripts/substrait_matrix.py" + "".join(
        f" --{k} {v}" for k, v, default in options if v != default
    )
    report["date"] = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    report["seconds"] = round(time.monotonic() - started)
    report["versions"] = _versions(spark_version)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "substrait-matrix.json").write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n")
    (args.out / "substrait-matrix.md").write_text(markdown(report))
    print(summary_lines(report))
    print(f"wrote {args.out / 'substrait-matrix.md'} and .json in {report['seconds']} s")
    return 0


def merge_reports(reports: list[dict[str, Any]]) -> dict[str, Any]:
    """One report of several runs over the same suites, producers and plans, each on its own
    consumers (a run per consumer spreads the measurement over time); its ``note`` says so."""
    first = reports[0]
    consumers = [c for c in CONSUMERS if any(c in r["consumers"] for r in reports)]
    for r in reports[1:]:
        if list(r["suites"]) != list(first["suites"]) or r["producers"] != first["producers"]:
            raise SystemExit("--merge: the reports measure other suites or producers")
        if set(r["consumers"]) & {c for o in reports if o is not r for c in o["consumers"]}:
            raise SystemExit("--merge: two reports measure the same consumer")
    suites: dict[str, Any] = {}
    for name, part in first["suites"].items():
        if any(r["suites"][name]["plans"] != part["plans"] for r in reports):
            raise SystemExit(f"--merge: {name}: the reports ran other plans")
        cells = {
            p: {c: next(r["suites"][name]["cells"][p][c] for r in reports if c in r["consumers"]) for c in consumers}
            for p in part["cells"]
        }
        suites[name] = {**part, "cells": cells}
    runs = "; ".join(f"--consumers {','.join(r['consumers'])} ({r['date']}, {r['seconds']} s)" for r in reports)
    command = first["command"].replace(f" --consumers {','.join(first['consumers'])}", "")
    return {
        **first,
        "consumers": consumers,
        "suites": suites,
        "command": command,
        "seconds": sum(r["seconds"] for r in reports),
        "note": f"measured in {len(reports)} runs of the same script: {runs}",
        "versions": {**first["versions"], **{k: v for r in reports for k, v in r["versions"].items()}},
        **{k: r[k] for r in reports for k in ("connect_plan_from",) if k in r},
    }


# ------------------------------------------------------------------ report


def _counts(part: dict[str, Any], producer: str, consumer: str) -> tuple[Counter[str], int]:
    """The consumer's statuses on the producer's plans, and how many of its wrong answers are
    known producer bugs."""
    cells = part["cells"][producer][consumer]
    bugs = part["producer_bugs"].get(producer, {})
    n = Counter(c["status"] for c in cells.values())
    return n, sum(1 for q, c in cells.items() if c["status"] == "wrong" and q in bugs)


def _cell(n: Counter[str], wrong_bugs: int, made: int) -> str:
    if not made:
        return "—"
    rest = [f"{n[s]} {s}" for s in STATUSES[1:] if n[s]]
    if wrong_bugs:
        w = n["wrong"]
        all_bugs = "a producer bug" if w == 1 else "producer bugs"
        rest[0] = f"{w} wrong: " + (all_bugs if wrong_bugs == w else f"{wrong_bugs} of them producer bugs")
    head = f"**{n['equal']}**/{made} equal"
    return head + (f" ({', '.join(rest)})" if rest else "")


def _row(report: dict[str, Any], suites: list[str], producer: str, consumer: str) -> tuple[Counter[str], int, int]:
    total: Counter[str] = Counter()
    bugs = made = 0
    for name in suites:
        part = report["suites"][name]
        if producer not in part["cells"]:
            continue
        n, b = _counts(part, producer, consumer)
        total += n
        bugs += b
        made += len(part["plans"][producer])
    return total, bugs, made


def summary_lines(report: dict[str, Any]) -> str:
    lines = []
    for name, part in report["suites"].items():
        for p in part["cells"]:
            cells = " | ".join(
                f"{c}: {_cell(*_counts(part, p, c), len(part['plans'][p]))}" for c in report["consumers"]
            )
            lines.append(f"{name}/{p}: {cells}")
    return "\n".join(lines)


def _table(report: dict[str, Any], suites: list[str]) -> list[str]:
    consumers = report["consumers"]
    out = [
        "| producer ↓ / consumer → | plans | " + " | ".join(CONSUMER_TITLES[c] for c in consumers) + " |",
        "| --- | --- | " + " | ".join("---" for _ in consumers) + " |",
    ]
    for p in report["producers"]:
        made = sum(len(report["suites"][s]["plans"].get(p, [])) for s in suites)
        tried = made + sum(len(report["suites"][s]["not_produced"].get(p, {})) for s in suites)
        if not tried:
            continue
        cells = [_cell(n, bugs, m) for n, bugs, m in (_row(report, suites, p, c) for c in consumers)]
        out.append(f"| {PRODUCER_TITLES[p]} | {made}/{tried} | " + " | ".join(cells) + " |")
    return out


def _ids(ids: list[str], limit: int = 40) -> str:
    return ", ".join(ids[:limit]) + (f" … and {len(ids) - limit} more" if len(ids) > limit else "")


def markdown(report: dict[str, Any]) -> str:
    suites = list(report["suites"])
    out = [
        "# Substrait interoperability matrix",
        "",
        "<!-- generated by scripts/substrait_matrix.py: do not edit by hand -->",
        "",
        f"Measured {report['date']} by `{report['command']}` ({report['seconds']} s) over the team's recorded "
        "corpus (`tests/data/substrait/`: " + ", ".join(SUITE_TITLES[s] for s in suites) + "). Every recorded "
        "plan of every producer runs on every consumer, and each answer is compared with Spark SQL's answer to "
        "the suite's SQL on the same data (ibis' TPC-H: ibis' own SQL for its own expressions). Details per plan "
        "and every error: [substrait-matrix.json](substrait-matrix.json)."
        + (f" The report was {report['note']}." if report.get("note") else "")
        + (
            f" connect_plan's cells are those of {report['connect_plan_from']} (every plan run on Spark and "
            "compared the same way)."
            if report.get("connect_plan_from")
            else ""
        ),
        "",
        "*equal*: Spark SQL's rows (in order where the SQL orders them; numbers to 1e-6 relative or one unit of "
        "a decimal's last digit); *wrong*: ran, another answer; *refused*: the consumer raised an error (for "
        "connect_plan: a located error before anything is sent, or the server's); *crashed*: its process died; "
        f"*timeout*: no answer in {PLAN_TIMEOUT:.0f} s. *plans*: the plans the producer made of the queries "
        "it was given. Each engine consumer gets every plan in binary protobuf form and every table under the "
        "name the plan uses. A *producer bug* is a plan that means something else than its SQL "
        "(`tests/substrait_corpus.py` `PRODUCER_BUGS`, each with its proof): no consumer can give SQL's "
        "answer for it, so its *wrong* answers are counted apart.",
        "",
        "## All suites",
        "",
        *_table(report, suites),
        "",
    ]
    for name in suites:
        out += [f"## {SUITE_TITLES[name]}", "", *_table(report, [name]), ""]
    out += ["## Versions", ""]
    out += [f"- {k}: {v}" for k, v in report["versions"].items()]
    out += ["", "## What each consumer did not answer right", ""]
    for name in suites:
        part = report["suites"][name]
        for p in part["cells"]:
            lines: list[str] = []
            for c in report["consumers"]:
                errs: dict[str, list[str]] = {}
                for q, cell in part["cells"][p][c].items():
                    if cell["status"] != "equal":
                        bug = " (a producer bug)" if q in part["producer_bugs"].get(p, {}) else ""
                        key = f"{cell['status']}{bug}: {_one_line(cell.get('error', ''), 150)}"
                        errs.setdefault(key, []).append(q)
                if errs:
                    lines.append(f"- {CONSUMER_TITLES[c]}:")
                    for why, qs in sorted(errs.items(), key=lambda kv: (-len(kv[1]), kv[0])):
                        lines.append(f"  - {len(qs)}: {_ids(qs)} — {why}")
            if lines:
                out += [f"### {SUITE_TITLES[name]}: {PRODUCER_TITLES[p]}", "", *lines, ""]
    return "\n".join(out).rstrip() + "\n"


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--worker":
        raise SystemExit(_worker(sys.argv[2], sys.argv[3]))
    raise SystemExit(main(sys.argv[1:]))
