"""The progress line's text and when it is shown (its life on a real terminal is
tests/integration/test_cli_progress.py)."""

from __future__ import annotations

import io
import time

from connect_plan.display import ProgressLine, detail, wanted
from connect_plan.telemetry import Progress


def record(**kw: object) -> Progress:
    base: dict[str, object] = dict(
        operation_id="op",
        elapsed=1.5,
        stages=3,
        stages_done=1,
        tasks=17,
        tasks_done=11,
        running_tasks=2,
        bytes_read=3 * 1024 * 1024,
        rows=1234,
        batches=1,
        arrow_bytes=10,
    )
    base.update(kw)
    return Progress(**base)  # type: ignore[arg-type]


def test_the_line_says_stages_tasks_input_and_rows() -> None:
    assert detail(record()) == "stages 1/3  tasks 11/17 (2 running)  read 3.0 MiB  rows 1,234"
    assert detail(record(running_tasks=0, bytes_read=0, rows=0)) == "stages 1/3  tasks 11/17  read 0 B  rows 0"


def test_shown_only_after_the_delay_and_cleared() -> None:
    out = io.StringIO()
    with ProgressLine(file=out, force=True, delay=0.05) as line:
        line(record())
        time.sleep(0.5)
        assert line.shown and "tasks 11/17" in out.getvalue()
    assert line.closed
    quick = io.StringIO()
    with ProgressLine(file=quick, force=True, delay=5) as line:
        line(record())
    assert not line.shown and quick.getvalue() == ""  # a quick query prints nothing


def test_wanted_follows_the_flag_else_the_terminal() -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    assert wanted(True, io.StringIO()) and not wanted(False, Tty())
    assert wanted(None, Tty()) and not wanted(None, io.StringIO())
