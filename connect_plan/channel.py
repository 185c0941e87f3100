"""The gRPC channel to a Spark Connect server: credentials, guards, deadline caps, retries.

The production transport (:class:`~connect_plan.grpc_transport.GrpcTransport`) calls the
service through a :class:`DirectStub`, which does per call what gRPC interceptors would, and
reads response streams in the calling thread (:data:`SINGLE_THREADED_STREAMS`). Each part
re-does what PySpark's Connect client does, without importing it (issue 17):

* **URL** — :class:`UrlChannelBuilder` parses ``sc://host:port/;token=...;use_ssl=...;user_id=...``
  as PySpark's ``DefaultChannelBuilder`` does (keepalive settings and extra parameters,
  which become gRPC headers).
* **Credentials** — :class:`ChannelRules` differs from the ``sc://`` convention in one
  case: for the host ``localhost`` PySpark sends a token over a *plaintext* connection
  (gRPC "local" credentials). Here a token always implies TLS; plaintext with a token needs
  both ``use_ssl=false`` and ``allow_insecure_token=True``, and warns
  (:class:`InsecureTokenWarning`). ``ca_cert`` (PEM) replaces the system roots for TLS;
  ``headers`` adds gRPC metadata to every call. Each channel is also guarded: gRPC crashes
  the process when a call starts on a closed channel, so :func:`close_channel` closes it
  under a lock that :func:`start_call` (background clean-up calls) takes too, and any
  later call is refused with an error.
* **Deadlines** — every RPC's timeout is capped by what is left of the thread's operation
  deadline (:mod:`connect_plan.deadlines`), and none starts once it has passed
  (:class:`~connect_plan.errors.QueryTimeoutError`). The transport's per-RPC deadlines and
  keepalive pings stay in force underneath.
* **Logging** — at DEBUG, the ``connect_plan`` logger records every RPC when it ends: its
  method, gRPC status, duration and operation id (when the request has one). Never the
  request's metadata, so never a token.

Retries of failed calls: :mod:`connect_plan.retries`.

The tests' reference transport (tests/support/reference_transport.py) builds PySpark's own
client over PySpark's builder with the same :class:`ChannelRules`.
"""

from __future__ import annotations

import logging
import os
import threading
import time
import warnings
import weakref
from collections.abc import Mapping
from typing import Any

from .deadlines import remaining, timeout_error
from .errors import ConnectPlanError, InsecureTransportError

__all__ = [
    "CHANNEL_DEFAULTS",
    "SINGLE_THREADED_STREAMS",
    "ChannelBuilder",
    "ChannelRules",
    "DirectStub",
    "InsecureTokenWarning",
    "LeanChannelBuilder",
    "UrlChannelBuilder",
    "capped_timeout",
    "channel_guard",
    "close_channel",
    "start_call",
]

log = logging.getLogger("connect_plan")

#: channel options set unless the caller gives them:
#: * keepalive pings (PySpark's: every 60 s, 20 s to answer, also between calls) go on
#:   during a long silent call; gRPC would stop after 2 pings without data, and a
#:   connection that died during a long query would then go unnoticed (the time to
#:   answer is applied as ``grpc.http2.ping_timeout_ms`` too, see :func:`ChannelBuilder`);
#: * a connection attempt to a host that accepts TCP but never answers HTTP/2 (a hung
#:   server, a black-holed network) gives up after 10 s instead of gRPC's 20 s;
#: * a channel whose server went away tries again at least every 5 s instead of backing
#:   off up to 120 s, so a restarted server is found.
CHANNEL_DEFAULTS: tuple[tuple[str, int], ...] = (
    ("grpc.http2.max_pings_without_data", 0),
    ("grpc.min_reconnect_backoff_ms", 10_000),
    ("grpc.max_reconnect_backoff_ms", 5_000),
)

#: gRPC Python's channel option (``grpc.experimental.ChannelOptions.SingleThreadedUnaryStream``)
#: for response streams read in the calling thread, without the channel's polling thread
SINGLE_THREADED_STREAMS = "SingleThreadedUnaryStream"

#: the URL's keepalive parameters and PySpark's defaults for them (PySpark 4.3, SPARK-58094:
#: a ping after 60 s without data, 20 s to answer, also between calls)
_KEEPALIVE_DEFAULTS: dict[str, str] = {
    "grpc_keepalive_enabled": "true",
    "grpc_keepalive_time_ms": "60000",
    "grpc_keepalive_timeout_ms": "20000",
    "grpc_keepalive_without_calls": "true",
}

#: URL parameters PySpark's builder consumes itself (never sent as headers)
_RESERVED = frozenset({"token", "use_ssl", "user_id", "user_agent", "session_id", *_KEEPALIVE_DEFAULTS})


class InsecureTokenWarning(UserWarning):
    """A bearer token is being sent over a plaintext (non-TLS) connection."""


# ---------------------------------------------------------------------------- closing


class _ChannelGuard:
    """Whether one channel is closed, and the lock under which calls are started on it.

    gRPC Python crashes the process (a segmentation fault in
    ``_get_registered_call_handle``) when a call is started on a closed channel, as
    PySpark's generated stubs do; closing cancels the calls already running, which is
    safe. So a channel is closed under the lock (:func:`close_channel`), clean-up calls
    made from other threads are started under it (:func:`start_call`), and any other call
    is refused once the channel is closed (the guard interceptor)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.closed = False


_GUARDS: weakref.WeakKeyDictionary[Any, _ChannelGuard] = weakref.WeakKeyDictionary()


def _guard(channel: Any) -> _ChannelGuard | None:
    try:
        return _GUARDS.get(channel)
    except TypeError:  # not weak-referenceable: not a channel made here
        return None


def channel_guard(channel: Any) -> _ChannelGuard:
    """The guard of ``channel`` (a new one for a channel made elsewhere, kept while it lives
    where it can be)."""
    guard = _guard(channel)
    if guard is None:
        guard = _ChannelGuard()
        try:
            _GUARDS[channel] = guard
        except TypeError:  # not weak-referenceable: guarded by this transport alone
            pass
    return guard


def start_call(channel: Any, method: Any, request: Any, **kwargs: Any) -> Any:
    """Start ``method`` (a multicallable of a stub on ``channel``) as a future, unless the
    channel is closed (None then): safe from any thread while another closes the channel."""
    guard = _guard(channel)
    if guard is None:
        return method.future(request, **kwargs)
    with guard.lock:
        if guard.closed:
            return None
        return method.future(request, **kwargs)


def close_channel(channel: Any) -> None:
    """Close ``channel``: calls still running are cancelled, and no call starts on it after
    (see :class:`_ChannelGuard`)."""
    guard = _guard(channel)
    if guard is None:
        channel.close()
        return
    with guard.lock:
        if guard.closed:
            return
        guard.closed = True
        channel.close()


def _log_rpc(method: str, request: Any, started: float, code: Any) -> None:
    """The DEBUG line of one RPC that ended: method, gRPC status, duration, operation and
    session ids; never the metadata, so never a token."""
    operation = getattr(request, "operation_id", "") or ""
    session = getattr(request, "session_id", "") or ""
    log.debug(
        "rpc %s %s in %.1f ms%s%s",
        method,
        getattr(code, "name", None) or "UNKNOWN",
        (time.monotonic() - started) * 1000,
        f" operation {operation}" if operation else "",
        f" session {session}" if session else "",
    )


def _log_when_done(call: Any, method: str, request: Any, started: float) -> None:
    """Log ``call`` (a call object or future) with :func:`_log_rpc` once it ends."""

    def done(outcome: Any) -> None:
        try:
            code = outcome.code()
        except Exception:  # a call that failed before it started has no code to tell
            code = None
        _log_rpc(method, request, started, code)

    add = getattr(call, "add_done_callback", None)
    if add is not None:
        try:
            add(done)
        except Exception:  # not every call object takes callbacks; the call itself is unaffected
            pass


def capped_timeout(timeout: float | None) -> float | None:
    """An RPC's ``timeout`` capped by what is left of the thread's operation deadline;
    :class:`~connect_plan.errors.QueryTimeoutError` once it has passed."""
    left = remaining()
    if left is None:
        return timeout
    if left <= 0:
        raise timeout_error()
    return left if timeout is None else min(timeout, left)


class DirectStub:
    """The Spark Connect service stub of the transport's channel (:class:`~connect_plan.grpc_transport.
    GrpcTransport`): what gRPC interceptors would do, done in one plain call wrapper per
    method instead of gRPC's interceptor machinery. Each call is refused once the
    channel is closed (see :class:`_ChannelGuard`), its timeout capped by the thread's
    operation deadline (:func:`capped_timeout`), the builder's extra metadata added (a token
    sent in plaintext), and it is logged at DEBUG when it ends.

    Why not interceptors: gRPC Python runs every intercepted call through a chain of
    continuations, call-details tuples and (for unary calls) outcome objects per interceptor;
    the three layers cost ~0.4 ms of a small query on an in-process Sail server (2.44 vs
    2.06 ms for one ExecutePlan, measured 2026-11-28), about as much as the server's work."""

    def __init__(self, stub: Any, guard: _ChannelGuard, metadata: tuple[tuple[str, str], ...] = ()) -> None:
        self._stub = stub
        self._guard = guard
        self._extra = metadata

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._stub, name)
        if not name[:1].isupper():
            return method
        wrapped = _DirectMethod(method, name, self._guard, self._extra)
        setattr(self, name, wrapped)  # made once per method
        return wrapped


class _DirectMethod:
    """One method of a :class:`DirectStub`: called (blocking, or a response stream) or
    started as a future, as the generated stub's multicallable is."""

    __slots__ = ("_extra", "_guard", "_method", "_name")

    def __init__(self, method: Any, name: str, guard: _ChannelGuard, extra: tuple[tuple[str, str], ...]) -> None:
        self._method, self._name, self._guard, self._extra = method, name, guard, extra

    def __call__(self, request: Any, timeout: float | None = None, metadata: Any = None, **kwargs: Any) -> Any:
        return self._invoke(self._method, request, timeout, metadata, kwargs)

    def future(self, request: Any, timeout: float | None = None, metadata: Any = None, **kwargs: Any) -> Any:
        return self._invoke(self._method.future, request, timeout, metadata, kwargs)

    def _invoke(self, fn: Any, request: Any, timeout: float | None, metadata: Any, kwargs: dict[str, Any]) -> Any:
        if self._guard.closed:
            raise ConnectPlanError(f"{self._name}: this connect_plan client's channel is closed")
        timeout = capped_timeout(timeout)
        if self._extra:
            metadata = [*(metadata or ()), *self._extra]
        if not log.isEnabledFor(logging.DEBUG):
            return fn(request, timeout=timeout, metadata=metadata, **kwargs)
        started = time.monotonic()
        try:
            out = fn(request, timeout=timeout, metadata=metadata, **kwargs)
        except Exception as exc:  # a blocking call that failed
            _log_rpc(self._name, request, started, getattr(exc, "code", lambda: None)())
            raise
        if hasattr(out, "__next__"):  # a response stream
            return _LoggedStream(out, self._name, request, started)
        if hasattr(out, "add_done_callback"):  # a future: logged when it ends
            _log_when_done(out, self._name, request, started)
        else:  # a blocking call's response
            _log_rpc(self._name, request, started, _OK)
        return out


class _Ok:
    name = "OK"


_OK = _Ok()


def _code_of(call: Any) -> Any:
    try:
        return call.code()
    except Exception:  # a call that failed before it started has no code to tell
        return None


class _LoggedStream:
    """A response stream (DEBUG on) logged once when it ends: read to its end or failed (its
    done-callback), or cancelled here. A stream read in the calling thread runs its callbacks
    only while it is read, so one cancelled and never read again would go unlogged."""

    def __init__(self, call: Any, name: str, request: Any, started: float) -> None:
        self._call = call
        logged = False

        def done(code: Any) -> None:
            nonlocal logged
            if not logged:
                logged = True
                _log_rpc(name, request, started, code)

        self._done = done
        call.add_done_callback(lambda c: done(_code_of(c)))

    def __iter__(self) -> _LoggedStream:
        return self

    def __next__(self) -> Any:
        return next(self._call)

    def cancel(self) -> bool:
        cancelled = bool(self._call.cancel())
        self._done(_code_of(self._call))
        return cancelled

    def __getattr__(self, name: str) -> Any:
        return getattr(self._call, name)


# ---------------------------------------------------------------------------- channel


def _read_ca(ca_cert: str | bytes | os.PathLike[str] | None) -> bytes | None:
    if ca_cert is None:
        return None
    if isinstance(ca_cert, bytes):
        return ca_cert
    text = os.fspath(ca_cert)
    if "-----BEGIN" in text:
        return text.encode("ascii")
    try:
        with open(text, "rb") as f:
            return f.read()
    except OSError as exc:
        raise ConnectPlanError(f"cannot read the CA certificate file {text!r}: {exc.strerror}") from None


class UrlChannelBuilder:
    """PySpark's ``DefaultChannelBuilder`` (4.3) without PySpark: the same ``sc://`` URL rules
    (``sc://host[:port][/;key=value;...]``, port 15002 by default, percent-encoded values,
    ``token``/``use_ssl``/``user_id``/``user_agent``/``session_id`` consumed, every other
    parameter sent as a header), the same channel defaults (128 MiB messages) and the same
    user agent, so a server sees the same client either way. Hand-written because importing
    PySpark's builder imports PySpark's Connect client, and with it pandas (issue 17);
    tests/unit/test_channel_url.py compares the two on a table of URLs. A malformed URL raises
    ``ValueError`` (PySpark: ``PySparkValueError``), which the client reports with the URL's
    secrets hidden."""

    PARAM_USE_SSL = "use_ssl"
    PARAM_TOKEN = "token"
    PARAM_USER_ID = "user_id"
    PARAM_USER_AGENT = "user_agent"
    PARAM_SESSION_ID = "session_id"
    GRPC_MAX_MESSAGE_LENGTH_DEFAULT = 128 * 1024 * 1024

    def __init__(self, url: str, channelOptions: list[tuple[str, Any]] | None = None) -> None:
        import urllib.parse

        self._params: dict[str, str] = {}
        self._channel_options: list[tuple[str, Any]] = [
            ("grpc.max_send_message_length", self.GRPC_MAX_MESSAGE_LENGTH_DEFAULT),
            ("grpc.max_receive_message_length", self.GRPC_MAX_MESSAGE_LENGTH_DEFAULT),
        ]
        for key, value in channelOptions or ():
            self.setChannelOption(key, value)
        if url[:5] != "sc://":
            raise ValueError(
                "The URL must start with 'sc://'. Please update the URL to follow the correct format, "
                "e.g., 'sc://hostname:port'."
            )
        self.url = urllib.parse.urlparse("http" + url[2:])
        if self.url.path and self.url.path != "/":
            raise ValueError(
                f"The path component '{self.url.path}' must be empty. Please update the URL to follow the "
                "correct format, e.g., 'sc://hostname:port'."
            )
        if self.url.params:
            for part in self.url.params.split(";"):
                kv = part.split("=")
                if len(kv) != 2:
                    raise ValueError(
                        f"Parameter '{part}' should be provided as a key-value pair separated by an equal "
                        "sign (=). Please update the parameter to follow the correct format, e.g., 'key=value'."
                    )
                self.set(kv[0], urllib.parse.unquote(kv[1]))
        hostname = self.url.hostname
        if not hostname:
            raise ValueError(
                f"Hostname is missing in the URL: '{self.url.geturl()}'. Please update the URL to follow "
                "the correct format, e.g., 'sc://hostname:port'."
            )
        self._host = f"[{hostname}]" if ":" in hostname else hostname
        port = self.url.port  # ValueError for a port that is not a number in range, as PySpark
        self._port = port if port is not None else 15002

    def get(self, key: str) -> Any:
        return self._params[key]

    def getDefault(self, key: str, default: Any) -> Any:
        return self._params.get(key, default)

    def set(self, key: str, value: Any) -> None:
        self._params[key] = value

    def setChannelOption(self, key: str, value: Any) -> None:
        for i, option in enumerate(self._channel_options):
            if option[0] == key:
                self._channel_options[i] = (key, value)
                return
        self._channel_options.append((key, value))

    def _effective_channel_options(self) -> list[tuple[str, Any]]:
        return list(self._channel_options)  # keepalive: set by :func:`_keepalive`

    def _insecure_channel(self, target: Any, **kwargs: Any) -> Any:
        import grpc

        return grpc.insecure_channel(target, options=self._effective_channel_options(), **kwargs)

    def _secure_channel(self, target: Any, credentials: Any, **kwargs: Any) -> Any:
        import grpc

        return grpc.secure_channel(target, credentials, options=self._effective_channel_options(), **kwargs)

    @property
    def userId(self) -> str | None:
        return self._params.get(self.PARAM_USER_ID)

    @property
    def token(self) -> str | None:
        return self._params.get(self.PARAM_TOKEN, os.environ.get("SPARK_CONNECT_AUTHENTICATE_TOKEN"))

    @property
    def use_ssl(self) -> bool:
        return str(self.getDefault(self.PARAM_USE_SSL, "")).lower() == "true"

    @property
    def secure(self) -> bool:
        return self.use_ssl or self.token is not None

    @property
    def host(self) -> str:
        return self._host

    @property
    def endpoint(self) -> str:
        return f"{self._host}:{self._port}"

    def metadata(self) -> list[tuple[str, str]]:
        return [(k, v) for k, v in self._params.items() if k not in _RESERVED]

    @property
    def session_id(self) -> str | None:
        import uuid

        session_id = self._params.get(self.PARAM_SESSION_ID)
        if session_id is not None:
            try:
                uuid.UUID(session_id, version=4)
            except ValueError as exc:
                raise ValueError(f"session_id must be a UUID: {exc}") from None
        return session_id

    @property
    def userAgent(self) -> str:
        import platform
        import urllib.parse

        from .spark_proto import pyspark_version

        user_agent = self._params.get(
            self.PARAM_USER_AGENT, os.getenv("SPARK_CONNECT_USER_AGENT", "_SPARK_CONNECT_PYTHON")
        )
        length = len(urllib.parse.quote(user_agent))
        if length > 2048:
            raise ValueError(
                f"'user_agent' parameter should not exceed 2048 characters after URL escaping, found {length} characters."
            )
        return " ".join(
            [
                user_agent,
                f"spark/{pyspark_version()}",
                f"os/{platform.uname().system.lower()}",
                f"python/{platform.python_version()}",
            ]
        )


class ChannelRules:
    """connect_plan's credential rules over a PySpark-style channel builder (see module doc):
    a token implies TLS, plaintext with a token needs ``allow_insecure_token`` and warns,
    ``ca`` replaces the system roots, every channel is guarded (:class:`_ChannelGuard`).
    Mixed into :class:`LeanChannelBuilder`; the tests' reference transport mixes it into
    PySpark's own ``DefaultChannelBuilder``, so that both keep the same rules."""

    ca: bytes | None = None
    allow_insecure_token = False
    plaintext_token_header = False

    def metadata(self) -> list[tuple[str, str]]:
        # PySpark before 4.3 sends every URL parameter it does not know as a header,
        # the keepalive ones included (they are channel settings, see _keepalive)
        return [(k, v) for k, v in super().metadata() if k not in _KEEPALIVE_DEFAULTS]  # type: ignore[misc]

    def toChannel(self) -> Any:
        guard = _ChannelGuard()
        channel = self._guarded(self._channel(), guard)
        _GUARDS[channel] = guard
        return channel

    def _guarded(self, channel: Any, guard: _ChannelGuard) -> Any:
        """The channel the transport calls (the production one checks ``guard`` itself, in its
        :class:`DirectStub`)."""
        return channel

    def _token_in_plaintext(self, header: tuple[tuple[str, str], ...]) -> None:
        """Send ``header`` (the bearer token) with every call of a plaintext channel."""
        raise NotImplementedError

    def finish(self) -> None:
        """Called once the builder is configured (:func:`ChannelBuilder`)."""

    def _channel(self) -> Any:
        import grpc

        b: Any = self
        token = b.token
        explicit = b.getDefault(b.PARAM_USE_SSL, "").lower()
        if token is None:
            if b.use_ssl:
                return b._secure_channel(b.endpoint, grpc.ssl_channel_credentials(root_certificates=self.ca))
            return b._insecure_channel(b.endpoint)
        if explicit != "false":  # a token implies TLS
            creds = grpc.composite_channel_credentials(
                grpc.ssl_channel_credentials(root_certificates=self.ca),
                grpc.access_token_call_credentials(token),
            )
            return b._secure_channel(b.endpoint, creds)
        if not self.allow_insecure_token:
            raise InsecureTransportError(
                f"refusing to send the token to {b.endpoint} without TLS (use_ssl=false): remove "
                "use_ssl=false to use TLS, or pass allow_insecure_token=True to send it in plaintext"
            )
        warnings.warn(
            f"sending a bearer token to {b.endpoint} over a plaintext connection (use_ssl=false); "
            "anyone who can see the traffic can read it",
            InsecureTokenWarning,
            stacklevel=2,
        )
        # call credentials need a secure channel in gRPC; on plaintext the header is added
        # to every call instead (as PySpark does for localhost, without the warning)
        if not self.plaintext_token_header:
            self.plaintext_token_header = True
            self._token_in_plaintext((("authorization", f"Bearer {token}"),))
        return b._insecure_channel(b.endpoint)


class LeanChannelBuilder(ChannelRules, UrlChannelBuilder):
    """The production transport's builder: :class:`UrlChannelBuilder` with connect_plan's
    credential rules; its :class:`DirectStub` does per call what interceptors would."""

    #: metadata the :class:`DirectStub` adds to every call (the token, on plaintext)
    call_metadata: tuple[tuple[str, str], ...] = ()

    def _token_in_plaintext(self, header: tuple[tuple[str, str], ...]) -> None:
        self.call_metadata = header

    def finish(self) -> None:
        # response streams read in the calling thread: gRPC's default starts a thread to poll
        # the channel whenever a call begins with none in flight, ~1 ms of every small query
        # (2.7-3.0 vs 1.65 ms for one ExecutePlan on an in-process Sail server, 2026-11-28)
        self.setChannelOption(SINGLE_THREADED_STREAMS, 1)


def ChannelBuilder(
    url: str,
    *,
    token: str | None = None,
    use_ssl: bool | None = None,
    ca_cert: str | bytes | os.PathLike[str] | None = None,
    headers: Mapping[str, str] | None = None,
    allow_insecure_token: bool = False,
    channel_options: list[tuple[str, Any]] | None = None,
    builder_class: type | None = None,
) -> Any:
    """A channel builder for ``url`` with the credential rules above; ``token``/``use_ssl``
    given here override the URL's. ``builder_class`` (a :class:`ChannelRules` builder; by
    default :class:`LeanChannelBuilder`) lets the tests' reference transport build PySpark's."""
    given = {k for k, _ in channel_options or ()}
    options = [*(o for o in CHANNEL_DEFAULTS if o[0] not in given), *(channel_options or ())]
    builder = (builder_class or LeanChannelBuilder)(url, options)
    if token is not None:
        builder.set(builder.PARAM_TOKEN, token)
    if use_ssl is not None:
        builder.set(builder.PARAM_USE_SSL, "true" if use_ssl else "false")
    for key, value in (headers or {}).items():
        name = str(key).lower()
        if name in _RESERVED or name == "authorization" or not name or name.startswith(":"):
            raise ConnectPlanError(f"{key!r} cannot be sent as a header (pass tokens with token=...)")
        builder.set(name, str(value))
    _keepalive(builder, given)
    builder.ca = _read_ca(ca_cert)
    builder.allow_insecure_token = allow_insecure_token
    if builder.ca is not None and not builder.secure:
        raise ConnectPlanError("ca_cert was given but the connection does not use TLS (add use_ssl=true or a token)")
    builder.finish()
    return builder


def _keepalive(builder: Any, given: set[str]) -> None:
    """Keepalive pings from the URL's ``grpc_keepalive_*`` parameters, with PySpark 4.3's
    defaults, unless ``channel_options`` set them. PySpark 4.3 applies the same itself;
    PySpark before 4.3 (pyspark-client 4.2 for Sail, PySpark 4.2 on Python 3.10) has no
    keepalive at all, and a connection that goes silent during a call without a timeout
    (a black-holed network, a NAT that forgot it) then hung forever: measured, more than
    600 s on PySpark 4.2.1, where 4.3 fails the call within 30 s."""

    def value(name: str) -> str:
        return str(builder.getDefault(name, _KEEPALIVE_DEFAULTS[name])).strip().lower()

    def flag(name: str) -> bool:
        text = value(name)
        if text not in ("true", "false"):
            raise ConnectPlanError(f"URL parameter {name} must be true or false, got {text!r}")
        return text == "true"

    def millis(name: str) -> int:
        text = value(name)
        if not (text.isascii() and text.isdigit()) or not 0 < int(text) <= 2**31 - 1:
            raise ConnectPlanError(
                f"URL parameter {name} must be a whole number of milliseconds from 1 to {2**31 - 1}, got {text!r}"
            )
        return int(text)

    enabled, without_calls = flag("grpc_keepalive_enabled"), flag("grpc_keepalive_without_calls")
    time_ms, timeout_ms = millis("grpc_keepalive_time_ms"), millis("grpc_keepalive_timeout_ms")
    if not enabled:
        return
    options = (
        ("grpc.keepalive_time_ms", time_ms),
        ("grpc.keepalive_timeout_ms", timeout_ms),
        ("grpc.keepalive_permit_without_calls", int(without_calls)),
        # gRPC (1.6x+) waits for every ping's answer for ``grpc.http2.ping_timeout_ms``
        # (60 s by default) whatever ``grpc.keepalive_timeout_ms`` says: measured, a
        # keepalive timeout of 1 s still took 60 s to notice a silent connection
        ("grpc.http2.ping_timeout_ms", timeout_ms),
    )
    for key, setting in options:
        if key not in given:
            builder.setChannelOption(key, setting)
