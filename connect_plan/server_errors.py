"""PLACEHOLDER (lead's worktree only; replaced by helper i17e's module before merge)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .transport import RpcFailure, grpc_failure


def rpc_failure(exc: BaseException, fetch: Callable[[str], Any] | None = None) -> RpcFailure:
    bare = grpc_failure(exc)
    if bare is not None:
        return bare
    return RpcFailure("other", f"{type(exc).__name__}: {exc}", texts=(str(exc), repr(exc)))
