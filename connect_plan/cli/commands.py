"""The commands: ``run``, ``explain``, ``check``, ``fixtures``, ``ops``, ``server``, and how
their results are written (a table, JSON, CSV, parquet; a plan as protobuf text)."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from ..errors import PlanError, ServerError
from ..output import Preview, csv_ready, csv_schema, format_table, json_rows, parquet_ready, parquet_schema
from .documents import checked, client_options, policy_of, ready, remote_url, tables_of
from .exits import EXIT_FAILURES, EXIT_LOCAL, EXIT_OK, EXIT_SERVER, CliError, failure

if TYPE_CHECKING:
    import pyarrow as pa

    from .. import ir
    from ..client import Client
    from ..display import ProgressLine
    from ..telemetry import QueryStats

__all__ = [
    "PROGRESS_INTERVAL",
    "STATS_INTERVAL",
    "cmd_check",
    "cmd_explain",
    "cmd_fixtures",
    "cmd_ops",
    "cmd_run",
    "cmd_serve",
    "cmd_server",
    "plan_text",
    "write_result",
    "write_stream",
]


def write_result(table: pa.Table, fmt: str, output: str | None, out: TextIO, footer: str = "") -> None:
    if fmt in ("parquet", "csv"):
        write_stream(table.to_reader(), fmt, output, out)
        return
    if fmt == "json":
        text = json.dumps(list(json_rows(table.to_batches())), ensure_ascii=False, indent=1, allow_nan=False)
    else:
        text = format_table(table, footer=footer)
    if output:
        Path(output).write_text(text + "\n", encoding="utf-8")
    else:
        out.write(text + "\n")


def plan_text(plan: Any) -> str:
    """Protobuf text of a plan with inline Arrow data summarised (not dumped as bytes)."""
    from google.protobuf import text_format

    copy = type(plan)()
    copy.CopyFrom(plan)
    stack = [copy.root]
    while stack:
        rel = stack.pop()
        for desc, value in rel.ListFields():
            if desc.name == "local_relation" and value.data:
                value.data = _describe_ipc(value.data).encode()
            elif desc.message_type is not None:
                repeated = desc.is_repeated if hasattr(desc, "is_repeated") else desc.label == desc.LABEL_REPEATED
                if repeated:
                    stack.extend(v for v in value if hasattr(v, "ListFields"))
                else:
                    stack.append(value)
    return str(text_format.MessageToString(copy, as_utf8=True))


def _describe_ipc(data: bytes) -> str:
    import pyarrow as pa

    try:
        table = pa.ipc.open_stream(data).read_all()
    except pa.ArrowInvalid:
        return f"<{len(data)} bytes, not an Arrow IPC stream>"
    cols = ", ".join(f"{f.name}: {f.type}" for f in table.schema)
    return f"<Arrow IPC: {table.num_rows} rows; {cols}>"


def write_stream(
    reader: pa.RecordBatchReader, fmt: str, output: str | None, out: TextIO, *, before: ProgressLine | None = None
) -> None:
    """Write a streamed result batch by batch (parquet, csv): memory stays at a few batches.
    ``before``: a progress line cleared before the first batch goes to standard output. Types a
    format cannot hold are written as :mod:`connect_plan.output` says."""
    if before is not None and not output:
        before.close()
    if fmt == "parquet":
        import pyarrow.parquet as pq

        if not output:
            raise CliError("--format parquet needs --output PATH")
        rows = 0
        with pq.ParquetWriter(output, parquet_schema(reader.schema)) as writer:
            for batch in reader:
                writer.write_batch(parquet_ready(batch))
                rows += batch.num_rows
        from ..telemetry import count

        print(f"wrote {count(rows, 'row')} to {output}", file=sys.stderr)
        return
    import pyarrow.csv as pcsv

    sink: Any = output if output else sys.stdout.buffer
    if not output:
        out.flush()
    with pcsv.CSVWriter(sink, csv_schema(reader.schema)) as writer:
        for batch in reader:
            writer.write_batch(csv_ready(batch))


def cmd_run(args: argparse.Namespace) -> int:
    from ..client import Client

    plan, _, doc = checked(args)  # invalid or refused plans fail before any server work
    if args.format == "parquet" and not args.output:
        raise CliError("--format parquet needs --output PATH")
    stats: list[QueryStats] = []
    note = ""
    with (
        Client(remote_url(args, start=True), **client_options(args)) as client,
        ready(client, doc, plan, args.tmp_dir) as plan,
        _progress(args, client) as line,
    ):
        if plan.output is None and (args.max_rows is not None or args.max_bytes is not None):
            note = _preview(client, plan, args, line, stats)
        elif args.format in ("parquet", "csv") and plan.output is None:  # a write returns a report
            reader = client.stream(plan, on_progress=line, on_stats=stats.append)
            write_stream(reader, args.format, args.output, sys.stdout, before=line)
        else:
            table = client.execute(plan, on_progress=line, on_stats=stats.append)
            if line is not None:
                line.close()  # cleared before the result is printed
            write_result(table, args.format, args.output, sys.stdout)
    if note and args.format != "table":
        print(f"connect-plan: {note}", file=sys.stderr)
    if args.stats:
        _print_stats(stats)
    return EXIT_OK


#: how often the server reports progress while the CLI shows it (Spark's default: 2 s)
PROGRESS_INTERVAL = "500ms"
#: ... and with ``--stats``: a report is the only way the stages of a query become known, and
#: the server sends one only when something changed, so a short query gets a few at most
STATS_INTERVAL = "100ms"


@contextlib.contextmanager
def _progress(args: argparse.Namespace, client: Any) -> Iterator[ProgressLine | None]:
    """The live progress line on stderr, when wanted (see :func:`connect_plan.display.wanted`)."""
    from ..display import ProgressLine, wanted

    shown = wanted(args.progress)
    if shown or args.stats:
        with contextlib.suppress(ServerError):  # a server that does not know the setting still runs the query
            client.set_conf(
                {"spark.connect.progress.reportInterval": STATS_INTERVAL if args.stats else PROGRESS_INTERVAL}
            )
    if not shown:
        yield None
        return
    with ProgressLine(force=bool(args.progress)) as line:
        yield line


def _print_stats(stats: list[QueryStats]) -> None:
    """``--stats``: what the query cost, on stderr (stdout holds only the result)."""
    sys.stdout.flush()  # the result first, where both streams meet
    if not stats:
        print("connect-plan: no statistics were recorded", file=sys.stderr)
        return
    print(stats[-1].describe(), file=sys.stderr)


def _preview(
    client: Client, plan: ir.Plan, args: argparse.Namespace, line: ProgressLine | None, stats: list[QueryStats]
) -> str:
    """``run --max-rows/--max-bytes``: the bounded result written, and what was left out."""
    import pyarrow as pa

    # one row more than shown, so that a cut is known (and said), not guessed
    more = None if args.max_rows is None else args.max_rows + 1
    reader = client.stream(plan, max_rows=more, on_progress=line, on_stats=stats.append)
    preview = Preview(reader, args.max_rows, args.max_bytes)
    try:
        if args.format in ("parquet", "csv"):
            bounded = pa.RecordBatchReader.from_batches(reader.schema, iter(preview))
            write_stream(bounded, args.format, args.output, sys.stdout, before=line)
        else:
            table = pa.Table.from_batches(list(preview), reader.schema)
            if line is not None:
                line.close()
            footer = f"; {preview.note()}" if preview.note() else ""
            write_result(table, args.format, args.output, sys.stdout, footer=footer)
    finally:
        reader.close()  # a cut preview releases the rest of the execution
    return preview.note()


def cmd_explain(args: argparse.Namespace) -> int:
    from ..fixtures import uses_placeholders
    from ..translator import translate_ir

    plan, _, doc = checked(args)
    if args.format != "text":
        from ..formats import front_end_of

        return _draw(args, plan, front_end_of(doc).title)
    if args.output:
        raise CliError("--output needs a picture format: --format svg, png, dot or mermaid")
    configured = bool(args.remote or os.environ.get("SPARK_REMOTE"))
    if not (args.analyzed or configured or uses_placeholders(doc)):
        try:
            print(plan_text(translate_ir(plan).plan))
            return EXIT_OK
        except PlanError as exc:
            # a plan whose columns only the server knows (a file, a table): ask the running
            # local server, as run would; with none, say which flag gives one
            if set(exc.codes) != {"needs_schema"}:
                raise
            from ..server import LocalServer

            if LocalServer().info() is None:
                raise PlanError(
                    [dataclasses.replace(d, message=_server_hint(d.message)) for d in exc.details]
                ) from None
    from ..client import Client  # not before: the offline text needs no client (nor PySpark's import)

    with (
        Client(remote_url(args, start=args.analyzed or uses_placeholders(doc)), **client_options(args)) as client,
        ready(client, doc, plan, args.tmp_dir) as plan,
    ):
        print(plan_text(client.translate(plan)))
        if args.analyzed:
            print("== Spark ==")
            print(client.explain(plan, mode="extended"))
    return EXIT_OK


def _server_hint(message: str) -> str:
    """A ``needs_schema`` message with the command line's way to give a server."""
    head = message.split("; translate with a client", 1)[0]
    return (
        f"{head}; explain asks a server for them: pass --remote sc://HOST:PORT, set SPARK_REMOTE, "
        "or start the local one with `connect-plan server start` (or name every computed column)"
    )


def _draw(args: argparse.Namespace, plan: Any, title: str) -> int:
    """``explain --format svg|png|dot|mermaid``: the plan as a picture (with ``--analyzed``,
    Spark's plans too; a plan the server refuses is drawn with its failing step marked)."""
    from .. import draw

    if args.format == "png" and not args.output and sys.stdout.isatty():
        raise CliError("--format png writes binary data: give --output PATH or redirect stdout")
    if args.analyzed:
        from ..client import Client

        with Client(remote_url(args, start=True), **client_options(args)) as client:
            drawing = client.draw(plan, analyzed=True, title=title)
    else:
        drawing = draw(plan, title=title)
    data = drawing.render(args.format)
    if args.output:
        drawing.save(args.output, args.format)
    elif isinstance(data, bytes):
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    else:
        sys.stdout.write(data if data.endswith("\n") else data + "\n")
    if drawing.error is not None:
        print(f"connect-plan: server error: {drawing.error}", file=sys.stderr)
        return EXIT_SERVER
    return EXIT_OK


def cmd_check(args: argparse.Namespace) -> int:
    """Each FILE checked as ``check FILE`` alone would, in one process (a process per file
    pays an interpreter start and pyarrow's import each): one line per file, then a count."""
    from ..translator import translate_ir

    def check(path: str) -> None:
        plan, _, _ = checked(argparse.Namespace(**{**vars(args), "file": path}))
        translate_ir(plan, check_only=True)

    if len(args.file) == 1:
        check(args.file[0])
        print("ok")
        return EXIT_OK
    status = EXIT_OK
    ok = 0
    for path in args.file:
        try:
            check(path)
        except (KeyboardInterrupt, BrokenPipeError):
            raise
        except Exception as exc:
            first, message = failure(exc)
            print(f"connect-plan: {path}: {message}", file=sys.stderr, flush=True)
            status = status or first
        else:
            ok += 1
            print(f"{path}: ok", flush=True)
    print(f"{ok} of {len(args.file)} files ok")
    return status


def cmd_fixtures(args: argparse.Namespace) -> int:
    from ..client import Client
    from ..fixtures import discover, load_fixture, run_fixture

    policy_of(args)  # a malformed policy file fails before any server work
    paths = discover(args.directory)
    if not paths:
        raise CliError(f"no fixture files (*.json) under {args.directory}")
    failures = 0
    results = []
    with Client(remote_url(args, start=True), **client_options(args)) as client:
        for path in paths:
            try:
                doc = load_fixture(path)
            except PlanError as exc:
                from ..fixtures import FixtureResult

                result = FixtureResult(str(path), path.stem, False, f"malformed fixture: {exc}", 0.0)
            else:
                result = run_fixture(client, doc, str(path), tmp_dir=args.tmp_dir)
            results.append(result)
            failures += not result.ok
            if args.json:
                continue
            mark = "PASS" if result.ok else "FAIL"
            print(
                f"{mark}  {result.path}  ({result.seconds * 1000:.0f} ms)"
                + ("" if result.ok else f"\n      {result.message}")
            )
    if args.json:
        print(json.dumps([r.__dict__ for r in results], indent=1))
    else:
        print(f"\n{len(results) - failures} passed, {failures} failed, {len(results)} fixtures")
    return EXIT_FAILURES if failures else EXIT_OK


def cmd_ops(args: argparse.Namespace) -> int:
    from .. import supported_plan_operations

    print("\n".join(supported_plan_operations()))
    return EXIT_OK


def cmd_serve(args: argparse.Namespace) -> int:
    """``serve``: the Flight SQL server (connect_plan.flightsql), until Ctrl-C or SIGTERM."""
    from ..flightsql import serve
    from .exits import Terminated

    if args.renamed_flag:
        raise CliError(
            "--allow-insecure-tokens is now --allow-plaintext-bearer (let the Flight clients' bearer tokens travel "
            "without TLS); --allow-insecure-token is the Spark Connect side's, as for run"
        )
    if args.tokens and args.policy:
        raise CliError("--policy is the policy of a server without --tokens; with a tokens file each token has its own")
    options = client_options(args)
    options.pop("policy")
    server = serve(
        remote_url(args, start=True),
        listen=args.listen,
        tables=tables_of(args),
        tokens=args.tokens,
        policy=args.policy or "strict",
        tls_cert=args.tls_cert,
        tls_key=args.tls_key,
        allow_plaintext_bearer=args.allow_plaintext_bearer,
        batch_rows=_batch_rows(args.batch_rows),
        client_options=options,
    )
    try:
        print(f"serving {server.url}", flush=True)
        print(
            f"connect-plan: Arrow Flight SQL at {server.url} for {len(server.callers.names)} caller(s); "
            "Ctrl-C stops it",
            file=sys.stderr,
            flush=True,
        )
        server.wait()
    except (KeyboardInterrupt, Terminated):
        print("connect-plan: stopping the Flight SQL server", file=sys.stderr, flush=True)
    finally:
        server.stop()
    return EXIT_OK


def _batch_rows(n: int | None) -> int | None:
    """``serve --batch-rows``: unset, the server's default; 0, Spark's own setting (None); a
    negative count is a usage error."""
    if n is None:
        from ..flightsql import DEFAULT_BATCH_ROWS

        return DEFAULT_BATCH_ROWS
    if n < 0:
        raise CliError(f"--batch-rows is a number of rows (0: Spark's own setting), got {n}")
    return n or None


def cmd_server(args: argparse.Namespace) -> int:
    from ..server import LocalServer, describe

    server = LocalServer(args.state_dir)
    if args.action == "start":
        conf = dict(_kv(c) for c in args.conf or [])
        cluster = _at_least_one("--cluster", args.cluster) if args.cluster is not None else 0
        worker_cores = _at_least_one("--worker-cores", args.worker_cores)
        if cluster and args.master:
            raise CliError("give either --cluster N (start a local cluster) or --master URL (use one), not both")
        if args.port is not None and not 0 < args.port < 65536:
            raise CliError(f"--port must be between 1 and 65535, got {args.port}")
        if not args.timeout > 0:
            raise CliError(f"--timeout must be a positive number of seconds, got {args.timeout:g}")
        already = server.info()
        info = server.start(
            port=args.port,
            conf=conf,
            driver_memory=args.driver_memory,
            master=args.master,
            timeout=args.timeout,
            cluster=cluster,
            worker_cores=worker_cores,
            worker_memory=args.worker_memory,
        )
        verb = "already running" if already else "started"
        print(f"Spark Connect server {verb}: {info.url} (pid {info.pid}, log {info.log_path})")
        if info.master:
            workers = sum(c.role == "worker" for c in info.components)
            print(f"  on a local standalone cluster {info.master} with {workers} worker(s); master UI {info.master_ui}")
        return EXIT_OK
    if args.action == "stop":
        stopped = server.stop()
        print("stopped" if stopped else "no local server is running")
        return EXIT_OK
    running = server.info()
    if running is None:
        print("no local server is running")
        return EXIT_LOCAL
    print(json.dumps(describe(running), indent=1))
    return EXIT_OK


def _at_least_one(option: str, text: str) -> int:
    """A count option that must be 1 or more (a usage error, exit 4, otherwise)."""
    try:
        value = int(text)
    except ValueError:
        raise CliError(f"{option} needs a whole number of at least 1, got {text!r}") from None
    if value < 1:
        raise CliError(f"{option} needs a whole number of at least 1, got {value}")
    return value


def _kv(text: str) -> tuple[str, str]:
    if "=" not in text:
        raise CliError(f"--conf needs KEY=VALUE, got {text!r}")
    k, v = text.split("=", 1)
    return k.strip(), v.strip()
