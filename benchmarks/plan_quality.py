"""Plan quality: how fast Spark runs the plans connect_plan sends, against Spark SQL's own.

``python -m benchmarks.plan_quality --remote sc://127.0.0.1:15010 --ui http://127.0.0.1:4057``
(outside CI; a server of its own, started with ``--conf spark.ui.enabled=true --conf
spark.ui.port=4057`` so that the server's own time of each query can be read from its REST API).

For every recorded Substrait plan of TPC-H and TPC-DS (tests/data/substrait/<suite>/<producer>/,
the plans the test suite proves give Spark SQL's answer: known producer bugs and the corpus'
expected failures are left out), at a stated scale factor (DuckDB's ``dbgen``/``dsdgen`` written
to parquet, cached under ``~/.cache/connect_plan/bench-data``):

- the plan runs through ``Client.execute(plan, tables=...)`` and the suite's SQL text (ibis: ibis'
  own SQL for its expression) through PySpark's ``spark.sql(text).toArrow()`` on the same server;
- a warm round first (both answers compared: a plan whose answer differs is reported, not timed;
  where the SQL's ORDER BY leaves NULL placement to the engine, against Spark SQL's answer with
  the plan's placement: tests/substrait_corpus.with_plan_null_order),
  then ``--repeat`` rounds in which Spark SQL and every producer's plan of the query run once
  each, in an order that rotates from round to round; each side's median over the rounds;
- the ratio is plan ÷ SQL, of the wall time the caller sees (client) and of the server's own
  time (the summed duration of the SQL executions the call started, from Spark's REST API);
  the client's share is the difference;
- ``--control`` adds Spark SQL's text timed against itself, as producer ``spark-sql``: the
  spread of its ratios is what the machine's noise alone gives a ratio in this run;
- for every pair above 1.1× both executed physical plans (AQE's final plans) are written beside
  the report (``plans/``).

Ratios of runs that alternate are robust to load from other processes; absolute times are not.
The report records the load average before every query.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import os
import re
import shlex
import statistics
import sys
import time
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .run import ROOT, code_version, load_average

#: where the generated data is kept between runs
DATA = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "connect_plan" / "bench-data"
#: the report ``--publish`` writes (committed)
PUBLISHED = ROOT / "docs" / "benchmarks" / "spark" / "plan-quality"
#: a ratio above this keeps both physical plans beside the report
TAIL = 1.1
SUITES = ("tpch", "tpcds")
#: the control's name in a report (``--control``): Spark SQL's text timed against itself
CONTROL = "spark-sql"


@dataclass
class Pair:
    """One query of a suite: the SQL text Spark SQL runs and the producers' plans paired with it."""

    suite: str
    qid: str
    sql: str
    plans: dict[str, str | bytes] = field(default_factory=dict)  # producer → plan (JSON text, or bytes)


def pairs(suites: Sequence[str], only: Sequence[str] = (), producers: Sequence[str] = ()) -> list[Pair]:
    """Every plan the test suite proves right (of ``producers``, default all), grouped by the
    SQL text it is paired with."""
    sys.path.insert(0, str(ROOT))
    from tests import substrait_corpus as sc
    from tests import substrait_producers as sp

    out: list[Pair] = []
    for suite in suites:
        corpus = sc.read_suite(suite)
        expected_path = sc.CORPUS / suite / "expected.json"
        expected = json.loads(expected_path.read_text()) if expected_path.exists() else {}
        by_text: dict[tuple[str, str], Pair] = {}
        for producer, plans in corpus.plans.items():
            for qid, plan in plans.items():
                if only and f"{suite}:{qid}" not in only and f"{suite}:{producer}:{qid}" not in only:
                    continue
                if (suite, producer, qid) in sc.PRODUCER_BUGS or qid in expected.get(producer, {}):
                    continue
                if producers and producer not in producers:
                    continue
                if suite == "tpch" and (producer, int(qid[1:])) in sp.PRODUCER_BUGS:
                    continue
                text = corpus.queries[qid]
                own = sc.CORPUS / suite / producer / f"{qid}.sql"
                if own.exists():  # ibis: its own SQL for its own expression
                    text = own.read_text()
                by_text.setdefault((qid, text), Pair(suite, qid, text)).plans[producer] = plan
        out.extend(sorted(by_text.values(), key=lambda p: (p.qid, sorted(p.plans))))
    return out


def replan_duckdb(todo: list[Pair], files: dict[str, str], log: Callable[[str], None]) -> None:
    """DuckDB's plans made again on the data measured (same version and options as the
    recording). DuckDB's optimizer writes what the planning data's statistics prove into the
    plan, as constants: TPC-H q05's ``o_custkey <= 1499`` (sf 0.01 has 1,500 customers),
    TPC-DS q02's ``d_date_sk BETWEEN 2450815 AND 2452642``. A plan recorded at sf 0.01 is
    right only on that data: at sf 1 it filters rows out (q05's revenue 219,563 against
    Spark SQL's 53.7 million) or prunes what the SQL scans. A plan DuckDB cannot make here
    is reported with its error."""
    wanted = [p for p in todo if "duckdb" in p.plans]
    if not wanted:
        return
    sys.path.insert(0, str(ROOT))
    from tests.substrait_producers import duckdb_with_tables

    t = time.time()
    con = duckdb_with_tables(files)
    try:
        for pair in wanted:
            try:
                pair.plans["duckdb"] = con.get_substrait(pair.sql, enable_optimizer=True).fetchone()[0]
            except Exception as e:  # the producer's own failure: reported with the pair
                pair.plans["duckdb"] = f"DuckDB cannot plan this on the data measured: {type(e).__name__}: {e}"
    finally:
        con.close()
    log(f"DuckDB planned {len(wanted)} queries again on the data measured ({time.time() - t:.0f} s)")


#: what ``--bind analyzed`` turns on in both sessions: Spark's cost-based optimizer, which sizes
#: joins from the tables' statistics instead of multiplying their inputs' sizes, and its join
#: reorder, which may reorder a producer's join tree as it does Spark SQL's
CBO_CONF = {"spark.sql.cbo.enabled": "true", "spark.sql.cbo.joinReorder.enabled": "true"}


def analyzed_views(
    session: Any, client: Any, suite: str, scale: float, files: dict[str, str], log: Callable[[str], None]
) -> dict[str, Any]:
    """``--bind analyzed``: each table written once more as a catalog table of the server
    (``<suite>_sf<scale>_<name>``) with statistics of every column, a temp view of it under the
    table's own name in both sessions, and :data:`CBO_CONF` in both: what a user whose tables
    live in a catalog with statistics runs. ``tables=`` for connect_plan.

    The tables are external, their files beside the suite's parquet (the server reads those
    paths already): a managed table's files outlive a server whose catalog is in memory, and
    the next server refuses to create the table again (LOCATION_ALREADY_EXISTS, met after a
    restart); an external table's location is overwritten."""
    t = time.time()
    tag = f"{suite}_sf{scale:g}".replace(".", "_")
    for name, path in files.items():
        table = f"{tag}_{name}"
        location = DATA / "catalog" / tag / name
        session.read.parquet(path).write.mode("overwrite").option("path", str(location)).saveAsTable(table)
        session.sql(f"ANALYZE TABLE {table} COMPUTE STATISTICS FOR ALL COLUMNS")  # our own names only
        session.table(table).createOrReplaceTempView(name)
        client.execute(
            {"input": {"table": table}, "plan": [{"op": "createOrReplaceTempView", "payload": {"name": name}}]}
        )
    for k, v in CBO_CONF.items():
        session.conf.set(k, v)
    client.set_conf(CBO_CONF)
    log(f"{len(files)} {suite} tables written as catalog tables with statistics ({time.time() - t:.0f} s)")
    return {name: {"table": name} for name in files}


def suite_data(suite: str, scale: float) -> dict[str, str]:
    """The suite's tables at ``scale`` as parquet files (made once, then kept): name → path."""
    sys.path.insert(0, str(ROOT))
    from tests import substrait_corpus as sc

    root = DATA / f"{suite}-sf{scale:g}"
    marker = root / "tables.json"
    if marker.exists():
        return dict(json.loads(marker.read_text()))
    files = sc.duckdb_tables(root, suite, scale)[0]
    marker.write_text(json.dumps(files, sort_keys=True))
    return files


class ServerClock:
    """The server's own time of the SQL executions a call started (Spark's REST API)."""

    def __init__(self, ui: str | None, sessions: Callable[[], Sequence[str]] = tuple) -> None:
        self.ui = ui.rstrip("/") if ui else None
        self.app: str | None = None
        self.seen = -1
        self.position = 0  # where the last read of the UI's list ended
        #: the session ids whose executions count (others on the same server are not ours)
        self.sessions = sessions
        if self.ui:
            self.app = self._get("/api/v1/applications")[0]["id"]
            self.seen = max((e["id"] for e in self._executions()), default=-1)

    def _get(self, path: str) -> Any:
        with urllib.request.urlopen(f"{self.ui}{path}", timeout=30) as r:
            return json.load(r)

    def _executions(self) -> list[dict[str, Any]]:
        """The executions the UI holds from about where the last read ended. The REST API pages
        by position in what it retains (``spark.sql.ui.retainedExecutions``, 1,000 by default),
        not by id: once it drops old ones, positions and ids part, so each read starts a little
        before the last read's end and the caller keeps the ids it has not seen."""
        out: list[dict[str, Any]] = []
        start = max(0, self.position - 50)
        while True:
            page = self._get(
                f"/api/v1/applications/{self.app}/sql?details=false&planDescription=true"
                f"&offset={start + len(out)}&length=200"
            )
            out.extend(page)
            if len(page) < 200:
                self.position = start + len(out)
                return out

    def since_last(self, expect: bool = False) -> tuple[float | None, str | None]:
        """(seconds, the last root execution's physical plan) of what ran since the last call;
        ``expect``: a call just ran, so wait (up to ~5 s) for the server's listener to record it."""
        if not self.ui:
            return None, None
        for _ in range(250):  # the listener records a start and an end a moment after they happen
            new = [e for e in self._executions() if e["id"] > self.seen and e.get("id") == e.get("rootExecutionId")]
            ours = tuple(self.sessions())
            if ours:
                new = [e for e in new if any(sid in e.get("description", "") for sid in ours)]
            if (new or not expect) and all(e["status"] != "RUNNING" for e in new):
                break
            time.sleep(0.02)
        if not new:
            return 0.0, None
        self.seen = max(e["id"] for e in new)
        return sum(e["duration"] for e in new) / 1000, new[-1].get("planDescription")


_NODE = re.compile(r"^\((\d+)\) (.+?)(?: \[codegen id : \d+\])?\s*$")


def plan_shape(text: str | None) -> list[str]:
    """A formatted physical plan's operators in order, without ids or column names: its node
    names, each join's type, each scan's table and pushed filters' count, each exchange's
    partitioning (what decides how a plan runs, not what its columns are called). Projects
    are left out: a producer's plan renames columns at every step, and Spark runs a project
    inside the generated code of the operators around it."""
    if not text:
        return []
    out: list[str] = []
    node = ""
    for line in text.splitlines():
        m = _NODE.match(line)
        if m:
            node = re.sub(r"\s*\[.*\]$", "", m.group(2).strip())  # "ReusedExchange [Reuses operator id: 34]"
            if node != "Project":  # renames and computed columns, inside the generated code
                out.append(node)
        elif line.startswith("Location:") and out:
            out[-1] += " " + line.rsplit("/", 1)[-1].strip(" ]")
        elif line.startswith("PushedFilters:") and out:
            out[-1] += f" pushed={line.count('(')}"
        elif line.startswith("Join type:") and out:
            # Cross with keys runs as Inner does (a cartesian product is an operator of its own)
            out[-1] += " " + line.split(":", 1)[1].strip().replace("Cross", "Inner")
        elif line.startswith("Arguments:") and node in ("Exchange", "BroadcastExchange") and out:
            out[-1] += " " + re.split(r"[(,]", line.split(":", 1)[1].strip())[0]
        elif line.startswith("Subquery:"):
            out.append("Subquery" + (" reused" if "ReusedSubquery" in line else ""))
    return out


def _median(xs: list[float]) -> float:
    return statistics.median(xs) if xs else math.nan


def _geomean(xs: Sequence[float]) -> float:
    xs = [x for x in xs if x > 0 and math.isfinite(x)]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else math.nan


def measure_pair(
    pair: Pair,
    client: Any,
    session: Any,
    tables: dict[str, Any],
    clock: ServerClock,
    repeat: int,
    log: Callable[[str], None],
) -> list[dict[str, Any]]:
    """The pair's rounds: one result per producer (see module doc)."""
    sys.path.insert(0, str(ROOT))
    from tests import substrait_corpus as sc

    sides: dict[str, Callable[[], Any]] = {"sql": lambda: session.sql(pair.sql).toArrow()}
    problems: dict[str, str] = {}
    for producer, plan in pair.plans.items():
        if producer == CONTROL:  # the same text, the same path: what a ratio of 1 looks like here
            sides[producer] = lambda: session.sql(pair.sql).toArrow()
            continue
        if isinstance(plan, str) and not plan.lstrip().startswith("{"):
            problems[producer] = plan  # the producer could not plan it (replan_duckdb)
            continue
        sides[producer] = lambda plan=plan: client.execute(plan, tables=tables)
    wall: dict[str, list[float]] = {s: [] for s in ("sql", *pair.plans)}
    server: dict[str, list[float]] = {s: [] for s in ("sql", *pair.plans)}
    physical: dict[str, str | None] = {}
    load = load_average()

    def timed(side: str) -> Any:
        clock.since_last()
        t = time.perf_counter()
        result = sides[side]()
        elapsed = time.perf_counter() - t
        seconds, plan_text = clock.since_last(expect=True)
        physical[side] = plan_text
        return result, elapsed, seconds

    # the warm round, answers compared
    answers: dict[str, Any] = {}
    for side in sides:
        try:
            answers[side] = timed(side)[0]
        except Exception as e:  # a failure is reported with the pair, not raised
            problems[side] = f"{type(e).__name__}: {str(e)[:300]}"
    reordered: dict[str, Any] = {}  # Spark SQL's answers to the texts with a plan's NULL placement
    if "sql" in problems:
        live = []
    else:
        live = ["sql"]
        for producer in pair.plans:
            if producer in problems:
                continue
            # Spark SQL's answer with the plan's NULL placement where the text leaves it to the
            # engine (tests/substrait_corpus.with_plan_null_order): the question the plan answers
            oracle = pair.sql if producer == CONTROL else sc.with_plan_null_order(pair.sql, pair.plans[producer])
            if oracle != pair.sql and oracle not in reordered:
                try:
                    reordered[oracle] = session.sql(oracle).toArrow()
                except Exception as e:  # reported with the pair, as Spark SQL's own failure would be
                    problems[producer] = f"Spark SQL with the plan's NULL placement: {type(e).__name__}: {str(e)[:300]}"
                    continue
            expected = reordered[oracle] if oracle != pair.sql else answers["sql"]
            diff = sc.difference(answers[producer], expected, ordered=sc.is_ordered(pair.sql))
            if diff is not None:
                problems[producer] = f"answer differs from Spark SQL's: {diff[:300]}"
            else:
                live.append(producer)
    answers.clear()
    reordered.clear()
    for r in range(repeat if len(live) > 1 else 0):
        order = live[r % len(live) :] + live[: r % len(live)]
        for side in order:
            _, elapsed, seconds = timed(side)
            wall[side].append(elapsed)
            if seconds is not None:
                server[side].append(seconds)
    out = []
    for producer in pair.plans:
        rec: dict[str, Any] = {
            "suite": pair.suite,
            "query": pair.qid,
            "producer": producer,
            "load_average": load,
            "sql_seconds": wall["sql"],
            "plan_seconds": wall[producer],
            "sql_server_seconds": server["sql"],
            "plan_server_seconds": server[producer],
        }
        if producer in problems or "sql" in problems:
            rec["problem"] = problems.get(producer) or f"Spark SQL: {problems['sql']}"
        else:
            sw, pw = _median(wall["sql"]), _median(wall[producer])
            ss, ps = _median(server["sql"]), _median(server[producer])
            rec["ratio"] = pw / sw
            rec["server_ratio"] = ps / ss if ss > 0 else math.nan
            rec["sql_client_seconds"] = sw - ss
            rec["plan_client_seconds"] = pw - ps
            if rec["ratio"] > TAIL or rec.get("server_ratio", 0) > TAIL:
                rec["physical_plans"] = {"sql": physical.get("sql"), "plan": physical.get(producer)}
                shapes = [plan_shape(physical.get(side)) for side in ("sql", producer)]
                # the same operators in the same order: the ratio is the machine's noise, not the plan's
                rec["same_physical_shape"] = shapes[0] == shapes[1] if shapes[0] and shapes[1] else None
        out.append(rec)
        log(
            f"{pair.suite} {pair.qid} {producer:10s} "
            + (
                f"{rec['ratio']:.2f}x (server {rec['server_ratio']:.2f}x; "
                f"sql {_median(wall['sql']):.2f}s, plan {_median(wall[producer]):.2f}s)"
                if "ratio" in rec
                else rec["problem"][:150]
            )
        )
    return out


def run(
    url: str,
    ui: str | None,
    *,
    suites: Sequence[str] = SUITES,
    scales: dict[str, float],
    repeat: int = 3,
    only: Sequence[str] = (),
    producers: Sequence[str] = (),
    replan: bool = True,
    bind: str = "views",
    control: bool = False,
    log: Callable[[str], None] = lambda m: print(m, file=sys.stderr, flush=True),
    progress: Callable[[dict[str, Any]], None] = lambda report: None,
) -> dict[str, Any]:
    """The report (see module doc); ``progress`` is given the report so far after every query
    (a long run stopped early keeps what it measured)."""
    from pyspark.sql import SparkSession

    import connect_plan

    sys.path.insert(0, str(ROOT))
    from tests import substrait_corpus as sc

    logging.getLogger("SQLQueryContextLogger").setLevel(logging.CRITICAL)
    session = SparkSession.builder.remote(url).create()
    for k, v in sc.SPARK_CONF.items():
        session.conf.set(k, v)
    client = connect_plan.connect(url)
    clock = ServerClock(ui, lambda: (session.client._session_id, client.session_id))
    started = time.time()
    results: list[dict[str, Any]] = []
    seconds: dict[str, float] = {}
    version = client.server_version()

    def report() -> dict[str, Any]:
        return {
            "suite": "connect_plan plan quality",
            "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started)),
            "seconds": round(time.time() - started, 1),
            "suite_seconds": seconds,
            "scales": {s: scales[s] for s in suites},
            "repeat": repeat,
            "duckdb_plans": "made on the data measured" if replan else "as recorded (sf 0.01)",
            "tables": {
                "views": "temp views in both sessions",
                "files": "connect_plan: files; Spark SQL: temp views",
                "analyzed": "temp views of catalog tables with statistics (ANALYZE ... FOR ALL COLUMNS) in both "
                "sessions, cost-based optimizer and join reorder on in both",
            }[bind],
            "server": {"engine": "spark", "spark_version": version, "server_time": bool(ui)},
            "code": code_version(),
            "environment": {"cpus": os.cpu_count(), "load_average_after": load_average()},
            "command": ["python", "-m", "benchmarks.plan_quality", *sys.argv[1:]],
            "results": results,
        }

    try:
        for suite in suites:
            t = time.time()
            files = suite_data(suite, scales[suite])
            for name, path in files.items():
                session.read.parquet(path).createOrReplaceTempView(name)
            if bind == "analyzed":
                tables = analyzed_views(session, client, suite, scales[suite], files, log)
            elif bind == "views":
                # the same temp views in connect_plan's session: both sides read relations resolved
                # once (a files source is listed and its parquet schema read again on every query:
                # 0.5-2 s more per TPC-DS query on this loaded machine, the same for Spark SQL
                # reading parquet.`path`)
                for name, path in files.items():
                    view = [{"op": "createOrReplaceTempView", "payload": {"name": name}}]
                    client.execute({"input": {"files": [path], "format": "parquet"}, "plan": view})
                tables: dict[str, Any] = {name: {"table": name} for name in files}
            else:
                tables = sc.sources(files)
            todo = pairs([suite], only, producers)
            if replan:
                replan_duckdb(todo, files, log)
            if control:  # once per query, beside the suite's own text (ibis' own text is a pair apart)
                for qid in dict.fromkeys(pair.qid for pair in todo):
                    same = [pair for pair in todo if pair.qid == qid]
                    next((p for p in same if set(p.plans) - {"ibis"}), same[0]).plans[CONTROL] = ""
            log(f"== {suite} sf {scales[suite]:g}: {len(todo)} queries, {sum(len(p.plans) for p in todo)} plans")
            for pair in todo:
                results.extend(measure_pair(pair, client, session, tables, clock, repeat, log))
                seconds[suite] = round(time.time() - t, 1)
                progress(report())
    finally:
        client.close()
        session.stop()
    return report()


def shapes(
    url: str,
    suites: Sequence[str],
    scales: dict[str, float],
    only: Sequence[str] = (),
    producers: Sequence[str] = (),
    out: Path | None = None,
    log: Callable[[str], None] = lambda m: print(m, flush=True),
) -> int:
    """Nothing timed: each plan's physical plan (Spark's ``EXPLAIN FORMATTED``, before AQE) beside
    Spark SQL's for the same text, compared by :func:`plan_shape`; the pairs whose shapes differ
    are listed with the difference (and both plans written to ``out``, if given). The evidence
    for a lowering change on a loaded machine: a fix shows as a shape becoming Spark SQL's own.
    Returns the number of pairs whose shapes differ."""
    import difflib

    from pyspark.sql import SparkSession

    import connect_plan

    sys.path.insert(0, str(ROOT))
    from tests import substrait_corpus as sc

    session = SparkSession.builder.remote(url).create()
    for k, v in sc.SPARK_CONF.items():
        session.conf.set(k, v)
    client = connect_plan.connect(url)
    differ = 0
    try:
        for suite in suites:
            files = suite_data(suite, scales[suite])
            for name, path in files.items():
                session.read.parquet(path).createOrReplaceTempView(name)
            tables = sc.sources(files)
            todo = pairs([suite], only, producers)
            replan_duckdb(todo, files, log)
            for pair in todo:
                theirs = session.sql(f"EXPLAIN FORMATTED {pair.sql}").collect()[0][0]
                for producer, plan in sorted(pair.plans.items()):
                    if isinstance(plan, str) and not plan.lstrip().startswith("{"):
                        log(f"{suite} {pair.qid} {producer}: {plan}")
                        continue
                    try:
                        ours = client.explain(plan, mode="formatted", tables=tables)
                    except Exception as e:  # reported with the pair
                        log(f"{suite} {pair.qid} {producer}: {type(e).__name__}: {str(e)[:200]}")
                        continue
                    a, b = plan_shape(ours), plan_shape(theirs)
                    log(f"{suite} {pair.qid} {producer}: {'same shape' if a == b else 'shape differs'}")
                    if a != b:
                        differ += 1
                        for line in difflib.unified_diff(b, a, "spark sql", producer, lineterm="", n=1):
                            log(f"    {line}")
                    if out is not None:
                        out.mkdir(parents=True, exist_ok=True)
                        (out / f"{suite}-{pair.qid}-{producer}.plan.txt").write_text(ours)
                        (out / f"{suite}-{pair.qid}-{producer}.sql.txt").write_text(theirs)
    finally:
        client.close()
        session.stop()
    return differ


def merge(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """``new``'s results replace ``old``'s for the same (suite, query, producer) (a re-run of a few);
    a suite ``new`` ran at another scale factor replaces that suite's results and scale wholesale
    (results of two scales are not ratios of one run)."""
    key = lambda r: (r["suite"], r["query"], r["producer"])  # noqa: E731
    rescaled = {s for s, sf in new["scales"].items() if s in old["scales"] and old["scales"][s] != sf}
    fresh = {key(r) for r in new["results"]}
    merged = dict(old)
    merged["scales"] = {**old["scales"], **new["scales"]}
    merged["suite_seconds"] = {**old.get("suite_seconds", {}), **{s: new["suite_seconds"][s] for s in rescaled}}
    kept = [r for r in old["results"] if key(r) not in fresh and r["suite"] not in rescaled]
    merged["results"] = kept + new["results"]
    if old.get("second_pass"):
        merged["second_pass"] = [r for r in old["second_pass"] if r["suite"] not in rescaled]
    merged["reruns"] = [
        *old.get("reruns", []),
        {k: new[k] for k in ("started", "seconds", "code", "scales", "command") if k in new} | {"cases": len(fresh)},
        *new.get("reruns", []),  # the merged run's own second passes
    ]
    return merged


def _fmt(x: float | None) -> str:
    return "n/a" if x is None or not math.isfinite(x) else f"{x:.2f}"


def _load(results: list[dict[str, Any]]) -> str:
    """The 1-minute load average before the queries, as its range (what the machine was doing)."""
    loads = [r["load_average"][0] for r in results if r.get("load_average")]
    return f", load average {min(loads):.1f}–{max(loads):.1f} before each query" if loads else ""


def summary_markdown(report: dict[str, Any]) -> str:
    results = report["results"]
    timed = [r for r in results if "ratio" in r]
    lines = [
        "# Plan quality: Substrait plans through connect_plan vs Spark SQL's own text",
        "",
        f"Spark {report['server']['spark_version']}, {report['environment']['cpus']} cores{_load(results)}; "
        f"started {report['started']}, {report['seconds'] / 60:.0f} min "
        + ", ".join(
            f"({s} sf {report['scales'][s]:g}: {report['suite_seconds'].get(s, 0) / 60:.0f} min)"
            for s in report["scales"]
        )
        + f"; a warm round, then medians of {report['repeat']} alternating rounds. Code {str(report['code']['commit'])[:7]}"
        + (" (with uncommitted changes)" if report["code"].get("dirty") else "")
        + "."
        + (f" Measured with `{shlex.join(report['command'])}`." if report.get("command") else "")
        + "".join(
            f" Merged in: {r['cases']} pairs started {r['started']} ({r['seconds'] / 60:.0f} min"
            + "".join(f", {s} sf {sf:g}" for s, sf in (r.get("scales") or {}).items())
            + f"), code {str(r['code']['commit'])[:7]}"
            + (f": `{shlex.join(r['command'])}`" if r.get("command") else "")
            + "."
            for r in report.get("reruns", [])
        ),
        "",
        "Ratio = the plan's median time ÷ Spark SQL's median time for the same query (below 1: the plan is faster).",
        "*client* is the wall time the caller sees; *server* is the summed duration of the SQL executions the "
        "call started (Spark's REST API). Ratios of alternating runs are robust to other load on the machine; "
        "absolute times are not (load average before each query is in report.json).",
        "",
        "## Geomeans",
        "",
        "| suite | producer | queries | client ratio | server ratio | max client ratio | above 1.1× | above 1.2× |",
        "|---|---|---|---|---|---|---|---|",
    ]
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in timed:
        groups.setdefault((r["suite"], r["producer"]), []).append(r)
    for suite in report["scales"]:
        for (s, producer), rs in sorted(groups.items()):
            if s != suite:
                continue
            worst = max(rs, key=lambda r: r["ratio"])
            named = f"{producer} (control: Spark SQL against itself)" if producer == CONTROL else producer
            lines.append(
                f"| {suite} | {named} | {len(rs)} | {_fmt(_geomean([r['ratio'] for r in rs]))}× "
                f"| {_fmt(_geomean([r['server_ratio'] for r in rs]))}× | {_fmt(worst['ratio'])}× ({worst['query']}) "
                f"| {sum(r['ratio'] > 1.1 for r in rs)} | {sum(r['ratio'] > 1.2 for r in rs)} |"
            )
        rs = [r for r in timed if r["suite"] == suite and r["producer"] != CONTROL]
        if rs:
            lines.append(
                f"| {suite} | **all** | {len(rs)} | {_fmt(_geomean([r['ratio'] for r in rs]))}× "
                f"| {_fmt(_geomean([r['server_ratio'] for r in rs]))}× | | {sum(r['ratio'] > 1.1 for r in rs)} "
                f"| {sum(r['ratio'] > 1.2 for r in rs)} |"
            )
    tail = sorted((r for r in timed if r["ratio"] > TAIL), key=lambda r: -r["ratio"])
    lines += ["", f"## Above {TAIL}× ({len(tail)}; both physical plans in plans/)", ""]
    lines += [
        "*same shape*: both executed physical plans have the same operators in the same order "
        "(`plan_shape` in benchmarks/plan_quality.py), so the ratio is not the plan's.",
        "",
        "*first pass*: the ratio of the first pass, where this pair was measured again with more rounds "
        "(`--only ... --repeat N`; the ratio beside it is the second pass's).",
        "",
        "| suite | query | producer | client ratio | server ratio | SQL s | plan s | same shape | first pass |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in tail:
        same = {True: "yes", False: "**no**"}.get(r.get("same_physical_shape", "n/a"), "n/a")
        lines.append(
            f"| {r['suite']} | {r['query']} | {r['producer']} | {_fmt(r['ratio'])}× | {_fmt(r['server_ratio'])}× "
            f"| {_fmt(_median(r['sql_seconds']))} | {_fmt(_median(r['plan_seconds']))} | {same} "
            f"| {_fmt(r['first_pass']['ratio']) + '×' if 'first_pass' in r else ''} |"
        )
    again = [r for r in timed if "first_pass" in r and r["ratio"] <= TAIL]
    if again:
        lines += ["", f"Measured again and at or below {TAIL}× the second time:", ""]
        lines += [
            f"- {r['suite']} {r['query']} {r['producer']}: {_fmt(r['first_pass']['ratio'])}× → {_fmt(r['ratio'])}×"
            for r in again
        ]
    second = report.get("second_pass") or []
    if second:
        lines += [
            "",
            "## The tail again, both sides on the same temp views",
            "",
            "The pairs above 1.1× (and a few controls) measured again with `--bind views`: connect_plan reads "
            "the temp views Spark SQL reads, so neither side resolves a parquet source per query.",
            "",
            "| suite | query | producer | before (files) | again (views) | server ratio | SQL s | plan s | same shape |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        before = {(r["suite"], r["query"], r["producer"]): r for r in timed}
        for r in sorted(second, key=lambda r: (r["suite"], r["query"], r["producer"])):
            if "ratio" not in r:
                continue
            b = before.get((r["suite"], r["query"], r["producer"]))
            same = {True: "yes", False: "**no**"}.get(r.get("same_physical_shape", "n/a"), "n/a")
            lines.append(
                f"| {r['suite']} | {r['query']} | {r['producer']} | {_fmt(b['ratio']) + '×' if b else 'n/a'} "
                f"| {_fmt(r['ratio'])}× | {_fmt(r['server_ratio'])}× | {_fmt(_median(r['sql_seconds']))} "
                f"| {_fmt(_median(r['plan_seconds']))} | {same} |"
            )
        rs = [r for r in second if "ratio" in r]
        lines += ["", f"Geomean of these {len(rs)} pairs on views: {_fmt(_geomean([r['ratio'] for r in rs]))}×."]
    problems = [r for r in results if "problem" in r]
    if problems:
        lines += ["", "## Not timed", ""]
        lines += [f"- {r['suite']} {r['query']} {r['producer']}: {r['problem']}" for r in problems]
    lines += [
        "",
        "## Every query",
        "",
        "| suite | query | producer | client ratio | server ratio | SQL s (server) | plan s (server) |",
    ]
    lines.append("|---|---|---|---|---|---|---|")
    for r in sorted(timed, key=lambda r: (r["suite"], r["query"], r["producer"])):
        lines.append(
            f"| {r['suite']} | {r['query']} | {r['producer']} | {_fmt(r['ratio'])} | {_fmt(r['server_ratio'])} "
            f"| {_fmt(_median(r['sql_seconds']))} ({_fmt(_median(r['sql_server_seconds']))}) "
            f"| {_fmt(_median(r['plan_seconds']))} ({_fmt(_median(r['plan_server_seconds']))}) |"
        )
    return "\n".join(lines) + "\n"


def write(report: dict[str, Any], out: Path, *, clean: bool = True) -> None:
    """report.json, summary.md and plans/ (emptied first unless ``clean`` is False: a merge)."""
    out.mkdir(parents=True, exist_ok=True)
    plans = out / "plans"
    plans.mkdir(exist_ok=True)
    for old in plans.glob("*.txt") if clean else ():
        old.unlink()
    slim = []
    for r in report["results"]:
        r = dict(r)
        kept = r.pop("physical_plans", None)
        if isinstance(kept, list):  # a merged result's, already written
            r["physical_plans"] = kept
        elif kept:
            stem = f"{r['suite']}-{r['query']}-{r['producer']}"
            for side, text in kept.items():
                (plans / f"{stem}.{side}.txt").write_text(text or "(the server recorded no plan)\n")
            r["physical_plans"] = [f"plans/{stem}.sql.txt", f"plans/{stem}.plan.txt"]
        slim.append(r)
    second = []
    for r in report.get("second_pass") or []:
        r = dict(r)
        kept = r.pop("physical_plans", None)
        if isinstance(kept, dict) and r.get("ratio", 0) > TAIL:
            stem = f"views-{r['suite']}-{r['query']}-{r['producer']}"
            for side, text in kept.items():
                (plans / f"{stem}.{side}.txt").write_text(text or "(the server recorded no plan)\n")
            r["physical_plans"] = [f"plans/{stem}.sql.txt", f"plans/{stem}.plan.txt"]
        second.append(r)
    (out / "report.json").write_text(json.dumps({**report, "results": slim, "second_pass": second}, indent=1) + "\n")
    (out / "summary.md").write_text(summary_markdown(report))
    kept_plans = {Path(p).name for r in [*slim, *second] for p in r.get("physical_plans") or ()}
    for stale in plans.glob("*.txt"):  # a merge's replaced results' plans
        if stale.name not in kept_plans:
            stale.unlink()


def render(src: Path, out: Path) -> None:
    """The report of ``src`` written to ``out`` with today's summary and plan shapes."""
    report = json.loads((src / "report.json").read_text())
    for r in report["results"]:
        paths = r.get("physical_plans")
        if isinstance(paths, list):
            texts = {side: (src / path).read_text() for side, path in zip(("sql", "plan"), paths)}
            r["physical_plans"] = texts
            shapes = [plan_shape(texts[side]) for side in ("sql", "plan")]
            r["same_physical_shape"] = shapes[0] == shapes[1] if shapes[0] and shapes[1] else None
    write(report, out)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.plan_quality", description=__doc__.split("\n\n")[0])
    p.add_argument("--remote", default=os.environ.get("SPARK_REMOTE"))
    p.add_argument("--ui", help="the server's web UI (spark.ui.enabled=true): its REST API gives the server's time")
    p.add_argument("--suites", default=",".join(SUITES))
    p.add_argument("--tpch-scale", type=float, default=1.0)
    p.add_argument("--tpcds-scale", type=float, default=0.2)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--only", default="", help="suite:qid or suite:producer:qid, comma-separated (a re-run of a few)")
    p.add_argument("--producers", default="", help="only these producers' plans, comma-separated")
    p.add_argument(
        "--recorded-duckdb",
        action="store_true",
        help="run DuckDB's recorded plans (made on sf 0.01: right only on that data) instead of planning again",
    )
    p.add_argument(
        "--bind",
        choices=("views", "files", "analyzed"),
        default="views",
        help="connect_plan's tables: the same temp views Spark SQL reads (default), the parquet files, or "
        "(analyzed) both sides' temp views of catalog tables with statistics, the cost-based optimizer on",
    )
    p.add_argument(
        "--shapes",
        action="store_true",
        help="time nothing: compare each plan's physical plan with Spark SQL's (EXPLAIN), list the differences",
    )
    p.add_argument(
        "--control",
        action="store_true",
        help=f"also time each query's Spark SQL against itself (producer {CONTROL!r}): the noise floor of a ratio",
    )
    p.add_argument("--merge", action="store_true", help="replace these results in the report at --out")
    p.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "plan-quality")
    p.add_argument("--publish", action="store_true", help=f"write to {PUBLISHED.relative_to(ROOT)}")
    p.add_argument(
        "--render", type=Path, help="rewrite the summary of this run's folder (a report.json and its plans/)"
    )
    args = p.parse_args(argv)
    out = PUBLISHED if args.publish else args.out
    if args.render:
        render(args.render, out)
        return 0
    if not args.remote:
        p.error("--remote (or SPARK_REMOTE) is required")
    suites = [s for s in args.suites.split(",") if s]
    only = [o for o in args.only.split(",") if o]
    if args.shapes:
        scales = {"tpch": args.tpch_scale, "tpcds": args.tpcds_scale}
        producers = [x for x in args.producers.split(",") if x]
        differ = shapes(
            args.remote, suites, scales, only, producers, args.out if "--out" in (argv or sys.argv) else None
        )
        print(f"{differ} pairs' shapes differ from Spark SQL's")
        return 0
    merging = args.merge and (out / "report.json").exists()
    old = json.loads((out / "report.json").read_text()) if merging else None

    def save(report: dict[str, Any]) -> None:
        write(merge(old, report) if old else report, out, clean=old is None)

    report = run(
        args.remote,
        args.ui,
        suites=suites,
        scales={"tpch": args.tpch_scale, "tpcds": args.tpcds_scale},
        repeat=args.repeat,
        only=only,
        producers=[x for x in args.producers.split(",") if x],
        replan=not args.recorded_duckdb,
        bind=args.bind,
        control=args.control,
        progress=save,
    )
    save(report)
    report = merge(old, report) if old else report
    print(summary_markdown(report).split("## Every query")[0])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
