"""The command's exit codes and its own errors."""

from __future__ import annotations

import signal

from ..errors import ConnectPlanError

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
]


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
