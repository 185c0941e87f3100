"""A representative subset of the differential suite on a real multi-process Spark
standalone cluster: a master and two workers launched from pyspark's jars on loopback,
and a Spark Connect server attached to it. Shuffles (groupBy, distinct, joins, sorts) run
in executors on the workers, not in the driver."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from connect_plan.server import LocalServer, ServerInfo, cluster_status

from .conftest import Differential
from .test_expressions_differential import FAMILIES, ROWS, SCHEMA
from .test_ops_differential import CASES, PEOPLE, PEOPLE_SCHEMA

pytestmark = [pytest.mark.slow, pytest.mark.spark_only]

REPRESENTATIVE = {
    "group_by_all_aggs",
    "rollup",
    "cube_columns_key",
    "distinct",
    "order_ascending_list",
    "join_inner",
    "join_full",
    "join_left_anti",
    "join_on_condition_expression",
    "union_by_name_camel_case_missing_columns",
    "cross_join_renames_duplicates",
    "pipeline",
}


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerInfo]:
    server = LocalServer(tmp_path_factory.mktemp("cluster"))
    info = server.start(cluster=2, driver_memory="1g", conf={"spark.sql.shuffle.partitions": "4"})
    try:
        yield info
    finally:
        server.stop()
        for c in info.components:
            assert (
                not Path(f"/proc/{c.pid}").exists() or "Z" in Path(f"/proc/{c.pid}/stat").read_text().split(")")[-1][:3]
            )


@pytest.fixture(scope="module")
def cluster_diff(cluster: ServerInfo) -> Iterator[Differential]:
    from pyspark.sql import SparkSession

    import connect_plan

    client = connect_plan.connect(cluster.url, conf={"spark.sql.session.timeZone": "UTC"})
    spark = SparkSession.builder.remote(cluster.url).create()
    spark.conf.set("spark.sql.session.timeZone", "UTC")
    try:
        yield Differential(client, spark)
    finally:
        spark.stop()
        client.close()


def test_cluster_has_two_live_workers_and_executors(cluster: ServerInfo, cluster_diff: Differential) -> None:
    cluster_diff.client.execute([{"op": "distinct"}], data=PEOPLE, schema=PEOPLE_SCHEMA)
    assert cluster.master_ui is not None
    status = cluster_status(cluster.master_ui)
    assert status["aliveworkers"] == 2
    apps = status["activeapps"]
    assert [a["name"] for a in apps] == ["connect-plan-local"]
    assert apps[0]["cores"] == 2  # one executor core granted on each worker


CLUSTER_CASES = [c for c in CASES if c.id in REPRESENTATIVE]


def test_every_representative_case_exists() -> None:
    assert {c.id for c in CLUSTER_CASES} == REPRESENTATIVE


@pytest.mark.parametrize("case", CLUSTER_CASES, ids=[c.id for c in CLUSTER_CASES])
def test_ops_on_cluster(cluster_diff: Differential, case: Any) -> None:
    cluster_diff.check(PEOPLE, PEOPLE_SCHEMA, case.plan, lambda df: case.oracle(df, cluster_diff), ordered=case.ordered)


@pytest.mark.parametrize("family", ["conditional_null", "casts", "strings"])
def test_expressions_on_cluster(cluster_diff: Differential, family: str) -> None:
    from pyspark.sql import functions as F

    items = FAMILIES[family]
    plan = [
        {
            "op": "select",
            "payload": [{"name": "id0", "expr": {"col": "id"}}] + [{"name": n, "expr": e} for n, e, _ in items],
        }
    ]
    cluster_diff.check(
        ROWS, SCHEMA, plan, lambda df: df.select(F.col("id").alias("id0"), *[c.alias(n) for n, _, c in items])
    )


@pytest.mark.filterwarnings("ignore:WARN WindowExpression:UserWarning")  # some cases have no partition, on purpose
def test_windows_on_cluster(cluster_diff: Differential) -> None:
    """Window functions repartition by key and sort within partitions on the executors."""
    from .exprdiff import check_cases
    from .test_windows import CASES as WINDOW_CASES
    from .test_windows import ROWS as WINDOW_ROWS
    from .test_windows import SCHEMA as WINDOW_SCHEMA

    assert check_cases(cluster_diff, WINDOW_ROWS, WINDOW_SCHEMA, WINDOW_CASES) == len(WINDOW_CASES)


def test_write_on_cluster(cluster_diff: Differential, tmp_path: Path) -> None:
    """Executors on both workers write parquet partitions; PySpark reads back the same rows."""
    target = str(tmp_path / "people.parquet")
    plan = [
        {"op": "repartition", "payload": {"n": 4}},
        {
            "op": "write",
            "payload": {"format": "parquet", "path": target, "mode": "overwrite", "partition_by": ["dept"]},
        },
    ]
    report = cluster_diff.client.execute(plan, data=PEOPLE, schema=PEOPLE_SCHEMA)
    assert report.column("rows").to_pylist() == [len(PEOPLE)]
    back = cluster_diff.spark.read.parquet(target).select("id", "name", "dept").toArrow()
    expected = cluster_diff.df(PEOPLE, PEOPLE_SCHEMA).select("id", "name", "dept").toArrow()
    key = lambda t: sorted(map(repr, zip(*(c.to_pylist() for c in t.columns))))  # noqa: E731
    assert key(back) == key(expected)
