"""Which Spark Connect server versions connect_plan supports, and which protocol features
need which version. The server's version is probed once per client session (one
``AnalyzePlan(spark_version)``, before the session's first plan runs).

**Supported: Spark Connect 4.0 and later** (:data:`MINIMUM`). The translator always sends
protocol fields that 4.0 introduced (the *required* features below); a 3.5 server does not
know them, and protobuf makes it ignore unknown fields without a word: it would silently
drop every rename (``withColumnRenamed``, a join's ``<name>_right`` renames: wrong column
names, duplicate names after a join), and fail SQL parameters (unbound) and
``groupingSets`` (an unknown group type) with errors that do not say why. So a server
older than :data:`MINIMUM` is refused before any plan is sent (:func:`check_server`),
naming what it lacks. *Optional* features newer than the server are simply not used (a 4.0 server gets
one cached relation instead of chunks, and unchunked result batches).

Each feature names the proto field that carries it, and ``tests/unit/test_versions.py``
checks every ``since`` against the Spark Connect protocol as released with PySpark 3.5, 4.0,
4.1 and 4.2 (``tests/data/spark_connect_protos``), and that every proto the translator
builds for the plan fixtures is understood by a :data:`MINIMUM` server — by parsing it with
that release's descriptors, the way the server would. End-to-end runs: Spark 4.3 (the
reference server of the test suite) and Sail (which reports the PySpark version it
accepts, 4.2). No Spark 3.5 Connect server can run here (its server jar is not part of the
``pyspark`` 3.5 package), so 3.5 is refused on the strength of the protocol comparison.

The table is data; docs/engines.md renders it, and the client asks :func:`supports` and
:func:`check_server`.
"""

from __future__ import annotations

import re

from .errors import UnsupportedServerError
from .records import Value, frozen

__all__ = ["FEATURES", "MINIMUM", "Feature", "check_server", "parse_version", "supports"]

#: oldest Spark Connect server the translator's protos are meant for (and that is accepted)
MINIMUM = (4, 0)


@frozen
class Feature(Value):
    name: str
    since: tuple[int, int]
    used_for: str
    #: the proto field that carries it, ``Message.field`` (``spark.connect`` package)
    proto: str
    #: True: connect_plan does without it on an older server; False: always sent
    optional: bool = False


FEATURES: dict[str, Feature] = {
    f.name: f
    for f in (
        Feature("local_relation", (3, 4), "inline data (Arrow IPC in the plan): every plan", "Relation.local_relation"),
        Feature(
            "cached_local_relation",
            (3, 5),
            "inline data above the cache threshold uploaded once as an artifact",
            "Relation.cached_local_relation",
        ),
        Feature(
            "chunked_cached_local_relation",
            (4, 1),
            "the same, uploaded in chunks (no single-message size limit)",
            "Relation.chunked_cached_local_relation",
            optional=True,
        ),
        Feature(
            "with_columns_renamed_renames",
            (4, 0),
            "withColumnRenamed and a join's `<name>_right` renames, as ordered renames",
            "WithColumnsRenamed.renames",
        ),
        Feature(
            "grouping_sets", (4, 0), "groupingSets (Aggregate with GROUP_TYPE_GROUPING_SETS)", "Aggregate.grouping_sets"
        ),
        Feature(
            "named_sql_arguments",
            (4, 0),
            "SQL sources with :named parameters (literals and constructor calls)",
            "SQL.named_arguments",
        ),
        Feature("positional_sql_arguments", (4, 0), "SQL sources with ? parameters", "SQL.pos_arguments"),
        Feature(
            "reattachable_execute",
            (3, 5),
            "results that resume after a broken stream",
            "ExecutePlanRequest.RequestOption.reattach_options",
        ),
        Feature(
            "arrow_batch_chunking",
            (4, 1),
            "results with batches larger than a gRPC message, split by the server",
            "ExecutePlanRequest.RequestOption.result_chunking_options",
            optional=True,
        ),
        Feature(
            "lambda_functions",
            (3, 4),
            "higher-order functions (transform, filter, aggregate ...)",
            "Expression.lambda_function",
        ),
    )
}


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


def check_server(version: str | None) -> None:
    """Refuse a server older than :data:`MINIMUM` (an unrecognisable version passes: the
    server is assumed current), naming the required features it lacks."""
    v = parse_version(version)
    if v is None or v >= MINIMUM:
        return
    lacking = [f for f in FEATURES.values() if not f.optional and f.since > v]
    needs = "; ".join(f"{f.used_for} needs {f.since[0]}.{f.since[1]} ({f.proto})" for f in lacking)
    raise UnsupportedServerError(
        f"the server runs Spark {version}; connect_plan needs a Spark Connect server {MINIMUM[0]}.{MINIMUM[1]} or later. "
        f"An older server ignores protocol fields it does not know, which would give wrong results silently: {needs}"
    )
