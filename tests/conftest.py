"""Shared fixtures: one Spark Connect server per test session.

The server is the one ``SPARK_REMOTE`` names, or else a local Apache Spark Connect
server started here from the jars ``pyspark`` ships (and stopped at the end). When the run
includes the integration tests, that server starts as the session starts, in a thread,
so that its JVM boots while the tests are collected (the first test needing it waits for it). Tests under
``tests/integration`` are marked ``integration`` automatically. Every ``ErrorDetail`` code
built during the session must be registered in connect_plan/error_codes.py (tests/seen_codes.py).
"""

from __future__ import annotations

import os
import threading
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


#: the session server's configuration. Expressions are evaluated by Spark's interpreter, not
#: compiled: the suite runs thousands of distinct queries over a few rows each, and compiling
#: each one's generated Java (Janino) was most of the server's work for them (the differential
#: modules: 16-23% less server CPU). Both sides of every differential test run on this server;
#: the compiled path is Spark's own concern (and a server a developer names in SPARK_REMOTE,
#: or Sail, runs its defaults).
SESSION_SERVER_CONF = {
    "spark.sql.shuffle.partitions": "4",
    "spark.sql.codegen.wholeStage": "false",
    "spark.sql.codegen.factoryMode": "NO_CODEGEN",
}


class _SessionServer:
    """The session's local server, started in a thread (:meth:`begin`) and waited for by the
    first test that needs it (:meth:`url`)."""

    def __init__(self, directory: Path) -> None:
        from connect_plan.server import LocalServer

        self.server = LocalServer(directory)
        self.info: Any = None
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._start, name="spark-connect-start", daemon=True)

    def _start(self) -> None:
        try:
            self.info = self.server.start(driver_memory="2g", conf=SESSION_SERVER_CONF)
        except BaseException as e:  # re-raised in the test that waits for it
            self.error = e

    def begin(self) -> _SessionServer:
        self.thread.start()
        return self

    def url(self) -> str:
        self.thread.join()
        if self.error is not None:
            raise self.error
        return str(self.info.url)

    def stop(self) -> None:
        self.thread.join()
        self.server.stop()


_SERVER: dict[str, _SessionServer] = {}


def _runs_integration_tests(config: pytest.Config) -> bool:
    """Whether the run's paths include tests/integration (the whole suite does), unless a
    marker expression leaves them out: only then is the server started before collection."""
    if "not integration" in (config.getoption("markexpr", "") or ""):
        return False
    if config.pluginmanager.hasplugin("xdist") and (
        config.getoption("numprocesses", None) or hasattr(config, "workerinput")
    ):
        return False  # under xdist each worker starts its server when a test asks
    integration = ROOT / "tests" / "integration"
    for arg in config.args:
        path = Path(config.invocation_params.dir, arg.split("::")[0]).resolve()
        if path == integration or integration in path.parents or path in integration.parents:
            return True
    return False


def pytest_sessionstart(session: pytest.Session) -> None:
    config = session.config
    if not os.environ.get("SPARK_REMOTE") and _runs_integration_tests(config):
        factory: pytest.TempPathFactory = config._tmp_path_factory  # type: ignore[attr-defined]
        _SERVER["session"] = _SessionServer(factory.mktemp("spark-connect")).begin()


def pytest_unconfigure(config: pytest.Config) -> None:
    server = _SERVER.pop("session", None)
    if server is not None:  # started early, and no test asked for it
        server.stop()


@pytest.fixture(scope="session")
def spark_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    remote = os.environ.get("SPARK_REMOTE")
    if remote:
        from connect_plan.client import resolve_remote

        yield resolve_remote(remote)  # 'sail' starts an in-process Sail server
        return
    server = _SERVER.pop("session", None) or _SessionServer(tmp_path_factory.mktemp("spark-connect")).begin()
    try:
        yield server.url()
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
