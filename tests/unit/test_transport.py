"""Credentials and transport against real gRPC servers on loopback (no Spark needed): the
recording proxy of tests/support/proxies.py sees exactly what arrived, and with no upstream behind
it every call then fails, which these tests expect.

* a token implies TLS, also for ``localhost`` (where PySpark's own builder would send it in
  plaintext), so a plaintext server never receives it;
* plaintext with a token needs ``use_ssl=false`` and ``allow_insecure_token=True``, and warns;
* a custom CA is used for TLS, and the system roots reject the test certificate;
* headers reach the server; the token never appears in repr, errors, logs or CLI output.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import grpc
import pytest

import connect_plan
from connect_plan import InsecureTransportError, QueryTimeoutError, ServerError
from connect_plan.server import free_port
from connect_plan.transport import InsecureTokenWarning
from tests.support.proxies import Certificates, GrpcTlsProxy, TcpProxy, make_certificates
from tests.support.reference_transport import use_reference_transport

TOKEN = "tok-9f8e7d6c5b4a"  # a made-up test secret
DEAD_UPSTREAM = "127.0.0.1:9"  # the proxy forwards here: nothing listens


@pytest.fixture(scope="module")
def certs() -> Certificates:
    return make_certificates()


@pytest.fixture
def plain_server() -> Iterator[GrpcTlsProxy]:
    proxy = GrpcTlsProxy(DEAD_UPSTREAM, None)
    yield proxy
    proxy.stop()


@pytest.fixture
def tls_server(certs: Certificates) -> Iterator[GrpcTlsProxy]:
    proxy = GrpcTlsProxy(DEAD_UPSTREAM, certs)
    yield proxy
    proxy.stop()


def _one_call(client: Any) -> ServerError:
    with pytest.raises(ServerError) as info:
        client.server_version()
    return info.value


def test_a_token_implies_tls_even_for_localhost(plain_server: GrpcTlsProxy) -> None:
    """PySpark's builder would send this token in plaintext (local credentials for
    'localhost'); ours insists on TLS, so the plaintext server never sees a request."""
    with connect_plan.connect(
        f"sc://localhost:{plain_server.port}/;token={TOKEN}", retry_policy={"max_retries": 0}
    ) as c:
        assert c.internals.connector.secure
        err = _one_call(c)
    assert plain_server.calls == []
    assert TOKEN not in str(err)


def test_the_token_parameter_and_the_environment_variable_imply_tls_too(
    plain_server: GrpcTlsProxy, monkeypatch: pytest.MonkeyPatch
) -> None:
    with connect_plan.connect(f"sc://localhost:{plain_server.port}", token=TOKEN, retry_policy={"max_retries": 0}) as c:
        _one_call(c)
    monkeypatch.setenv("SPARK_CONNECT_AUTHENTICATE_TOKEN", TOKEN)
    with connect_plan.connect(f"sc://localhost:{plain_server.port}", retry_policy={"max_retries": 0}) as c:
        _one_call(c)
    assert plain_server.calls == []


def test_a_token_over_plaintext_needs_an_explicit_opt_in_and_warns(plain_server: GrpcTlsProxy) -> None:
    url = f"sc://127.0.0.1:{plain_server.port}/;use_ssl=false;token={TOKEN}"
    with pytest.raises(InsecureTransportError) as refused:
        connect_plan.connect(url)
    assert TOKEN not in str(refused.value) and "allow_insecure_token" in str(refused.value)
    with pytest.warns(InsecureTokenWarning, match="plaintext") as warned:
        c = connect_plan.connect(url, allow_insecure_token=True, retry_policy={"max_retries": 0})
    with c:
        _one_call(c)
    assert all(TOKEN not in str(w.message) for w in warned)
    # opted in: the server did get the bearer token (exactly once per call, in plaintext)
    assert plain_server.calls and all(md.get("authorization") == f"Bearer {TOKEN}" for md in plain_server.headers())


def test_tls_with_a_custom_ca_carries_token_and_headers(
    tls_server: GrpcTlsProxy, certs: Certificates, tmp_path: Path
) -> None:
    ca = tmp_path / "ca.pem"
    ca.write_bytes(certs.ca_pem)
    with connect_plan.connect(
        f"sc://127.0.0.1:{tls_server.port}",
        token=TOKEN,
        ca_cert=ca,
        headers={"X-Team": "data", "x-request-source": "tests"},
        retry_policy={"max_retries": 0},
    ) as c:
        _one_call(c)  # the proxy has no upstream: the call fails after it arrived
    assert tls_server.calls
    for md in tls_server.headers():
        assert md["authorization"] == f"Bearer {TOKEN}"
        assert md["x-team"] == "data" and md["x-request-source"] == "tests"


def test_the_system_roots_reject_an_unknown_ca(tls_server: GrpcTlsProxy) -> None:
    with connect_plan.connect(f"sc://127.0.0.1:{tls_server.port}/;use_ssl=true", retry_policy={"max_retries": 0}) as c:
        err = _one_call(c)
    assert isinstance(err, connect_plan.ServerUnavailableError)
    assert tls_server.calls == []  # the handshake failed before any request


def test_tls_without_a_token_works_with_use_ssl(tls_server: GrpcTlsProxy, certs: Certificates) -> None:
    with connect_plan.connect(
        f"sc://127.0.0.1:{tls_server.port}/;use_ssl=true", ca_cert=certs.ca_pem, retry_policy={"max_retries": 0}
    ) as c:
        _one_call(c)
    assert tls_server.calls and all("authorization" not in md for md in tls_server.headers())


def test_bad_transport_options_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(connect_plan.ConnectPlanError, match="does not use TLS"):
        connect_plan.connect("sc://127.0.0.1:9", ca_cert=b"-----BEGIN CERTIFICATE-----")
    with pytest.raises(connect_plan.ConnectPlanError, match="cannot read the CA"):
        connect_plan.connect("sc://127.0.0.1:9/;use_ssl=true", ca_cert=tmp_path / "missing.pem")
    for header in ("authorization", "token", "user_id"):
        with pytest.raises(connect_plan.ConnectPlanError, match="cannot be sent as a header"):
            connect_plan.connect("sc://127.0.0.1:9", headers={header: "x"})
    for bad in (0, -1, "5", True):
        with pytest.raises(ValueError, match="timeout"):
            connect_plan.connect("sc://127.0.0.1:9", timeout=bad)


def _channel_options(builder: Any) -> dict[str, Any]:
    """What the channel is built with: PySpark 4.3 adds its keepalive settings on top of the
    builder's options (unless set), PySpark before 4.3 passes the options as they are."""
    effective = getattr(builder, "_effective_channel_options", None)
    return dict(effective() if effective else builder._channel_options)


def test_keepalive_pings_come_from_the_url_on_every_pyspark_version() -> None:
    """PySpark before 4.3 (pyspark-client 4.2 with Sail, PySpark 4.2 on Python 3.10) has no
    keepalive: a connection that went silent during a call without a timeout hung forever
    (tests/integration/test_faults.py: more than 600 s on PySpark 4.2.1, where PySpark 4.3
    failed the call within 30 s). The thin CI job runs this on PySpark 4.2."""
    from connect_plan.transport import ChannelBuilder

    opts = _channel_options(ChannelBuilder("sc://127.0.0.1:9"))
    assert (opts["grpc.keepalive_time_ms"], opts["grpc.keepalive_timeout_ms"]) == (
        60_000,
        20_000,
    )  # PySpark 4.3's defaults
    assert opts["grpc.keepalive_permit_without_calls"] == 1 and opts["grpc.http2.ping_timeout_ms"] == 20_000
    opts = _channel_options(
        ChannelBuilder(
            "sc://127.0.0.1:9/;grpc_keepalive_time_ms=10000;grpc_keepalive_timeout_ms=2000;grpc_keepalive_without_calls=false"
        )
    )
    assert (opts["grpc.keepalive_time_ms"], opts["grpc.keepalive_timeout_ms"], opts["grpc.http2.ping_timeout_ms"]) == (
        10_000,
        2_000,
        2_000,
    )
    assert opts["grpc.keepalive_permit_without_calls"] == 0
    opts = _channel_options(ChannelBuilder("sc://127.0.0.1:9/;grpc_keepalive_enabled=false"))
    assert "grpc.keepalive_time_ms" not in opts and "grpc.http2.ping_timeout_ms" not in opts
    # options given by the caller win
    opts = _channel_options(ChannelBuilder("sc://127.0.0.1:9", channel_options=[("grpc.keepalive_time_ms", 7_000)]))
    assert opts["grpc.keepalive_time_ms"] == 7_000 and opts["grpc.keepalive_timeout_ms"] == 20_000


@pytest.mark.parametrize(
    "param",
    [
        "grpc_keepalive_time_ms=soon",
        "grpc_keepalive_time_ms=²",
        "grpc_keepalive_timeout_ms=3000000000",
        "grpc_keepalive_timeout_ms=0",
        "grpc_keepalive_time_ms=-5",
        "grpc_keepalive_enabled=yes",
        "grpc_keepalive_without_calls=1",
    ],
)
def test_bad_keepalive_parameters_are_clear_errors(param: str) -> None:
    name, value = param.split("=")
    with pytest.raises(connect_plan.ConnectPlanError) as info:
        connect_plan.connect(f"sc://127.0.0.1:9/;{param}")
    assert str(info.value).startswith(f"URL parameter {name} must be "), info.value  # not a wrapped ValueError
    assert repr(value) in str(info.value)


def test_keepalive_parameters_are_not_sent_as_headers(plain_server: GrpcTlsProxy) -> None:
    """PySpark before 4.3 sends every URL parameter it does not know as a header."""
    url = f"sc://127.0.0.1:{plain_server.port}/;grpc_keepalive_time_ms=30000;x-team=data"
    with connect_plan.connect(url, retry_policy={"max_retries": 0}) as c:
        _one_call(c)
    assert plain_server.calls
    for md in plain_server.headers():
        assert md["x-team"] == "data" and not any(k.startswith("grpc_keepalive") for k in md), md


#: credentials as they are written in URLs: a plain token; a base64 token (its '/', '+' and
#: '=' percent-encoded, as the URL needs: PySpark takes '/' for a path and splits on '=');
#: a password in the URL's userinfo. Each with the strings that must never appear.
B64_TOKEN = "Zm9v/YmFy+SeCrEt/cXV4=="
CREDENTIAL_URLS = {
    "token": (f"/;token={TOKEN}", None, (TOKEN,)),
    "base64_token": (
        f"/;token={quote(B64_TOKEN, safe='')}",
        B64_TOKEN,
        (B64_TOKEN, quote(B64_TOKEN, safe=""), "SeCrEt", "cXV4"),
    ),
    "userinfo_password": ("/", None, ("pw-SeCrEt",)),
}


def _leaks(texts: list[str], secrets: tuple[str, ...]) -> list[str]:
    return [t for t in texts for s in secrets if s in t]


@pytest.mark.parametrize("kind", ["grpc", "pyspark"])
@pytest.mark.parametrize("form", sorted(CREDENTIAL_URLS))
def test_the_token_never_appears_in_repr_errors_or_logs(
    form: str,
    kind: str,
    tls_server: GrpcTlsProxy,
    certs: Certificates,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from pyspark.sql.connect.logging import logger as pyspark_logger

    if kind == "pyspark":  # the production transport, and PySpark's client (the tests' reference)
        use_reference_transport(monkeypatch)
    monkeypatch.setattr(pyspark_logger, "disabled", False)  # PySpark's Connect log is off by default
    caplog.set_level(logging.DEBUG)
    for name in ("pyspark.sql.connect.logging", "connect_plan", "grpc"):
        caplog.set_level(logging.DEBUG, logger=name)
    suffix, sent_token, secrets = CREDENTIAL_URLS[form]
    userinfo = "user:pw-SeCrEt@" if form == "userinfo_password" else ""
    url = f"sc://{userinfo}127.0.0.1:{tls_server.port}{suffix}"
    texts: list[str] = []
    options: dict[str, Any] = {} if sent_token or form == "token" else {"token": TOKEN}
    with connect_plan.connect(
        url, ca_cert=certs.ca_pem, retry_policy={"max_retries": 1, "initial_backoff": 10}, **options
    ) as c:
        texts += [repr(c), c.url]
        err = _one_call(c)
        texts += [str(err), repr(err), err.message, str(err.server_stacktrace)]
        cause: BaseException | None = err
        while cause is not None:
            texts.append(str(cause))
            cause = cause.__cause__ or cause.__context__
        with pytest.raises(connect_plan.ConnectPlanError) as plan_err:
            c.explain([{"op": "select", "payload": ["a"]}], [[1]], [("a", "int")])
        texts.append(str(plan_err.value))
    # the token did travel (over TLS), decoded from the URL
    assert tls_server.calls and all(
        md["authorization"] == f"Bearer {sent_token or TOKEN}" for md in tls_server.headers()
    )
    for bad in (
        f"sc://127.0.0.1:9/path;token={TOKEN}",
        f"sc://{userinfo}127.0.0.1:9/path{suffix}",
        f"sc://127.0.0.1:9/;token={B64_TOKEN}",
        "sc://127.0.0.1:9/;token=ab/cdSeCrEt",
        "sc://127.0.0.1:9/;token=ab+SeCrEt==",
    ):
        with pytest.raises(connect_plan.ConnectPlanError) as bad_url:
            connect_plan.connect(bad)
        texts.append(str(bad_url.value))
    texts.append(caplog.text)
    if kind == "pyspark":
        assert "pyspark.sql.connect" in caplog.text  # PySpark's own debug log was captured too
    assert "rpc AnalyzePlan" in caplog.text  # connect_plan's debug log of every RPC was captured
    assert not _leaks(texts, (*secrets, TOKEN, "cdSeCrEt"))
    assert "percent-encoded" in texts[-2]  # the malformed token URL says how to write one
    assert ("sc://***@127.0.0.1" if userinfo else "token=***") in repr(c)


def test_redact_hides_whole_tokens_and_passwords() -> None:
    from connect_plan.client import redact, url_secrets

    assert redact("sc://h:1/;token=ab/cd+ef==;user_id=me") == "sc://h:1/;token=***;user_id=me"
    assert redact("at sc://h:1/;token=ab/cd: refused") == "at sc://h:1/;token=*** refused"
    assert redact("Parameter 'token=ab==' should be") == "Parameter 'token=***' should be"
    assert redact("sc://me:p@ss@h:1/;token=x") == "sc://***@h:1/;token=***"
    assert redact("http://me:pw@h:1/x") == "http://***@h:1/x"
    assert redact("sc://h:1/;user_id=me") == "sc://h:1/;user_id=me"
    assert url_secrets("sc://u:p%40w@h:1/;use_ssl=true;token=a%2Fb") == ("p%40w", "p@w", "a%2Fb", "a/b")
    assert url_secrets("sc://h:1") == ()


def test_the_cli_never_prints_the_token(tmp_path: Path) -> None:
    doc = tmp_path / "plan.json"
    doc.write_text('{"input": {"schema": [{"name": "a", "type": "int"}], "rows": [[1]]}, "plan": []}')
    root = Path(__file__).resolve().parent.parent.parent
    b64 = quote(B64_TOKEN, safe="")
    for remote in (
        f"sc://127.0.0.1:{free_port()}/;token={TOKEN}",
        f"sc://127.0.0.1:{free_port()}/;token={b64}",
        f"sc://u:pw-SeCrEt@127.0.0.1:{free_port()}/;token={TOKEN}",
    ):
        env = {**os.environ, "PYTHONPATH": str(root), "SPARK_REMOTE": remote}
        for args in (
            ["run", str(doc)],
            ["explain", str(doc), "--analyzed"],
            ["explain", str(doc)],
            ["run", str(doc), "--remote", f"sc://127.0.0.1:9/;use_ssl=false;token={TOKEN}"],
            ["run", str(doc), "--remote", "sc://127.0.0.1:9/;token=ab/cdSeCrEt"],
        ):
            out = subprocess.run(
                [sys.executable, "-m", "connect_plan", *args], capture_output=True, text=True, env=env, timeout=120
            )
            assert not _leaks([out.stdout + out.stderr], (TOKEN, B64_TOKEN, b64, "SeCrEt")), out.stderr
            if args[1:] != [str(doc)] or args[0] == "run":  # all but the offline explain reach for the server
                assert out.returncode != 0 and out.stderr.strip()


def test_a_server_that_is_not_running_is_reported_at_once() -> None:
    """Connection refused before this client ever reached the server is not retried."""
    with connect_plan.connect(f"sc://127.0.0.1:{free_port()}") as c:
        start = time.monotonic()
        with pytest.raises(connect_plan.ServerUnavailableError, match="connection refused") as info:
            c.execute([], [[1]], [("a", "int")])
        took = time.monotonic() - start
    assert took < 1.5, f"took {took:.2f} s"
    assert "is the server running" in str(info.value)


def test_a_server_that_never_answers_is_bounded_by_the_timeout() -> None:
    """A peer that accepts TCP connections and never answers (a hung server, a black-holed
    network): ``timeout=`` bounds the call to the timeout plus a second, the release and
    interrupt sent after it included, and close() adds nothing. (Before: 7.1 s for
    execute(timeout=2), 3.0 s more for close(), 10 s for execute_plan(timeout=2): the
    interrupt's 5 s grace, PySpark's release waiting for the connection attempt to fail.)"""
    peer = TcpProxy("127.0.0.1", 9)
    peer.mode = "stall"
    peers = [peer]
    # what a first call imports (translation, Arrow) is loaded before the clock starts: the
    # figures are of the network's bound, not of imports on a loaded machine (seen: 3.4 s)
    connect_plan.translate([[1]], [("a", "int")], [{"op": "limit", "payload": {"n": 1}}])
    try:
        figures = {}
        c = connect_plan.connect(peer.url)
        for name, call in (
            ("execute", lambda: c.execute([], [[1]], [("a", "int")], timeout=2)),
            ("stream", lambda: c.stream([], [[1]], [("a", "int")], timeout=2)),
            ("schema", lambda: c.schema([{"op": "limit", "payload": {"n": 1}}], [[1]], [("a", "int")], timeout=2)),
        ):
            start = time.monotonic()
            with pytest.raises(QueryTimeoutError):
                call()
            figures[name] = time.monotonic() - start
        c.close()
        # a session that already knows the server's version (as after a first query) goes
        # straight to ExecutePlan for a plan without inline data (inline data would first read
        # the cache settings): the timeout meets the result stream, and the release and
        # interrupt sent after it are not answered either (a new peer for each call: gRPC gives
        # up connecting 10 s after the first attempt and then fails at once with UNAVAILABLE,
        # and it shares one connection attempt among the channels to the same address, so a
        # new client to the same peer would inherit the first one's clock)
        ranged = {"input": {"range": 1}, "plan": []}
        for name, verb in (("execute (version known)", "execute"), ("stream (version known)", "stream")):
            own = TcpProxy("127.0.0.1", 9)
            own.mode = "stall"
            peers.append(own)
            c = connect_plan.connect(own.url)
            c.internals.session.version = "4.3.0"
            start = time.monotonic()
            with pytest.raises(QueryTimeoutError, match="could not be told to interrupt it") as info:
                getattr(c, verb)(ranged, timeout=2)
            figures[name] = time.monotonic() - start
            assert info.value.unanswered
            start = time.monotonic()
            c.close()
            figures[f"close after {verb}"] = time.monotonic() - start
        own = TcpProxy("127.0.0.1", 9)
        own.mode = "stall"
        peers.append(own)
        start = time.monotonic()
        with pytest.raises(QueryTimeoutError):
            connect_plan.execute_plan([[1]], [("a", "int")], [], remote=own.url, timeout=2)
        figures["execute_plan"] = time.monotonic() - start
        print("\n[never answers] " + ", ".join(f"{k} {v:.2f} s" for k, v in figures.items()))
        for name in (
            "execute",
            "stream",
            "schema",
            "execute (version known)",
            "stream (version known)",
            "execute_plan",
        ):
            assert 2 <= figures[name] < 2 + 1, (name, figures)
        assert figures["close after execute"] < 0.5 and figures["close after stream"] < 0.5, figures
    finally:
        for each in peers:
            each.close()


def test_retry_waits_end_at_the_deadline() -> None:
    """A server that keeps answering UNAVAILABLE is retried with growing waits (50 ms ×4 up
    to 2 s); no wait runs past the operation's timeout (the 2 s one overshot by ~1.5 s)."""
    proxy = GrpcTlsProxy(DEAD_UPSTREAM, None)
    proxy.fault = lambda method: grpc.StatusCode.UNAVAILABLE  # retryable, and not 'refused'
    try:
        with connect_plan.connect(f"sc://127.0.0.1:{proxy.port}") as c:
            start = time.monotonic()
            with pytest.raises(ServerError):
                c.server_version(timeout=1.5)
            took = time.monotonic() - start
        calls = sum(m.endswith("/AnalyzePlan") for m, _ in proxy.calls)
        print(f"\n[retries] server_version(timeout=1.5) against UNAVAILABLE: {took:.2f} s, {calls} attempts")
        assert calls >= 3  # it was retried
        assert took < 1.5 + 0.3, took
    finally:
        proxy.stop()
