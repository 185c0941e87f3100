"""The command line's grammar: argparse, with exit code 4 (not 2) for a usage error."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, NoReturn

from .commands import cmd_check, cmd_explain, cmd_fixtures, cmd_ops, cmd_run, cmd_serve, cmd_server
from .exits import (
    EXIT_CONTRACT,
    EXIT_FAILURES,
    EXIT_INTERRUPTED,
    EXIT_LOCAL,
    EXIT_OK,
    EXIT_PLAN,
    EXIT_SERVER,
    EXIT_TERMINATED,
)

__all__ = ["TABLE_FILE_FORMATS", "build_parser", "table_arg"]


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


def table_arg(text: str) -> tuple[str, Any]:
    """``NAME=SOURCE``: a path with a known file extension (files of that format), else a table
    or view name of the server's catalog."""
    name, sep, src = text.partition("=")
    if not sep or not name.strip() or not src.strip():
        raise argparse.ArgumentTypeError(f"expected NAME=SOURCE, got {text!r}")
    fmt = TABLE_FILE_FORMATS.get(Path(src).suffix.lower())
    return name.strip(), ({"files": [src], "format": fmt} if fmt else {"table": src})


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}")
    return value


class _Parser(argparse.ArgumentParser):
    """argparse exits 2 on a usage error, which this command means for an invalid plan: a
    script checking the exit code must tell a bad command line (4) from a bad plan (2)."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(EXIT_LOCAL, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="connect-plan",
        description="Run JSON logical plans and Substrait plans on Apache Spark through Spark Connect "
        "(no local JVM needed).",
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

    def table_option(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--table",
            action="append",
            type=table_arg,
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
    table_option(p)
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
    table_option(p)
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
        help="text: protobuf text; svg/png: a picture (drawn by graphviz-pure, installed with connect-plan); "
        "dot/mermaid: the picture's source text",
    )
    p.add_argument("--output", "-o", help="write the picture to this file (default: stdout)")
    policy_arg(p)
    remote_arg(p)
    p.set_defaults(func=cmd_explain)

    p = sub.add_parser(
        "check",
        help="validate plan documents or Substrait plans without running them",
        description="Validate each FILE without running it. One FILE: 'ok', or its errors and exit status. "
        "Several: a line 'FILE: ok' or 'connect-plan: FILE: <errors>' each, then how many are ok; "
        "the exit status is the first failing file's (2: an invalid plan), else 0.",
    )
    p.add_argument("file", nargs="+")
    table_option(p)
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

    p = sub.add_parser(
        "serve",
        help="an Arrow Flight SQL server for ADBC/JDBC clients: Substrait, JSON plans and SQL in, Arrow out (docs/serve.md)",
    )
    p.add_argument(
        "--listen",
        default="grpc://127.0.0.1:32010",
        metavar="grpc://HOST:PORT",
        help="where to listen: grpc://HOST:PORT, or grpc+tls://HOST:PORT with --tls-cert/--tls-key (port 0: any free "
        "one; the URL is printed); default grpc://127.0.0.1:32010",
    )
    p.add_argument("--tls-cert", metavar="PEM", help="the server's certificate chain (grpc+tls://)")
    p.add_argument("--tls-key", metavar="PEM", help="the server's private key (grpc+tls://)")
    p.add_argument(
        "--tokens",
        metavar="FILE",
        help='bearer tokens: JSON {"tokens": {"<token>": {"policy": "strict"|"trusted"|"<policy file>", "name": '
        '"<caller>"}}}; each token is a caller with its policy and its own Spark session. Without it every call is '
        "one anonymous caller's, under --policy",
    )
    p.add_argument(
        "--allow-plaintext-bearer",
        action="store_true",
        help="let the Flight clients' bearer tokens (--tokens) travel without TLS to a --listen address that is not "
        "loopback (--allow-insecure-token is the Spark Connect side's, as for run)",
    )
    # the flag's name before it was told apart from the Spark side's --allow-insecure-token: an error naming the new one
    p.add_argument("--allow-insecure-tokens", dest="renamed_flag", action="store_true", help=argparse.SUPPRESS)
    table_option(p)
    p.add_argument(
        "--policy",
        metavar="strict|trusted|FILE.json",
        help="the policy of every call when there is no --tokens file (default strict: no tables, files, SQL, "
        "writes, conf or UDFs; docs/security.md)",
    )
    p.add_argument(
        "--batch-rows",
        type=int,
        metavar="N",
        help="rows per Arrow batch Spark sends each caller (spark.sql.execution.arrow.maxRecordsPerBatch, set on "
        "each caller's Spark session before its first statement; Spark's own is 10,000); 0: Spark's setting. "
        "Default 50,000",
    )
    remote_arg(p)
    p.set_defaults(func=cmd_serve)

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
