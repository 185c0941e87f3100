"""docker/compose.yaml cannot run here (no Docker engine), so it is checked by reading:
valid YAML, the official image, the topology and the same Connect settings as the
local cluster the tests run on."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import yaml

from connect_plan.server import DEFAULT_CONF, SERVER_CLASS, cluster_conf

COMPOSE = Path(__file__).resolve().parent.parent.parent / "docker" / "compose.yaml"


def load() -> dict[str, Any]:
    doc = yaml.safe_load(COMPOSE.read_text())
    assert isinstance(doc, dict)
    return doc


def _confs(command: list[str]) -> dict[str, str]:
    out = {}
    for flag, value in itertools.pairwise(command):
        if flag == "--conf":
            k, v = value.split("=", 1)
            out[k] = v
    return out


def test_services_and_image() -> None:
    services = load()["services"]
    assert set(services) == {"spark-master", "spark-worker", "spark-connect"}
    for svc in services.values():
        assert svc["image"].startswith("apache/spark:${SPARK_IMAGE_TAG:-4."), svc["image"]
        assert svc["command"][0].startswith("/opt/spark/bin/")


def test_topology() -> None:
    services = load()["services"]
    master = services["spark-master"]["command"]
    assert master[1] == "org.apache.spark.deploy.master.Master"
    host, port = master[master.index("--host") + 1], master[master.index("--port") + 1]
    url = f"spark://{host}:{port}"
    worker = services["spark-worker"]["command"]
    assert worker[1] == "org.apache.spark.deploy.worker.Worker" and worker[-1] == url
    assert worker[worker.index("--cores") + 1] == "1" and worker[worker.index("--memory") + 1] == "1g"
    connect = services["spark-connect"]
    cmd = connect["command"]
    assert cmd[cmd.index("--class") + 1] == SERVER_CLASS and cmd[cmd.index("--master") + 1] == url
    assert cmd[-1] == "spark-internal"
    assert connect["ports"] == ["15002:15002"]
    assert services["spark-worker"]["depends_on"] == ["spark-master"] and connect["depends_on"] == ["spark-worker"]


def test_same_settings_as_the_local_cluster() -> None:
    confs = _confs(load()["services"]["spark-connect"]["command"])
    assert confs.pop("spark.connect.grpc.binding.port") == "15002"
    assert confs.pop("spark.connect.grpc.binding.address") == "0.0.0.0"  # reachable from the host, unlike the loopback launcher
    assert confs.pop("spark.driver.host") == "spark-connect"
    assert confs.pop("spark.driver.bindAddress") == "0.0.0.0"
    assert confs.pop("spark.cores.max") == "${SPARK_CORES_MAX:-2}"
    local = {**DEFAULT_CONF, **cluster_conf(2)}
    for key in ("spark.driver.host", "spark.driver.bindAddress", "spark.cores.max"):
        local.pop(key)
    assert confs == local
