"""Measure connect_plan on the team's Substrait corpus (tests/data/substrait/, recorded by
scripts/record_substrait_corpus.py): every recorded plan runs through connect_plan
(``client.execute(plan, tables=...)``) on the Spark Connect server SPARK_REMOTE names, and its
answer is compared with Spark SQL's answer to the suite's SQL text on the same data on the same
server (tests/substrait_corpus.difference: same column count, same rows as a multiset, numbers to
1e-6 relative or a decimal's last digit).

Each plan gets one outcome:

- ``equal``: Spark SQL's answer;
- ``wrong``: it ran and gave another answer (the worst outcome);
- ``refused``: a ``PlanError`` before any network call (its codes and located messages kept);
- ``spark_error``: the server failed it (Spark's error class kept);
- ``connect_plan_error``: any other exception out of connect_plan (a bug of ours);
- ``producer_bug``: the plan does not mean its SQL (tests/substrait_corpus.PRODUCER_BUGS, each with
  its proof); it is run too, and what it gave is kept;
- ``producer_refused``: the producer could not plan the query (its own error, from errors.json);
- ``no_oracle``: Spark SQL cannot answer the text (never expected: every text is checked).

It writes a JSON report (every plan: outcome, cause, details, seconds) and a markdown census
(counts per suite × producer × outcome, then every non-equal plan grouped by cause), by default
tests/data/substrait/census.json and tests/data/substrait/CENSUS.md; ``--expected`` also writes
each suite's expected.json (the non-equal plans and their causes), which
tests/integration/test_substrait_corpus.py turns into strict xfails.

Usage:
  SPARK_REMOTE=sc://127.0.0.1:15002 python scripts/substrait_corpus.py [--suites features,tpcds]
      [--producers ...] [--only ID,...] [--from SUITE=DIR ...] [--work DIR] [--out DIR] [--expected]
``--from tpch=DIR`` reads a suite recorded elsewhere (e.g. TPC-H by the recorder into a temporary
folder). ``--work`` keeps the generated data between runs.
"""

from __future__ import annotations

import argparse
import datetime
import json
import logging
import os
import re
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests import substrait_corpus as sc  # noqa: E402

OUTCOMES = (
    "equal",
    "wrong",
    "refused",
    "spark_error",
    "connect_plan_error",
    "producer_bug",
    "producer_refused",
    "no_oracle",
)


def _one_line(text: str, limit: int = 400) -> str:
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def run_plan(client: Any, plan: str, tables: dict[str, Any], oracle: Any, *, ordered: bool = False) -> dict[str, Any]:
    """One plan's outcome (without the producer-bug list): the dict of the report."""
    from connect_plan.errors import PlanError, ServerError

    start = time.monotonic()
    try:
        ours = client.execute(plan, tables=tables, timeout=300)
    except PlanError as e:
        return {
            "outcome": "refused",
            "codes": list(e.codes),
            "details": [_one_line(str(d), 600) for d in e.details],
            "seconds": round(time.monotonic() - start, 2),
        }
    except ServerError as e:
        return {
            "outcome": "spark_error",
            "error_class": e.error_class or type(e).__name__,
            "details": [_one_line(str(e), 600)],
            "seconds": round(time.monotonic() - start, 2),
        }
    except Exception as e:  # a bug of connect_plan's: recorded, it is the measurement
        return {
            "outcome": "connect_plan_error",
            "error_class": type(e).__name__,
            "details": [_one_line(f"{type(e).__name__}: {e}", 600)],
            "seconds": round(time.monotonic() - start, 2),
        }
    seconds = round(time.monotonic() - start, 2)
    try:
        theirs = oracle()
    except Exception as e:
        return {"outcome": "no_oracle", "details": [_one_line(str(e))], "seconds": seconds}
    diff = sc.difference(ours, theirs, ordered=ordered)
    if diff is None:
        return {"outcome": "equal", "seconds": seconds}
    return {"outcome": "wrong", "details": [_one_line(diff, 600)], "seconds": seconds}


# ------------------------------------------------------------------ causes


def signature(result: dict[str, Any]) -> str:
    """A cause's key when no known cause names it: the error code or class and the message with
    its numbers, anchors and column names blanked, so plans that fail alike group together."""
    outcome = result["outcome"]
    if outcome == "refused":
        detail = result["details"][0]
        msg = detail.split(": ", 1)[1] if ": " in detail else detail
        msg = re.sub(r"\b_s\d+\b", "_s#", msg)
        msg = re.sub(r"\d+", "#", msg)
        return f"refused [{result['codes'][0]}]: {_one_line(msg, 160)}"
    if outcome in ("spark_error", "connect_plan_error"):
        msg = result["details"][0]
        msg = re.sub(r"`?_s\d+`?", "_s#", msg)
        msg = re.sub(r"#\d+", "", msg)
        msg = re.sub(r"\d+", "#", msg)
        msg = re.sub(r"SQLSTATE: \w+", "", msg)
        return f"{outcome} [{result['error_class']}]: {_one_line(msg, 160)}"
    if outcome == "wrong":
        d = result["details"][0]
        if "columns" in d:
            return "wrong: another number of columns"
        if "rows, Spark SQL" in d:
            return "wrong: another number of rows"
        return "wrong: other values"
    if outcome == "producer_refused":
        msg = re.sub(r"\d+", "#", result["details"][0])
        return f"producer_refused: {_one_line(msg, 120)}"
    return outcome


def cause_of(suite: str, producer: str, qid: str, result: dict[str, Any]) -> str:
    """The known cause (:data:`tests.substrait_corpus.CAUSES`) that names this plan, else its
    signature."""
    if result["outcome"] == "producer_bug":
        return f"producer bug: {result['bug']}"
    for cause in sc.CAUSES:
        if cause.matches(suite, producer, qid, result):
            return cause.name
    return signature(result)


# ------------------------------------------------------------------ running


def measure(
    suite: sc.Suite,
    producers: list[str],
    only: set[str],
    url: str,
    work: Path,
    log: Any = print,
) -> dict[str, dict[str, dict[str, Any]]]:
    """producer → id → result for every plan (and every producer refusal) of the suite."""
    from pyspark.sql import SparkSession

    import connect_plan

    files = sc.suite_tables(suite.name, work / suite.name / "data")
    tables = sc.sources(files)
    spark = SparkSession.builder.remote(url).create()
    for k, v in sc.SPARK_CONF.items():
        spark.conf.set(k, v)
    for name, path in files.items():
        spark.read.parquet(path).createOrReplaceTempView(name)
    answers: dict[str, Any] = {}

    def oracle(sql: str) -> Any:
        if sql not in answers:
            try:
                answers[sql] = spark.sql(sql).toArrow()
            except Exception as e:
                answers[sql] = e
        if isinstance(answers[sql], Exception):
            raise answers[sql]
        return answers[sql]

    results: dict[str, dict[str, dict[str, Any]]] = {}
    with connect_plan.connect(url, conf={"spark.sql.session.timeZone": "UTC"}) as client:
        for producer in producers:
            if producer not in suite.plans:
                continue
            out: dict[str, dict[str, Any]] = {}
            for qid, error in suite.errors.get(producer, {}).items():
                if not only or qid in only:
                    out[qid] = {"outcome": "producer_refused", "details": [_one_line(error, 600)]}
            start = time.monotonic()
            for qid, plan in suite.plans[producer].items():
                if only and qid not in only:
                    continue
                # the plan's NULL placement where the text leaves it to the engine (as the corpus test)
                sql = sc.with_plan_null_order(suite.sql(producer, qid), plan)
                result = run_plan(client, plan, tables, lambda q=sql: oracle(q), ordered=sc.is_ordered(sql))
                bug = sc.PRODUCER_BUGS.get((suite.name, producer, qid))
                if bug:
                    result = {"outcome": "producer_bug", "bug": bug, "ran": result}
                out[qid] = result
            for qid, result in out.items():
                result["cause"] = cause_of(suite.name, producer, qid, result)
            results[producer] = dict(sorted(out.items()))
            n = Counter(r["outcome"] for r in out.values())
            log(f"{suite.name}/{producer}: {dict(n)} in {time.monotonic() - start:.0f} s")
    spark.stop()
    return results


# ------------------------------------------------------------------ second opinions


def second_opinions(report: dict[str, Any], url: str, work: Path, elsewhere: dict[str, str]) -> dict[str, Any]:
    """For every plan whose answer differs (outcome ``wrong``, or a listed producer bug that ran; or a
    server error that a misread column explains, a cast of a value of another column):
    what DuckDB's and DataFusion's own consumers make of the same plan (scripts/substrait_matrix.py
    runs each in a worker process), compared with connect_plan's answer and with Spark SQL's. A
    consumer that gives connect_plan's answer reads the plan as connect_plan does: evidence that
    the plan means that answer (a producer's bug), not that connect_plan misread it."""
    import connect_plan
    from connect_plan.formats.substrait.proto import parse_substrait
    from scripts import substrait_matrix as matrix

    out: dict[str, Any] = {}
    for name, by_producer in report["suites"].items():
        suite = sc.read_suite(name, Path(elsewhere[name]) if name in elsewhere else sc.CORPUS)
        files = sc.suite_tables(name, work / name / "data")
        todo = {
            (producer, qid)
            for producer, by_id in by_producer.items()
            for qid, r in by_id.items()
            if r.get("ran", r)["outcome"] == "wrong"
            or (r.get("ran", r)["outcome"] == "spark_error" and "CAST_INVALID_INPUT" in r.get("ran", r)["details"][0])
        }
        if not todo:
            continue
        from pyspark.sql import SparkSession

        spark = SparkSession.builder.remote(url).create()
        for k, v in sc.SPARK_CONF.items():
            spark.conf.set(k, v)
        for tname, path in files.items():
            spark.read.parquet(path).createOrReplaceTempView(tname)
        ours: dict[tuple[str, str], Any] = {}
        with connect_plan.connect(url, conf={"spark.sql.session.timeZone": "UTC"}) as client:
            for producer, qid in sorted(todo):
                try:
                    ours[(producer, qid)] = client.execute(suite.plans[producer][qid], tables=sc.sources(files))
                except Exception as e:  # compared as an error: a consumer that answers is "another answer"
                    ours[(producer, qid)] = e
        for consumer in ("duckdb", "datafusion"):
            for producer in sorted({p for p, _ in todo}):
                blobs = {
                    f"{producer}-{qid}": parse_substrait(suite.plans[producer][qid]).SerializeToString()
                    for p, qid in sorted(todo)
                    if p == producer
                }
                got = matrix._run_engine(consumer, f"{name}-{producer}", blobs, files, work / "second-opinion")
                for key, (status, value) in got.items():
                    qid = key[len(producer) + 1 :]
                    plan_sql = sc.with_plan_null_order(suite.sql(producer, qid), suite.plans[producer][qid])
                    theirs = spark.sql(plan_sql).toArrow()
                    if status != "ran":
                        verdict = f"{status}: {_one_line(value, 200)}"
                    elif not isinstance(ours[(producer, qid)], Exception) and (
                        sc.difference(value, ours[(producer, qid)]) is None
                    ):
                        verdict = "connect_plan's answer"
                    elif sc.difference(value, theirs) is None:
                        verdict = "Spark SQL's answer"
                    else:
                        verdict = f"another answer ({_one_line(sc.difference(value, theirs) or '', 160)})"
                    out.setdefault(f"{name}/{producer}:{qid}", {})[consumer] = verdict
                print(f"second opinion: {consumer} on {name}/{producer} done", flush=True)
        spark.stop()
    return out


# ------------------------------------------------------------------ report


def expected(results: dict[str, dict[str, dict[str, Any]]]) -> dict[str, dict[str, dict[str, str]]]:
    """The plans that do not give Spark SQL's answer today (producer refusals aside) and why:
    the integration test's strict xfails."""
    out: dict[str, dict[str, dict[str, str]]] = {}
    for producer, by_id in sorted(results.items()):
        rows = {
            qid: {"outcome": r["outcome"], "cause": r["cause"]}
            for qid, r in sorted(by_id.items())
            if r["outcome"] not in ("equal", "producer_refused")
        }
        out[producer] = rows
    return out


def markdown(report: dict[str, Any]) -> str:
    out = [
        "# The Substrait corpus: connect_plan against Spark SQL",
        "",
        "<!-- generated by scripts/substrait_corpus.py: do not edit by hand -->",
        "",
        f"Measured {report['date']} at connect_plan {report['git']} on Spark {report['spark']} "
        f"({report['seconds']} s): every recorded plan of `tests/data/substrait/<suite>/<producer>/` "
        "run through connect_plan and compared with Spark SQL's answer to the suite's SQL on the same "
        "data on the same server. Details of every plan: [census.json](census.json).",
        "",
        "Outcomes: *equal* (Spark SQL's answer); *wrong* (ran, another answer: the worst); *refused* "
        "(PlanError before the network); *spark_error* (the server failed it); *connect_plan_error* "
        "(another exception: a bug of ours); *producer_bug* (the plan does not mean its SQL, with its "
        "proof); *producer_refused* (the producer could not plan the query).",
        "",
        "| suite | producer | plans | " + " | ".join(OUTCOMES) + " | equal % of plans (bugs excluded) |",
        "| --- | --- | --- | " + " | ".join("---" for _ in OUTCOMES) + " | --- |",
    ]
    for suite, by_producer in report["suites"].items():
        for producer, by_id in by_producer.items():
            n = Counter(r["outcome"] for r in by_id.values())
            plans = sum(v for k, v in n.items() if k != "producer_refused")
            base = plans - n["producer_bug"]
            pct = f"{100 * n['equal'] / base:.1f}%" if base else "—"
            cells = [str(n[o]) if n[o] else "·" for o in OUTCOMES]
            cells[1] = f"**{n['wrong']}**" if n["wrong"] else "·"
            out.append(f"| {suite} | {producer} | {plans} | " + " | ".join(cells) + f" | {pct} |")
    out += ["", "## Census of every plan that is not equal, by cause", ""]
    for suite, by_producer in report["suites"].items():
        groups: dict[str, list[str]] = defaultdict(list)
        for producer, by_id in by_producer.items():
            for qid, r in by_id.items():
                if r["outcome"] in ("equal", "producer_refused"):
                    continue
                groups[r["cause"]].append(f"{producer}:{qid}")
        if not groups:
            continue
        out += [f"### {suite}", ""]
        order = sorted(groups.items(), key=lambda kv: (_rank(kv[0]), -len(kv[1]), kv[0]))
        for cause, plans in order:
            known = next((c for c in sc.CAUSES if c.name == cause), None)
            out.append(f"- **{cause}** ({len(plans)}): " + ", ".join(f"`{p}`" for p in plans))
            if known:
                out.append(f"  - {known.explanation}")
            else:
                first = plans[0].split(":", 1)
                r = by_producer[first[0]][first[1]]
                shown = r.get("ran", r)
                if r["outcome"] == "producer_bug":
                    ran = Counter(by_producer[p][q]["ran"]["outcome"] for p, q in (x.split(":", 1) for x in plans))
                    out.append(f"  - connect_plan on these plans: {dict(sorted(ran.items()))}")
                for d in shown.get("details", [])[:2]:
                    out.append(f"  - e.g. `{first[0]}:{first[1]}`: {_one_line(d, 300)}")
        out.append("")
    out += ["## What the producers could not plan", ""]
    for suite, by_producer in report["suites"].items():
        for producer, by_id in by_producer.items():
            refused = {q: r for q, r in by_id.items() if r["outcome"] == "producer_refused"}
            if not refused:
                continue
            reasons: dict[str, list[str]] = defaultdict(list)
            for q, r in refused.items():
                reasons[signature(r)].append(q)
            out.append(f"- {suite}/{producer} ({len(refused)}):")
            for why, qs in sorted(reasons.items(), key=lambda kv: -len(kv[1])):
                out.append(f"  - {_one_line(why, 200)}: {', '.join(qs)}")
    return "\n".join(out).rstrip() + "\n"


def _rank(cause: str) -> int:
    """Census order: wrong answers first, then connect_plan's bugs, server errors, refusals, bugs."""
    if cause.startswith("producer bug: "):
        return 4
    for i, key in enumerate(("wrong", "connect_plan_error", "spark_error", "refused", "producer_bug")):
        if key in cause:
            return i
    known = next((c for c in sc.CAUSES if c.name == cause), None)
    return {"wrong": 0, "connect_plan_error": 1, "spark_error": 2, "refused": 3, "producer_bug": 4}.get(
        known.outcome if known else "", 5
    )


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--suites", default="features,tpcds")
    ap.add_argument("--producers", default=",".join(sc.PRODUCERS))
    ap.add_argument("--only", default="", help="comma-separated query ids")
    ap.add_argument("--from", dest="sources", action="append", default=[], help="SUITE=DIR: a suite recorded elsewhere")
    ap.add_argument("--work", type=Path, default=None, help="kept between runs: the generated data")
    ap.add_argument("--out", type=Path, default=sc.CORPUS, help="folder for census.json and CENSUS.md")
    ap.add_argument("--expected", action="store_true", help="write each suite's expected.json (the test's xfails)")
    ap.add_argument(
        "--render",
        type=Path,
        default=None,
        help="no run: re-derive the causes (today's CAUSES and PRODUCER_BUGS) of this census.json, rewrite it and CENSUS.md",
    )
    ap.add_argument(
        "--second-opinion",
        type=Path,
        default=None,
        help="no census: run the wrong plans of this census.json on DuckDB's and DataFusion's consumers too",
    )
    args = ap.parse_args(argv)
    if args.second_opinion and not os.environ.get("SPARK_REMOTE"):
        ap.error("SPARK_REMOTE must name the Spark Connect server (sc://host:port)")
    if args.second_opinion:
        report = json.loads(args.second_opinion.read_text())
        url = __import__("connect_plan.client", fromlist=["resolve_remote"]).resolve_remote(os.environ["SPARK_REMOTE"])
        work = (args.work or Path(tempfile.mkdtemp(prefix="substrait-corpus-"))).resolve()
        opinions = second_opinions(report, url, work, dict(s.split("=", 1) for s in args.sources))
        (args.out / "second-opinions.json").write_text(json.dumps(opinions, indent=1, ensure_ascii=False) + "\n")
        for key, verdicts in sorted(opinions.items()):
            print(key, verdicts)
        return 0
    if args.render:
        report = json.loads(args.render.read_text())
        for name, by_producer in report["suites"].items():
            for producer, by_id in by_producer.items():
                for qid, result in list(by_id.items()):
                    ran = result.get("ran", result)
                    bug = sc.PRODUCER_BUGS.get((name, producer, qid))
                    if bug and ran["outcome"] != "producer_refused":
                        result = {"outcome": "producer_bug", "bug": bug, "ran": ran}
                    elif not bug:
                        result = ran
                    result["cause"] = cause_of(name, producer, qid, result)
                    by_id[qid] = result
            if args.expected and name in ("features", "tpcds"):
                (sc.CORPUS / name / "expected.json").write_text(
                    json.dumps(expected(by_producer), indent=1, ensure_ascii=False) + "\n"
                )
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "census.json").write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n")
        (args.out / "CENSUS.md").write_text(markdown(report))
        print(f"rewrote {args.out / 'CENSUS.md'} and census.json")
        return 0
    if not os.environ.get("SPARK_REMOTE"):
        ap.error("SPARK_REMOTE must name the Spark Connect server (sc://host:port)")
    logging.getLogger("SQLQueryContextLogger").setLevel(logging.CRITICAL)  # PySpark logs every SQL error
    from connect_plan.client import resolve_remote

    url = resolve_remote(os.environ["SPARK_REMOTE"])
    work = (args.work or Path(tempfile.mkdtemp(prefix="substrait-corpus-"))).resolve()
    elsewhere = dict(s.split("=", 1) for s in args.sources)
    only = {q for q in args.only.split(",") if q}
    producers = [p for p in args.producers.split(",") if p]
    started = time.monotonic()
    report: dict[str, Any] = {"suites": {}}
    for name in [s for s in args.suites.split(",") if s]:
        suite = sc.read_suite(name, Path(elsewhere[name]) if name in elsewhere else sc.CORPUS)
        if not suite.queries:
            print(f"{name}: no recorded queries", flush=True)
            continue
        results = measure(suite, producers, only, url, work, log=lambda s: print(s, flush=True))
        report["suites"][name] = results
        if args.expected and not only and name not in elsewhere:
            path = sc.CORPUS / name / "expected.json"
            path.write_text(json.dumps(expected(results), indent=1, ensure_ascii=False) + "\n")
    import subprocess

    from pyspark.sql import SparkSession

    spark = SparkSession.builder.remote(url).create()
    report["spark"] = spark.version
    spark.stop()
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    report["git"] = head.stdout.strip() or "?"
    report["date"] = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    report["seconds"] = round(time.monotonic() - started)
    report["command"] = "python scripts/substrait_corpus.py " + " ".join(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "census.json").write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n")
    (args.out / "CENSUS.md").write_text(markdown(report))
    print(f"wrote {args.out / 'CENSUS.md'} and census.json in {report['seconds']} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
