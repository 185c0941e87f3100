"""``connect-plan serve`` against its peers, side by side in one run (issue 33): the same
statements through Flight SQL (ADBC's DB-API: Arrow's Go driver; ``pyarrow.flight``'s client)
and through connect_plan called in-process, PySpark's Connect client and ``connect-plan run``,
against the same Spark server.

* **small query**: the small_query scenario's 3-row filter/select/orderBy/limit, as a JSON
  plan document. Wall ms per statement; the extra latency of Flight SQL over the in-process
  call (paired per round, in ms). ``connect-plan run`` is a whole process per statement (its
  cold start included), measured fewer times.
* **throughput**: ``n`` generated rows × 5 columns to the client as Arrow. MiB/s of Arrow data;
  Flight SQL's over the in-process call's (paired per round). Beside them, in the same rounds,
  the floor of one Python Flight hop: serve at other ``--batch-rows``, and the *minimal
  forwarder* (benchmarks/flight_forward.py: Spark's batches forwarded with nothing else done,
  on grpcio as serve is built and on pyarrow.flight's C++ server; and "no Spark", the same bytes
  from memory), read by ADBC as serve is; each server's CPU per MiB.
* **concurrent clients**: ``clients`` ADBC connections running small JSON plans for
  ``seconds``, every answer checked: statements per second, latency percentiles, the serve
  process's memory at the start and end of the run.

The server is the installed ``connect-plan serve`` in a subprocess (``--policy trusted``, on a
free loopback port), as a user runs it.
"""

from __future__ import annotations

import json
import os
import signal
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from . import workloads as w
from .measure import Series, paired
from .scenarios import Context, _record, _same_rows, _target

MiB = 1 << 20


@contextmanager
def serving(url: str | None, *args: str, forwarder: bool = False) -> Iterator[tuple[str, int]]:
    """``connect-plan serve ARGS`` in front of ``url``: (its Flight SQL URL, its pid). ``None``: the
    floor's constant Flight server instead (benchmarks/flight_floor.py); ``forwarder``: the
    minimal forwarder with ``ARGS`` (benchmarks/flight_forward.py)."""
    if url is None:
        argv = [sys.executable, "-m", "benchmarks.flight_floor"]
    elif forwarder:
        argv = [sys.executable, "-m", "benchmarks.flight_forward", "--remote", url, *args]
    else:
        argv = [sys.executable, "-m", "connect_plan", "serve", "--listen", "grpc://127.0.0.1:0"]
        argv += ["--remote", url, "--policy", "trusted", *args]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        if not line.startswith("serving "):
            raise RuntimeError(f"connect-plan serve did not start: {line!r}")
        yield line.split()[1], proc.pid
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(30)
        if proc.stdout is not None:
            proc.stdout.close()


def _rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def _cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far (all its threads)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _adbc(url: str) -> Any:
    import adbc_driver_flightsql.dbapi as flightsql

    return flightsql.connect(url, autocommit=True)


def _flight_reader(url: str) -> Callable[[str], Any]:
    """A pyarrow.flight client's GetFlightInfo + DoGet of a query text (one connection)."""
    import pyarrow.flight as fl

    from connect_plan.flightsql.messages import SQL, message, pack

    client = fl.connect(url)
    command = message(f"{SQL}.CommandStatementQuery")

    def read(text: str) -> Any:
        info = client.get_flight_info(fl.FlightDescriptor.for_command(pack(command(query=text))))
        return client.do_get(info.endpoints[0].ticket).read_all()

    return read


def _document(rows: Any, schema: Any, plan: Any) -> dict[str, Any]:
    return {"input": {"schema": schema, "rows": rows}, "plan": plan}


def _rounds(
    clients: dict[str, Callable[[], Any]],
    series: dict[str, Series],
    reps: int,
    scale: float,
    servers: dict[str, int] | None = None,
    cpu: dict[str, Series] | None = None,
) -> None:
    """``reps`` rounds of every client in turn (each round starting one further along); with
    ``servers`` (client name → its server's pid), that server's CPU seconds of each call into
    ``cpu``."""
    names = list(clients)
    for rep in range(reps):
        for name in names[rep % len(names) :] + names[: rep % len(names)]:
            pid = (servers or {}).get(name)
            cpu0 = _cpu_seconds(pid) if pid else 0.0
            t0 = time.perf_counter()
            clients[name]()
            series[name].samples.append((time.perf_counter() - t0) * scale)
            if pid and cpu is not None:
                cpu.setdefault(name, Series("s")).samples.append(_cpu_seconds(pid) - cpu0)


def flight_sql(ctx: Context, rows: int, clients: int, seconds: float, cli_runs: int) -> list[dict[str, Any]]:
    import importlib.util

    if importlib.util.find_spec("adbc_driver_flightsql") is None:
        ctx.log("adbc-driver-flightsql is not installed (the test extra has it): flight_sql left out")
        return []
    records: list[dict[str, Any]] = []
    with serving(ctx.url) as (url, pid), serving(None) as (floor_url, _):
        conn = _adbc(url)
        cur = conn.cursor()
        flight = _flight_reader(url)
        try:
            records.append(_small(ctx, pid, cur, flight, cli_runs, _flight_reader(floor_url)))
            records.append(_throughput(ctx, cur, flight, rows, pid))
        finally:
            cur.close()
            conn.close()
        records.append(_concurrent(ctx, url, pid, clients, seconds))
    return records


def _small(
    ctx: Context, pid: int, cur: Any, flight: Callable[[str], Any], cli_runs: int, floor: Callable[[str], Any]
) -> dict[str, Any]:
    import tempfile

    client, spark = ctx.client, ctx.spark
    doc = _document(w.SMALL_ROWS, w.INPUT_SCHEMA, w.SMALL_PLAN)
    text = json.dumps(doc)

    def adbc() -> Any:
        cur.execute(text)
        return cur.fetch_arrow_table()

    runs: dict[str, Callable[[], Any]] = {
        "connect_plan (in-process)": lambda: client.execute(doc),
        "Flight SQL: ADBC DB-API": adbc,
        "Flight SQL: pyarrow.flight": lambda: flight(text),
        "pyspark": lambda: w.small_df(spark).toArrow(),
        # the floor: the same two Flight calls to a Python Flight server answering a constant
        # (no Spark, no connect_plan): what one more Python Flight hop costs by itself
        "floor: pyarrow.flight to a constant Flight server": lambda: floor(text),
    }
    series = {name: Series("ms") for name in runs}
    for fn in runs.values():
        for _ in range(3):
            fn()
    _rounds(runs, series, ctx.repeat * ctx.samples, 1e3)
    # CPU per statement, insensitive to the load of a shared machine that wall time is not: the
    # calling process's, and the serve process's (what Flight SQL adds on the server side)
    n = ctx.repeat * ctx.samples
    for name in ("connect_plan (in-process)", "Flight SQL: ADBC DB-API", "Flight SQL: pyarrow.flight"):
        served0, own0 = _cpu_seconds(pid), time.process_time()
        for _ in range(n):
            runs[name]()
        own, served = time.process_time() - own0, _cpu_seconds(pid) - served0
        series[f"CPU per statement, calling process: {name}"] = Series("ms", [own / n * 1e3])
        if name != "connect_plan (in-process)":
            series[f"CPU per statement, serve process: {name}"] = Series("ms", [served / n * 1e3])
    # connect-plan run: a whole process per statement (its cold start is most of it)
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(doc, f)
    cli = Series("ms")
    try:
        argv = [sys.executable, "-m", "connect_plan", "run", f.name, "--remote", ctx.url, "--format", "json"]
        for _ in range(cli_runs):
            t0 = time.perf_counter()
            subprocess.run(argv, check=True, capture_output=True)
            cli.samples.append((time.perf_counter() - t0) * 1e3)
    finally:
        os.unlink(f.name)
    series["connect-plan run (a process per statement)"] = cli
    ours = client.execute(doc).to_pylist()
    same = ours == adbc().to_pylist() == flight(text).to_pylist() == w.small_df(spark).toArrow().to_pylist()
    base = series["connect_plan (in-process)"].samples
    extra = {
        name: statistics.median(a - b for a, b in zip(series[name].samples, base))
        for name in ("Flight SQL: ADBC DB-API", "Flight SQL: pyarrow.flight")
    }
    extra["floor: one Python Flight hop (GetFlightInfo + DoGet, no Spark)"] = series[
        "floor: pyarrow.flight to a constant Flight server"
    ].median
    ratios = {
        "ADBC/in-process": paired(series["Flight SQL: ADBC DB-API"], series["connect_plan (in-process)"]),
        "pyarrow.flight/in-process": paired(series["Flight SQL: pyarrow.flight"], series["connect_plan (in-process)"]),
        "ADBC/pyspark": paired(series["Flight SQL: ADBC DB-API"], series["pyspark"]),
    }
    targets = [
        _target(
            "small query: Flight SQL's extra latency ≤ 2 ms over connect_plan in-process (ADBC)",
            extra["Flight SQL: ADBC DB-API"],
            2.0,
            "max",
        ),
        _target(
            "small query: Flight SQL's extra latency ≤ 2 ms over connect_plan in-process (pyarrow.flight)",
            extra["Flight SQL: pyarrow.flight"],
            2.0,
            "max",
        ),
    ]
    ctx.log("flight_sql small: " + ", ".join(f"{k} {s.median:.1f} ms" for k, s in series.items()))
    return _record(
        "flight_sql", "small query, 3 rows (JSON plan)", series, ratios, targets, same_result=same, extra_ms=extra
    )


#: the servers beside ``connect-plan serve`` (its defaults: 50,000 rows per batch) in the throughput
#: case: serve at other ``--batch-rows``, and the minimal forwarder (benchmarks/flight_forward.py) on each stack, with
#: Spark behind it or pre-made batches ("no Spark"), at Spark's default 10,000 rows per batch
#: unless said
_PEERS: dict[str, tuple[tuple[str, ...], bool]] = {
    "serve --batch-rows 10000 (Spark's default)": (("--batch-rows", "10000"), False),
    "serve --batch-rows 100000": (("--batch-rows", "100000"), False),
    "minimal forwarder, grpcio": (("--stack", "grpc"), True),
    "minimal forwarder, grpcio, 100,000-row batches": (("--stack", "grpc", "--batch-rows", "100000"), True),
    "minimal forwarder, pyarrow.flight server": (("--stack", "pyarrow"), True),
    "no Spark: pre-made batches, grpcio": (("--stack", "grpc", "--source", "const"), True),
    "no Spark: pre-made batches, pyarrow.flight server": (("--stack", "pyarrow", "--source", "const"), True),
    "no Spark: pre-made 100,000-row batches, grpcio": (
        ("--stack", "grpc", "--source", "const", "--batch-rows", "100000"),
        True,
    ),
}
_ADBC = "ADBC record batches"
#: the peers also read with pyarrow.flight's client (the others with ADBC's only)
_FLIGHT_READ = ("minimal forwarder, grpcio",)


def _throughput(ctx: Context, cur: Any, flight: Callable[[str], Any], n: int, pid: int) -> dict[str, Any]:
    from contextlib import ExitStack

    client, spark = ctx.client, ctx.spark
    rows, schema, plan = w.generated_plan(n)
    doc = _document(rows, schema, plan)
    text = json.dumps(doc)
    df = w.generated_df(spark, n)
    size = client.execute(doc).nbytes

    def streamed() -> int:
        return sum(batch.num_rows for batch in client.stream(doc))

    def adbc_of(cursor: Any) -> Callable[[], int]:
        def adbc() -> int:
            cursor.execute(text)
            return sum(batch.num_rows for batch in cursor.fetch_record_batch())

        return adbc

    serve = "Flight SQL: ADBC record batches"
    runs: dict[str, Callable[[], Any]] = {
        "connect_plan in-process: table": lambda: client.execute(doc).num_rows,
        "connect_plan in-process: stream": streamed,
        serve: adbc_of(cur),
        "Flight SQL: pyarrow.flight table": lambda: flight(text).num_rows,
        "pyspark: toArrow": lambda: df.toArrow().num_rows,
    }
    servers = {serve: pid, "Flight SQL: pyarrow.flight table": pid}
    with ExitStack() as stack:
        for peer, (args, forwarder) in _PEERS.items():
            peer_url, peer_pid = stack.enter_context(serving(ctx.url, *args, forwarder=forwarder))
            conn = stack.enter_context(_adbc(peer_url))
            runs[f"{peer}: {_ADBC}"] = adbc_of(stack.enter_context(conn.cursor()))
            servers[f"{peer}: {_ADBC}"] = peer_pid
            if peer in _FLIGHT_READ:
                read = _flight_reader(peer_url)
                runs[f"{peer}: pyarrow.flight table"] = lambda read=read: read(text).num_rows  # type: ignore[misc]
                servers[f"{peer}: pyarrow.flight table"] = peer_pid
        seconds = {name: Series("s") for name in runs}
        for fn in runs.values():
            assert fn() == n
        cpu: dict[str, Series] = {}
        _rounds(runs, seconds, ctx.repeat, 1.0, servers, cpu)
    series = {name: Series("MiB/s", [size / MiB / t for t in s.samples]) for name, s in seconds.items()}
    # the server's CPU per MiB sent, and the wall time's share it took (2 cores for all three processes)
    for name, used in cpu.items():
        series[f"server CPU ms per MiB: {name}"] = Series("ms/MiB", [c * 1e3 / (size / MiB) for c in used.samples])
    stream = "connect_plan in-process: stream"
    floor, floor_100k = "minimal forwarder, grpcio", "minimal forwarder, grpcio, 100,000-row batches"
    serve_10k, serve_100k = "serve --batch-rows 10000 (Spark's default)", "serve --batch-rows 100000"
    pairs = {
        "ADBC/in-process stream": (serve, stream),
        "pyarrow.flight/in-process table": ("Flight SQL: pyarrow.flight table", "connect_plan in-process: table"),
        "ADBC/pyspark": (serve, "pyspark: toArrow"),
        "serve --batch-rows 10000 (ADBC)/in-process stream": (f"{serve_10k}: {_ADBC}", stream),
        "serve --batch-rows 100000 (ADBC)/in-process stream": (f"{serve_100k}: {_ADBC}", stream),
        "serve (default batch rows)/serve --batch-rows 10000, ADBC": (serve, f"{serve_10k}: {_ADBC}"),
        "floor (minimal grpcio forwarder, ADBC)/in-process stream": (f"{floor}: {_ADBC}", stream),
        "serve --batch-rows 10000/floor (same batches, ADBC)": (f"{serve_10k}: {_ADBC}", f"{floor}: {_ADBC}"),
        "minimal grpcio forwarder, 100,000-row batches (ADBC)/in-process stream": (f"{floor_100k}: {_ADBC}", stream),
        "serve (default batch rows)/minimal forwarder, 100,000-row batches, ADBC": (serve, f"{floor_100k}: {_ADBC}"),
        "minimal pyarrow.flight forwarder (ADBC)/in-process stream": (
            f"minimal forwarder, pyarrow.flight server: {_ADBC}",
            stream,
        ),
        "no Spark, grpcio (ADBC)/in-process stream": (f"no Spark: pre-made batches, grpcio: {_ADBC}", stream),
        "no Spark, pyarrow.flight server (ADBC)/in-process stream": (
            f"no Spark: pre-made batches, pyarrow.flight server: {_ADBC}",
            stream,
        ),
    }
    # (a peer left out of _PEERS leaves its ratios out)
    ratios = {k: paired(series[a], series[b]) for k, (a, b) in pairs.items() if a in series and b in series}
    same = _same_rows(flight(text), client.execute(doc)) if n <= 100_000 else True
    targets = [
        _target(
            f"{n:.0e} rows through Flight SQL (ADBC) ≥ 0.9× connect_plan in-process's throughput",
            ratios["ADBC/in-process stream"],
            0.9,
            "min",
        )
    ]
    ctx.log("flight_sql throughput: " + ", ".join(f"{k} {s.median:.0f} MiB/s" for k, s in series.items()))
    return _record(
        "flight_sql",
        f"throughput, {n:,} rows × 5 columns ({size / MiB:.0f} MiB)",
        series,
        ratios,
        targets,
        same_result=same,
    )


def _concurrent(ctx: Context, url: str, pid: int, clients: int, seconds: float) -> dict[str, Any]:
    """``clients`` ADBC connections, each running JSON plans whose answer it checks."""

    def plan(n: int) -> str:
        return json.dumps(
            {
                "input": {"range": n},
                "plan": [
                    {
                        "op": "agg",
                        "payload": {
                            "aggs": [
                                {"agg": "sum", "col": "id", "alias": "s"},
                                {"agg": "count", "col": "id", "alias": "c"},
                            ]
                        },
                    }
                ],
            }
        )

    stop = threading.Event()
    latencies: list[list[float]] = [[] for _ in range(clients)]
    wrong: list[str] = []
    errors: list[str] = []
    ready = threading.Barrier(clients + 1)

    def client(k: int) -> None:
        try:
            with _adbc(url) as conn, conn.cursor() as cur:
                ready.wait(120)
                i = 0
                while not stop.is_set():
                    n = 1000 + k * 31 + i % 17
                    t0 = time.perf_counter()
                    cur.execute(plan(n))
                    got = cur.fetch_arrow_table().to_pylist()
                    latencies[k].append((time.perf_counter() - t0) * 1e3)
                    if got != [{"s": n * (n - 1) // 2, "c": n}]:
                        wrong.append(f"client {k}, n={n}: {got}")
                    i += 1
        except Exception as exc:
            errors.append(f"client {k}: {type(exc).__name__}: {exc}"[:300])

    threads = [threading.Thread(target=client, args=(k,), daemon=True) for k in range(clients)]
    for t in threads:
        t.start()
    ready.wait(120)
    rss_start = _rss_mib(pid)
    t0 = time.monotonic()
    rss = [rss_start]
    while time.monotonic() - t0 < seconds:
        time.sleep(min(1.0, seconds / 4))
        rss.append(_rss_mib(pid))
    stop.set()
    for t in threads:
        t.join(120)
    elapsed = time.monotonic() - t0
    every = sorted(x for ms in latencies for x in ms)
    total = len(every)
    series = {
        "statements per second": Series("1/s", [total / elapsed]),
        "latency p50": Series("ms", [every[total // 2]] if every else []),
        "latency p95": Series("ms", [every[min(total - 1, total * 95 // 100)]] if every else []),
        "serve RSS at start": Series("MiB", [rss_start]),
        "serve RSS at end": Series("MiB", [rss[-1]]),
        "serve RSS max": Series("MiB", [max(rss)]),
    }
    ctx.log(
        f"flight_sql concurrent: {clients} clients, {elapsed:.0f} s: {total} statements ({total / elapsed:.1f}/s), "
        f"RSS {rss_start:.0f} → {rss[-1]:.0f} MiB, {len(wrong)} wrong, {len(errors)} errors"
    )
    return _record(
        "flight_sql",
        f"{clients} concurrent ADBC clients, {seconds:.0f} s",
        series,
        {"statements per second per client": total / elapsed / clients},
        same_result=not wrong and not errors and min(len(x) for x in latencies) > 0,
        errors=errors[:5] + wrong[:5],
    )
