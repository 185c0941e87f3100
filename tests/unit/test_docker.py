"""docker/compose.yaml cannot run here (no Docker engine), so it is checked by reading:
valid YAML, the official image, the topology and the same Connect settings as the
local cluster the tests run on, ports published on loopback only, healthchecks with
tools the image has, and what docker/README.md must say (UDFs' Python, the driver heap)."""

from __future__ import annotations

import itertools
import re
from pathlib import Path
from typing import Any

import yaml

from connect_plan.server import DEFAULT_CONF, SERVER_CLASS, cluster_conf

COMPOSE = Path(__file__).resolve().parent.parent.parent / "docker" / "compose.yaml"
README = COMPOSE.parent / "README.md"


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
    assert services["spark-worker"]["depends_on"] == {"spark-master": {"condition": "service_healthy"}}
    assert connect["depends_on"] == {"spark-worker": {"condition": "service_healthy"}}


def _published(port: str) -> tuple[str, str]:
    """``ADDRESS:HOST:CONTAINER`` → (the address with compose's default applied, HOST:CONTAINER)."""
    address, rest = port.rsplit(":", 2)[0], ":".join(port.rsplit(":", 2)[1:])
    m = re.fullmatch(r"\$\{CONNECT_PLAN_PUBLISH_ADDRESS:-([^}]*)\}", address)
    assert m, f"{port!r} must be published on ${{CONNECT_PLAN_PUBLISH_ADDRESS:-...}}"
    return m.group(1), rest


def test_ports_are_published_on_loopback_only() -> None:
    """An unauthenticated Spark Connect port runs Python UDFs for whoever reaches it: by
    default only this machine does (and the master UI, which can kill applications)."""
    services = load()["services"]
    published = {name: [_published(p) for p in svc.get("ports", [])] for name, svc in services.items()}
    assert published == {
        "spark-master": [("127.0.0.1", "8080:8080")],
        "spark-worker": [],
        "spark-connect": [("127.0.0.1", "15002:15002")],
    }
    readme = README.read_text()
    assert "CONNECT_PLAN_PUBLISH_ADDRESS" in readme and "127.0.0.1" in readme


def test_every_service_has_a_healthcheck_the_image_can_run() -> None:
    """The official image (Ubuntu, eclipse-temurin base) has bash and wget, not curl or nc."""
    services = load()["services"]
    probes = {}
    for name, svc in services.items():
        check = svc["healthcheck"]
        assert check["test"][0] == "CMD" and check["test"][1] in ("wget", "bash"), check
        assert check["retries"] * int(check["interval"].rstrip("s")) >= 60  # a slow JVM start is not 'unhealthy'
        probes[name] = " ".join(check["test"][1:])
    assert probes["spark-master"].endswith("http://localhost:8080/json/")
    worker = services["spark-worker"]["command"]
    # a worker is up once it has registered: its status names the master ("" before that)
    assert f"http://localhost:{worker[worker.index('--webui-port') + 1]}/json/" in probes["spark-worker"]
    assert probes["spark-worker"].endswith("""| grep -q '"masterurl" *: *"spark://'""")
    assert probes["spark-connect"] == "bash -c exec 3<>/dev/tcp/127.0.0.1/15002"


def test_worker_probe_matches_a_registered_workers_status_only() -> None:
    """The grep of the worker probe against the JSON a Spark worker serves: pretty-printed by
    Spark 4.3's worker UI (this probe, run by bash against a worker of `connect-plan server
    start --cluster 1`, passed), compact in json4s' other rendering."""
    probe = load()["services"]["spark-worker"]["healthcheck"]["test"][3]
    pattern = re.search(r"grep -q '(.*)'$", probe)
    assert pattern
    regex = re.compile(pattern.group(1).replace(" *", "[ ]*"))  # grep's basic regex: ' *' is 'any spaces'
    assert regex.search(
        '{"id":"worker-2026","masterurl":"spark://spark-master:7077","masterwebuiurl":"http://spark-master:8080"}'
    )
    assert regex.search('{\n  "id" : "worker-2026",\n  "masterurl" : "spark://127.0.0.1:40731",\n')
    assert not regex.search('{"id":"worker-2026","masterurl":"","masterwebuiurl":""}')
    assert not regex.search('{\n  "id" : "worker-2026",\n  "masterurl" : "",\n')


def test_driver_and_executors_share_the_working_directory() -> None:
    """Writes go through executors and are committed by the driver: they must see the same
    directory, or a write reports success and keeps nothing."""
    doc = load()
    services = doc["services"]
    assert "work" in doc["volumes"]
    for name in ("spark-connect", "spark-worker"):
        assert "work:/opt/spark/work-dir" in services[name]["volumes"], name
    assert "/opt/spark/work-dir" in README.read_text() and "--tmp-dir" in README.read_text()


def test_an_init_reaps_what_the_jvm_leaves() -> None:
    for name, svc in load()["services"].items():
        assert svc.get("init") is True, name
        assert "SPARK_NO_DAEMONIZE" not in svc.get("environment", {}), name  # read only by sbin/spark-daemon.sh


def test_the_readme_says_what_udfs_need_and_why_the_driver_has_2g() -> None:
    readme = README.read_text()
    assert "client's Python minor version must be the image's" in readme and "Python 3.10" in readme
    cmd = load()["services"]["spark-connect"]["command"]
    assert cmd[cmd.index("--driver-memory") + 1] == "2g"
    assert "**2g** here, 1g" in readme  # the one setting that differs from --cluster N, and why


def test_same_settings_as_the_local_cluster() -> None:
    confs = _confs(load()["services"]["spark-connect"]["command"])
    assert confs.pop("spark.connect.grpc.binding.port") == "15002"
    assert (
        confs.pop("spark.connect.grpc.binding.address") == "0.0.0.0"
    )  # reachable from the host, unlike the loopback launcher
    assert confs.pop("spark.driver.host") == "spark-connect"
    assert confs.pop("spark.driver.bindAddress") == "0.0.0.0"
    assert confs.pop("spark.cores.max") == "${SPARK_CORES_MAX:-2}"
    local = {**DEFAULT_CONF, **cluster_conf(2)}
    for key in ("spark.driver.host", "spark.driver.bindAddress", "spark.cores.max"):
        local.pop(key)
    assert confs == local
