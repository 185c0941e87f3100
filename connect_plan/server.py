"""A local Apache Spark Connect server, launched from the jars ``pyspark`` ships.

This is a development and test convenience (``connect-plan server start``, the test
suite's fixture); the client library itself never starts a JVM. The server:

* runs ``spark-submit --class org.apache.spark.sql.connect.service.SparkConnectServer``
  from ``$SPARK_HOME`` (default: the installed ``pyspark`` package) with the machine's
  Java 17+;
* binds gRPC to loopback on a free (or given) port, in its own process session so it
  outlives the command that started it;
* is ready when it answers a real RPC, not merely when the port accepts connections;
* records ``pid``/``port``/log path in a state file, and is only ever stopped after its
  pid is verified to still be that server (a recycled pid is never signalled).
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from .errors import LocalServerError
from .records import Value, frozen

__all__ = [
    "Component",
    "LocalServer",
    "ServerInfo",
    "cluster_conf",
    "cluster_status",
    "find_java",
    "free_port",
    "running_server_url",
    "spark_home",
    "state_dir",
]

SERVER_CLASS = "org.apache.spark.sql.connect.service.SparkConnectServer"
DEFAULT_CONF: dict[str, str] = {
    "spark.ui.enabled": "false",
    "spark.sql.session.timeZone": "UTC",
    "spark.driver.host": "127.0.0.1",
    "spark.driver.bindAddress": "127.0.0.1",
}


@frozen
class Component(Value):
    """A process of a local cluster: its role, pid, the marker that proves the pid is ours."""

    role: str  # "master" | "worker"
    pid: int
    marker: str
    log_path: str


@frozen
class ServerInfo(Value):
    pid: int
    port: int
    host: str
    log_path: str
    started_at: float
    spark_home: str
    #: ``spark://host:port`` when the server runs on a local standalone cluster
    master: str | None = None
    master_ui: str | None = None
    components: tuple[Component, ...] = ()

    @property
    def url(self) -> str:
        return f"sc://{self.host}:{self.port}"

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> ServerInfo:
        comps = tuple(Component(**c) for c in raw.pop("components", ()))
        return cls(**raw, components=comps)


MASTER_CLASS = "org.apache.spark.deploy.master.Master"
WORKER_CLASS = "org.apache.spark.deploy.worker.Worker"


def state_dir() -> Path:
    """Where the local server's state and log live (``CONNECT_PLAN_STATE_DIR`` overrides)."""
    env = os.environ.get("CONNECT_PLAN_STATE_DIR")
    if env:
        return Path(env)
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(cache) / "connect_plan" / "server"


def spark_home() -> Path:
    """``$SPARK_HOME`` if it holds the Connect server jar, else the pyspark package dir."""
    candidates = []
    if os.environ.get("SPARK_HOME"):
        candidates.append(Path(os.environ["SPARK_HOME"]))
    try:
        import importlib.util

        spec = importlib.util.find_spec("pyspark")
        if spec and spec.origin:
            candidates.append(Path(spec.origin).parent)
    except (ImportError, ValueError):
        pass
    for home in candidates:
        jars = home / "jars"
        if (home / "bin" / "spark-submit").exists() and any(jars.glob("spark-connect_*.jar")):
            return home
    raise LocalServerError(
        "no Spark installation with the Connect server found: install the full 'pyspark' "
        "package (not pyspark-client), or set SPARK_HOME to a Spark 4.x distribution"
    )


def find_java(minimum: int = 17) -> str:
    """Path of a ``java`` of at least ``minimum`` major version (JAVA_HOME, then PATH)."""
    candidates = []
    if os.environ.get("JAVA_HOME"):
        candidates.append(os.path.join(os.environ["JAVA_HOME"], "bin", "java"))
    found = shutil.which("java")
    if found:
        candidates.append(found)
    for java in candidates:
        if not os.path.exists(java):
            continue
        try:
            out = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            continue
        m = re.search(r'version "(\d+)(?:\.(\d+))?', out.stderr + out.stdout)
        if m:
            major = int(m.group(1))
            if major == 1 and m.group(2):
                major = int(m.group(2))
            if major >= minimum:
                return java
    raise LocalServerError(
        f"Java {minimum}+ is needed to run a local Spark Connect server; none found on JAVA_HOME or PATH"
    )


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def _port_open(host: str, port: int, timeout: float = 0.5) -> bool:
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
    except OSError:
        pass
    try:  # not Linux: ask ps
        out = subprocess.run(["ps", "-o", "command=", "-p", str(pid)], capture_output=True, text=True, timeout=10)
        return out.stdout
    except (OSError, subprocess.TimeoutExpired):
        return ""


def _is_our_server(pid: int, port: int) -> bool:
    """True only if ``pid`` is alive and is a SparkConnectServer bound to ``port``."""
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    cmd = _cmdline(pid)
    return SERVER_CLASS in cmd and f"spark.connect.grpc.binding.port={port}" in cmd


#: processes launched by this process (servers, cluster components), kept referenced so
#: that a Popen is not collected while its process runs; each is reaped (waited for, so
#: that its Popen records the exit) when stopped, or when found to have ended
#: (:func:`_reap_ended`). A Popen collected before that warns "subprocess N is still
#: running" (Python 3.11 says so for a dead, unreaped process too), as a server killed by
#: a signal and never reaped did at the end of the test suite.
_LAUNCHED: dict[int, subprocess.Popen[bytes]] = {}


def _reap_ended() -> None:
    """Reap every launched process that has ended, and forget it."""
    for pid, proc in list(_LAUNCHED.items()):
        if proc.poll() is not None:
            _LAUNCHED.pop(pid, None)


atexit.register(_reap_ended)


class LocalServer:
    """One local Spark Connect server process and its state file.

    ``LocalServer().start()`` launches it (or returns the one already running from the
    same state directory); ``stop()`` stops it after verifying its pid.
    """

    def __init__(self, directory: Path | str | None = None) -> None:
        self.directory = Path(directory) if directory is not None else state_dir()

    @property
    def state_file(self) -> Path:
        return self.directory / "server.json"

    def info(self) -> ServerInfo | None:
        """The recorded server if it is still running (stale state is removed)."""
        _reap_ended()
        try:
            raw = json.loads(self.state_file.read_text())
            info = ServerInfo.from_json(raw)
        except (OSError, ValueError, TypeError, AttributeError):
            return None
        if _is_our_server(info.pid, info.port):
            return info
        # the server is gone: stop what is left of its cluster, then forget it
        self._stop_components(info.components)
        with contextlib.suppress(OSError):
            self.state_file.unlink()
        return None

    def start(
        self,
        *,
        port: int | None = None,
        host: str = "127.0.0.1",
        conf: Mapping[str, str] | None = None,
        driver_memory: str | None = None,
        master: str | None = None,
        cluster: int = 0,
        worker_cores: int = 1,
        worker_memory: str = "1g",
        executor_memory: str = "512m",
        timeout: float = 180.0,
        extra_args: Sequence[str] = (),
    ) -> ServerInfo:
        """Start the server (or return the running one).

        ``cluster=N`` first starts a standalone master and N workers on loopback (each
        offering ``worker_cores``/``worker_memory``) and attaches the server to them;
        ``master`` attaches it to an existing cluster instead.
        """
        for name, value, least in (("cluster", cluster, 0), ("worker_cores", worker_cores, 1)):
            if isinstance(value, bool) or not isinstance(value, int) or value < least:
                raise LocalServerError(f"{name} must be a whole number of at least {least}, got {value!r}")
        running = self.info()
        if running is not None:
            return running
        if cluster and master:
            raise LocalServerError("give either cluster=N (start a local cluster) or master=URL (use one), not both")
        home = spark_home()
        java = find_java()
        port = port or free_port(host)
        if _port_open(host, port):
            raise LocalServerError(f"port {port} on {host} is already in use")
        self.directory.mkdir(parents=True, exist_ok=True)
        env = dict(os.environ)
        env["SPARK_HOME"] = str(home)
        env["JAVA_HOME"] = str(Path(java).resolve().parent.parent)
        env.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
        # Python UDFs run in the server's Python workers: by default the interpreter that
        # launches the server, which has pyspark, pandas and pyarrow (the system python3
        # Spark would pick otherwise often has none of them)
        env.setdefault("PYSPARK_PYTHON", sys.executable)
        env.pop("SPARK_REMOTE", None)
        env.pop("PYSPARK_SUBMIT_ARGS", None)
        settings = {**DEFAULT_CONF, **(conf or {})}
        components: tuple[Component, ...] = ()
        master_ui = None
        if cluster:
            master, master_ui, components = self._start_cluster(
                home, env, host, cluster, worker_cores, worker_memory, timeout
            )
            for k, v in cluster_conf(cluster, worker_cores, executor_memory).items():
                settings.setdefault(k, v)
        settings["spark.connect.grpc.binding.port"] = str(port)
        settings["spark.connect.grpc.binding.address"] = host
        cmd = [str(home / "bin" / "spark-submit"), "--class", SERVER_CLASS, "--name", "connect-plan-local"]
        if master:
            cmd += ["--master", master]
        if driver_memory:
            cmd += ["--driver-memory", driver_memory]
        for k, v in settings.items():
            cmd += ["--conf", f"{k}={v}"]
        cmd += [*extra_args, "spark-internal"]
        log_path = self.directory / f"spark-connect-{port}.log"
        try:
            proc = self._spawn(cmd, log_path, env)
        except BaseException:
            self._stop_components(components)
            raise
        info = ServerInfo(proc.pid, port, host, str(log_path), time.time(), str(home), master, master_ui, components)
        self.state_file.write_text(json.dumps(asdict(info)))
        try:
            self._wait_ready(proc, info, timeout)
        except BaseException:
            self._terminate(proc.pid, grace=10)
            self._stop_components(components)
            with contextlib.suppress(OSError):
                self.state_file.unlink()
            raise
        return info

    def _spawn(self, cmd: list[str], log_path: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
        log = open(log_path, "ab")
        try:
            proc = subprocess.Popen(
                cmd,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=env,
                start_new_session=True,
                cwd=str(self.directory),
            )
        finally:
            log.close()
        _reap_ended()
        _LAUNCHED[proc.pid] = proc
        return proc

    def _start_cluster(
        self, home: Path, env: dict[str, str], host: str, workers: int, cores: int, memory: str, timeout: float
    ) -> tuple[str, str, tuple[Component, ...]]:
        """A standalone master and ``workers`` workers on loopback, ready when the master
        reports every worker alive."""
        spark_class = str(home / "bin" / "spark-class")
        env = {**env, "SPARK_DAEMON_MEMORY": env.get("SPARK_DAEMON_MEMORY", "256m")}  # master/worker JVMs only
        mport, uport = free_port(host), free_port(host)
        master_url = f"spark://{host}:{mport}"
        ui = f"http://{host}:{uport}"
        components: list[Component] = []
        try:
            log = self.directory / f"master-{mport}.log"
            proc = self._spawn(
                [spark_class, MASTER_CLASS, "--host", host, "--port", str(mport), "--webui-port", str(uport)], log, env
            )
            components.append(Component("master", proc.pid, f"--port {mport}", str(log)))
            for i in range(workers):
                work_dir = self.directory / f"worker-{mport}-{i}"
                work_dir.mkdir(parents=True, exist_ok=True)
                log = self.directory / f"worker-{mport}-{i}.log"
                cmd = [
                    spark_class,
                    WORKER_CLASS,
                    "--host",
                    host,
                    "--cores",
                    str(cores),
                    "--memory",
                    memory,
                    "--webui-port",
                    str(free_port(host)),
                    "--work-dir",
                    str(work_dir),
                    master_url,
                ]
                proc = self._spawn(cmd, log, env)
                components.append(Component("worker", proc.pid, str(work_dir), str(log)))
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                for c in components:
                    launched = _LAUNCHED.get(c.pid)  # gone from it once reaped
                    if launched is None or launched.poll() is not None:
                        raise LocalServerError(
                            f"the local Spark {c.role} exited while starting; last log lines:\n{tail(c.log_path)}"
                        )
                if cluster_status(ui).get("aliveworkers", 0) >= workers:
                    return master_url, ui, tuple(components)
                time.sleep(0.5)
            raise LocalServerError(f"the local Spark cluster did not get {workers} live workers within {timeout:.0f} s")
        except BaseException:
            self._stop_components(tuple(components))
            raise

    def _stop_components(self, components: Sequence[Component]) -> None:
        """Workers first, then the master; each only if its pid is still that process."""
        for c in sorted(components, key=lambda c: c.role != "worker"):
            cls = WORKER_CLASS if c.role == "worker" else MASTER_CLASS
            cmd = _cmdline(c.pid)
            if cls in cmd and c.marker in cmd:
                self._terminate(c.pid, grace=15)

    def _wait_ready(self, proc: subprocess.Popen[bytes], info: ServerInfo, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise LocalServerError(
                    f"the Spark Connect server exited with code {proc.returncode} while starting; "
                    f"last log lines:\n{tail(info.log_path)}"
                )
            if _port_open(info.host, info.port):
                if _answers(info.url):
                    return
            time.sleep(0.25)
        raise LocalServerError(
            f"the Spark Connect server did not answer within {timeout:.0f} s; last log lines:\n{tail(info.log_path)}"
        )

    def stop(self, timeout: float = 30.0) -> bool:
        """Stop the recorded server; True if one was running."""
        info = self.info()
        if info is None:
            return False
        self._terminate(info.pid, grace=timeout)
        self._stop_components(info.components)
        with contextlib.suppress(OSError):
            self.state_file.unlink()
        return True

    @staticmethod
    def _terminate(pid: int, grace: float) -> None:
        try:
            os.killpg(pid, signal.SIGTERM)
        except (ProcessLookupError, PermissionError):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline:
            if not _alive(pid):
                break
            time.sleep(0.1)
        else:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signal.SIGKILL)
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        proc = _LAUNCHED.pop(pid, None)
        if proc is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=10)


def _alive(pid: int) -> bool:
    proc = _LAUNCHED.get(pid)
    if proc is not None:  # ours: its Popen reaps it (a bare waitpid would leave it unaware)
        return proc.poll() is None
    try:
        waited, _ = os.waitpid(pid, os.WNOHANG)
        if waited == pid:
            return False
    except ChildProcessError:
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    state = Path(f"/proc/{pid}/stat")
    if state.exists():
        with contextlib.suppress(OSError, IndexError):
            if state.read_text().split(")")[-1].split()[0] == "Z":
                return False
    return True


def _answers(url: str) -> bool:
    """One real RPC (a config read) with no retries: the server can run queries. Over the
    transport, which needs neither PySpark's client nor pandas (the ``connect-plan`` process
    runs without them: ``cli._lean_pyarrow``)."""
    try:
        from .spark_proto import pb
        from .transport import connector

        transport = connector(url, retry_policy={"max_retries": 0}).open(lambda: False)
        try:
            key = "spark.sql.session.timeZone"
            transport.config(pb.ConfigRequest.Operation(get=pb.ConfigRequest.Get(keys=[key])))
            return True
        finally:
            with contextlib.suppress(Exception):
                transport.release_session()
            transport.close()
    except Exception:
        return False


def tail(path: str, lines: int = 25) -> str:
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - 64 * 1024))
            text = f.read().decode("utf-8", "replace")
    except OSError:
        return "(no log)"
    return "\n".join(text.splitlines()[-lines:])


def cluster_conf(workers: int, worker_cores: int = 1, executor_memory: str = "512m") -> dict[str, str]:
    """Spark settings of a Connect server on a standalone cluster (docker/compose.yaml
    uses the same; a unit test keeps them in step)."""
    return {
        "spark.executor.memory": executor_memory,
        "spark.executor.cores": "1",
        "spark.cores.max": str(workers * worker_cores),
        "spark.dynamicAllocation.enabled": "false",
    }


def cluster_status(master_ui: str) -> dict[str, Any]:
    """The standalone master's JSON status (workers, applications), or {} if unreachable."""
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(f"{master_ui}/json/", timeout=5) as resp:
            return dict(json.loads(resp.read().decode("utf-8")))
    except (OSError, ValueError, urllib.error.URLError):
        return {}


def running_server_url(directory: Path | str | None = None) -> str | None:
    """URL of the local server recorded in the state directory, if it is running."""
    info = LocalServer(directory).info()
    return info.url if info else None


def is_local_server(url: str, directory: Path | str | None = None) -> bool:
    """Whether ``url`` is the running local server connect_plan started (so it shares this
    machine's files): its port on a loopback name."""
    info = LocalServer(directory).info()
    if info is None or not url.startswith("sc://"):
        return False
    hostport = url[len("sc://") :].split("/", 1)[0].split(";", 1)[0]
    host, _, port = hostport.rpartition(":")
    host = host.strip("[]").lower()
    return port == str(info.port) and host in {info.host.lower(), "localhost", "127.0.0.1", "::1"}


def describe(info: ServerInfo) -> dict[str, Any]:
    """A JSON-friendly view of a running server (for the CLI)."""
    return {**asdict(info), "url": info.url}
