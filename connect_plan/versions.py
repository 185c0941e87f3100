"""Which Spark Connect server versions connect_plan supports, and which protocol features
need which version. The server's version is probed once per client session (one
``AnalyzePlan(spark_version)``) and only when a choice depends on it.

The table is data; docs/engines.md renders it, and the executor asks :func:`supports`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["FEATURES", "MINIMUM", "Feature", "parse_version", "supports"]

#: oldest Spark Connect server the translator's protos are meant for
MINIMUM = (3, 5)


@dataclass(frozen=True)
class Feature:
    name: str
    since: tuple[int, int]
    used_for: str


FEATURES: dict[str, Feature] = {f.name: f for f in (
    Feature("local_relation", (3, 4), "inline data (Arrow IPC in the plan): every plan"),
    Feature("cached_local_relation", (3, 5), "inline data above the cache threshold uploaded once as an artifact"),
    Feature("chunked_cached_local_relation", (4, 1), "the same, uploaded in chunks (no single-message size limit)"),
    Feature("with_columns_renamed_renames", (4, 0), "withColumnRenamed runs as ordered renames"),
    Feature("reattachable_execute", (3, 5), "results that resume after a broken stream"),
    Feature("arrow_batch_chunking", (4, 1), "results with batches larger than a gRPC message, split by the server"),
    Feature("named_sql_arguments", (3, 5), "SQL sources with named parameters"),
    Feature("lambda_functions", (3, 4), "higher-order functions (transform, filter, aggregate ...)"),
)}


def parse_version(text: str | None) -> tuple[int, int] | None:
    """``"4.1.0"`` → ``(4, 1)``; None when there is no recognisable version (e.g. '')."""
    if not text:
        return None
    m = re.match(r"\s*(\d+)\.(\d+)", text)
    return (int(m.group(1)), int(m.group(2))) if m else None


def supports(version: str | tuple[int, int] | None, feature: str) -> bool:
    """Whether a server of ``version`` has ``feature``; an unknown version is assumed new."""
    v = parse_version(version) if isinstance(version, str) or version is None else version
    return v is None or v >= FEATURES[feature].since
