"""The command's exit codes and its own errors."""

from __future__ import annotations

import os
import signal

from ..errors import ConnectPlanError, PlanError, ResultContractError, ServerError

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
    "failure",
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


def failure(exc: Exception) -> tuple[int, str]:
    """The exit status of an error that ends a command, and what to say after ``connect-plan: ``
    (never a traceback: an unexpected error is said to be a bug, unless ``CONNECT_PLAN_TRACEBACK``
    asks for it, when it is raised again)."""
    if isinstance(exc, PlanError):
        return EXIT_PLAN, str(exc)
    if isinstance(exc, ServerError):
        return EXIT_SERVER, f"server error: {exc}"
    if isinstance(exc, ResultContractError):
        return EXIT_CONTRACT, str(exc)
    if isinstance(exc, ConnectPlanError):
        return EXIT_LOCAL, str(exc)
    if isinstance(exc, OSError):  # the output file or its directory, a full disk
        where = f": {exc.filename}" if getattr(exc, "filename", None) else ""
        return EXIT_LOCAL, f"{exc.strerror or exc}{where}"
    if os.environ.get("CONNECT_PLAN_TRACEBACK"):
        raise exc
    return EXIT_LOCAL, (
        f"internal error: {type(exc).__name__}: {exc}\n"
        "  this is a bug in connect-plan; please report it with the command and plan that caused it "
        "(CONNECT_PLAN_TRACEBACK=1 prints the traceback)"
    )
