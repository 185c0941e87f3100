"""``connect-plan`` — a thin command-line driver over the library.

Commands: ``run``, ``explain``, ``check``, ``fixtures``, ``ops``, ``server start|stop|status``.
Errors print as readable messages with their plan locations, never as tracebacks.
Exit codes: 0 ok, 1 fixture failures, 2 invalid plan, 3 server error, 4 local server or
usage problem (also an unexpected internal error, said as such), 130 interrupted.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import dataclasses
import json
import os
import signal
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TextIO

from .errors import ConnectPlanError, LocalServerError, PlanError, ResultContractError, ServerError
from .output import Preview, csv_ready, csv_schema, format_table, json_rows, parquet_ready, parquet_schema

if TYPE_CHECKING:
    import pyarrow as pa

    from . import ir
    from .client import Client
    from .display import ProgressLine
    from .policy import Policy
    from .telemetry import QueryStats


class CliError(ConnectPlanError):
    """A usage problem of the command line (unreadable file, bad option value)."""


EXIT_OK, EXIT_FAILURES, EXIT_PLAN, EXIT_SERVER, EXIT_LOCAL, EXIT_INTERRUPTED = 0, 1, 2, 3, 4, 130
#: Spark's result differs from what the (Substrait) plan declares: nothing was printed
EXIT_CONTRACT = 5
EXIT_TERMINATED = 128 + signal.SIGTERM


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where Ctrl-C would be: every path that releases and interrupts the
    running operation on the server for Ctrl-C does so for a ``kill`` too (Python's default
    action for SIGTERM ends the process at once and leaves the query running on the server)."""


def _on_sigterm(signum: int, frame: object) -> None:
    raise Terminated


def _read_document(path: str) -> Any:
    """A plan document or fixture (JSON), or a Substrait plan (binary protobuf, kept as bytes)."""
    from .formats.json_plan import load_json
    from .formats.substrait import is_substrait

    if path == "-":
        data = sys.stdin.buffer.read()
    else:
        try:
            data = Path(path).read_bytes()
        except OSError as exc:
            raise CliError(f"cannot read {path}: {exc.strerror}") from None
    return data if is_substrait(data) else load_json(data)


#: --table SOURCE: a path with one of these extensions is read as files of that format
TABLE_FILE_FORMATS = {
    ".parquet": "parquet",
    ".orc": "orc",
    ".csv": "csv",
    ".json": "json",
    ".jsonl": "json",
    ".avro": "avro",
    ".txt": "text",
}


def _table_arg(text: str) -> tuple[str, Any]:
    """``NAME=SOURCE``: a path with a known file extension (files of that format), else a table
    or view name of the server's catalog."""
    name, sep, src = text.partition("=")
    if not sep or not name.strip() or not src.strip():
        raise argparse.ArgumentTypeError(f"expected NAME=SOURCE, got {text!r}")
    fmt = TABLE_FILE_FORMATS.get(Path(src).suffix.lower())
    return name.strip(), ({"files": [src], "format": fmt} if fmt else {"table": src})


def _tables(args: argparse.Namespace) -> dict[str, Any] | None:
    return dict(args.table) if getattr(args, "table", None) else None


def _plan_only(doc: Any) -> Any:
    """A fixture file also carries 'expected' (and maybe 'setup'/'then'); the plan document
    is the rest: input, plan and the document extensions (with, conf, output)."""
    if isinstance(doc, dict) and "plan" in doc:
        from .fixtures import plan_document

        return plan_document(doc)
    return doc


#: what ``${tmp}``/``${run}`` stand for while a document is only checked (nothing runs)
_CHECK_VALUES = {"tmp": "/tmp/connect-plan-check", "run": "check"}


def _validated(doc: Any, tables: dict[str, Any] | None = None) -> ir.Plan:
    """The document's plan, after every problem of it (an unfilled placeholder, the plan,
    the ``setup`` documents run before it) is reported at once, before any server work.
    A Substrait plan (``tables``: its --table mappings) has no placeholders or setup."""
    from .fixtures import placeholder_problems, substitute
    from .formats import load_plan
    from .formats.substrait import is_substrait

    if is_substrait(doc):
        return load_plan(doc, tables=tables)
    problems = list(placeholder_problems(doc))
    filled = substitute(doc, _CHECK_VALUES)
    plan = None
    try:
        plan = load_plan(_plan_only(filled), tables=tables)
    except PlanError as exc:
        problems += exc.details
    setups = filled.get("setup") if isinstance(filled, dict) else None
    for i, setup in enumerate(setups if isinstance(setups, list) else []):
        try:
            load_plan(setup)
        except PlanError as exc:
            problems += [dataclasses.replace(d, loc=f"/setup/{i}{d.loc}") for d in exc.details]
    if problems or plan is None:
        raise PlanError(problems)
    return plan


@contextlib.contextmanager
def _ready(client: Client, doc: Any, plan: ir.Plan, tmp_dir: str | None) -> Iterator[ir.Plan]:
    """``plan`` ready to run: a document with ``${tmp}``/``${run}`` or a ``setup`` (an example
    that makes its own files and tables) runs its setup first and drops its ``cleanup`` after."""
    from .fixtures import staged, uses_placeholders
    from .formats import load_plan
    from .formats.substrait import is_substrait

    if is_substrait(doc) or not uses_placeholders(doc):
        yield plan
        return
    with staged(client, doc, tmp_dir) as (filled, values):
        if "${tmp}" in json.dumps(doc):
            kept = "kept" if tmp_dir else "removed afterwards; --tmp-dir DIR keeps it"
            print(f"connect-plan: ${{tmp}} is {values['tmp']} ({kept})", file=sys.stderr)
        yield load_plan(_plan_only(filled))


def _remote(args: argparse.Namespace, *, start: bool) -> str:
    """--remote, else SPARK_REMOTE, else the local server (started if ``start``)."""
    if getattr(args, "remote", None) or os.environ.get("SPARK_REMOTE"):
        from .client import resolve_remote

        return resolve_remote(getattr(args, "remote", None))  # also maps 'sail' to an in-process server
    from .server import LocalServer

    server = LocalServer()
    info = server.info()
    if info is None:
        if not start:
            raise LocalServerError("no server: pass --remote, set SPARK_REMOTE, or run `connect-plan server start`")
        print("connect-plan: starting a local Spark Connect server (about 15 s)...", file=sys.stderr)
        info = server.start()
        print(f"connect-plan: server ready at {info.url} (stop it with `connect-plan server stop`)", file=sys.stderr)
    return info.url


# ------------------------------------------------------------------ output


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


# ------------------------------------------------------------------ commands


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
        print(f"wrote {rows} rows to {output}", file=sys.stderr)
        return
    import pyarrow.csv as pcsv

    sink: Any = output if output else sys.stdout.buffer
    if not output:
        out.flush()
    with pcsv.CSVWriter(sink, csv_schema(reader.schema)) as writer:
        for batch in reader:
            writer.write_batch(csv_ready(batch))


def _policy(args: argparse.Namespace) -> Policy | None:
    """``--policy strict|trusted|FILE.json`` (None when not given: trusted)."""
    spec = getattr(args, "policy", None)
    if spec is None:
        return None
    from .policy import Policy

    if spec == "strict":
        return Policy.strict()
    if spec == "trusted":
        return Policy.trusted()
    return Policy.from_file(spec)


def _checked(args: argparse.Namespace) -> tuple[ir.Plan, Policy | None, Any]:
    """The FILE's plan, parsed and checked against ``--policy``, and the document it came
    from: an invalid or refused plan (an unfilled placeholder, a bad setup document too)
    fails here, before any server work."""
    policy = _policy(args)
    doc = _read_document(args.file)
    plan = _validated(doc, _tables(args))
    if policy is not None:
        policy.check(plan)
    return plan, policy, doc


def _client_options(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "timeout": getattr(args, "timeout", None),
        "allow_insecure_token": getattr(args, "allow_insecure_token", False),
        "compression": getattr(args, "compression", None) or "auto",
        "policy": _policy(args),
    }


def cmd_run(args: argparse.Namespace) -> int:
    from .client import Client

    plan, _, doc = _checked(args)  # invalid or refused plans fail before any server work
    if args.format == "parquet" and not args.output:
        raise CliError("--format parquet needs --output PATH")
    stats: list[QueryStats] = []
    note = ""
    with (
        Client(_remote(args, start=True), **_client_options(args)) as client,
        _ready(client, doc, plan, args.tmp_dir) as plan,
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


@contextlib.contextmanager
def _progress(args: argparse.Namespace, client: Any) -> Iterator[ProgressLine | None]:
    """The live progress line on stderr, when wanted (see :func:`connect_plan.display.wanted`)."""
    from .display import ProgressLine, wanted

    if not wanted(args.progress):
        yield None
        return
    with contextlib.suppress(ServerError):  # a server that does not know the setting still runs the query
        client.set_conf({"spark.connect.progress.reportInterval": PROGRESS_INTERVAL})
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
    from .fixtures import uses_placeholders
    from .translator import translate_ir

    plan, _, doc = _checked(args)
    if args.format != "text":
        return _draw(args, plan)
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
            from .server import LocalServer

            if LocalServer().info() is None:
                raise PlanError(
                    [dataclasses.replace(d, message=_server_hint(d.message)) for d in exc.details]
                ) from None
    from .client import Client  # not before: the offline text needs no client (nor PySpark's import)

    with (
        Client(_remote(args, start=args.analyzed or uses_placeholders(doc)), **_client_options(args)) as client,
        _ready(client, doc, plan, args.tmp_dir) as plan,
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


def _draw(args: argparse.Namespace, plan: Any) -> int:
    """``explain --format svg|png|dot|mermaid``: the plan as a picture (with ``--analyzed``,
    Spark's plans too; a plan the server refuses is drawn with its failing step marked)."""
    from . import draw

    if args.format == "png" and not args.output and sys.stdout.isatty():
        raise CliError("--format png writes binary data: give --output PATH or redirect stdout")
    if args.analyzed:
        from .client import Client

        with Client(_remote(args, start=True), **_client_options(args)) as client:
            drawing = client.draw(plan, analyzed=True)
    else:
        drawing = draw(plan)
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
    from .translator import translate_ir

    plan, _, _ = _checked(args)
    translate_ir(plan, check_only=True)
    print("ok")
    return EXIT_OK


def cmd_fixtures(args: argparse.Namespace) -> int:
    from .client import Client
    from .fixtures import discover, load_fixture, run_fixture

    _policy(args)  # a malformed policy file fails before any server work
    paths = discover(args.directory)
    if not paths:
        raise CliError(f"no fixture files (*.json) under {args.directory}")
    failures = 0
    results = []
    with Client(_remote(args, start=True), **_client_options(args)) as client:
        for path in paths:
            try:
                doc = load_fixture(path)
            except PlanError as exc:
                from .fixtures import FixtureResult

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
    from . import supported_plan_operations

    print("\n".join(supported_plan_operations()))
    return EXIT_OK


def cmd_server(args: argparse.Namespace) -> int:
    from .server import LocalServer, describe

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


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}")
    return value


def _kv(text: str) -> tuple[str, str]:
    if "=" not in text:
        raise CliError(f"--conf needs KEY=VALUE, got {text!r}")
    k, v = text.split("=", 1)
    return k.strip(), v.strip()


class _Parser(argparse.ArgumentParser):
    """argparse exits 2 on a usage error, which this command means for an invalid plan: a
    script checking the exit code must tell a bad command line (4) from a bad plan (2)."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(EXIT_LOCAL, f"{self.prog}: error: {message}\n")


def _log_to_stderr(verbosity: int) -> None:
    """``-v``/``-vv``: the ``connect_plan`` logger at INFO/DEBUG, on stderr."""
    if not verbosity:
        return
    import logging

    logger = logging.getLogger("connect_plan")
    if not any(getattr(h, "connect_plan_cli", False) for h in logger.handlers):
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("connect-plan %(levelname)s %(message)s"))
        handler.connect_plan_cli = True  # type: ignore[attr-defined]
        logger.addHandler(handler)
    logger.setLevel(logging.DEBUG if verbosity > 1 else logging.INFO)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="connect-plan",
        description="Run JSON logical plans on Apache Spark through Spark Connect (no local JVM needed).",
        epilog=f"exit codes: {EXIT_OK} ok, {EXIT_FAILURES} fixture failures, {EXIT_PLAN} invalid plan, {EXIT_SERVER} server error, "
        f"{EXIT_LOCAL} local or usage problem, {EXIT_CONTRACT} result differs from the plan's declared output, "
        f"{EXIT_INTERRUPTED} interrupted, {EXIT_TERMINATED} terminated",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    def policy_arg(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--policy",
            metavar="strict|trusted|FILE.json",
            help="refuse, before anything is sent, what the policy does not allow: 'strict' for plans from "
            "people you do not trust (inline data only, no tables, files, SQL, writes, conf or UDFs; bounded "
            "sizes and results), or a JSON policy file (docs/security.md); default trusted",
        )

    def table_arg(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--table",
            action="append",
            type=_table_arg,
            metavar="NAME=SOURCE",
            help="a Substrait plan's table NAME read from SOURCE: a path ending in "
            + "/".join(TABLE_FILE_FORMATS)
            + " (files of that format), else a table or view of the server's catalog (repeatable; "
            "without it a name is the catalog's)",
        )

    def remote_arg(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--remote",
            help="Spark Connect URL (sc://host:port/;token=...) or 'sail' for an in-process Sail server; default: $SPARK_REMOTE, then the local server",
        )
        p.add_argument(
            "--timeout",
            type=float,
            metavar="SECONDS",
            help="bound each server operation; when it expires the query is interrupted on the server",
        )
        p.add_argument(
            "--allow-insecure-token",
            action="store_true",
            help="allow sending the URL's token without TLS (use_ssl=false); prefer TLS, and prefer "
            "$SPARK_CONNECT_AUTHENTICATE_TOKEN to a token on the command line",
        )
        p.add_argument(
            "-v",
            "--verbose",
            action="count",
            default=0,
            help="log to stderr: -v what connect_plan does (INFO), -vv every RPC with its duration and operation id "
            "(DEBUG; never a token)",
        )
        p.add_argument(
            "--compression",
            choices=("auto", "zstd", "none"),
            default="auto",
            help="ask the server (Spark 4.1+) for zstd-compressed results; auto (default): only when "
            "the server is not on this machine",
        )

    def tmp_dir_arg(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--tmp-dir",
            metavar="DIR",
            help="a document with ${tmp} or a 'setup' (examples/orders_pipeline.json) runs its setup first "
            "with ${tmp} a fresh directory, removed afterwards; with --tmp-dir a fresh path under DIR, "
            "kept (give one the server sees when it is remote)",
        )

    p = sub.add_parser("run", help="run a plan document and print its result")
    p.add_argument(
        "file", help="plan document (JSON: {input, plan}) or a Substrait plan (.pb binary or JSON); '-' reads stdin"
    )
    table_arg(p)
    p.add_argument(
        "--format",
        choices=("table", "json", "csv", "parquet"),
        default="table",
        help="csv and parquet are written batch by batch as the result streams in",
    )
    p.add_argument("--output", "-o", help="write the result to this file")
    p.add_argument("--max-rows", type=_count, help="preview: at most this many rows (a limit on top of the plan)")
    p.add_argument("--max-bytes", type=_count, help="preview: stop after this many bytes of Arrow data")
    tmp_dir_arg(p)
    p.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="a live progress line on stderr (stages, tasks, input read, rows, elapsed) for queries and writes "
        "running over a second; default: when stderr is a terminal",
    )
    p.add_argument(
        "--stats",
        action="store_true",
        help="print what the query (or write) cost on stderr: time to first batch, total time, rows, batches, Arrow bytes, "
        "Spark's stages and tasks, the server's metrics per operator, the operation id",
    )
    policy_arg(p)
    remote_arg(p)
    p.set_defaults(func=cmd_run)

    p = sub.add_parser(
        "explain", help="print the Spark Connect plan (protobuf text), or draw the plan (svg, png, dot, mermaid)"
    )
    p.add_argument("file")
    table_arg(p)
    p.add_argument(
        "--analyzed",
        action="store_true",
        help="also print Spark's parsed/analyzed/optimized/physical plans (pictures: the optimized and physical "
        "plans as two more trees; a step the server refuses is marked)",
    )
    tmp_dir_arg(p)
    p.add_argument(
        "--format",
        choices=("text", "svg", "png", "dot", "mermaid"),
        default="text",
        help="text: protobuf text; svg/png: a picture (needs Graphviz: apt-get install graphviz, and "
        "pip install 'connect-plan[draw]'); dot/mermaid: the picture's source text (needs nothing)",
    )
    p.add_argument("--output", "-o", help="write the picture to this file (default: stdout)")
    policy_arg(p)
    remote_arg(p)
    p.set_defaults(func=cmd_explain)

    p = sub.add_parser("check", help="validate a plan document or a Substrait plan without running it")
    p.add_argument("file")
    table_arg(p)
    policy_arg(p)
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("fixtures", help="run every fixture under DIR and compare with 'expected'")
    p.add_argument("directory")
    p.add_argument("--json", action="store_true", help="print results as JSON")
    p.add_argument(
        "--tmp-dir",
        metavar="DIR",
        help="where ${tmp} of fixtures that write goes: a directory the server's "
        "driver and executors see (a shared volume, a bucket); default a fresh local directory, "
        "which only a server on this machine sees",
    )
    policy_arg(p)
    remote_arg(p)
    p.set_defaults(func=cmd_fixtures)

    p = sub.add_parser("ops", help="list the supported plan ops")
    p.set_defaults(func=cmd_ops)

    p = sub.add_parser("server", help="manage a local Spark Connect server (needs Java 17+ and pyspark)")
    p.add_argument("action", choices=("start", "stop", "status"))
    p.add_argument("--port", type=int, help="gRPC port (default: a free one)")
    p.add_argument("--driver-memory", help="driver JVM heap, e.g. 4g (default: Spark's 1g)")
    p.add_argument("--master", help="Spark master URL, e.g. spark://host:7077 (default: local[*])")
    p.add_argument(
        "--cluster",
        metavar="N",
        help="start a local standalone cluster (a master and N ≥ 1 workers) and attach the server to it",
    )
    p.add_argument("--worker-cores", default="1", metavar="C", help="cores each --cluster worker offers (default 1)")
    p.add_argument("--worker-memory", default="1g", help="memory each --cluster worker offers (default 1g)")
    p.add_argument("--conf", action="append", metavar="KEY=VALUE", help="extra Spark configuration (repeatable)")
    p.add_argument("--timeout", type=float, default=180.0, help="seconds to wait for readiness")
    p.add_argument("--state-dir", help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_server)
    return parser


def entry() -> NoReturn:
    """The ``connect-plan`` process (the console script, ``python -m connect_plan``):
    :func:`main`, then the process ends as soon as everything it did is done.

    Python's own teardown of the interpreter (clearing ~400 modules, the last collections,
    gRPC's and Arrow's native shutdown) took ~50 ms of a ~0.45 s ``connect-plan run``
    (measured 2026-11-28) and changes nothing outside the process. So the last exit handler
    (registered first, they run last-in first-out) flushes the output and logging and ends
    the process with :func:`os._exit`, after every other handler ran and every non-daemon
    thread was joined, as at any exit. An error while flushing (a closed pipe) leaves the
    ending to Python, which reports it as usual."""
    atexit.register(_end_now)
    global _PROCESS
    _PROCESS = True
    code = main()
    _EXIT_CODE.append(code)
    sys.exit(code)


#: the exit code :func:`entry` ends the process with (empty while main() runs)
_EXIT_CODE: list[int] = []
#: True when this process is the ``connect-plan`` command (:func:`entry`), not a caller of main()
_PROCESS = False
#: the commands that load plans and read results (pyarrow, NumPy-free in the command's process)
_ARROW_COMMANDS = frozenset({"run", "check", "explain", "fixtures"})


def _lean_pyarrow() -> None:
    """Load pyarrow as lean as this command can use it (measured 2026-11-28, in a ~0.3 s,
    ~80 MiB ``connect-plan run``):

    * as if NumPy (and so pandas) were not installed, for the whole process. pyarrow has
      supported running without NumPy since 16.0, but imports it whenever it can, and some of
      its conversions then probe for pandas (a zoned timestamp's or a binary value's
      ``to_pylist``, compute calls on Python values): ~60 ms and ~17 MiB for NumPy, ~0.3 s and
      ~40 MiB more for pandas, for a command that never hands Arrow data to either;
    * without cloudpickle, which pyarrow imports, when installed, as its pickler for extension
      types (~15 ms): the command pickles no Arrow object. Only while pyarrow loads;
    * with the C library's allocator rather than pyarrow's default (mimalloc), whose arenas are
      ~4 MiB of the process; the same speed writing 2e6 rows to parquet or CSV here (1.4-1.9 s
      either way). Arrow reads ``ARROW_DEFAULT_MEMORY_POOL`` once, when it makes its pool: set
      for that moment only, so that no child process inherits it (a local server's Python
      workers); set by the user, it still chooses.

    Not when PySpark's own client is the transport (``CONNECT_PLAN_TRANSPORT=pyspark``), which
    imports pandas; nor once pyarrow or NumPy is loaded."""
    if "pyarrow" in sys.modules or "numpy" in sys.modules:
        return
    if os.environ.get("CONNECT_PLAN_TRANSPORT", "").strip().lower() == "pyspark":
        return
    sys.modules["numpy"] = None  # type: ignore[assignment]  # every `import numpy` fails: ImportError
    hide_pickler = "cloudpickle" not in sys.modules
    if hide_pickler:
        sys.modules["cloudpickle"] = None  # type: ignore[assignment]
    pool = "ARROW_DEFAULT_MEMORY_POOL" not in os.environ
    if pool:
        os.environ["ARROW_DEFAULT_MEMORY_POOL"] = "system"
    try:
        import pyarrow as pa

        pa.default_memory_pool()
    except ImportError:  # no pyarrow: the command reports it where it needs it
        pass
    finally:
        if pool:
            del os.environ["ARROW_DEFAULT_MEMORY_POOL"]
        if hide_pickler:
            del sys.modules["cloudpickle"]


def _end_now() -> None:
    if not _EXIT_CODE:  # main() did not return (an error Python will report): its usual ending
        return
    import logging

    logging.shutdown()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        return
    os._exit(_EXIT_CODE[-1])


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if _PROCESS and args.command in _ARROW_COMMANDS:
        _lean_pyarrow()
    _log_to_stderr(getattr(args, "verbose", 0))
    with _sigterm_as_interrupt():
        return _run(args)


@contextlib.contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    try:
        previous = signal.signal(signal.SIGTERM, _on_sigterm)
    except ValueError:  # not the main thread (main() called from a thread): leave signals alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _run(args: argparse.Namespace) -> int:
    try:
        return int(args.func(args))
    except PlanError as exc:
        print(f"connect-plan: {exc}", file=sys.stderr)
        return EXIT_PLAN
    except ServerError as exc:
        print(f"connect-plan: server error: {exc}", file=sys.stderr)
        return EXIT_SERVER
    except ResultContractError as exc:
        print(f"connect-plan: {exc}", file=sys.stderr)
        return EXIT_CONTRACT
    except ConnectPlanError as exc:
        print(f"connect-plan: {exc}", file=sys.stderr)
        return EXIT_LOCAL
    except Terminated:
        print("connect-plan: terminated (SIGTERM)", file=sys.stderr)
        return EXIT_TERMINATED
    except KeyboardInterrupt:
        print("connect-plan: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return EXIT_OK
    except OSError as exc:  # the output file or its directory, a full disk
        where = f": {exc.filename}" if getattr(exc, "filename", None) else ""
        print(f"connect-plan: {exc.strerror or exc}{where}", file=sys.stderr)
        return EXIT_LOCAL
    except Exception as exc:  # a bug: said as one, never a traceback (unless asked for)
        if os.environ.get("CONNECT_PLAN_TRACEBACK"):
            raise
        print(
            f"connect-plan: internal error: {type(exc).__name__}: {exc}\n"
            "  this is a bug in connect-plan; please report it with the command and plan that caused it "
            "(CONNECT_PLAN_TRACEBACK=1 prints the traceback)",
            file=sys.stderr,
        )
        return EXIT_LOCAL


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
