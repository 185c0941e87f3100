"""The benchmark scenarios. Each runs connect_plan and PySpark's own Connect client (and
robin-sparkless in-process where it applies) alternately, in one process, against the
same server, checks that they produced the same result, and returns result records with
every sample, the medians, the ratios and the issue's targets.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import workloads as w
from .measure import Series, paired, run_measured, thread_cpu

MiB = 1 << 20


@dataclass
class Context:
    url: str
    client: Any  # connect_plan.Client
    spark: Any  # PySpark's Connect SparkSession
    repeat: int
    robin: Any | None  # the robin_sparkless module, if installed
    log: Callable[[str], None]
    engine: str = "spark"  # the server's engine: "spark" or "sail" (the targets differ)


def _record(
    scenario: str,
    case: str,
    series: dict[str, Series],
    ratios: dict[str, float],
    targets: list[dict[str, Any]] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    return {
        "scenario": scenario,
        "case": case,
        "metrics": {name: s.as_dict() for name, s in series.items()},
        "ratios": ratios,
        "targets": targets or [],
        **extra,
    }


def _target(name: str, value: float, limit: float, kind: str) -> dict[str, Any]:
    met = value <= limit if kind == "max" else value >= limit
    return {"name": name, "value": value, "limit": limit, "kind": kind, "met": bool(met)}


def _arrow_table(rows: list[list[Any]]) -> Any:
    """The Arrow table connect_plan makes of JSON rows (both clients get this table)."""
    from connect_plan.formats.json_plan import parse_plan

    return parse_plan(rows, w.INPUT_SCHEMA, []).source.table


def _same_rows(a: Any, b: Any) -> bool:
    """Same values in the same column order, ignoring row order and Arrow type nuances."""
    key = repr
    ra = sorted((tuple(r.values()) for r in a.to_pylist()), key=key)
    rb = sorted((tuple(r.values()) for r in b.to_pylist()), key=key)
    return ra == rb


# ------------------------------------------------------------------ translation


def translation(ctx: Context, sizes: tuple[int, ...]) -> list[dict[str, Any]]:
    """Plan → Spark Connect proto. connect_plan: ``translate`` (parse, validate, lower,
    emit) from the same Arrow input PySpark gets; PySpark: the DataFrame API calls, and its
    proto building (``to_proto``) alone. CPU time of the calling thread, µs per op.

    "Marginal" subtracts each client's cost for the input alone, measured in the same round
    (0 ops: our ``translate`` of an empty plan, PySpark's ``to_proto`` of the input frame):
    the cost that grows with the plan. The flatness target is judged on the plain cost per
    op (what a caller pays, input included); the marginal spread is reported beside it.
    """
    from pyspark.sql.connect.dataframe import DataFrame
    from pyspark.sql.connect.plan import LocalRelation

    import connect_plan

    # PySpark builds protos recursively (one Python frame per nested relation and more)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 50_000))
    table = _arrow_table(w.SMALL_ROWS)
    base = DataFrame(LocalRelation(table), ctx.spark)
    base._plan.to_proto(ctx.spark.client)  # reads the plan-compression settings once
    ours_0, py_0 = Series("µs"), Series("µs")
    for _ in range(20 * ctx.repeat):
        ours_0.samples.append(thread_cpu(lambda: connect_plan.translate(table, None, []))[0] * 1e6)
        py_0.samples.append(thread_cpu(lambda: base._plan.to_proto(ctx.spark.client))[0] * 1e6)
    out = [
        _record(
            "translation",
            "input only (0 ops)",
            {"connect_plan": ours_0, "pyspark to_proto": py_0},
            {"connect_plan/pyspark_to_proto": paired(ours_0, py_0)},
        )
    ]
    marginal: dict[int, float] = {}
    raw: dict[int, float] = {}
    for n in sizes:
        plan = w.translation_plan(n)
        ours, ours_rows, ours_marginal = Series("µs/op"), Series("µs/op"), Series("µs/op")
        py_proto, py_total, py_marginal = Series("µs/op"), Series("µs/op"), Series("µs/op")
        reps = ctx.repeat * (10 if n <= 100 else 2)
        for _ in range(2):  # warm-up
            connect_plan.translate(table, None, plan)
        for rep in range(reps):
            order = [0, 1] if rep % 2 == 0 else [1, 0]
            for which in order:
                if which == 0:
                    t0, _ = thread_cpu(lambda: connect_plan.translate(table, None, []))
                    t, _ = thread_cpu(lambda plan=plan: connect_plan.translate(table, None, plan))
                    ours.samples.append(t / n * 1e6)
                    ours_marginal.samples.append((t - t0) * 1e6 / n)  # same round, same load
                    t, _ = thread_cpu(lambda plan=plan: connect_plan.translate(w.SMALL_ROWS, w.INPUT_SCHEMA, plan))
                    ours_rows.samples.append(t / n * 1e6)
                else:
                    t0, _ = thread_cpu(lambda: base._plan.to_proto(ctx.spark.client))
                    t_api, df = thread_cpu(lambda n=n: w.translation_df(base, n))
                    t_proto, _ = thread_cpu(lambda df=df: df._plan.to_proto(ctx.spark.client))
                    py_proto.samples.append(t_proto / n * 1e6)
                    py_total.samples.append((t_api + t_proto) / n * 1e6)
                    py_marginal.samples.append((t_proto - t0) * 1e6 / n)
        marginal[n], raw[n] = ours_marginal.median, ours.median
        ratios = {
            "connect_plan/pyspark_to_proto": paired(ours, py_proto),
            "connect_plan/pyspark_api_and_proto": paired(ours, py_total),
            "marginal: connect_plan/pyspark_to_proto": paired(ours_marginal, py_marginal),
        }
        targets = []
        if n == 100:
            targets.append(
                _target(
                    "translation ≤ 0.05× PySpark proto building (to_proto) at 100 ops",
                    ratios["connect_plan/pyspark_to_proto"],
                    0.05,
                    "max",
                )
            )
            targets.append(
                _target(
                    "translation ≤ 0.05× PySpark DataFrame API + to_proto at 100 ops",
                    ratios["connect_plan/pyspark_api_and_proto"],
                    0.05,
                    "max",
                )
            )
        series = {
            "connect_plan": ours,
            "connect_plan marginal": ours_marginal,
            "connect_plan (JSON rows input)": ours_rows,
            "pyspark to_proto": py_proto,
            "pyspark to_proto marginal": py_marginal,
            "pyspark API + to_proto": py_total,
        }
        out.append(_record("translation", f"{n} ops", series, ratios, targets))
        ctx.log(
            f"translation {n} ops: connect_plan {ours.median:.1f} µs/op (marginal {ours_marginal.median:.1f}), "
            f"pyspark to_proto {py_proto.median:.1f} (marginal {py_marginal.median:.1f}), API+to_proto {py_total.median:.1f}"
        )
    if len(marginal) > 1:
        spread = max(marginal.values()) / min(marginal.values())
        plain = max(raw.values()) / min(raw.values())
        # the target is on the cost per op as a user pays it (input included); the
        # marginal spread (input subtracted) is reported beside it, not in its place
        out.append(
            _record(
                "translation",
                "per-op flatness",
                {},
                {"per-op (input included) max/min": plain, "marginal per-op max/min": spread},
                [_target(f"per-op cost flat within 1.5× from {min(raw)} to {max(raw)} ops", plain, 1.5, "max")],
            )
        )
    return out


# ------------------------------------------------------------------ small-query latency


def small_query(ctx: Context) -> list[dict[str, Any]]:
    """A 3-row filter/select/orderBy/limit end to end on a warm server (wall time): our
    ``execute``; PySpark ``createDataFrame(...)...toArrow()``; one raw ExecutePlan RPC of our
    already-translated plan (the floor: one round trip, no client work); robin-sparkless
    ``_execute_plan(...).collect()`` in-process (no server at all)."""
    import pyarrow as pa

    from connect_plan.formats import load_plan

    client, spark = ctx.client, ctx.spark
    plan_ir = load_plan(w.SMALL_PLAN, w.SMALL_ROWS, w.INPUT_SCHEMA)
    raw_plan = client._executor.prepare(plan_ir).plan
    sc = client._transport.sc

    def ours() -> Any:
        return client.execute(w.SMALL_PLAN, w.SMALL_ROWS, w.INPUT_SCHEMA)

    def pyspark() -> Any:
        return w.small_df(spark).toArrow()

    def raw() -> Any:
        req = sc._execute_plan_request_with_metadata()
        req.plan.CopyFrom(raw_plan)
        batches = []
        for resp in sc._stub.ExecutePlan(req, metadata=sc._builder.metadata()):
            if resp.HasField("arrow_batch"):
                batches.extend(pa.ipc.open_stream(resp.arrow_batch.data))
        return pa.Table.from_batches(batches)

    clients: dict[str, Callable[[], Any]] = {"connect_plan": ours, "pyspark": pyspark, "raw ExecutePlan": raw}
    if ctx.robin is not None:
        schema = [(f["name"], f["type"]) for f in w.INPUT_SCHEMA]
        text = json.dumps(w.SMALL_PLAN)
        clients["robin-sparkless (in-process)"] = lambda: ctx.robin._execute_plan(w.SMALL_ROWS, schema, text).collect()
    series = {name: Series("ms") for name in clients}
    for fn in clients.values():  # warm-up: server code paths, connections, caches
        for _ in range(3):
            fn()
    reps = ctx.repeat * 20
    names = list(clients)
    for rep in range(reps):
        for name in names[rep % len(names) :] + names[: rep % len(names)]:
            t0 = time.perf_counter()
            clients[name]()
            series[name].samples.append((time.perf_counter() - t0) * 1e3)
    ours_t, theirs_t = ours(), pyspark()
    same = ours_t.to_pylist() == theirs_t.to_pylist()
    ratios = {
        "connect_plan/pyspark": paired(series["connect_plan"], series["pyspark"]),
        "connect_plan/raw ExecutePlan": paired(series["connect_plan"], series["raw ExecutePlan"]),
    }
    if "robin-sparkless (in-process)" in series:
        ratios["connect_plan/robin-sparkless"] = paired(series["connect_plan"], series["robin-sparkless (in-process)"])
    # issue 5: ≤ 0.9× PySpark Connect on Spark, ≤ 0.4× on Sail (whose server answers in a few
    # ms, so the client's own work is most of PySpark's time there)
    limit = 0.4 if ctx.engine == "sail" else 0.9
    targets = [
        _target(
            f"small-query latency ≤ {limit}× PySpark Connect on {ctx.engine.capitalize()}",
            ratios["connect_plan/pyspark"],
            limit,
            "max",
        ),
        _target("small-query latency ≤ 1.1× one raw ExecutePlan", ratios["connect_plan/raw ExecutePlan"], 1.1, "max"),
    ]
    ctx.log("small query: " + ", ".join(f"{k} {s.median:.1f} ms" for k, s in series.items()))
    return [_record("small_query", "3 rows, filter/select/orderBy/limit", series, ratios, targets, same_result=same)]


# ------------------------------------------------------------------ result throughput


def throughput(ctx: Context, sizes: tuple[int, ...]) -> list[dict[str, Any]]:
    """n rows × 5 columns generated on the server, to the client as Arrow: our
    ``execute`` (Table), our ``stream`` (batches consumed one by one), our ``stream``
    written to a parquet file, PySpark's ``toArrow()``. MB/s of Arrow data, client CPU per
    MiB (all threads), and peak RSS growth during the call."""
    import pyarrow.parquet as pq

    from connect_plan.formats import load_plan

    client, spark = ctx.client, ctx.spark
    warm_rows, warm_schema, warm_plan = w.generated_plan(min(min(sizes), 100_000))
    client.execute(warm_plan, warm_rows, warm_schema)
    w.generated_df(spark, min(min(sizes), 100_000)).toArrow()
    out = []
    for n in sizes:
        rows, schema, plan = w.generated_plan(n)
        plan_ir = load_plan(plan, rows, schema)
        df = w.generated_df(spark, n)
        df.schema  # noqa: B018 - PySpark caches the analysed schema on the DataFrame; read it once up front

        def table_path(plan_ir: Any = plan_ir) -> tuple[int, int]:
            t = client.execute(plan_ir)
            return t.num_rows, t.nbytes

        def stream_path(plan_ir: Any = plan_ir) -> tuple[int, int]:
            rows_n = size = 0
            for batch in client.stream(plan_ir):
                rows_n += batch.num_rows
                size += batch.nbytes
            return rows_n, size

        def parquet_path(plan_ir: Any = plan_ir) -> tuple[int, int]:
            rows_n = size = 0
            with tempfile.NamedTemporaryFile(suffix=".parquet") as f:
                reader = client.stream(plan_ir)
                with pq.ParquetWriter(f.name, reader.schema) as writer:
                    for batch in reader:
                        writer.write_batch(batch)
                        rows_n += batch.num_rows
                        size += batch.nbytes
            return rows_n, size

        def pyspark_path(df: Any = df) -> tuple[int, int]:
            t = df.toArrow()
            return t.num_rows, t.nbytes

        paths = {
            "connect_plan table": table_path,
            "pyspark toArrow": pyspark_path,
            "connect_plan stream": stream_path,
            "connect_plan stream→parquet": parquet_path,
        }
        mbps = {k: Series("MB/s") for k in paths}
        cpu = {k: Series("CPU ms/MiB") for k in paths}
        rss = {k: Series("MiB peak RSS growth") for k in paths}
        results: dict[str, tuple[int, int]] = {}
        names = list(paths)
        for rep in range(ctx.repeat):
            for name in names[rep % len(names) :] + names[: rep % len(names)]:
                s = run_measured(paths[name])
                results[name] = s.value
                mib = s.value[1] / MiB
                mbps[name].samples.append(mib / s.wall)
                cpu[name].samples.append(s.cpu * 1e3 / mib)
                if s.rss_growth is not None:
                    rss[name].samples.append(s.rss_growth / MiB)
        same = len({r[0] for r in results.values()}) == 1 and next(iter(results.values()))[0] == n
        has_rss = all(rss[k].samples for k in paths)  # peak RSS is read from /proc (Linux)
        series: dict[str, Series] = {}
        for k in paths:
            series[f"{k} MB/s"] = mbps[k]
            series[f"{k} CPU"] = cpu[k]
            if has_rss:
                series[f"{k} RSS"] = rss[k]
        ratios = {
            "table MB/s: connect_plan/pyspark": paired(mbps["connect_plan table"], mbps["pyspark toArrow"]),
            "stream MB/s: connect_plan/pyspark": paired(mbps["connect_plan stream"], mbps["pyspark toArrow"]),
            "table CPU/MiB: connect_plan/pyspark": paired(cpu["connect_plan table"], cpu["pyspark toArrow"]),
            "stream CPU/MiB: connect_plan/pyspark": paired(cpu["connect_plan stream"], cpu["pyspark toArrow"]),
        }
        if has_rss:
            ratios["stream RSS/table RSS"] = paired(rss["connect_plan stream"], rss["connect_plan table"])
            ratios["stream→parquet RSS/table RSS"] = paired(
                rss["connect_plan stream→parquet"], rss["connect_plan table"]
            )
            ratios["table RSS: connect_plan/pyspark"] = paired(rss["connect_plan table"], rss["pyspark toArrow"])
        targets = [
            _target(
                f"throughput ≥ 1.0× PySpark toArrow ({n:,} rows)",
                ratios["table MB/s: connect_plan/pyspark"],
                1.0,
                "min",
            ),
            _target(
                f"client CPU/MiB ≤ PySpark's ({n:,} rows)", ratios["table CPU/MiB: connect_plan/pyspark"], 1.0, "max"
            ),
        ]
        if n >= 10_000_000 and has_rss:
            targets.append(
                _target(
                    f"stream peak RSS ≤ 25% of the table path's ({n:,} rows)",
                    ratios["stream RSS/table RSS"],
                    0.25,
                    "max",
                )
            )
        ctx.log(
            f"throughput {n:,}: "
            + ", ".join(
                f"{k} {mbps[k].median:.0f} MB/s" + (f" {rss[k].median:.0f} MiB" if has_rss else "") for k in paths
            )
        )
        out.append(
            _record(
                "throughput",
                f"{n:,} rows × 5 columns",
                series,
                ratios,
                targets,
                same_result=same,
                result_mib=next(iter(results.values()))[1] / MiB,
            )
        )
    return out


# ------------------------------------------------------------------ upload


def upload(ctx: Context, sizes: tuple[int, ...]) -> list[dict[str, Any]]:
    """n inline rows × 5 columns sent with the query, then counted on the server: from JSON
    rows (connect_plan: lists as ``json.loads`` gives them; PySpark: the same rows as
    tuples with ``datetime.date``, converted outside the timing) and from one Arrow table.
    Every repetition uses new data, so neither client can skip the upload by hash."""
    from pyspark.sql.types import BooleanType, DateType, DoubleType, LongType, StringType, StructField, StructType

    client, spark = ctx.client, ctx.spark
    struct = StructType(
        [
            StructField("id", LongType()),
            StructField("x", DoubleType()),
            StructField("s", StringType()),
            StructField("b", BooleanType()),
            StructField("d", DateType()),
        ]
    )
    out = []
    seed = 1000
    for n in sizes:
        clients = ["connect_plan JSON rows", "pyspark rows", "connect_plan Arrow", "pyspark Arrow"]
        if ctx.robin is not None:
            clients.append("robin-sparkless rows (in-process)")
        series = {k: Series("MB/s") for k in clients}
        counts: dict[str, int] = {}
        mib = 0.0
        for rep in range(ctx.repeat + 1):  # the first round warms up
            seed += 1
            rows = w.input_rows(n, seed)
            py_rows = w.pyspark_rows(rows)
            table = _arrow_table(w.input_rows(n, seed + 10_000))
            py_table = _arrow_table(w.input_rows(n, seed + 20_000))
            robin_rows = w.input_rows(n, seed + 30_000) if ctx.robin is not None else None
            mib = table.nbytes / MiB
            runs: dict[str, Callable[[], int]] = {
                "connect_plan JSON rows": lambda rows=rows: (
                    client.execute(w.COUNT_PLAN, rows, w.INPUT_SCHEMA).column(0)[0].as_py()
                ),
                "pyspark rows": lambda py_rows=py_rows: spark.createDataFrame(py_rows, struct).count(),
                "connect_plan Arrow": lambda table=table: client.execute(w.COUNT_PLAN, table).column(0)[0].as_py(),
                "pyspark Arrow": lambda py_table=py_table: spark.createDataFrame(py_table).count(),
            }
            if ctx.robin is not None:
                # robin 0.11 has no standalone "agg" op: an empty plan, then its DataFrame count()
                schema = [(f["name"], f["type"]) for f in w.INPUT_SCHEMA]
                runs["robin-sparkless rows (in-process)"] = lambda robin_rows=robin_rows, schema=schema: (
                    ctx.robin._execute_plan(robin_rows, schema, "[]").count()
                )
            for name in clients[rep % len(clients) :] + clients[: rep % len(clients)]:
                t0 = time.perf_counter()
                counts[name] = runs[name]()
                if rep:
                    series[name].samples.append(mib / (time.perf_counter() - t0))
        same = set(counts.values()) == {n}
        ratios = {
            "JSON rows: connect_plan/pyspark": paired(series["connect_plan JSON rows"], series["pyspark rows"]),
            "Arrow: connect_plan/pyspark": paired(series["connect_plan Arrow"], series["pyspark Arrow"]),
        }
        targets = [
            _target(
                f"upload ≥ 1.0× PySpark createDataFrame, JSON rows ({n:,})",
                ratios["JSON rows: connect_plan/pyspark"],
                1.0,
                "min",
            ),
            _target(
                f"upload ≥ 1.0× PySpark createDataFrame, Arrow ({n:,})",
                ratios["Arrow: connect_plan/pyspark"],
                1.0,
                "min",
            ),
        ]
        ctx.log(f"upload {n:,}: " + ", ".join(f"{k} {s.median:.1f} MB/s" for k, s in series.items()))
        out.append(
            _record(
                "upload", f"{n:,} rows × 5 columns then count", series, ratios, targets, same_result=same, input_mib=mib
            )
        )
    return out


# ------------------------------------------------------------------ analytical query


def analytical(ctx: Context, n: int) -> list[dict[str, Any]]:
    """groupBy + join over n generated rows (mostly server time: the client's share)."""
    client, spark = ctx.client, ctx.spark
    rows, schema, plan = w.analytical_plan(n)
    series = {"connect_plan": Series("s"), "pyspark": Series("s")}
    results: dict[str, Any] = {}
    runs = {
        "connect_plan": lambda: client.execute(plan, rows, schema),
        "pyspark": lambda: w.analytical_df(spark, n).toArrow(),
    }
    for name, fn in runs.items():  # warm-up
        results[name] = fn()
    for rep in range(ctx.repeat):
        for name in ["connect_plan", "pyspark"] if rep % 2 == 0 else ["pyspark", "connect_plan"]:
            t0 = time.perf_counter()
            results[name] = runs[name]()
            series[name].samples.append(time.perf_counter() - t0)
    same = _same_rows(results["connect_plan"], results["pyspark"])
    ratios = {"connect_plan/pyspark": paired(series["connect_plan"], series["pyspark"])}
    ctx.log(
        f"analytical {n:,}: connect_plan {series['connect_plan'].median:.2f} s, pyspark {series['pyspark'].median:.2f} s"
    )
    return [_record("analytical", f"groupBy + join over {n:,} rows", series, ratios, same_result=same)]
