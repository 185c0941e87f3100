"""An in-process Sail server (``pysail``, a Spark Connect server in Rust on DataFusion).

``remote="sail"`` (``--remote sail`` on the command line) starts one on a free loopback
port the first time it is asked for, and stops it when the process exits. Useful for fast
local loops and JVM-free environments; Spark stays the reference (see docs/engines.md).
"""

from __future__ import annotations

import atexit
import threading
from typing import Any

from .errors import LocalServerError

__all__ = ["SAIL_REMOTE", "in_process_url", "start"]

#: the remote name that selects an in-process Sail server
SAIL_REMOTE = "sail"

_lock = threading.Lock()
_server: Any = None


def start(host: str = "127.0.0.1", port: int = 0) -> Any:
    """Start a Sail Spark Connect server in this process (background threads)."""
    try:
        from pysail.spark import SparkConnectServer
    except ImportError:
        raise LocalServerError(
            "remote 'sail' needs the pysail package: pip install 'pysail>=0.7,<0.8' (PySpark 4.0-4.2), "
            "or pip install '.[sail]' in a connect_plan checkout (connect-plan is not on PyPI)"
        ) from None
    server = SparkConnectServer(host, port)
    server.start(background=True)
    return server


def in_process_url() -> str:
    """URL of this process's Sail server, started on first use."""
    global _server
    with _lock:
        if _server is None:
            _server = start()
            atexit.register(_stop)
        host, port = _server.listening_address
    return f"sc://{host}:{port}"


def _stop() -> None:
    global _server
    with _lock:
        if _server is not None:
            try:
                _server.stop()
            finally:
                _server = None
