"""Import PySpark's Connect package safely from any kind of main program.

``pyspark.sql.connect`` checks on import whether ``__main__`` looks like PySpark's own
doctest runner: no ``__spec__``, no ``__file__`` and not interactive — which is also what
``python -c`` and interpreters embedded in other programs (some application servers) look
like. It then imports ``pyspark.testing``, which in the thin install (``pyspark-client``, no
jars) finds no SPARK_HOME and calls ``sys.exit(-1)``: the user's process ends on its first
plan. Under the full ``pyspark`` it "only" imports the test utilities (and pandas).

This module imports ``pyspark.sql.connect`` once, before anything else of connect_plan
does, with ``sys.ps1`` set for the duration of that import so the check sees an
interactive session. Nothing else changes, and nothing happens when the main program is an
ordinary script, module, REPL or notebook, or when PySpark's Connect package is already
imported.
"""

from __future__ import annotations

import sys
import threading

_lock = threading.Lock()


def _looks_like_pyspark_doctests() -> bool:
    main = sys.modules.get("__main__")
    return (
        main is not None
        and getattr(main, "__spec__", None) is None
        and not hasattr(main, "__file__")
        and not hasattr(sys, "ps1")
    )


def ensure_imported() -> None:
    if "pyspark.sql.connect" in sys.modules or not _looks_like_pyspark_doctests():
        return
    with _lock:
        if "pyspark.sql.connect" in sys.modules:
            return
        sys.ps1 = ">>> "
        try:
            import pyspark.sql.connect  # noqa: F401
        except ImportError:
            pass  # reported where PySpark is actually needed
        finally:
            try:
                del sys.ps1
            except AttributeError:
                pass


ensure_imported()
