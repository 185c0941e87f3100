"""Operation deadlines: one absolute deadline per thread, which every RPC started in it obeys.

``Client`` verbs open one with :func:`deadline` (``timeout=``); a transport caps the
timeout of each RPC it starts in that thread to :func:`remaining` and refuses to start one
once it has passed (:func:`timeout_error`); clean-up calls sent after it passed (release,
Interrupt) run under a short :func:`grace` of their own. Plain Python, no gRPC: any
transport (:mod:`connect_plan.transport`) reads the same thread-local deadline.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator

from .errors import QueryTimeoutError

__all__ = ["deadline", "grace", "remaining", "timeout_error"]

_local = threading.local()


def remaining() -> float | None:
    """Seconds left of this thread's operation deadline (None: no deadline)."""
    at = getattr(_local, "at", None)
    return None if at is None else at - time.monotonic()


@contextlib.contextmanager
def deadline(seconds: float | None = None, *, at: float | None = None) -> Iterator[float | None]:
    """Bound every RPC started in this thread inside the block by ``seconds`` from now (or
    the absolute ``time.monotonic()`` value ``at``); nested deadlines keep the earlier one."""
    if seconds is None and at is None:
        yield getattr(_local, "at", None)
        return
    if at is None:
        assert seconds is not None
        at = time.monotonic() + seconds
    outer, outer_timeout = getattr(_local, "at", None), getattr(_local, "timeout", None)
    if outer is None or at < outer:
        _local.at = at
        _local.timeout = seconds if seconds is not None else getattr(_local, "timeout", None)
    try:
        yield _local.at
    finally:
        _local.at, _local.timeout = outer, outer_timeout


@contextlib.contextmanager
def grace(seconds: float) -> Iterator[None]:
    """A fresh short deadline for clean-up calls (Interrupt, release) made after the
    operation's own deadline has passed."""
    outer, outer_timeout = getattr(_local, "at", None), getattr(_local, "timeout", None)
    _local.at, _local.timeout = time.monotonic() + seconds, seconds
    try:
        yield
    finally:
        _local.at, _local.timeout = outer, outer_timeout


def timeout_error(what: str = "the operation") -> QueryTimeoutError:
    seconds = getattr(_local, "timeout", None)
    limit = f"its timeout of {seconds:g} s" if seconds is not None else "its deadline"
    return QueryTimeoutError(f"{what} ran past {limit}", grpc_status="DEADLINE_EXCEEDED")
