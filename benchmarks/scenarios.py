"""The benchmark scenarios. Each runs connect_plan and PySpark's own Connect client (and
robin-sparkless in-process where it applies) alternately, in one process, against the
same server, checks that they produced the same result, and returns result records with
every sample, the medians, the ratios and the issue's targets.
"""

from __future__ import annotations

import json
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import workloads as w
from .measure import Series, paired, run_measured, thread_cpu

MiB = 1 << 20
#: the translation guards (issue 34 retired the 0.05× target): connect_plan's translate at
#: 100 ops against PySpark's DataFrame API + to_proto, and the per-op spread from 10 to 1,000 ops
GUARD_AT_100_OPS = 0.25
GUARD_FLATNESS = 1.5


@dataclass
class Context:
    url: str
    client: Any  # connect_plan.Client
    spark: Any  # PySpark's Connect SparkSession
    repeat: int
    robin: Any | None  # the robin_sparkless module, if installed
    log: Callable[[str], None]
    engine: str = "spark"  # the server's engine: "spark" or "sail" (the targets differ)
    #: latency samples of each client per repetition (a quarter of them over a slow link): 20
    #: at the measured sizes, 5 at the smoke test's tiny size (its point is that it runs)
    samples: int = 20


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
    from connect_plan.formats import load_plan
    from connect_plan.translator import translate_ir

    from . import floors

    local = connect_plan.translate(table, None, []).root.local_relation
    columns = table.column_names
    plans = {n: w.translation_plan(n) for n in sizes}
    for plan in plans.values():
        expected = connect_plan.translate(table, None, plan)
        floor_plans = (
            floors.build_plan(plan, local),
            floors.checked_build(plan, columns, local),
            floors.ir_build(plan, columns, local),
        )
        if any(built != expected for built in floor_plans):
            raise AssertionError("a floor's plan is not the one translate builds")
        for _ in range(2):  # warm-up
            connect_plan.translate(table, None, plan)

    def series_of(unit: str) -> dict[int, Series]:
        return {n: Series(unit) for n in sizes}

    ours, ours_rows, ours_marginal = series_of("µs/op"), series_of("µs/op"), series_of("µs/op")
    walk, build, checked = series_of("µs/op"), series_of("µs/op"), series_of("µs/op")
    through_ir = series_of("µs/op")
    parse, backend = series_of("µs/op"), series_of("µs/op")
    py_proto, py_total, py_marginal = series_of("µs/op"), series_of("µs/op"), series_of("µs/op")
    # rounds of one block per size (rotating order): a block's first run warms the size up
    # (the first run after another size paid for that size's memory: ~300 against ~80 µs for
    # an empty plan measured right after a 1,000-step one) and is not counted; the flatness
    # ratio is taken within each round, between blocks run minutes apart at most, not between
    # medians of blocks taken at different times (1.48 and 2.27 in two runs of one commit)
    block_medians: list[dict[int, float]] = []
    for rep in range(ctx.repeat * 2):
        medians: dict[int, float] = {}
        for n in sizes[rep % len(sizes) :] + sizes[: rep % len(sizes)]:
            plan = plans[n]
            connect_plan.translate(table, None, plan)  # warms this size up
            w.translation_df(base, n)._plan.to_proto(ctx.spark.client)
            block = []
            count = 10 if n <= 100 else 3
            # connect_plan's runs, then PySpark's, each one after another (a 0.2 ms translation
            # run right after PySpark's API calls met cold caches: 44.8 against ~25 µs/op at
            # 10 ops); paired with PySpark's by position, minutes apart at most
            for _ in range(count):
                t0, _ = thread_cpu(lambda: connect_plan.translate(table, None, []))
                t, _ = thread_cpu(lambda plan=plan: connect_plan.translate(table, None, plan))
                ours[n].samples.append(t / n * 1e6)
                block.append(t / n * 1e6)
                ours_marginal[n].samples.append((t - t0) * 1e6 / n)  # same round, same load
                t, _ = thread_cpu(lambda plan=plan: connect_plan.translate(w.SMALL_ROWS, w.INPUT_SCHEMA, plan))
                ours_rows[n].samples.append(t / n * 1e6)
            for _ in range(count):
                t, _ = thread_cpu(lambda plan=plan: floors.walk_json(plan))
                walk[n].samples.append(t / n * 1e6)
                t, _ = thread_cpu(lambda plan=plan: floors.build_plan(plan, local))
                build[n].samples.append(t / n * 1e6)
                t, _ = thread_cpu(lambda plan=plan: floors.checked_build(plan, columns, local))
                checked[n].samples.append(t / n * 1e6)
                t, _ = thread_cpu(lambda plan=plan: floors.ir_build(plan, columns, local))
                through_ir[n].samples.append(t / n * 1e6)
                # where translate's time goes: the front-end (JSON → IR, every problem located),
                # then the translator (analysis, lowering, emission)
                t, ir_plan = thread_cpu(lambda plan=plan: load_plan(plan, table, None))
                parse[n].samples.append(t / n * 1e6)
                t, _ = thread_cpu(lambda ir_plan=ir_plan: translate_ir(ir_plan))
                backend[n].samples.append(t / n * 1e6)
            for _ in range(count):
                t0, _ = thread_cpu(lambda: base._plan.to_proto(ctx.spark.client))
                t_api, df = thread_cpu(lambda n=n: w.translation_df(base, n))
                t_proto, _ = thread_cpu(lambda df=df: df._plan.to_proto(ctx.spark.client))
                py_proto[n].samples.append(t_proto / n * 1e6)
                py_total[n].samples.append((t_api + t_proto) / n * 1e6)
                py_marginal[n].samples.append((t_proto - t0) * 1e6 / n)
            medians[n] = statistics.median(block)
        block_medians.append(medians)
    for n in sizes:
        ratios = {
            "connect_plan/pyspark_to_proto": paired(ours[n], py_proto[n]),
            "connect_plan/pyspark_api_and_proto": paired(ours[n], py_total[n]),
            "marginal: connect_plan/pyspark_to_proto": paired(ours_marginal[n], py_marginal[n]),
            # the least any Python translator does (read the plan, build the protos: see
            # benchmarks/floors.py) over the same PySpark cost: how low the ratio could go
            "floor (walk + build)/pyspark_api_and_proto": paired(
                Series("µs/op", [a + b for a, b in zip(walk[n].samples, build[n].samples)]), py_total[n]
            ),
            # the least a translator that locates every problem does for this plan (the
            # checks specialised to its three step kinds, then the same build)
            "checked floor/pyspark_api_and_proto": paired(checked[n], py_total[n]),
            # the same checks parsing into connect_plan's own IR (immutable nodes with their
            # locations), then lowering and emitting from it: the least a translator shaped
            # as ARCHITECTURE.md asks (front-end → one IR → back-end) does for this plan
            "IR floor/pyspark_api_and_proto": paired(through_ir[n], py_total[n]),
        }
        targets = []
        if n == 100:
            # a regression guard (issue 34), where the 0.05× target stood: the IR floor showed
            # 0.05× out of reach for any translator through one IR (0.074×); what remains is
            # ~1.4 ms per 100-step plan, which no user feels. The floors stay as the explanation.
            targets.append(
                _target(
                    "guard: translation ≤ 0.25× PySpark DataFrame API + to_proto at 100 ops",
                    ratios["connect_plan/pyspark_api_and_proto"],
                    GUARD_AT_100_OPS,
                    "max",
                )
            )
        series = {
            "connect_plan": ours[n],
            "connect_plan marginal": ours_marginal[n],
            "connect_plan (JSON rows input)": ours_rows[n],
            "pyspark to_proto": py_proto[n],
            "pyspark to_proto marginal": py_marginal[n],
            "pyspark API + to_proto": py_total[n],
            "connect_plan: parse to IR (load_plan)": parse[n],
            "connect_plan: analyse, lower, emit (translate_ir)": backend[n],
            "floor: walk the JSON plan": walk[n],
            "floor: build the same protos": build[n],
            "checked floor: check, then build": checked[n],
            "IR floor: check into the IR, lower, build": through_ir[n],
        }
        out.append(_record("translation", f"{n} ops", series, ratios, targets))
        ctx.log(
            f"translation {n} ops: connect_plan {ours[n].median:.1f} µs/op (marginal {ours_marginal[n].median:.1f}), "
            f"pyspark to_proto {py_proto[n].median:.1f} (marginal {py_marginal[n].median:.1f}), "
            f"API+to_proto {py_total[n].median:.1f}"
        )
    if len(sizes) > 1:
        # per round: the max/min of the sizes' block medians; the median of that over rounds
        plain = statistics.median(max(m.values()) / min(m.values()) for m in block_medians)
        marginal_spread = max(s.median for s in ours_marginal.values()) / min(s.median for s in ours_marginal.values())
        # the target is on the cost per op as a user pays it (input included); the
        # marginal spread (input subtracted) is reported beside it, not in its place
        out.append(
            _record(
                "translation",
                "per-op flatness",
                {},
                {"per-op (input included) max/min": plain, "marginal per-op max/min": marginal_spread},
                [
                    _target(
                        f"guard: per-op cost flat within {GUARD_FLATNESS:g}× from {min(sizes)} to {max(sizes)} ops",
                        plain,
                        GUARD_FLATNESS,
                        "max",
                    )
                ],
            )
        )
    return out


# ------------------------------------------------------------------ small-query latency


def small_query(ctx: Context) -> list[dict[str, Any]]:
    """A 3-row filter/select/orderBy/limit end to end on a warm server (wall time): our
    ``execute``; our result path alone, from the already-translated plan; PySpark
    ``createDataFrame(...)...toArrow()``; one raw ExecutePlan RPC of our already-translated
    plan (the floor: one round trip, no client work), and the same made reattachable and
    released; robin-sparkless ``_execute_plan(...).collect()`` in-process (no server at all)."""
    import pyarrow as pa

    from connect_plan.formats import load_plan

    client, spark = ctx.client, ctx.spark
    plan_ir = load_plan(w.SMALL_PLAN, w.SMALL_ROWS, w.INPUT_SCHEMA)
    executor = client.internals.executor
    raw_plan = executor.prepare(plan_ir).plan

    def ours() -> Any:
        return client.execute(w.SMALL_PLAN, w.SMALL_ROWS, w.INPUT_SCHEMA)

    def pyspark() -> Any:
        return w.small_df(spark).toArrow()

    def prepared() -> Any:
        # connect_plan's result path alone (the plan already loaded and translated): the
        # reattachable ExecutePlan, every response checked and decoded, the release sent in
        # the background. What this costs over the raw call is the result path's; the rest of
        # connect_plan's time is loading and translating the plan, and the public call's own
        # work (bounds, statistics)
        results = executor.results(raw_plan, None)
        schema = next(results)
        return pa.Table.from_batches(list(results), schema)

    def raw() -> Any:
        return _raw_execute(client, raw_plan)

    def raw_released() -> Any:
        return _raw_execute(client, raw_plan, reattachable=True)

    clients: dict[str, Callable[[], Any]] = {
        "connect_plan": ours,
        "connect_plan, plan prepared": prepared,
        "pyspark": pyspark,
        "raw ExecutePlan": raw,
        "raw reattachable ExecutePlan + ReleaseExecute": raw_released,
    }
    if ctx.robin is not None:
        schema = [(f["name"], f["type"]) for f in w.INPUT_SCHEMA]
        text = json.dumps(w.SMALL_PLAN)
        clients["robin-sparkless (in-process)"] = lambda: ctx.robin._execute_plan(w.SMALL_ROWS, schema, text).collect()
    series = {name: Series("ms") for name in clients}
    for fn in clients.values():  # warm-up: server code paths, connections, caches
        for _ in range(3):
            fn()
    reps = ctx.repeat * ctx.samples
    names = list(clients)
    for rep in range(reps):
        for name in names[rep % len(names) :] + names[: rep % len(names)]:
            t0 = time.perf_counter()
            clients[name]()
            series[name].samples.append((time.perf_counter() - t0) * 1e3)
    ours_t, theirs_t = ours(), pyspark()
    same = ours_t.to_pylist() == theirs_t.to_pylist() == prepared().to_pylist()
    ratios = {
        "connect_plan/pyspark": paired(series["connect_plan"], series["pyspark"]),
        "connect_plan/raw ExecutePlan": paired(series["connect_plan"], series["raw ExecutePlan"]),
        "connect_plan, plan prepared/raw ExecutePlan": paired(
            series["connect_plan, plan prepared"], series["raw ExecutePlan"]
        ),
        # the floor with the guarantees every result here has (reattachable, so a broken stream
        # resumes and a truncated one is told from a whole one; released at the end, as PySpark
        # releases): the same raw call asked reattachable and followed by ReleaseExecute
        "floor: raw reattachable + release/raw ExecutePlan": paired(
            series["raw reattachable ExecutePlan + ReleaseExecute"], series["raw ExecutePlan"]
        ),
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


def throughput(ctx: Context, sizes: tuple[int, ...], extra_rounds: int = 2) -> list[dict[str, Any]]:
    """n rows × 5 columns generated on the server, to the client as Arrow: our
    ``execute`` (Table), our ``stream`` (batches consumed one by one), our ``stream``
    written to a parquet file, PySpark's ``toArrow()``. MB/s of Arrow data, client CPU per
    MiB (all threads), and peak RSS growth during the call. ``extra_rounds`` beyond
    ``ctx.repeat``: 2 at the measured sizes, none at the smoke test's tiny size."""
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

        raw_plan = client.internals.executor.prepare(plan_ir).plan

        # the Arrow bytes of the result (a first run, which also warms the server for this size)
        result_bytes = table_path()[1]

        def drain_path(raw_plan: Any = raw_plan, result_bytes: int = result_bytes) -> tuple[int, int]:
            # the ceiling: one plain ExecutePlan whose responses are received and dropped (no
            # Arrow decoding, no checks, no release): as fast as the server produces the rows
            return _raw_drain(client, raw_plan), result_bytes

        def kept_path(raw_plan: Any = raw_plan, result_bytes: int = result_bytes) -> tuple[int, int]:
            # a table's floor: the same drain keeping every batch's bytes, as any table of the
            # result must (first-touching that memory is most of a table path's CPU here)
            return _raw_drain(client, raw_plan, keep=True), result_bytes

        paths = {
            "connect_plan table": table_path,
            "pyspark toArrow": pyspark_path,
            "connect_plan stream": stream_path,
            "connect_plan stream→parquet": parquet_path,
            "raw drain (ceiling)": drain_path,
            "raw drain, bytes kept (a table's floor)": kept_path,
        }
        mbps = {k: Series("MB/s") for k in paths}
        cpu = {k: Series("CPU ms/MiB") for k in paths}
        rss = {k: Series("MiB peak RSS growth") for k in paths}
        results: dict[str, tuple[int, int]] = {}
        names = list(paths)
        for name in names[1:]:  # every path once before the rounds (the table path ran above):
            paths[name]()  # a size's first run was the slowest for whichever path met it (JIT, caches)
        # two rounds more than the other scenarios (extra_rounds): one round's MB/s and CPU/MiB
        # moved by 3x with the server's state (42 vs 152 MB/s in one run), and three rounds
        # left the median to it
        for rep in range(ctx.repeat + extra_rounds):
            for name in names[rep % len(names) :] + names[: rep % len(names)]:
                s = run_measured(paths[name])
                results[name] = s.value
                mib = s.value[1] / MiB
                mbps[name].samples.append(mib / s.wall)
                cpu[name].samples.append(s.cpu * 1e3 / mib)
                if s.rss_growth is not None:
                    rss[name].samples.append(s.rss_growth / MiB)
        same = len({r[0] for r in results.values()}) == 1 and next(iter(results.values()))[0] == n
        results.pop("raw drain (ceiling)", None)
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
            # the best any client could reach against this server: the drain over PySpark
            "ceiling MB/s: raw drain/pyspark": paired(mbps["raw drain (ceiling)"], mbps["pyspark toArrow"]),
            # the least CPU any client's table of this result costs, over PySpark's table
            "floor: table CPU/MiB, bytes kept/pyspark": paired(
                cpu["raw drain, bytes kept (a table's floor)"], cpu["pyspark toArrow"]
            ),
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
        if n >= 10_000_000:  # issue 17
            targets.append(
                _target(
                    f"throughput ≥ 1.25× PySpark toArrow ({n:,} rows)",
                    ratios["table MB/s: connect_plan/pyspark"],
                    1.25,
                    "min",
                )
            )
            targets.append(
                _target(
                    f"table-path client CPU/MiB ≤ 0.6× PySpark's ({n:,} rows)",
                    ratios["table CPU/MiB: connect_plan/pyspark"],
                    0.6,
                    "max",
                )
            )
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


def _plain_stub(transport: Any) -> Any:
    """PySpark's generated stub over the client's channel, its responses parsed by protobuf as
    any client's are (the client's own stub reads the Arrow bytes without copying them:
    connect_plan.responses.from_wire): the floor is what every client stands on."""
    from connect_plan.spark_proto import service_stub

    return service_stub(transport._channel)


def _raw_execute(client: Any, plan: Any, *, reattachable: bool = False) -> Any:
    """One plain ExecutePlan of ``plan`` on ``client``'s session, its Arrow batches read: the
    floor any client's small query stands on (no reattach, no release, no checks). With
    ``reattachable``: the request connect_plan sends (reattachable), then one ReleaseExecute
    of the whole execution once the stream ended, as every client that reattaches must."""
    import pyarrow as pa

    from connect_plan.spark_proto import pb

    t = client.internals.transport
    if reattachable:
        req = t.execute_request(plan)
    else:
        req = t.stamp(pb.ExecutePlanRequest())
        req.plan.CopyFrom(plan)
    batches = []
    kinds = []
    for resp in _plain_stub(t).ExecutePlan(req, metadata=t._metadata):
        kinds.append(resp.WhichOneof("response_type"))
        if resp.HasField("arrow_batch"):
            batches.extend(pa.ipc.open_stream(resp.arrow_batch.data))
    if not batches:  # this raw call checks nothing: say what came instead of failing obscurely
        raise RuntimeError(f"a raw ExecutePlan stream ended with no Arrow batch; it held {kinds}")
    if reattachable:
        release = pb.ReleaseExecuteRequest(
            session_id=req.session_id,
            user_context=req.user_context,
            operation_id=req.operation_id,
            client_type=req.client_type,
        )
        release.release_all.SetInParent()
        t._stub.ReleaseExecute(release, metadata=t._metadata)
    return pa.Table.from_batches(batches)


def _raw_drain(client: Any, plan: Any, *, keep: bool = False) -> int:
    """One plain ExecutePlan of ``plan`` on ``client``'s session whose responses are received
    and dropped (``keep``: each Arrow batch's bytes kept until the end, undecoded); the rows
    the server announced."""
    from connect_plan.spark_proto import pb

    t = client.internals.transport
    req = t.stamp(pb.ExecutePlanRequest())
    req.plan.CopyFrom(plan)
    rows = 0
    kept = []
    for resp in _plain_stub(t).ExecutePlan(req, metadata=t._metadata):
        if resp.HasField("arrow_batch"):
            rows += resp.arrow_batch.row_count
            if keep:
                kept.append(resp.arrow_batch.data)
    del kept
    return rows


# ------------------------------------------------------------------ emulated network links


class _Counted:
    """A Spark Connect stub whose calls are counted by method name (the RPCs a client makes);
    everything else passes through."""

    def __init__(self, stub: Any, counts: dict[str, int]) -> None:
        self._stub, self._counts = stub, counts

    def __getattr__(self, name: str) -> Any:
        target = getattr(self._stub, name)
        if not name[:1].isupper():
            return target
        counts = self._counts

        def call(*args: Any, **kwargs: Any) -> Any:
            counts[name] = counts.get(name, 0) + 1
            return target(*args, **kwargs)

        return call


def _count_rpcs(sc: Any) -> dict[str, int]:
    """Count the RPCs of ``sc`` from now on: PySpark's client, or connect_plan's transport
    (both call the service through their ``_stub``)."""
    counts: dict[str, int] = {}
    sc._stub = _Counted(sc._stub, counts)
    return counts


def _target_of(url: str) -> tuple[str, int]:
    from urllib.parse import urlparse

    parsed = urlparse("http" + url[2:].split("/;")[0])
    return parsed.hostname or "127.0.0.1", parsed.port or 15002


def link_latency(ctx: Context, rtt: float = 0.020) -> list[dict[str, Any]]:
    """The small query over an emulated link of ``rtt`` round trip (benchmarks/netproxy.py),
    warm and as the first query of a new session, with the RPCs each client makes counted.

    Warm: connect_plan ``execute``, PySpark ``createDataFrame...toArrow()`` and one raw
    ExecutePlan, each on a session that already ran the query. First query: a new client or
    session (``connect`` / ``SparkSession...create()``, no network yet) and its first query,
    timed together. The same first query on loopback, in the same rounds, turns the link's
    extra time into round trips: (link − loopback) / rtt, which includes the new TCP
    connection's handshake (one round trip, paid by every client); warm queries likewise."""
    from pyspark.sql import SparkSession

    import connect_plan
    from connect_plan.formats import load_plan

    from .netproxy import LinkProxy

    host, port = _target_of(ctx.url)
    out: list[dict[str, Any]] = []
    with LinkProxy(host, port, rtt=rtt) as link:
        client = connect_plan.connect(link.url)
        spark = SparkSession.builder.remote(link.url).create()
        try:
            plan_ir = load_plan(w.SMALL_PLAN, w.SMALL_ROWS, w.INPUT_SCHEMA)
            raw_plan = client.internals.executor.prepare(plan_ir).plan

            def raw() -> Any:
                return _raw_execute(client, raw_plan)

            clients: dict[str, Callable[[], Any]] = {
                "connect_plan": lambda: client.execute(w.SMALL_PLAN, w.SMALL_ROWS, w.INPUT_SCHEMA),
                "pyspark": lambda: w.small_df(spark).toArrow(),
                "raw ExecutePlan": raw,
                "connect_plan loopback": lambda: ctx.client.execute(w.SMALL_PLAN, w.SMALL_ROWS, w.INPUT_SCHEMA),
                "pyspark loopback": lambda: w.small_df(ctx.spark).toArrow(),
            }
            series = {name: Series("ms") for name in clients}
            for fn in clients.values():
                for _ in range(2):
                    fn()
            rpcs: dict[str, dict[str, int]] = {}
            for name, fn in list(clients.items())[:3]:
                counts = _count_rpcs(client.internals.transport if name != "pyspark" else spark.client)
                fn()
                rpcs[name] = dict(counts)
            names = list(clients)
            for rep in range(ctx.repeat * max(1, ctx.samples // 4)):
                for name in names[rep % len(names) :] + names[: rep % len(names)]:
                    t0 = time.perf_counter()
                    clients[name]()
                    series[name].samples.append((time.perf_counter() - t0) * 1e3)
            same = clients["connect_plan"]().to_pylist() == clients["pyspark"]().to_pylist()
        finally:
            client.close()
            spark.stop()
        ratios = {
            "connect_plan/pyspark": paired(series["connect_plan"], series["pyspark"]),
            "connect_plan/raw ExecutePlan": paired(series["connect_plan"], series["raw ExecutePlan"]),
        }
        targets = [
            _target(
                f"{rtt * 1e3:.0f} ms link, warm small query ≤ 0.5× PySpark", ratios["connect_plan/pyspark"], 0.5, "max"
            ),
            _target(
                f"{rtt * 1e3:.0f} ms link, warm small query ≤ 1.1× one raw ExecutePlan",
                ratios["connect_plan/raw ExecutePlan"],
                1.1,
                "max",
            ),
        ]
        ctx.log(f"{rtt * 1e3:.0f} ms link, warm: " + ", ".join(f"{k} {s.median:.1f} ms" for k, s in series.items()))
        out.append(
            _record(
                "link_latency",
                f"small query over a {rtt * 1e3:.0f} ms link, warm session",
                series,
                ratios,
                targets,
                same_result=same,
                rpcs_per_query=rpcs,
            )
        )

        # first query of a new session, over the link and on loopback, same rounds
        def ours_first(url: str, counts: dict[str, int] | None = None) -> Any:
            with connect_plan.connect(url) as c:
                if counts is not None:
                    counts.update(_count_rpcs(c.internals.transport))
                    live = c.internals.transport._stub._counts
                    result = c.execute(w.SMALL_PLAN, w.SMALL_ROWS, w.INPUT_SCHEMA)
                    counts.update(live)
                    return result
                return c.execute(w.SMALL_PLAN, w.SMALL_ROWS, w.INPUT_SCHEMA)

        def pyspark_first(url: str, counts: dict[str, int] | None = None) -> Any:
            s = SparkSession.builder.remote(url).create()
            try:
                if counts is not None:
                    live = _count_rpcs(s.client)
                    result = w.small_df(s).toArrow()
                    counts.update(live)
                    return result
                return w.small_df(s).toArrow()
            finally:
                s.stop()

        first_rpcs: dict[str, dict[str, int]] = {"connect_plan": {}, "pyspark": {}}
        ours_first(link.url, first_rpcs["connect_plan"])
        pyspark_first(link.url, first_rpcs["pyspark"])
        cold = {k: Series("ms") for k in ("connect_plan", "pyspark", "connect_plan loopback", "pyspark loopback")}
        runs: dict[str, Callable[[], Any]] = {
            "connect_plan": lambda: ours_first(link.url),
            "pyspark": lambda: pyspark_first(link.url),
            "connect_plan loopback": lambda: ours_first(ctx.url),
            "pyspark loopback": lambda: pyspark_first(ctx.url),
        }
        names = list(runs)
        for rep in range(ctx.repeat * 2):
            for name in names[rep % len(names) :] + names[: rep % len(names)]:
                t0 = time.perf_counter()
                runs[name]()
                cold[name].samples.append((time.perf_counter() - t0) * 1e3)
    # round trips = what the link adds over loopback, in RTTs (medians of the same rounds)
    first_trips = {
        k: (cold[k].median - cold[f"{k} loopback"].median) / (rtt * 1e3) for k in ("connect_plan", "pyspark")
    }
    warm_trips = {
        k: (series[k].median - series[f"{k} loopback"].median) / (rtt * 1e3) for k in ("connect_plan", "pyspark")
    }
    ratios = {"first query: connect_plan/pyspark": paired(cold["connect_plan"], cold["pyspark"])}
    # estimates from timing, not ratios (noise can make them negative): report.json only
    timed_trips = {
        "first query": first_trips,
        "warm query": warm_trips,
        "note": "(link − loopback) / rtt of the medians; the exact count is tests/integration/test_round_trips.py's",
    }
    # the target "first query ≤ 1 round trip more than a warm one" is proven by counting, in
    # tests/integration/test_round_trips.py: timed estimates are too noisy on a shared machine
    targets: list[dict[str, Any]] = []
    ctx.log(
        f"{rtt * 1e3:.0f} ms link, first query: "
        + ", ".join(f"{k} {s.median:.1f} ms" for k, s in cold.items())
        + f"; timed round trips first {first_trips}, warm {warm_trips}"
    )
    out.append(
        _record(
            "link_latency",
            f"first query of a new session over a {rtt * 1e3:.0f} ms link",
            cold,
            ratios,
            targets,
            rpcs_first_query=first_rpcs,
            round_trips_timed=timed_trips,
        )
    )
    return out


def link_throughput(ctx: Context, n: int, mbit: float = 100.0, rtt: float = 0.020) -> list[dict[str, Any]]:
    """n rows × 5 columns to the client over an emulated ``mbit`` link (``rtt`` round trip):
    connect_plan without and with zstd-compressed results (``compression=``), PySpark's
    ``toArrow()``; and the same two connect_plan paths on loopback, where compression only
    costs CPU. MB/s of Arrow data received (decoded size), and the bytes that crossed the link."""
    from pyspark.sql import SparkSession

    import connect_plan

    from .netproxy import LinkProxy

    host, port = _target_of(ctx.url)
    rows, schema, plan = w.generated_plan(n)
    out: list[dict[str, Any]] = []
    with LinkProxy(host, port, rtt=rtt, mbit=mbit) as link:
        plain = connect_plan.connect(link.url, compression="none")
        packed = connect_plan.connect(link.url, compression="zstd")
        local_plain = connect_plan.connect(ctx.url, compression="none")
        local_packed = connect_plan.connect(ctx.url, compression="zstd")
        spark = SparkSession.builder.remote(link.url).create()
        clients = [plain, packed, local_plain, local_packed]
        try:
            df = w.generated_df(spark, n)
            df.schema  # noqa: B018 - analysed once up front, as in the throughput scenario
            paths: dict[str, Callable[[], Any]] = {
                "connect_plan": lambda: plain.execute(plan, rows, schema),
                "connect_plan zstd": lambda: packed.execute(plan, rows, schema),
                "pyspark toArrow": lambda: df.toArrow(),
                "connect_plan loopback": lambda: local_plain.execute(plan, rows, schema),
                "connect_plan zstd loopback": lambda: local_packed.execute(plan, rows, schema),
            }
            for fn in paths.values():  # warm-up (and each session's first calls)
                fn()
            mbps = {k: Series("MB/s") for k in paths}
            wire = {k: Series("MiB on the wire") for k in paths if "loopback" not in k}
            results: dict[str, int] = {}
            names = list(paths)
            for rep in range(ctx.repeat):
                for name in names[rep % len(names) :] + names[: rep % len(names)]:
                    down = link.stats.down
                    s = run_measured(paths[name])
                    results[name] = s.value.num_rows
                    mbps[name].samples.append(s.value.nbytes / MiB / s.wall)
                    if name in wire:
                        wire[name].samples.append((link.stats.down - down) / MiB)
        finally:
            for c in clients:
                c.close()
            spark.stop()
    same = set(results.values()) == {n}
    series: dict[str, Series] = {f"{k} MB/s": v for k, v in mbps.items()}
    series.update({f"{k} wire": v for k, v in wire.items()})
    ratios = {
        f"{mbit:.0f} Mbit/s: connect_plan zstd/pyspark": paired(mbps["connect_plan zstd"], mbps["pyspark toArrow"]),
        f"{mbit:.0f} Mbit/s: connect_plan/pyspark": paired(mbps["connect_plan"], mbps["pyspark toArrow"]),
        "loopback: zstd/uncompressed": paired(mbps["connect_plan zstd loopback"], mbps["connect_plan loopback"]),
        "bytes on the wire: zstd/uncompressed": paired(wire["connect_plan zstd"], wire["connect_plan"]),
    }
    targets = [
        _target(
            f"{mbit:.0f} Mbit/s link: throughput ≥ 2× PySpark toArrow ({n:,} rows, zstd)",
            ratios[f"{mbit:.0f} Mbit/s: connect_plan zstd/pyspark"],
            2.0,
            "min",
        ),
        # on loopback compression only costs CPU: the default (auto) leaves it off there, so
        # the "≤ 10% slower on loopback" target holds by construction; the ratio shows the price
    ]
    ctx.log(f"{mbit:.0f} Mbit/s link {n:,}: " + ", ".join(f"{k} {s.median:.1f} MB/s" for k, s in mbps.items()))
    out.append(
        _record(
            "link_throughput",
            f"{n:,} rows × 5 columns over a {mbit:.0f} Mbit/s, {rtt * 1e3:.0f} ms link",
            series,
            ratios,
            targets,
            same_result=same,
        )
    )
    return out


# ------------------------------------------------------------------ cold start (whole processes)

_PYSPARK_PEOPLE = """
import sys
from pyspark.sql import SparkSession, functions as F
spark = SparkSession.builder.remote(sys.argv[1]).getOrCreate()
df = spark.createDataFrame(
    [("Alice", 34, "Oslo"), ("Bob", 19, "Bergen"), ("Carol", 52, "Oslo"), ("Dan", None, "Tromsø")],
    "name string, age int, city string",
)
group = F.when(F.col("age") >= 50, "50+").when(F.col("age") >= 30, "30-49").otherwise("under 30")
out = (
    df.filter(F.col("age").isNotNull()).withColumn("group", group)
    .select(F.upper("name").alias("who"), "age", "group").orderBy(F.col("age").desc()).limit(2)
)
print(out.toArrow().to_pylist())
"""

_IMPORT_TRANSLATE = """
import sys, time
t0 = time.perf_counter()
import connect_plan
plan = [
    {"op": "filter", "payload": {"op": "gt", "left": {"col": "x"}, "right": {"lit": 1.0}}},
    {"op": "select", "payload": ["id", "s", "x"]},
    {"op": "orderBy", "payload": {"columns": ["x"], "ascending": [False]}},
]
rows = [[1, 3.5, "a"], [2, 0.5, "b"], [3, 7.0, "c"]]
schema = [{"name": "id", "type": "bigint"}, {"name": "x", "type": "double"}, {"name": "s", "type": "string"}]
connect_plan.translate(rows, schema, plan)
print((time.perf_counter() - t0) * 1e3, "pandas" in sys.modules)
"""


# the floors of a cold start: what any client of this design loads before it can send a plan
# and read Arrow back (pyarrow as the connect-plan process loads it, without NumPy or cloudpickle;
# protobuf and Spark Connect's message classes), in a process that does nothing else; and,
# timed inside the process, what a library caller's translation needs of them (pyarrow with
# NumPy, which pyarrow imports when it can; no gRPC)
_FLOOR_IMPORTS = """
import sys
sys.modules["numpy"] = sys.modules["cloudpickle"] = None
import pyarrow, grpc
from connect_plan.spark_proto import pb
pb.Plan
"""
_FLOOR_TRANSLATE = """
import sys, time
t0 = time.perf_counter()
import pyarrow
from connect_plan.spark_proto import pb
pb.Plan
print((time.perf_counter() - t0) * 1e3)
"""


def _compiled_bytecode() -> bool:
    """Compile connect_plan's modules to bytecode where the interpreter caches it, as pip does
    when it installs a wheel (an editable install compiles nothing, and with
    PYTHONDONTWRITEBYTECODE set nothing is ever cached: every run would compile ~60 modules,
    ~0.2 s, that an installed package never does). False if they could not be written."""
    import compileall
    from pathlib import Path

    import connect_plan

    root = Path(connect_plan.__file__).resolve().parent
    try:
        return bool(compileall.compile_dir(str(root), quiet=2))
    except OSError:
        return False


def _measured_process(argv: list[str]) -> tuple[float, float, str]:
    """Wall seconds, peak RSS (MiB) and stdout of ``argv`` run as a child of a fresh helper
    process (so the peak RSS is that run's alone)."""
    import json as _json
    import subprocess

    helper = (
        "import json, resource, subprocess, sys, time\n"
        "t0 = time.perf_counter()\n"
        "p = subprocess.run(sys.argv[1:], capture_output=True)\n"
        "wall = time.perf_counter() - t0\n"
        "print(json.dumps([p.returncode, wall, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,"
        " p.stdout.decode(), p.stderr.decode()[-2000:]]))\n"
    )
    done = subprocess.run([sys.executable, "-c", helper, *argv], capture_output=True, text=True, check=True)
    code, wall, rss, out, err = _json.loads(done.stdout)
    if code != 0:
        raise RuntimeError(f"{argv[:4]} failed ({code}): {err}")
    return wall, rss, out


def cold_start(ctx: Context, runs: int) -> list[dict[str, Any]]:
    """Whole processes against the warm server, one after the other, alternating:
    ``connect-plan run examples/people.json`` and the same query as a PySpark Connect script
    (``getOrCreate``, ``createDataFrame``, filter..., ``toArrow()``); and ``import
    connect_plan`` + the first ``translate`` of a 3-step plan over JSON rows (timed inside the
    process). Wall time and peak RSS per run; whether pandas was imported."""
    import tempfile
    from pathlib import Path

    example = str(Path(__file__).resolve().parent.parent / "examples" / "people.json")
    # the PySpark script runs from a file, as a user's script does: under `python -c`,
    # PySpark's Connect dependency check takes the main module (no __file__, no __spec__)
    # for a doctest run and imports pyspark.testing, which needs a SPARK_HOME that
    # pyspark-client does not have ("Could not find valid SPARK_HOME")
    script_dir = tempfile.TemporaryDirectory(prefix="connect-plan-cold-start-")
    script = Path(script_dir.name) / "people.py"
    script.write_text(_PYSPARK_PEOPLE)
    # PySpark's Connect client imports IPython (and pygments, zmq...) whenever it is installed,
    # as it is here for the notebook tests: ~0.2 s of the script. A script's environment often
    # has no Jupyter: the same script without it is the baseline the target is judged on (the
    # harder one for connect_plan), the environment's own is reported beside it
    plain = Path(script_dir.name) / "people_no_ipython.py"
    plain.write_text("import sys\nsys.modules['IPython'] = None  # as if not installed\n" + _PYSPARK_PEOPLE)
    bytecode = _compiled_bytecode()
    argv = {
        "connect-plan run": [sys.executable, "-m", "connect_plan", "run", example, "--remote", ctx.url],
        "pyspark script": [sys.executable, str(script), ctx.url],
        "pyspark script, no IPython": [sys.executable, str(plain), ctx.url],
        # floors: the interpreter alone, and the libraries any client of this design loads
        "python alone": [sys.executable, "-c", "pass"],
        "pyarrow + grpc + message classes": [sys.executable, "-c", _FLOOR_IMPORTS],
    }
    wall = {k: Series("ms") for k in argv}
    rss = {k: Series("MiB peak RSS") for k in argv}
    outputs: dict[str, str] = {}
    names = list(argv)
    with script_dir:
        for rep in range(runs + 1):  # the first round warms the file cache
            for name in names[rep % len(names) :] + names[: rep % len(names)]:
                t, r, out = _measured_process(argv[name])
                outputs[name] = out
                if rep:
                    wall[name].samples.append(t * 1e3)
                    rss[name].samples.append(r)
    translate, floor_imports = Series("ms"), Series("ms")
    pandas_seen = False
    for _ in range(runs):
        out = (
            __import__("subprocess")
            .run([sys.executable, "-c", _IMPORT_TRANSLATE], capture_output=True, text=True, check=True)
            .stdout.split()
        )
        translate.samples.append(float(out[0]))
        pandas_seen = pandas_seen or out[1] == "True"
        floor = __import__("subprocess").run(
            [sys.executable, "-c", _FLOOR_TRANSLATE], capture_output=True, text=True, check=True
        )
        floor_imports.samples.append(float(floor.stdout.split()[0]))
    importtime = (
        __import__("subprocess")
        .run([sys.executable, "-X", "importtime", *argv["connect-plan run"][1:]], capture_output=True, text=True)
        .stderr
    )
    # an importtime line ends with the module's name, indented by its import depth
    cli_pandas = any(re.search(r"\|\s+pandas$", line.rstrip()) for line in importtime.splitlines())
    same = all("CAROL" in outputs[k] for k in ("connect-plan run", "pyspark script", "pyspark script, no IPython"))
    series: dict[str, Series] = {}
    for k in argv:
        series[f"{k} wall"] = wall[k]
        series[f"{k} RSS"] = rss[k]
    series["import connect_plan + first translate"] = translate
    series["import pyarrow + message classes (translate's floor)"] = floor_imports
    ratios = {
        "wall: connect-plan run/pyspark script, no IPython": paired(
            wall["connect-plan run"], wall["pyspark script, no IPython"]
        ),
        "wall: connect-plan run/pyspark script": paired(wall["connect-plan run"], wall["pyspark script"]),
        "peak RSS: connect-plan run/pyspark script": paired(rss["connect-plan run"], rss["pyspark script"]),
        # how low the ratio could go if connect_plan's own work (imports, translation, the
        # query) cost nothing: the libraries' floor over the PySpark script
        "floor: libraries' process/pyspark script, no IPython": paired(
            wall["pyarrow + grpc + message classes"], wall["pyspark script, no IPython"]
        ),
    }
    targets = [
        _target(
            "cold start: connect-plan run ≤ 0.4× the PySpark script (without IPython)",
            ratios["wall: connect-plan run/pyspark script, no IPython"],
            0.4,
            "max",
        ),
        _target("cold start: connect-plan run peak RSS ≤ 80 MiB", rss["connect-plan run"].median, 80, "max"),
        _target("import connect_plan + first translate (3 steps, JSON rows) ≤ 150 ms", translate.median, 150, "max"),
        _target("translate imports no pandas", float(pandas_seen), 0, "max"),
        _target("connect-plan run imports no pandas", float(cli_pandas), 0, "max"),
    ]
    ctx.log(
        "cold start: "
        + ", ".join(f"{k} {wall[k].median:.0f} ms {rss[k].median:.0f} MiB" for k in argv)
        + f", import+translate {translate.median:.0f} ms (pandas: translate {pandas_seen}, run {cli_pandas})"
    )
    return [
        _record(
            "cold_start",
            "connect-plan run examples/people.json vs a PySpark Connect script (whole processes)",
            series,
            ratios,
            targets,
            same_result=same,
            pandas_imported={"translate": pandas_seen, "connect-plan run": cli_pandas},
            bytecode_compiled=bytecode,
        )
    ]
