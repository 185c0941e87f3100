"""Known differences of Sail from Apache Spark, by test id (``file::test[param]`` as pytest
prints it after the ``tests/...`` path). Under SPARK_REMOTE=sail these tests are strict
xfails: a Sail release that fixes one makes the run fail until the entry is removed.
docs/engines.md is generated from an actual run (scripts/engine_matrix.py)."""

from __future__ import annotations

SAIL_DIFFERENCES: dict[str, str] = {}
