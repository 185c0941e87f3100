"""Timers, memory probes and statistics shared by the scenarios."""

from __future__ import annotations

import gc
import os
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

_PROC = "/proc/self/status"


def current_rss() -> int | None:
    """Resident set size of this process in bytes (Linux), else None."""
    return _status_field("VmRSS")


def peak_rss() -> int | None:
    """Peak resident set size since the last :func:`reset_peak` (Linux), else None."""
    return _status_field("VmHWM")


def reset_peak() -> bool:
    """Reset the kernel's peak-RSS mark of this process (Linux ≥ 4.0: clear_refs 5)."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def _status_field(name: str) -> int | None:
    try:
        with open(_PROC) as f:
            for line in f:
                if line.startswith(name + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


@dataclass
class Sample:
    """One timed run: wall and CPU seconds (CPU of the whole process, gRPC threads
    included), peak RSS above the RSS before the run, and whatever the run returned."""

    wall: float
    cpu: float
    rss_growth: int | None
    value: Any = None


def release_memory() -> None:
    """Hand freed memory back to the OS (pyarrow's pool, glibc's heap), so that the RSS
    before a run does not depend on what earlier runs left cached in the allocators."""
    gc.collect()
    try:
        import pyarrow as pa

        pa.default_memory_pool().release_unused()
    except Exception:
        pass
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except Exception:
        pass


def run_measured(fn: Callable[[], Any]) -> Sample:
    release_memory()
    probe = reset_peak()
    rss0 = current_rss()
    c0, t0 = time.process_time(), time.perf_counter()
    value = fn()
    t1, c1 = time.perf_counter(), time.process_time()
    peak = peak_rss() if probe else None
    growth = peak - rss0 if peak is not None and rss0 is not None else None
    return Sample(t1 - t0, c1 - c0, growth, value)


def thread_cpu(fn: Callable[[], Any]) -> tuple[float, Any]:
    """CPU seconds of the calling thread spent in ``fn`` (insensitive to other processes
    competing for the cores, which wall time on a shared 2-core machine is not)."""
    t0 = time.thread_time()
    value = fn()
    return time.thread_time() - t0, value


@dataclass
class Series:
    """Samples of one metric for one client."""

    unit: str
    samples: list[float] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(self.samples) if self.samples else float("nan")

    def as_dict(self) -> dict[str, Any]:
        return {"unit": self.unit, "median": self.median, "samples": self.samples}


def ratio(a: float, b: float) -> float:
    return a / b if b else float("nan")


def paired(a: Series, b: Series) -> float:
    """Median over rounds of the per-round ratio a/b. Each round runs both clients back to
    back, so load from other processes (this machine is shared) hits both sides of a pair
    alike; a ratio of two medians would mix rounds taken under different loads."""
    pairs = [x / y for x, y in zip(a.samples, b.samples) if y]
    return statistics.median(pairs) if pairs else float("nan")


def env_info() -> dict[str, Any]:
    import platform

    import pyarrow
    import pyspark

    info: dict[str, Any] = {
        "python": platform.python_version(),
        "pyspark": pyspark.__version__,
        "pyarrow": pyarrow.__version__,
        "cpus": os.cpu_count(),
        "machine": platform.machine(),
    }
    try:
        from importlib.metadata import version

        info["robin_sparkless"] = version("robin-sparkless")
    except Exception:
        info["robin_sparkless"] = None
    return info
