"""The Substrait interoperability matrix: TPC-H (sf 0.01) plans from each producer, run on each
consumer, each answer compared with Spark SQL's answer for the same query on the same data.

Producers (tests/substrait_producers.py, the same code the TPC-H test runs): DataFusion, DuckDB
1.1.3 + its substrait extension, Isthmus (substrait-java's jar from PyPI's substrait-tools, on the
machine's Java) and ibis + ibis-substrait (in an environment of their own, built with pip).
Consumers: connect_plan on the Spark Connect server SPARK_REMOTE names, DuckDB's
``from_substrait``, DataFusion's ``Consumer`` and Arrow Acero (``pyarrow.substrait.run_query``).
The three engine consumers run in a worker process each (a crash or a hang costs one plan, not
the run); every consumer is given each table under the name the plan uses (Isthmus upper-cases
them) and gets the plan in binary protobuf form (Isthmus writes JSON: it is re-encoded through
connect_plan's superset schema, which loses no field).

The oracle is Spark SQL through PySpark Connect on the same server: DuckDB's ``tpch_queries()``
texts for DataFusion, DuckDB and Isthmus; for ibis (whose TPC-H queries are its own expressions)
ibis' own SQL for each expression, transpiled to Spark's dialect.

Each cell counts the plans a producer made and what the consumer did with them: *equal* (ran,
same answer as Spark SQL: same rows in any order, numbers to 1e-6 relative), *wrong* (ran, other
answer), *refused* (an error; for connect_plan a located PlanError before any network call or an
error from the server), *crashed* (the process died), *timeout*.

Usage:
  SPARK_REMOTE=sc://127.0.0.1:15002 python scripts/substrait_matrix.py [--out DIR] [--work DIR]
      [--queries 1,6] [--producers datafusion,duckdb,isthmus,ibis]
      [--consumers connect_plan,duckdb,datafusion,acero]
--out defaults to docs/ (docs/substrait-matrix.md and .json); --work keeps the data, plans,
Isthmus' jar and ibis' environment between runs (default: a temporary folder).
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

PRODUCERS = ("datafusion", "duckdb", "isthmus", "ibis")
CONSUMERS = ("connect_plan", "duckdb", "datafusion", "acero")
ENGINE_CONSUMERS = ("duckdb", "datafusion", "acero")
STATUSES = ("equal", "wrong", "refused", "crashed", "timeout")
PLAN_TIMEOUT = 120.0

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
        import pyarrow.parquet as pq

        for name, path in tables.items():
            ctx.register_parquet(name, path)
            # Isthmus' spelling: table and column names in upper case (quoted: DataFusion folds
            # unquoted names to lower case)
            upper = pq.read_table(path)
            upper = upper.rename_columns([c.upper() for c in upper.column_names])
            ctx.register_record_batches(f'"{name.upper()}"', [upper.to_batches()])

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


def _difference(ours: Any, theirs: Any) -> str:
    """How an answer differs from Spark SQL's, in one line."""
    from tests import substrait_producers as sp

    if ours.num_columns != theirs.num_columns:
        return f"{ours.num_columns} columns, Spark SQL {theirs.num_columns}"
    if ours.num_rows != theirs.num_rows:
        return f"{ours.num_rows} rows, Spark SQL {theirs.num_rows}"
    a, b = sp._rows(ours), sp._rows(theirs)
    for i, (x, y) in enumerate(zip(a, b)):
        for j, (u, v) in enumerate(zip(x, y)):
            if not sp._close(u, v):
                return _one_line(f"row {i} (sorted) column {theirs.column_names[j]}: {u!r}, Spark SQL {v!r}")
    return "differs"


def _produce(producers: list[str], tpch: Any, work: Path, queries: list[int]) -> dict[str, dict[int, Any]]:
    """producer → query → (plan bytes, oracle SQL) or the producer's error (str); a producer that
    is not installed or cannot be set up maps every query to why."""
    from connect_plan.formats.substrait.proto import parse_substrait
    from tests import substrait_producers as sp

    out: dict[str, dict[int, Any]] = {}
    for producer in producers:
        start = time.monotonic()
        made: dict[int, Any]
        try:
            if producer == "datafusion":
                made = sp.datafusion_plans(tpch)
            elif producer == "duckdb":
                made = sp.duckdb_plans(tpch)
            elif producer == "isthmus":
                jar = sp.isthmus_jar(work / "isthmus")
                if jar is None:
                    raise RuntimeError("Isthmus' jar could not be had (needs java and PyPI)")
                made = sp.isthmus_plans(tpch, jar)
            else:
                ibis = sp.ibis_plans(tpch, work / "ibis-env")
                if ibis is None:
                    raise RuntimeError("ibis' environment could not be built (needs PyPI)")
                made = ibis
        except (ImportError, RuntimeError) as e:
            out[producer] = dict.fromkeys(queries, f"not available: {e}")
            print(f"{producer}: not available: {e}", flush=True)
            continue
        plans: dict[int, Any] = {}
        for q in queries:
            plan: Any = made.get(q, "not planned")
            if producer == "ibis":
                plans[q] = (plan[0], plan[1]) if isinstance(plan, tuple) else _one_line(plan)
            elif isinstance(plan, bytes):
                plans[q] = (plan, tpch.queries[q])
            elif plan.startswith("{"):  # Isthmus' JSON → binary, through the superset schema
                plans[q] = (parse_substrait(plan).SerializeToString(), tpch.queries[q])
            else:
                plans[q] = _one_line(plan)
        out[producer] = plans
        n = sum(isinstance(p, tuple) for p in plans.values())
        print(f"{producer}: {n}/{len(queries)} plans in {time.monotonic() - start:.0f} s", flush=True)
    return out


def _producer_bugs(producers: list[str], queries: list[int]) -> dict[str, dict[str, str]]:
    """The known producer bugs (tests/substrait_producers.py: the TPC-H test's strict xfails) of
    these plans: a plan that means something else than its SQL, which no consumer can repair."""
    from tests import substrait_producers as sp

    return {p: {str(q): sp.PRODUCER_BUGS[(p, q)] for q in queries if (p, q) in sp.PRODUCER_BUGS} for p in producers}


def _versions(spark_version: str) -> dict[str, str]:
    def v(dist: str) -> str:
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            return "not installed"

    java = shutil.which("java")
    java_version = "none"
    if java:
        p = subprocess.run([java, "-version"], capture_output=True, text=True)
        java_version = (p.stderr or p.stdout).splitlines()[0] if (p.stderr or p.stdout) else "?"
    try:
        head = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
        ).stdout.strip()
    except OSError:
        head = "?"
    from tests import substrait_producers as sp

    ibis_pins = ", ".join(p for p in sp.IBIS_PINS if "==" in p)
    return {
        "connect_plan": f"{v('connect-plan')} (git {head or '?'})",
        "spark": spark_version,
        "pyspark": v("pyspark") if v("pyspark") != "not installed" else v("pyspark-client"),
        "datafusion": v("datafusion"),
        "duckdb": v("duckdb"),
        "duckdb-extension-substrait": v("duckdb-extension-substrait"),
        "pyarrow": v("pyarrow"),
        "isthmus": "0.5.0 (jar of substrait-tools 0.0.3)",
        "java": java_version,
        "ibis": f"its own environment: {ibis_pins}",
        "python": platform.python_version(),
    }


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--out", type=Path, default=ROOT / "docs", help="folder for substrait-matrix.md/.json")
    ap.add_argument("--work", type=Path, default=None, help="folder kept between runs (data, plans, jar, ibis env)")
    ap.add_argument("--queries", default="", help="comma-separated TPC-H query numbers (default: all 22)")
    ap.add_argument("--producers", default="")
    ap.add_argument("--consumers", default=",".join(CONSUMERS))
    ap.add_argument(
        "--render",
        type=Path,
        default=None,
        help="only rewrite substrait-matrix.md (in --out) from this JSON report, with today's list of known producer bugs",
    )
    args = ap.parse_args(argv)
    if args.render:
        report = json.loads(args.render.read_text())
        report["producer_bugs"] = _producer_bugs(report["producers"], report["queries"])
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "substrait-matrix.json").write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n")
        (args.out / "substrait-matrix.md").write_text(markdown(report))
        print(summary_lines(report))
        return 0
    queries = [int(q) for q in args.queries.split(",") if q.strip()] or list(range(1, 23))
    producers = [p for p in args.producers.split(",") if p] or list(PRODUCERS)
    consumers = [c for c in args.consumers.split(",") if c]
    for name, known in (*((p, PRODUCERS) for p in producers), *((c, CONSUMERS) for c in consumers)):
        if name not in known:
            ap.error(f"unknown name {name!r} (known: {', '.join(known)})")
    if not os.environ.get("SPARK_REMOTE"):
        ap.error("SPARK_REMOTE must name the Spark Connect server (sc://host:port)")
    started = time.monotonic()
    work = args.work or Path(tempfile.mkdtemp(prefix="substrait-matrix-"))
    work.mkdir(parents=True, exist_ok=True)

    from pyspark.sql import SparkSession

    import connect_plan
    from connect_plan.client import resolve_remote
    from tests import substrait_producers as sp

    url = resolve_remote(os.environ["SPARK_REMOTE"])
    data = work / "tpch"
    tpch = sp.make_tpch(data)
    plans = _produce(producers, tpch, work, queries)

    spark = SparkSession.builder.remote(url).create()
    spark.conf.set("spark.sql.session.timeZone", "UTC")
    for name, path in tpch.files.items():
        spark.read.parquet(path).createOrReplaceTempView(name)
    answers: dict[str, Any] = {}

    def oracle(sql: str) -> Any:
        if sql not in answers:
            answers[sql] = spark.sql(sql).toArrow()
        return answers[sql]

    # cells[producer][consumer][query] = {"status": ..., "error": ...}
    cells: dict[str, dict[str, dict[int, dict[str, str]]]] = {p: {c: {} for c in consumers} for p in producers}
    made = {p: {q: v for q, v in plans[p].items() if isinstance(v, tuple)} for p in producers}

    def judge(producer: str, consumer: str, q: int, outcome: tuple[str, Any]) -> None:
        status, value = outcome
        if status != "ran":
            cells[producer][consumer][q] = {"status": status, "error": value}
            return
        try:
            expected = oracle(made[producer][q][1])
        except Exception as e:  # Spark SQL cannot answer the text: no oracle for this query
            cells[producer][consumer][q] = {"status": "no oracle", "error": _one_line(str(e))}
            return
        try:
            sp.assert_same_answer(value, expected)
        except AssertionError:
            cells[producer][consumer][q] = {"status": "wrong", "error": _difference(value, expected)}
        else:
            cells[producer][consumer][q] = {"status": "equal"}

    if "connect_plan" in consumers:
        with connect_plan.connect(url, conf={"spark.sql.session.timeZone": "UTC"}) as client:
            for producer in producers:
                for q, (blob, _sql) in made[producer].items():
                    try:
                        outcome: tuple[str, Any] = ("ran", client.execute(blob, tables=tpch.tables()))
                    except Exception as e:
                        outcome = ("refused", _one_line(f"{type(e).__name__}: {e}"))
                    judge(producer, "connect_plan", q, outcome)
                print(f"connect_plan: {producer} done", flush=True)
    for consumer in consumers:
        if consumer == "connect_plan":
            continue
        for producer in producers:
            keyed = {f"{producer}-q{q:02d}": blob for q, (blob, _sql) in made[producer].items()}
            results = _run_engine(consumer, producer, keyed, tpch.files, work)
            for q in made[producer]:
                judge(producer, consumer, q, results[f"{producer}-q{q:02d}"])
            print(f"{consumer}: {producer} done", flush=True)
    spark_version = spark.version
    spark.stop()

    report = {
        "command": "SPARK_REMOTE=sc://HOST:PORT python scripts/substrait_matrix.py"
        + "".join(f" --{k} {v}" for k, v in (("queries", args.queries), ("producers", args.producers)) if v)
        + (f" --consumers {args.consumers}" if args.consumers != ",".join(CONSUMERS) else ""),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "seconds": round(time.monotonic() - started),
        "versions": _versions(spark_version),
        "queries": queries,
        "producers": producers,
        "consumers": consumers,
        "producer_bugs": _producer_bugs(producers, queries),
        "not_produced": {p: {str(q): v for q, v in plans[p].items() if isinstance(v, str)} for p in producers},
        "cells": {
            p: {c: {str(q): cell for q, cell in sorted(cells[p][c].items())} for c in consumers} for p in producers
        },
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "substrait-matrix.json").write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n")
    (args.out / "substrait-matrix.md").write_text(markdown(report))
    print(summary_lines(report))
    print(f"wrote {args.out / 'substrait-matrix.md'} and .json in {report['seconds']} s")
    return 0


# ------------------------------------------------------------------ report


def _count(report: dict[str, Any], producer: str, consumer: str) -> Counter[str]:
    return Counter(c["status"] for c in report["cells"][producer][consumer].values())


def _cell(report: dict[str, Any], producer: str, consumer: str) -> str:
    made = len(report["queries"]) - len(report["not_produced"][producer])
    if not made:
        return "—"
    n = _count(report, producer, consumer)
    bugs = report.get("producer_bugs", {}).get(producer, {})
    wrong_bugs = sum(1 for q, c in report["cells"][producer][consumer].items() if c["status"] == "wrong" and q in bugs)
    rest = [f"{n[s]} {s}" for s in STATUSES[1:] if n[s]]
    if wrong_bugs:
        w = n["wrong"]
        all_bugs = "a producer bug" if w == 1 else "producer bugs"
        rest[0] = f"{w} wrong: " + (all_bugs if wrong_bugs == w else f"{wrong_bugs} of them producer bugs")
    rest += [f"{k} {v}" for k, v in sorted(n.items()) if k not in STATUSES]
    head = f"**{n['equal']}**/{made} equal"
    return head + (f" ({', '.join(rest)})" if rest else "")


def summary_lines(report: dict[str, Any]) -> str:
    lines = []
    for p in report["producers"]:
        lines.append(f"{p}: " + " | ".join(f"{c}: {_cell(report, p, c)}" for c in report["consumers"]))
    return "\n".join(lines)


def _letter(cell: dict[str, str] | None) -> str:
    if cell is None:
        return "·"
    return {"equal": "=", "wrong": "**W**", "refused": "R", "crashed": "**C**", "timeout": "T"}.get(cell["status"], "?")


def markdown(report: dict[str, Any]) -> str:
    producers, consumers, queries = report["producers"], report["consumers"], report["queries"]
    out = [
        "# Substrait interoperability matrix",
        "",
        "<!-- generated by scripts/substrait_matrix.py: do not edit by hand -->",
        "",
        f"Measured {report['date']} by `{report['command']}` ({report['seconds']} s), TPC-H sf 0.01 "
        "(DuckDB's `dbgen`), "
        f"{len(queries)} queries. Every plan is made at run time by its producer and run on every consumer; "
        "each answer is compared with Spark SQL's answer for the same query on the same data (ibis: "
        "ibis' own SQL for its own TPC-H expressions). Details per query and every error: "
        "[substrait-matrix.json](substrait-matrix.json).",
        "",
        "*equal*: same rows as Spark SQL (any order; numbers to 1e-6 relative); *wrong*: ran, another "
        "answer; *refused*: the consumer raised an error; *crashed*: its process died; *timeout*: no "
        "answer in 120 s. Each engine consumer gets every plan in binary protobuf form (Isthmus' JSON "
        "re-encoded losslessly) and every table under the name the plan uses.",
        "",
        "| producer ↓ / consumer → | plans made | " + " | ".join(CONSUMER_TITLES[c] for c in consumers) + " |",
        "| --- | --- | " + " | ".join("---" for _ in consumers) + " |",
    ]
    for p in producers:
        made = len(queries) - len(report["not_produced"][p])
        row = [PRODUCER_TITLES[p], f"{made}/{len(queries)}", *(_cell(report, p, c) for c in consumers)]
        out.append("| " + " | ".join(row) + " |")
    out += [
        "",
        "A plan of a known producer bug (the plan means something else than its SQL: listed per producer "
        "below) cannot give Spark SQL's answer on any consumer; such *wrong* answers are counted as "
        "*producer bugs*.",
        "",
        "## Versions",
        "",
    ]
    out += [f"- {k}: {v}" for k, v in report["versions"].items()]
    out += [
        "",
        "## Per query",
        "",
        "`=` equal, **W** wrong, R refused, **C** crashed, T timeout, · not produced.",
        "",
    ]
    for p in producers:
        out.append(f"### {PRODUCER_TITLES[p]}")
        out.append("")
        out.append("| consumer | " + " | ".join(f"q{q:02d}" for q in queries) + " |")
        out.append("| --- | " + " | ".join("---" for _ in queries) + " |")
        for c in consumers:
            cells = report["cells"][p][c]
            out.append(f"| {CONSUMER_TITLES[c]} | " + " | ".join(_letter(cells.get(str(q))) for q in queries) + " |")
        out.append("")
        bugs = report.get("producer_bugs", {}).get(p, {})
        if bugs:
            out.append(
                "Known producer bugs (the plan means something else than its SQL; the TPC-H test's strict xfails): "
                + "; ".join(f"q{int(q):02d}: {why}" for q, why in bugs.items())
            )
            out.append("")
        if report["not_produced"][p]:
            reasons = Counter(_one_line(v, 120) for v in report["not_produced"][p].values())
            out.append(
                "Not produced: "
                + "; ".join(
                    f"{', '.join(f'q{int(q):02d}' for q, v in report['not_produced'][p].items() if _one_line(v, 120) == r)}"
                    f" ({r})"
                    for r in reasons
                )
            )
            out.append("")
        for c in consumers:
            errs: dict[str, list[str]] = {}
            for q, cell in report["cells"][p][c].items():
                if cell["status"] != "equal":
                    errs.setdefault(f"{cell['status']}: {_one_line(cell.get('error', ''), 160)}", []).append(
                        f"q{int(q):02d}"
                    )
            if errs:
                out.append(f"- {CONSUMER_TITLES[c]}:")
                out += [f"  - {', '.join(qs)} — {why}" for why, qs in errs.items()]
        out.append("")
    return "\n".join(out).rstrip() + "\n"


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--worker":
        raise SystemExit(_worker(sys.argv[2], sys.argv[3]))
    raise SystemExit(main(sys.argv[1:]))
