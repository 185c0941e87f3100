"""Retries of failed calls: :class:`Backoff` (PySpark 4.3's ``DefaultPolicy``) and :func:`retrying`.

Retried: UNAVAILABLE, INTERNAL saying ``INVALID_CURSOR.DISCONNECTED``, and any error
carrying the server's ``RetryInfo``; connect_plan's two rules on top of PySpark's: a
connection refused by a server this client has never reached is not retried (a server that
is not running is reported at once: :func:`never_connected`), and no backoff between
retries runs past the operation's deadline (:mod:`connect_plan.deadlines`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TypeVar

from .call_failures import UNREACHABLE
from .deadlines import remaining

__all__ = ["RETRY_AGAIN_SECONDS", "Backoff", "RetryAgain", "never_connected", "retrying"]

log = logging.getLogger("connect_plan")

T = TypeVar("T")


_UNREACHABLE = ("failed to connect to all addresses", "connection refused", "name resolution", "dns resolution")


def never_connected(e: BaseException) -> bool:
    """True for gRPC's "no connection could be made" failures (refused, unresolvable)."""
    import grpc

    if not isinstance(e, grpc.RpcError) or e.code() != grpc.StatusCode.UNAVAILABLE:
        return False
    details = (e.details() if hasattr(e, "details") else str(e)) or ""
    return any(s in details.lower() for s in UNREACHABLE)


class RetryAgain(Exception):
    """Raised inside :func:`retrying` to retry at once (a stream to reattach, an execution to
    start again), bounded by :data:`RETRY_AGAIN_SECONDS` in all (PySpark's ``RetryException``)."""


#: how long :class:`RetryAgain` may be retried in all (PySpark: one hour)
RETRY_AGAIN_SECONDS = 60 * 60.0


class Backoff:
    """PySpark 4.3's ``DefaultPolicy`` for the transport, with connect_plan's two rules
    (see module doc: a refused connection to a server never reached is final; no wait runs
    past the operation's deadline). Retried: UNAVAILABLE, INTERNAL saying
    ``INVALID_CURSOR.DISCONNECTED``, and any error carrying the server's ``RetryInfo``,
    whose delay (up to 10 min) is waited at least. Waits grow from ``initial_backoff`` ms by
    ``backoff_multiplier`` up to ``max_backoff``, with up to ``jitter`` ms added to waits of
    ``min_jitter_threshold`` ms or more; at most ``max_retries`` retries.

    Hand-written: PySpark's ``retries`` module cannot be imported without PySpark's package
    (and pandas with it); the rules and defaults are PySpark's, and tests/unit/test_channel_url.py
    compares both on the same errors."""

    def __init__(
        self,
        reached: Callable[[], bool],
        *,
        max_retries: int | None = 15,
        initial_backoff: int = 50,
        max_backoff: int | None = 60000,
        backoff_multiplier: float = 4.0,
        jitter: int = 500,
        min_jitter_threshold: int = 2000,
        recognize_server_retry_delay: bool = True,
        max_server_retry_delay: int | None = 10 * 60 * 1000,
    ) -> None:
        self.reached = reached
        self.max_retries = max_retries
        self.initial_backoff = initial_backoff
        self.max_backoff = max_backoff
        self.backoff_multiplier = backoff_multiplier
        self.jitter = jitter
        self.min_jitter_threshold = min_jitter_threshold
        self.recognize_server_retry_delay = recognize_server_retry_delay
        self.max_server_retry_delay = max_server_retry_delay

    def can_retry(self, e: BaseException) -> bool:
        import grpc

        if not isinstance(e, grpc.RpcError) or not hasattr(e, "code"):
            return False
        code = e.code()
        if code == grpc.StatusCode.INTERNAL and "INVALID_CURSOR.DISCONNECTED" in str(e):
            retryable = True
        elif code == grpc.StatusCode.UNAVAILABLE:
            retryable = True
        else:
            from .server_errors import retry_delay

            retryable = retry_delay(e) is not None
        return retryable and (self.reached() or not never_connected(e))

    def state(self) -> Callable[[BaseException], float | None]:
        """A new retry state: called with each error, the seconds to wait before the next
        attempt, or None when no retry is left."""
        from .server_errors import retry_delay

        attempt = 0
        next_wait = float(self.initial_backoff)

        def wait_for(e: BaseException) -> float | None:
            nonlocal attempt, next_wait
            if self.max_retries is not None and attempt >= self.max_retries:
                return None
            attempt += 1
            wait = next_wait
            if self.max_backoff is not None:
                next_wait = min(float(self.max_backoff), wait * self.backoff_multiplier)
            if self.recognize_server_retry_delay:
                hint = retry_delay(e)
                if hint is not None:
                    hint_ms = round(hint * 1000)
                    if self.max_server_retry_delay is not None:
                        hint_ms = min(hint_ms, self.max_server_retry_delay)
                    wait = max(wait, hint_ms)
            if wait >= self.min_jitter_threshold:
                import random  # only here: every call's retry state is made before its first attempt

                wait += random.uniform(0, self.jitter)
            ms = int(wait)
            left = remaining()
            if left is not None:
                if left <= 0:
                    return None  # no retry after the deadline: the last error stands
                ms = min(ms, int(left * 1000) + 1)
            return ms / 1000

        return wait_for


def retrying(policy: Backoff, call: Callable[[], T]) -> T:
    """``call()`` retried as ``policy`` allows; the last error is raised when it does not."""
    wait_for = policy.state()
    again_since: float | None = None
    while True:
        try:
            return call()
        except RetryAgain as exc:
            now = time.monotonic()
            again_since = now if again_since is None else again_since
            if now - again_since >= RETRY_AGAIN_SECONDS:
                raise (exc.__cause__ or exc) from None
            left = remaining()
            if left is not None and left <= 0:
                raise (exc.__cause__ or exc) from None
            continue
        except Exception as exc:
            if not policy.can_retry(exc):
                raise
            wait = wait_for(exc)
            if wait is None:
                raise
            log.debug("retrying after %.3f s: %r", wait, exc)
            time.sleep(wait)
