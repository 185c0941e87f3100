"""The public surface: sorted __all__, every name importable, cheap import."""

from __future__ import annotations

import subprocess
import sys

import connect_plan


def test_all_is_sorted_and_complete() -> None:
    assert connect_plan.__all__ == sorted(connect_plan.__all__)
    for name in connect_plan.__all__:
        assert getattr(connect_plan, name) is not None


def test_supported_plan_operations() -> None:
    ops = connect_plan.supported_plan_operations()
    assert isinstance(ops, tuple)
    assert {
        "filter",
        "select",
        "limit",
        "offset",
        "orderBy",
        "withColumn",
        "withColumnRenamed",
        "groupBy",
        "join",
        "union",
        "unionByName",
        "distinct",
        "drop",
        "crossJoin",
        "cross_join",
        "rollup",
        "cube",
        "agg",
        "stop",
        # extensions: sources, set operations, relations, outputs (docs/plan-format.md)
        "read",
        "intersect",
        "intersectAll",
        "except",
        "exceptAll",
        "subtract",
        "unionAll",
        "fetch",
        "groupingSets",
        "sample",
        "repartition",
        "coalesce",
        "hint",
        "tail",
        "write",
        "sort",
        "minusPrimary",
        "intersectPrimary",
        "sortWithinPartitions",
        "createOrReplaceTempView",
        "createTempView",
        "createOrReplaceGlobalTempView",
        "createGlobalTempView",
    } == set(ops)


def test_import_is_lazy() -> None:
    """``import connect_plan`` loads neither PySpark nor pyarrow nor grpc."""
    code = "import sys, connect_plan; print(sorted(m for m in ('pyspark', 'pyarrow', 'grpc', 'pandas') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_works_under_python_dash_c() -> None:
    """``python -c`` (and embedded interpreters) look like PySpark's doctest runner to
    ``pyspark.sql.connect``: it then imports ``pyspark.testing``, which exits the process in
    the thin install. connect_plan imports PySpark so that this check passes."""
    code = (
        "import sys, connect_plan\n"
        "p = connect_plan.translate([[1]], [('a', 'bigint')], [{'op': 'select', 'payload': ['a']}])\n"
        "print(p.root.WhichOneof('rel_type'), 'pyspark.testing' in sys.modules, hasattr(sys, 'ps1'))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["project", "False", "False"], out.stdout + out.stderr


def test_error_tree() -> None:
    assert issubclass(connect_plan.PlanError, connect_plan.ConnectPlanError)
    assert issubclass(connect_plan.PlanError, ValueError)
    assert issubclass(connect_plan.ServerUnavailableError, connect_plan.ServerError)
    assert issubclass(connect_plan.ResultIntegrityError, connect_plan.ConnectPlanError)


def test_get_conf_refuses_keys_passed_as_one_tuple_before_any_call() -> None:
    import pytest

    # nothing listens on port 9: a key checked only on the server would fail to connect instead
    with connect_plan.connect("sc://127.0.0.1:9") as client:
        with pytest.raises(TypeError, match=r"get_conf\('a', 'b'\).*\('spark.sql.shuffle.partitions',\)"):
            client.get_conf(("spark.sql.shuffle.partitions",))  # type: ignore[arg-type]
