"""A representative subset of the differential suite on a real multi-process Spark
standalone cluster: a master and two workers launched from pyspark's jars on loopback,
and a Spark Connect server attached to it. Shuffles (groupBy, distinct, joins, sorts) run
in executors on the workers, not in the driver.

The cluster is started once, through the installed entry point as a user starts one
(``connect-plan server start --cluster 2``), and stopped through it by the module's last
test: the same start serves the command-line checks (status lists the master and the
workers, stop ends all four processes) and the queries in the executors. (Before, a second
cluster of one worker was started for the command line alone.)"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from subprocess import CompletedProcess
from typing import Any

import pytest

import connect_plan
from connect_plan.server import LocalServer, ServerInfo, cluster_status, free_port
from tests.support.processes import connect_plan as connect_plan_entry

from .conftest import Differential
from .test_expressions_differential import FAMILIES, ROWS, SCHEMA
from .test_ops_differential import CASES, PEOPLE, PEOPLE_SCHEMA

pytestmark = [pytest.mark.slow, pytest.mark.spark_only]

ROOT = Path(__file__).resolve().parents[2]

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


def cli(state: Path, *args: str) -> CompletedProcess[str]:
    """``connect-plan server ARGS --state-dir STATE`` (the entry point, this environment)."""
    return connect_plan_entry("server", *args, "--state-dir", str(state), env={**os.environ, "PYTHONPATH": str(ROOT)})


@dataclass
class Cluster:
    state: Path
    port: int
    started: CompletedProcess[str]
    info: ServerInfo
    start_took: float


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    state = tmp_path_factory.mktemp("cluster")
    port = free_port()
    t0 = time.monotonic()
    started = cli(
        state,
        "start",
        "--cluster",
        "2",
        "--port",
        str(port),
        "--driver-memory",
        "1g",
        "--worker-memory",
        "1g",
        "--conf",
        "spark.sql.shuffle.partitions=4",
        "--timeout",
        "300",  # four JVMs starting on 2 cores beside the suite's server (180 s was missed at load 68)
    )
    took = time.monotonic() - t0
    assert started.returncode == 0, started.stderr
    info = LocalServer(state).info()
    assert info is not None, started.stdout
    try:
        yield Cluster(state, port, started, info, took)
    finally:
        if LocalServer(state).info() is not None:  # the last test stops it; not when it did not run
            cli(state, "stop")


class Sessions:
    """connect_plan's client and PySpark's session on the cluster, closed before the
    cluster stops (by the last test, or at the end of the module)."""

    def __init__(self, url: str) -> None:
        from pyspark.sql import SparkSession

        client = connect_plan.connect(url, conf={"spark.sql.session.timeZone": "UTC"})
        spark = SparkSession.builder.remote(url).create()
        spark.conf.set("spark.sql.session.timeZone", "UTC")
        self.diff = Differential(client, spark)
        self.open = True

    def close(self) -> None:
        if self.open:
            self.open = False
            self.diff.spark.stop()
            self.diff.client.close()


@pytest.fixture(scope="module")
def sessions(cluster: Cluster) -> Iterator[Sessions]:
    s = Sessions(cluster.info.url)
    try:
        yield s
    finally:
        s.close()


@pytest.fixture
def cluster_diff(sessions: Sessions) -> Differential:
    assert sessions.open, "the cluster's sessions were closed (the stop test runs last)"
    return sessions.diff


def test_server_start_cluster_through_the_command_line(cluster: Cluster) -> None:
    """``connect-plan server start --cluster 2 --port P``: a standalone master and two workers
    on loopback, the Connect server attached to them as an application on the port asked
    for; status lists them and the server answers. The figures are printed (-s)."""
    out = cluster.started.stdout
    assert f"sc://127.0.0.1:{cluster.port}" in out, out
    assert "on a local standalone cluster spark://127.0.0.1:" in out and "2 worker(s)" in out, out
    status = json.loads(cli(cluster.state, "status").stdout)
    assert status["port"] == cluster.port and status["url"] == f"sc://127.0.0.1:{cluster.port}"
    assert status["master"].startswith("spark://127.0.0.1:")
    assert sorted(c["role"] for c in status["components"]) == ["master", "worker", "worker"]
    t1 = time.monotonic()
    assert connect_plan.execute_plan([[1]], [("a", "int")], [], remote=status["url"]).num_rows == 1
    query_took = time.monotonic() - t1
    workers = cluster_status(status["master_ui"])
    assert workers["aliveworkers"] == 2 and any(a["name"] == "connect-plan-local" for a in workers["activeapps"])
    print(f"\n[cli cluster] start --cluster 2 {cluster.start_took:.1f} s, a local-relation query {query_took:.1f} s")


def test_cluster_has_two_live_workers_and_executors(cluster: Cluster, cluster_diff: Differential) -> None:
    cluster_diff.client.execute([{"op": "distinct"}], data=PEOPLE, schema=PEOPLE_SCHEMA)
    assert cluster.info.master_ui is not None
    status = cluster_status(cluster.info.master_ui)
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


# Last in the module: it stops the cluster the tests above share.
def test_server_stop_ends_the_server_the_master_and_the_workers(cluster: Cluster, sessions: Sessions) -> None:
    sessions.close()
    status = json.loads(cli(cluster.state, "status").stdout)
    pids = [status["pid"], *(c["pid"] for c in status["components"])]
    assert len(pids) == 4
    t2 = time.monotonic()
    stopped = cli(cluster.state, "stop")
    stop_took = time.monotonic() - t2
    assert stopped.returncode == 0 and "stopped" in stopped.stdout, stopped.stderr
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and any(Path(f"/proc/{pid}").exists() for pid in pids):
        time.sleep(0.2)
    assert not [pid for pid in pids if Path(f"/proc/{pid}").exists()]
    assert cli(cluster.state, "status").returncode == 4
    print(f"\n[cli cluster] stop {stop_took:.1f} s")
