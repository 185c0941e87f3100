"""``connect-plan`` — a thin command-line driver over the library.

Commands: ``run``, ``explain``, ``check``, ``fixtures``, ``ops``, ``server start|stop|status``.
Errors print as readable messages with their plan locations, never as tracebacks.
Exit codes: 0 ok, 1 fixture failures, 2 invalid plan, 3 server error, 4 local server or
usage problem (also an unexpected internal error, said as such), 5 a result that differs from
what the plan declares, 130 interrupted.

Modules, in import order:

``exits``      the exit codes and the command's own errors
``documents``  the FILE read and checked before any server work, its setup staged around a run
``commands``   each command, and how results are written
``args``       the command line's grammar (argparse)
``process``    :func:`entry`/:func:`main`: errors as exit codes, signals, the process's tricks
"""

from __future__ import annotations

from ..output import format_table
from .args import build_parser
from .commands import plan_text, write_result, write_stream
from .exits import (
    EXIT_CONTRACT,
    EXIT_FAILURES,
    EXIT_INTERRUPTED,
    EXIT_LOCAL,
    EXIT_OK,
    EXIT_PLAN,
    EXIT_SERVER,
    EXIT_TERMINATED,
    CliError,
    Terminated,
)
from .process import entry, main

__all__ = [
    "EXIT_CONTRACT",
    "EXIT_FAILURES",
    "EXIT_INTERRUPTED",
    "EXIT_LOCAL",
    "EXIT_OK",
    "EXIT_PLAN",
    "EXIT_SERVER",
    "EXIT_TERMINATED",
    "CliError",
    "Terminated",
    "build_parser",
    "entry",
    "format_table",
    "main",
    "plan_text",
    "write_result",
    "write_stream",
]
