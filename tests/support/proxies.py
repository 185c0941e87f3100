"""Real network parts for the reliability tests, all on loopback and stopped by the tests:

* :func:`make_certificates` — a throwaway CA and a server certificate for 127.0.0.1 and
  localhost, generated with ``cryptography``;
* :class:`GrpcTlsProxy` — a TLS-terminating gRPC proxy: a real ``grpc.server`` with the
  generated certificate (or plaintext, without one) that records every call's method and
  metadata (so a test can see the token and headers that arrived, or count round trips)
  and every unary request, and forwards the call to a plaintext Spark Connect server; its
  ``fault`` hook may fail chosen calls;
* :class:`TcpProxy` — a TCP proxy that can pass traffic, stall it (connections stay open,
  nothing moves: a black-holed network), drop every connection, or refuse new ones.
"""

from __future__ import annotations

import datetime
import ipaddress
import select
import socket
import threading
from collections.abc import Iterator
from concurrent import futures
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Certificates:
    ca_pem: bytes
    cert_pem: bytes
    key_pem: bytes


def make_certificates() -> Certificates:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "connect_plan test CA")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                key_cert_sign=True,
                crl_sign=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")]))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    return Certificates(
        ca_pem=ca.public_bytes(serialization.Encoding.PEM),
        cert_pem=cert.public_bytes(serialization.Encoding.PEM),
        key_pem=key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        ),
    )


def _method_kinds() -> dict[str, tuple[bool, bool]]:
    from pyspark.sql.connect.proto import base_pb2

    service = base_pb2.DESCRIPTOR.services_by_name["SparkConnectService"]
    return {f"/{service.full_name}/{m.name}": (m.client_streaming, m.server_streaming) for m in service.methods}


#: metadata the proxy does not pass on (transport-level, or the credential it checked)
_HOP = {"authorization", "user-agent", "te", "content-type", "grpc-accept-encoding", "accept-encoding"}


def _remaining(context: Any) -> float | None:
    """The caller's deadline for the forwarded call; None when it set none (gRPC Python
    then reports a time remaining of years, which Sail's server, tonic, reads as an
    already expired grpc-timeout)."""
    t = context.time_remaining()
    return None if t is None or t > 365 * 86400 else t


class GrpcTlsProxy:
    """Terminates TLS (and, with ``token``, checks the bearer token like a server that
    requires one) and forwards every Spark Connect call to ``upstream`` in plaintext.

    ``fault``, when set, is called with each call's method name (``/spark.connect.
    SparkConnectService/AnalyzePlan``) before it is forwarded; a ``grpc.StatusCode`` it
    returns fails that call with that status instead (a network or server fault on
    exactly the calls a test chooses)."""

    def __init__(self, upstream: str, certs: Certificates | None, token: str | None = None) -> None:
        import grpc

        self.calls: list[tuple[str, dict[str, str]]] = []
        #: (method, serialised request) of every unary call (Config, AnalyzePlan, ReleaseExecute...)
        self.requests: list[tuple[str, bytes]] = []
        #: operation ids of the reattachable executions started (ExecutePlan), and of those
        #: released whole or interrupted: see :meth:`settled`
        self.executions: list[str] = []
        self.ended: set[str] = set()
        self.fault: Any = None
        self._token = token
        self._channel = grpc.insecure_channel(
            upstream,
            options=[("grpc.max_receive_message_length", 256 << 20), ("grpc.max_send_message_length", 256 << 20)],
        )
        self._kinds = _method_kinds()
        self.server = grpc.server(
            futures.ThreadPoolExecutor(max_workers=16),
            options=[("grpc.max_receive_message_length", 256 << 20), ("grpc.max_send_message_length", 256 << 20)],
        )
        self.server.add_generic_rpc_handlers([self._handler()])
        if certs is None:
            self.port = self.server.add_insecure_port("127.0.0.1:0")
        else:
            creds = grpc.ssl_server_credentials([(certs.key_pem, certs.cert_pem)])
            self.port = self.server.add_secure_port("127.0.0.1:0", creds)
        self.server.start()

    def stop(self) -> None:
        self.server.stop(grace=None)
        self._channel.close()

    def headers(self) -> list[dict[str, str]]:
        return [md for _, md in self.calls]

    def settled(self) -> bool:
        """Whether every reattachable execution that went by has been released whole or
        interrupted. Clients send ReleaseExecute in the background after the call that read the
        result has returned, so a test counting what a later call sends waits for this first."""
        return all(op in self.ended for op in self.executions)

    def _note(self, method: str, request: bytes) -> None:
        from connect_plan.spark_proto import pb

        name = method.rsplit("/", 1)[1]
        if name == "ExecutePlan":
            req = pb.ExecutePlanRequest.FromString(request)
            reattachable = any(
                o.HasField("reattach_options") and o.reattach_options.reattachable for o in req.request_options
            )
            if reattachable and req.operation_id:
                self.executions.append(req.operation_id)
        elif name == "ReleaseExecute":
            release = pb.ReleaseExecuteRequest.FromString(request)
            if release.HasField("release_all"):
                self.ended.add(release.operation_id)
        elif name == "Interrupt":
            interrupt = pb.InterruptRequest.FromString(request)
            if interrupt.HasField("operation_id"):
                self.ended.add(interrupt.operation_id)

    def _handler(self) -> Any:
        import grpc

        proxy = self

        class Handler(grpc.GenericRpcHandler):
            def service(self, details: Any) -> Any:
                kind = proxy._kinds.get(details.method)
                if kind is None:
                    return None
                metadata = {k: v for k, v in details.invocation_metadata}
                proxy.calls.append((details.method, metadata))
                forward = [
                    (k, v) for k, v in details.invocation_metadata if k not in _HOP and not k.startswith("grpc-")
                ]
                method = details.method

                def check(context: Any) -> None:
                    if proxy._token is not None and metadata.get("authorization") != f"Bearer {proxy._token}":
                        context.abort(grpc.StatusCode.UNAUTHENTICATED, "missing or wrong bearer token")
                    code = proxy.fault(method) if proxy.fault is not None else None
                    if code is not None:
                        context.abort(code, f"fault injected by the test proxy ({code.name})")

                def relay(context: Any, call: Any) -> Any:
                    try:
                        return call()
                    except grpc.RpcError as e:
                        context.set_trailing_metadata(e.trailing_metadata() or ())
                        context.abort(e.code(), e.details() or "")

                client_streaming, server_streaming = kind
                if not client_streaming and not server_streaming:

                    def unary_unary(request: bytes, context: Any) -> Any:
                        proxy.requests.append((method, request))
                        proxy._note(method, request)
                        check(context)
                        return relay(
                            context,
                            lambda: proxy._channel.unary_unary(method)(
                                request, metadata=forward, timeout=_remaining(context)
                            ),
                        )

                    return grpc.unary_unary_rpc_method_handler(unary_unary)
                if not client_streaming:

                    def unary_stream(request: bytes, context: Any) -> Iterator[Any]:
                        proxy._note(method, request)
                        check(context)
                        call = proxy._channel.unary_stream(method)(
                            request, metadata=forward, timeout=_remaining(context)
                        )
                        context.add_callback(call.cancel)
                        try:
                            yield from call
                        except grpc.RpcError as e:
                            context.set_trailing_metadata(e.trailing_metadata() or ())
                            context.abort(e.code(), e.details() or "")

                    return grpc.unary_stream_rpc_method_handler(unary_stream)
                if not server_streaming:

                    def stream_unary(requests: Iterator[bytes], context: Any) -> Any:
                        check(context)
                        return relay(
                            context,
                            lambda: proxy._channel.stream_unary(method)(
                                requests, metadata=forward, timeout=_remaining(context)
                            ),
                        )

                    return grpc.stream_unary_rpc_method_handler(stream_unary)
                return None

        return Handler()


class TcpProxy:
    """Forwards loopback TCP connections to ``(host, port)``; ``mode`` says what happens:
    ``pass`` (forward), ``stall`` (accept and hold connections, forward nothing),
    ``refuse`` (close new connections at once). :meth:`drop` resets every open connection."""

    def __init__(self, host: str, port: int) -> None:
        self.target = (host, port)
        self.mode = "pass"
        self.connections = 0
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(64)
        # accept() polls so that close() can stop the thread and join it: closing a listener
        # does not wake an accept() blocked in another thread on Linux, and a connection
        # accepted while close() ran was left open (a ResourceWarning in a later test)
        self._listener.settimeout(0.05)
        self.port = self._listener.getsockname()[1]
        self._pairs: list[tuple[socket.socket, socket.socket | None]] = []
        self._lock = threading.Lock()
        self._closed = False
        self._acceptor = threading.Thread(target=self._accept, name="tcp-proxy-accept", daemon=True)
        self._acceptor.start()

    @property
    def url(self) -> str:
        return f"sc://127.0.0.1:{self.port}"

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            client.settimeout(None)
            self.connections += 1
            if self.mode == "refuse":
                _reset(client)
                continue
            upstream = None
            if self.mode == "pass":
                try:
                    upstream = socket.create_connection(self.target, timeout=5)
                except OSError:
                    _reset(client)
                    continue
            with self._lock:
                if self._closed:  # close() ran while this connection was being set up
                    _reset(client)
                    if upstream is not None:
                        _reset(upstream)
                    return
                self._pairs.append((client, upstream))
            if upstream is not None:
                threading.Thread(target=self._pump, args=(client, upstream), daemon=True).start()

    def _pump(self, a: socket.socket, b: socket.socket) -> None:
        socks = [a, b]
        try:
            while not self._closed:
                if self.mode == "stall":
                    select.select([], [], [], 0.05)
                    continue
                ready, _, _ = select.select(socks, [], [], 0.05)
                for s in ready:
                    data = s.recv(65536)
                    if not data:
                        return
                    (b if s is a else a).sendall(data)
        except (OSError, ValueError):  # a socket closed under us by drop()/close()
            return
        finally:
            for s in socks:
                _close(s)

    def drop(self) -> int:
        """Reset every open connection (RST, as a failing middlebox would); how many."""
        with self._lock:
            pairs, self._pairs = self._pairs, []
        for client, upstream in pairs:
            _reset(client)
            if upstream is not None:
                _reset(upstream)
        return len(pairs)

    def close(self) -> None:
        with self._lock:
            self._closed = True
        self._acceptor.join(timeout=5)
        _close(self._listener)
        self.drop()


def proxy_in_front_of(spark_url: str) -> Iterator[GrpcTlsProxy]:
    """A plaintext recording proxy in front of the test server (skips on an in-process one);
    for a module-scoped fixture: ``yield from proxy_in_front_of(spark_url)``."""
    from urllib.parse import urlparse

    import pytest

    if not spark_url.startswith("sc://"):
        pytest.skip("needs a network Spark Connect server")
    target = urlparse("http" + spark_url[2:].split("/;")[0])
    p = GrpcTlsProxy(f"{target.hostname}:{target.port}", None)
    try:
        yield p
    finally:
        p.stop()


def _reset(s: socket.socket) -> None:
    try:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
    except OSError:
        pass
    _close(s)


def _close(s: socket.socket) -> None:
    try:
        s.close()
    except OSError:
        pass


def settle(client: Any) -> None:
    """Wait for the ReleaseExecute calls ``client``'s transport sends from its thread pool
    after a query (so that a count of RPCs taken after this sees none of them)."""
    import concurrent.futures

    concurrent.futures.wait(list(client.internals.transport.release_futures), timeout=30)
