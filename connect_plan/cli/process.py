"""The ``connect-plan`` process: :func:`entry` and :func:`main`, how errors become exit codes
(never a traceback), SIGTERM as Ctrl-C, the log on stderr, and the process tricks of the
command's own process (pyarrow loaded without NumPy, the interpreter's teardown skipped),
each measured and said where it is done."""

from __future__ import annotations

import argparse
import atexit
import contextlib
import os
import signal
import sys
from collections.abc import Iterator, Sequence
from typing import NoReturn

from .args import build_parser
from .exits import EXIT_INTERRUPTED, EXIT_OK, EXIT_TERMINATED, Terminated, failure

__all__ = ["entry", "main"]


def _on_sigterm(signum: int, frame: object) -> None:
    raise Terminated


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

    Not once pyarrow or NumPy is loaded."""
    if "pyarrow" in sys.modules or "numpy" in sys.modules:
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
    except Terminated:
        print("connect-plan: terminated (SIGTERM)", file=sys.stderr)
        return EXIT_TERMINATED
    except KeyboardInterrupt:
        print("connect-plan: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return EXIT_OK
    except Exception as exc:  # each said as its exit status says (exits.failure), never a traceback
        status, message = failure(exc)
        print(f"connect-plan: {message}", file=sys.stderr)
        return status


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
