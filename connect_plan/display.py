"""A live progress line for queries, drawn by ``rich`` (a terminal, or a Jupyter notebook).

:class:`ProgressLine` is an ``on_progress`` callback (:mod:`connect_plan.telemetry`) and a
context manager: the line appears once the query has run for ``delay`` seconds (quick
queries print nothing), shows the stages and tasks done of all known, the input read,
the rows received and the elapsed time (rich refreshes it several times a second, so the
clock moves between the server's reports), and is cleared when the block ends::

    with ProgressLine() as line:
        table = client.execute(plan, on_progress=line)

It writes to standard error only, so a result written to standard output stays clean.
``connect-plan run`` uses it when standard error is a terminal (``--progress`` forces it,
``--no-progress`` turns it off).
"""

from __future__ import annotations

import sys
import threading
from types import TracebackType
from typing import IO, Any

from .telemetry import Progress, human_bytes

__all__ = ["DEFAULT_DELAY", "ProgressLine"]

#: seconds a query runs before its progress line appears
DEFAULT_DELAY = 1.0


class ProgressLine:
    """A transient rich progress line fed by :class:`~connect_plan.telemetry.Progress` records."""

    def __init__(self, *, file: IO[str] | None = None, force: bool = False, delay: float = DEFAULT_DELAY) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, SpinnerColumn, TextColumn, TimeElapsedColumn
        from rich.progress import Progress as RichProgress

        # a Console on stderr: in a notebook rich renders into the cell's output instead
        self.console = Console(file=file or sys.stderr, force_terminal=True if force else None)
        self._bar = RichProgress(
            SpinnerColumn(),
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            TextColumn("{task.fields[detail]}"),
            TimeElapsedColumn(),
            console=self.console,
            transient=True,  # cleared when it stops
            refresh_per_second=8,
        )
        self._task = self._bar.add_task("query", total=None, detail="waiting for the server", start=True)
        self._delay = delay
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None
        self.shown = False
        self.closed = False
        self.updates = 0

    def __enter__(self) -> ProgressLine:
        self._timer = threading.Timer(self._delay, self._show)
        self._timer.daemon = True
        self._timer.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def _show(self) -> None:
        with self._lock:
            if self.closed or self.shown:
                return
            self.shown = True
            self._bar.start()

    def close(self) -> None:
        """Stop and clear the line (nothing was printed if it never appeared)."""
        with self._lock:
            if self.closed:
                return
            self.closed = True
            if self._timer is not None:
                self._timer.cancel()
            if self.shown:
                self._bar.stop()

    def __call__(self, p: Progress) -> None:
        self.updates += 1
        self._bar.update(
            self._task,
            total=p.tasks or None,
            completed=p.tasks_done,
            description=describe_stage(p),
            detail=detail(p),
        )


def describe_stage(p: Progress) -> str:
    if p.done:
        return "done"
    if not p.stages:
        return "starting"
    return "running"


def detail(p: Progress) -> str:
    """``stages 1/3  tasks 11/17 (2 running)  read 1.2 MiB  rows 97``"""
    parts = [f"stages {p.stages_done}/{p.stages}", f"tasks {p.tasks_done}/{p.tasks}"]
    if p.running_tasks:
        parts[-1] += f" ({p.running_tasks} running)"
    parts.append(f"read {human_bytes(p.bytes_read)}")
    parts.append(f"rows {p.rows:,}")
    return "  ".join(parts)


def wanted(choice: bool | None, stream: Any = None) -> bool:
    """``--progress`` (True), ``--no-progress`` (False), or when standard error is a terminal."""
    if choice is not None:
        return choice
    stream = stream if stream is not None else sys.stderr
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())
