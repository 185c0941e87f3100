"""adbc-driver-spark as a peer (issue 34): the same SQL through connect_plan, PySpark's Connect
client and adbc-driver-spark (an ADBC driver for Spark Connect written in Go; SQL only, Arrow
out), side by side in one run, on the suite's server.

- small query: a 3-row VALUES filter/select/orderBy/limit (the small-query scenario's query,
  written as SQL), wall time on a warm session, on loopback and over an emulated 20 ms link
  (benchmarks/netproxy.py), beside one raw ExecutePlan of connect_plan's prepared plan;
- throughput: n rows × 5 columns generated on the server (the throughput scenario's columns,
  written as SQL over ``range``), MB/s of Arrow received, on loopback and over a 100 Mbit/s
  link with 20 ms RTT (there connect_plan asks zstd-compressed results, as its ``auto`` does
  over a network; PySpark and adbc-driver-spark have no such setting).

connect_plan runs the text as a plan whose input is ``{"sql": ...}``; PySpark as
``spark.sql(text).toArrow()``; adbc-driver-spark as ``cursor.execute(text)`` then
``fetch_arrow_table()``. Every client's answer is compared with connect_plan's.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from .measure import Series, paired
from .scenarios import Context, _raw_execute, _record, _target, _target_of

SMALL_SQL = (
    "SELECT id, s, x FROM VALUES (1L, 3.5D, 'alpha', true, DATE'2024-01-01'), "
    "(2L, 1.25D, 'beta', false, DATE'2024-02-01'), (3L, 7.0D, 'gamma', true, DATE'2024-03-01') "
    "AS t(id, x, s, b, d) WHERE x > 1.0 ORDER BY x DESC LIMIT 2"
)


def generated_sql(n: int) -> str:
    """n rows × 5 columns (bigint, double, string, boolean, date) made on the server."""
    return (
        "SELECT id, CAST(id AS DOUBLE) * 0.5 AS x, concat('name-', CAST(pmod(id, 1000) AS STRING)) AS s, "
        f"pmod(id, 2) = 0 AS b, date_add(DATE'2024-01-01', CAST(pmod(id, 365) AS INT)) AS d FROM range({n})"
    )


def _adbc(url: str) -> Any:
    """A DBAPI connection of adbc-driver-spark, or None when it is not installed."""
    try:
        import adbc_driver_spark.dbapi as adbc
    except ImportError:
        return None
    return adbc.connect(url)


def _adbc_query(con: Any, text: str) -> Any:
    with con.cursor() as cur:
        cur.execute(text)
        return cur.fetch_arrow_table()


def _same(tables: dict[str, Any]) -> dict[str, bool]:
    """Each client's answer against connect_plan's: same rows in the same order, by value."""
    ours = tables["connect_plan"].to_pylist()
    return {name: t.to_pylist() == ours for name, t in tables.items() if name != "connect_plan"}


def _rounds(
    clients: dict[str, Callable[[], Any]], reps: int, unit: str, scale: Callable[[float], float]
) -> dict[str, Series]:
    series = {name: Series(unit) for name in clients}
    names = list(clients)
    for rep in range(reps):
        for name in names[rep % len(names) :] + names[: rep % len(names)]:
            t0 = time.perf_counter()
            clients[name]()
            series[name].samples.append(scale(time.perf_counter() - t0))
    return series


def small_query(ctx: Context, *, rtt: float | None = None) -> list[dict[str, Any]]:
    from pyspark.sql import SparkSession

    import connect_plan
    from connect_plan.formats import load_plan

    from .netproxy import LinkProxy

    host, port = _target_of(ctx.url)
    link = LinkProxy(host, port, rtt=rtt) if rtt else None
    url = link.start().url if link else ctx.url
    client = connect_plan.connect(url)
    spark = SparkSession.builder.remote(url).create()
    adbc = _adbc(url)
    plan = {"input": {"sql": SMALL_SQL}, "plan": []}
    try:
        raw_plan = client.internals.executor.prepare(load_plan(plan, None, None)).plan
        clients: dict[str, Callable[[], Any]] = {
            "connect_plan": lambda: client.execute(plan),
            "pyspark": lambda: spark.sql(SMALL_SQL).toArrow(),
            "raw ExecutePlan": lambda: _raw_execute(client, raw_plan),
        }
        if adbc is not None:
            clients["adbc-driver-spark"] = lambda: _adbc_query(adbc, SMALL_SQL)
        for fn in clients.values():  # warm-up
            for _ in range(3):
                fn()
        series = _rounds(
            clients, ctx.repeat * (max(1, ctx.samples // 4) if rtt else ctx.samples), "ms", lambda s: s * 1e3
        )
        answers = {name: fn() for name, fn in clients.items() if name != "raw ExecutePlan"}
    finally:
        client.close()
        spark.stop()
        if adbc is not None:
            adbc.close()
        if link:
            link.stop()
    ratios = {"connect_plan/pyspark": paired(series["connect_plan"], series["pyspark"])}
    ratios["connect_plan/raw ExecutePlan"] = paired(series["connect_plan"], series["raw ExecutePlan"])
    targets = []
    if "adbc-driver-spark" in series:
        ratios["connect_plan/adbc-driver-spark"] = paired(series["connect_plan"], series["adbc-driver-spark"])
        ratios["adbc-driver-spark/pyspark"] = paired(series["adbc-driver-spark"], series["pyspark"])
        if not rtt:
            targets.append(
                _target(
                    "small-query latency ≤ adbc-driver-spark's (SQL)",
                    ratios["connect_plan/adbc-driver-spark"],
                    1.0,
                    "max",
                )
            )
    where = f"{rtt * 1e3:.0f} ms RTT" if rtt else "loopback"
    ctx.log(f"peers small query ({where}): " + ", ".join(f"{k} {s.median:.1f} ms" for k, s in series.items()))
    return [
        _record("peers", f"small SQL query, {where}", series, ratios, targets, same_result=all(_same(answers).values()))
    ]


def throughput(ctx: Context, n: int, *, mbit: float | None = None, rtt: float = 0.0) -> list[dict[str, Any]]:
    from pyspark.sql import SparkSession

    import connect_plan

    from .netproxy import LinkProxy

    host, port = _target_of(ctx.url)
    link = LinkProxy(host, port, rtt=rtt, mbit=mbit) if mbit else None
    url = link.start().url if link else ctx.url
    client = connect_plan.connect(url, compression="zstd" if mbit else "none")
    spark = SparkSession.builder.remote(url).create()
    adbc = _adbc(url)
    text = generated_sql(n)
    plan = {"input": {"sql": text}, "plan": []}
    size: dict[str, int] = {}

    def sized(name: str, fn: Callable[[], Any]) -> Callable[[], Any]:
        def run() -> Any:
            t = fn()
            size[name] = t.nbytes
            return t

        return run

    try:
        clients: dict[str, Callable[[], Any]] = {
            "connect_plan": sized("connect_plan", lambda: client.execute(plan)),
            "pyspark": sized("pyspark", lambda: spark.sql(text).toArrow()),
        }
        if adbc is not None:
            clients["adbc-driver-spark"] = sized("adbc-driver-spark", lambda: _adbc_query(adbc, text))
        answers = {name: fn() for name, fn in clients.items()}  # warm-up, and the answers
        same = {
            name: t.num_rows == n and t.schema.names == answers["connect_plan"].schema.names
            for name, t in answers.items()
        }
        answers.clear()
        mb = size["connect_plan"] / 1e6
        series = _rounds(clients, ctx.repeat * (1 if mbit else 2), "MB/s", lambda s: mb / s)
    finally:
        client.close()
        spark.stop()
        if adbc is not None:
            adbc.close()
        if link:
            link.stop()
    ratios = {"connect_plan/pyspark": paired(series["connect_plan"], series["pyspark"])}
    targets = []
    if "adbc-driver-spark" in series:
        ratios["connect_plan/adbc-driver-spark"] = paired(series["connect_plan"], series["adbc-driver-spark"])
        ratios["adbc-driver-spark/pyspark"] = paired(series["adbc-driver-spark"], series["pyspark"])
        if not mbit and n >= 10_000_000:
            targets.append(
                _target(
                    "1e7-row throughput ≥ adbc-driver-spark's (SQL)",
                    ratios["connect_plan/adbc-driver-spark"],
                    1.0,
                    "min",
                )
            )
    where = f"{mbit:g} Mbit/s, {rtt * 1e3:.0f} ms RTT" if mbit else "loopback"
    ctx.log(
        f"peers throughput {n:,} rows ({where}): " + ", ".join(f"{k} {s.median:.1f} MB/s" for k, s in series.items())
    )
    return [
        _record(
            "peers", f"{n:,} rows × 5 columns (SQL), {where}", series, ratios, targets, same_result=all(same.values())
        )
    ]


def peers(ctx: Context, throughput_rows: int, link_rows: int) -> list[dict[str, Any]]:
    """The scenario (see module doc)."""
    out = small_query(ctx)
    out += small_query(ctx, rtt=0.020)
    out += throughput(ctx, throughput_rows)
    out += throughput(ctx, link_rows, mbit=100.0, rtt=0.020)
    return out
