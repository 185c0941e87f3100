"""The lean transport's URL parsing and retry rules against PySpark's own (the oracle).

connect_plan.channel.UrlChannelBuilder re-does PySpark's ``DefaultChannelBuilder`` and
connect_plan.retries.Backoff PySpark's ``DefaultPolicy`` without importing PySpark (issue 17);
these tests hold them to PySpark 4.3's answers on the same inputs."""

from __future__ import annotations

from typing import Any

import grpc
import pytest

from connect_plan.channel import UrlChannelBuilder
from connect_plan.retries import Backoff

URLS = [
    "sc://localhost",
    "sc://localhost:15102",
    "sc://127.0.0.1:15102/",
    "sc://[::1]:15102",
    "sc://host.example.com:443/;use_ssl=true",
    "sc://host:1/;token=abc;user_id=ann",
    "sc://host:1/;token=a%2Fb%3Dc",
    "sc://host:1/;x-team=data;x-other=1;user_agent=myapp",
    "sc://host:1/;session_id=8a2f5e6c-54a5-4f4e-9a3b-2a1d9d0c1e11",
    "sc://host:1/;use_ssl=false;grpc_keepalive_time_ms=1000",
    "sc://user:pw@host:7",
]
BAD = [
    "http://localhost",
    "sc://",
    "sc:///;token=x",
    "sc://host:1/path",
    "sc://host:1/;novalue",
    "sc://host:1/;a=b=c",
    "sc://host:99999",
    "sc://host:1/;session_id=not-a-uuid",
    f"sc://host:1/;user_agent={'x' * 3000}",
]


def _facts(builder: Any) -> dict[str, Any]:
    return {
        "endpoint": builder.endpoint,
        "host": builder.host,
        "secure": builder.secure,
        "use_ssl": builder.use_ssl,
        "token": builder.token,
        "user": builder.userId,
        # PySpark before 4.3 has no keepalive and sends its URL parameters as headers; connect_plan
        # reads them on every version, as 4.3 does (test_transport's keepalive test proves it)
        "metadata": sorted(kv for kv in builder.metadata() if not kv[0].startswith("grpc_keepalive_")),
        "session": builder.session_id,
        "agent": builder.userAgent,
        "options": sorted(builder._channel_options),
    }


@pytest.mark.parametrize("url", URLS)
def test_urls_read_as_pyspark_reads_them(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from pyspark.sql.connect.client import DefaultChannelBuilder

    monkeypatch.delenv("SPARK_CONNECT_AUTHENTICATE_TOKEN", raising=False)
    theirs = _facts(DefaultChannelBuilder(url))
    ours = _facts(UrlChannelBuilder(url))
    assert ours == theirs


@pytest.mark.parametrize("url", BAD)
def test_urls_pyspark_refuses_are_refused(url: str) -> None:
    from pyspark.sql.connect.client import DefaultChannelBuilder

    def refused(make: Any) -> bool:
        try:
            b = make(url)
            b.session_id  # noqa: B018  (checked when read, in both)
            b.userAgent  # noqa: B018
        except Exception:
            return True
        return False

    assert refused(DefaultChannelBuilder)
    assert refused(UrlChannelBuilder)


def test_the_environment_token_is_read_as_pyspark_reads_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from pyspark.sql.connect.client import DefaultChannelBuilder

    monkeypatch.setenv("SPARK_CONNECT_AUTHENTICATE_TOKEN", "from-env")
    for url in ("sc://host:1", "sc://host:1/;token=in-url"):
        assert _facts(UrlChannelBuilder(url)) == _facts(DefaultChannelBuilder(url))


class _Status(grpc.RpcError):
    """A gRPC error as a call raises it (code, details, trailing metadata)."""

    def __init__(self, code: grpc.StatusCode, details: str = "", trailer: tuple[tuple[str, bytes], ...] = ()) -> None:
        self._code, self._details, self._trailer = code, details, trailer

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return self._details

    def trailing_metadata(self) -> tuple[tuple[str, bytes], ...]:
        return self._trailer

    def __str__(self) -> str:
        return f"<_Status {self._code} {self._details}>"


ERRORS = [
    _Status(grpc.StatusCode.UNAVAILABLE, "Socket closed"),
    _Status(grpc.StatusCode.INTERNAL, "INVALID_CURSOR.DISCONNECTED"),
    _Status(grpc.StatusCode.INTERNAL, "something else"),
    _Status(grpc.StatusCode.INVALID_ARGUMENT, "bad"),
    _Status(grpc.StatusCode.DEADLINE_EXCEEDED, ""),
    ValueError("not a gRPC error"),
]


@pytest.mark.parametrize("error", ERRORS, ids=lambda e: str(e)[:40])
def test_what_is_retried_is_what_pyspark_retries(error: BaseException) -> None:
    from pyspark.sql.connect.client.retries import DefaultPolicy

    assert Backoff(lambda: True).can_retry(error) == DefaultPolicy().can_retry(error)


def test_the_waits_are_pyspark_s(monkeypatch: pytest.MonkeyPatch) -> None:
    """Same waits, attempt by attempt, for the client's default policy and PySpark's
    defaults (jitter off, so both are deterministic); None once the retries are used up."""
    from pyspark.sql.connect.client.retries import DefaultPolicy

    error = ERRORS[0]
    for kwargs in ({"max_retries": 6, "initial_backoff": 50, "max_backoff": 2000, "backoff_multiplier": 4.0}, {}):
        theirs = DefaultPolicy(**kwargs, jitter=0).to_state()
        ours = Backoff(lambda: True, **kwargs, jitter=0).state()
        for _ in range(17):
            mine = ours(error)
            expected = theirs.next_attempt(error)
            assert (None if mine is None else round(mine * 1000)) == expected


def test_a_refused_connection_to_a_server_never_reached_is_not_retried() -> None:
    refused = _Status(grpc.StatusCode.UNAVAILABLE, "failed to connect to all addresses; last error: connection refused")
    assert not Backoff(lambda: False).can_retry(refused)
    assert Backoff(lambda: True).can_retry(refused)


def test_no_wait_runs_past_the_deadline() -> None:
    from connect_plan.deadlines import deadline

    waits = Backoff(lambda: True, initial_backoff=5000, max_backoff=60000).state()
    with deadline(0.2):
        wait = waits(ERRORS[0])
    assert wait is not None and wait <= 0.25


def _with_retry_info(code: grpc.StatusCode, seconds: int) -> _Status:
    """An error whose google.rpc.Status carries the server's RetryInfo (a retry delay)."""
    from google.protobuf import any_pb2
    from google.rpc import error_details_pb2, status_pb2

    detail = any_pb2.Any()
    detail.Pack(error_details_pb2.RetryInfo(retry_delay={"seconds": seconds}))
    status = status_pb2.Status(code=code.value[0], message="try later", details=[detail])
    return _Status(code, "try later", (("grpc-status-details-bin", status.SerializeToString()),))


@pytest.mark.parametrize("code", [grpc.StatusCode.RESOURCE_EXHAUSTED, grpc.StatusCode.UNAVAILABLE])
def test_the_servers_retry_delay_is_waited_as_pyspark_waits_it(code: grpc.StatusCode) -> None:
    """An error carrying RetryInfo is retried whatever its status, and each wait is at least
    the server's delay (capped at 10 minutes): the same as PySpark's DefaultPolicy, attempt by
    attempt (jitter off)."""
    from pyspark.sql.connect.client.retries import DefaultPolicy

    error = _with_retry_info(code, 3)
    assert Backoff(lambda: True).can_retry(error) and DefaultPolicy().can_retry(error)
    theirs = DefaultPolicy(jitter=0).to_state()
    ours = Backoff(lambda: True, jitter=0).state()
    waits = [ours(error) for _ in range(4)]
    assert [None if w is None else round(w * 1000) for w in waits] == [theirs.next_attempt(error) for _ in range(4)]
    assert waits[0] == 3.0  # the server's 3 s, not the 50 ms backoff
