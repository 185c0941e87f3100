"""Shared fixtures: one Spark Connect server per test session.

The server is the one ``SPARK_REMOTE`` names, or else a local Apache Spark Connect
server started here from the jars ``pyspark`` ships (and stopped at the end). Tests under
``tests/integration`` are marked ``integration`` automatically. Every ``ErrorDetail`` code
built during the session must be registered in connect_plan/error_codes.py (tests/seen_codes.py).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests import seen_codes

# The oracle is PySpark's Connect API; Column expressions in test modules are built at
# import time, before any session exists, so select Connect mode up front (this is what
# SparkSession.builder.remote() sets too).
os.environ.setdefault("SPARK_CONNECT_MODE_ENABLED", "1")

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-goldens",
        action="store_true",
        default=False,
        help="rewrite golden files (protos, error texts) from the current code",
    )


def pytest_configure(config: pytest.Config) -> None:
    seen_codes.install()


#: codes reported by pytest-xdist workers (when the session runs under xdist), for the controller
_WORKER_UNREGISTERED: dict[str, str] = {}


@pytest.hookimpl(optionalhook=True)  # an xdist hook: ignored when xdist is not installed
def pytest_testnodedown(node: Any, error: Any) -> None:
    _WORKER_UNREGISTERED.update(getattr(node, "workeroutput", {}).get("unregistered_error_codes", {}))


def _unregistered_codes() -> dict[str, str]:
    return {**_WORKER_UNREGISTERED, **seen_codes.unregistered()}


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fail a session that built an ErrorDetail whose code is not registered."""
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:  # an xdist worker: its controller judges
        workeroutput["unregistered_error_codes"] = seen_codes.unregistered()
        return
    if _unregistered_codes() and exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: Any) -> None:
    unregistered = _unregistered_codes()
    if unregistered and getattr(terminalreporter.config, "workeroutput", None) is None:
        terminalreporter.section("unregistered error codes", red=True)
        for code, where in unregistered.items():
            terminalreporter.line(f"{code!r} (first built in {where}): add it to connect_plan/error_codes.py")


def engine() -> str:
    """The engine behind the tests' server: 'sail' when SPARK_REMOTE=sail, else 'spark'."""
    return "sail" if os.environ.get("SPARK_REMOTE") == "sail" else "spark"


def sail_key(nodeid: str) -> str:
    """``tests/integration/test_client.py::test_x[p]`` → ``test_client.py::test_x[p]``, the
    key of tests/engines.py."""
    path, _, rest = nodeid.partition("::")
    return f"{path.rsplit('/', 1)[-1]}::{rest}"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    from tests.engines import SAIL_DIFFERENCES

    for item in items:
        if "/integration/" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.integration)
        if engine() == "sail":
            only = item.get_closest_marker("spark_only")
            if only:
                why = only.kwargs.get("reason") or (only.args[0] if only.args else "its JVM launcher or a cluster")
                item.add_marker(pytest.mark.skip(reason=f"needs Apache Spark: {why}"))
            reason = SAIL_DIFFERENCES.get(sail_key(item.nodeid))
            if reason:
                item.add_marker(pytest.mark.xfail(reason=f"Sail differs: {reason}", strict=True))


@pytest.fixture(scope="session")
def update_goldens(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-goldens"))


@pytest.fixture(scope="session")
def spark_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    remote = os.environ.get("SPARK_REMOTE")
    if remote:
        from connect_plan.client import resolve_remote

        yield resolve_remote(remote)  # 'sail' starts an in-process Sail server
        return
    from connect_plan.server import LocalServer

    server = LocalServer(tmp_path_factory.mktemp("spark-connect"))
    info = server.start(driver_memory="2g", conf={"spark.sql.shuffle.partitions": "4"})
    try:
        yield info.url
    finally:
        server.stop()


@pytest.fixture(scope="session")
def client(spark_url: str) -> Iterator[object]:
    import connect_plan

    with connect_plan.connect(spark_url, conf={"spark.sql.session.timeZone": "UTC"}) as c:
        yield c


@pytest.fixture(scope="session")
def spark(spark_url: str) -> Iterator[object]:
    """PySpark's own Connect session on the same server: the oracle."""
    from pyspark.sql import SparkSession

    session = SparkSession.builder.remote(spark_url).create()
    session.conf.set("spark.sql.session.timeZone", "UTC")
    try:
        yield session
    finally:
        session.stop()
