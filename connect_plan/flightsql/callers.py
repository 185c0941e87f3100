"""Who may call the server: the tokens file, the bearer token check, and each caller's policy and
Spark session.

``--tokens FILE`` is JSON ``{"tokens": {"<bearer token>": {"policy": "strict" | "trusted" |
"<policy file>", "name": "<caller>"}}}``. Each token is one caller: its policy (a policy file's
path is relative to the tokens file) and its own Spark session, opened on its first call, so that
one caller's conf, temporary views and UDFs are never another's. Without a tokens file there is
one caller, ``anonymous``, with the server's ``--policy`` (strict unless said otherwise), and no
token is asked for.

The check compares the SHA-256 of the token given with the SHA-256 of every known token with
:func:`hmac.compare_digest`, all of them, whatever matched: the time it takes tells nothing about
which token, or how much of one, is right. Tokens are never logged, nor written in any error:
a caller is named by its ``name`` only.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ErrorDetail, InvalidPolicyError
from ..records import Value, frozen

if TYPE_CHECKING:
    from ..client import Client
    from ..policy import Policy

__all__ = ["ANONYMOUS", "MIN_TOKEN_LENGTH", "Caller", "Callers", "load_tokens", "policy_named"]

#: the caller of a server run without a tokens file
ANONYMOUS = "anonymous"
#: the shortest bearer token the tokens file accepts (a guessable token is no token)
MIN_TOKEN_LENGTH = 16
_BEARER = "bearer "


@frozen
class Caller(Value):
    """One caller: its ``name`` (for logs and errors), its policy (None: trusted) and the
    SHA-256 of its token (empty for the anonymous caller)."""

    name: str
    policy: Policy | None
    digest: bytes = b""


def policy_named(spec: str, base: Path | None = None) -> Policy | None:
    """``strict``, ``trusted`` (None: nothing refused) or a JSON policy file (relative to ``base``)."""
    from ..policy import Policy

    if spec == "strict":
        return Policy.strict()
    if spec == "trusted":
        return None
    path = Path(spec)
    if base is not None and not path.is_absolute():
        path = base / path
    return Policy.from_file(path)


def load_tokens(path: str | os.PathLike[str]) -> tuple[Caller, ...]:
    """The callers of a tokens file; :class:`~connect_plan.errors.InvalidPolicyError` listing
    every problem (located by caller name or position, never by the token itself)."""
    path = Path(path)
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InvalidPolicyError(
            [ErrorDetail("policy_value", "", f"cannot read the tokens file {path}: {exc.strerror}")]
        ) from None
    except ValueError as exc:
        raise InvalidPolicyError(
            [ErrorDetail("policy_value", "", f"the tokens file {path} is not JSON: {exc}")]
        ) from None
    problems: list[ErrorDetail] = []
    if not isinstance(doc, dict) or set(doc) != {"tokens"} or not isinstance(doc["tokens"], dict):
        raise InvalidPolicyError(
            [ErrorDetail("policy_value", "", 'a tokens file is {"tokens": {"<token>": {"policy": ..., "name": ...}}}')]
        )
    callers: list[Caller] = []
    names: set[str] = set()
    for i, (token, entry) in enumerate(doc["tokens"].items()):
        loc = f"/tokens/#{i}"
        if isinstance(entry, dict) and isinstance(entry.get("name"), str) and entry["name"]:
            loc = f"/tokens/{entry['name']}"
        if len(token) < MIN_TOKEN_LENGTH or not token.isascii() or not token.isprintable() or token != token.strip():
            problems.append(
                ErrorDetail(
                    "policy_value",
                    loc,
                    f"a bearer token is at least {MIN_TOKEN_LENGTH} printable ASCII characters, without spaces "
                    "around it (this one is not; it is not shown)",
                )
            )
        if not isinstance(entry, dict):
            problems.append(ErrorDetail("policy_value", loc, 'each token maps to {"policy": ..., "name": ...}'))
            continue
        unknown = sorted(set(entry) - {"policy", "name"})
        for key in unknown:
            problems.append(ErrorDetail("policy_key", f"{loc}/{key}", "not a key of a token's entry (policy, name)"))
        name = entry.get("name")
        if not isinstance(name, str) or not name.strip():
            problems.append(ErrorDetail("policy_value", f"{loc}/name", "every token needs a caller name", name))
            continue
        if name in names:
            problems.append(ErrorDetail("policy_value", f"{loc}/name", "two tokens have this caller name", name))
        names.add(name)
        spec = entry.get("policy")
        if not isinstance(spec, str) or not spec:
            problems.append(
                ErrorDetail("policy_value", f"{loc}/policy", "'strict', 'trusted' or a policy file's path", spec)
            )
            continue
        try:
            policy = policy_named(spec, path.parent)
        except InvalidPolicyError as exc:
            problems += [ErrorDetail(d.code, f"{loc}/policy{d.loc}", d.message, d.input) for d in exc.details]
            continue
        except OSError as exc:
            problems.append(
                ErrorDetail("policy_value", f"{loc}/policy", f"cannot read the policy file: {exc.strerror}")
            )
            continue
        callers.append(Caller(name, policy, _digest(token)))
    if not doc["tokens"]:
        problems.append(ErrorDetail("policy_value", "/tokens", "the tokens file names no token: nobody could call"))
    if problems:
        raise InvalidPolicyError(problems)
    return tuple(callers)


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8")).digest()


class Callers:
    """The server's callers (see module doc): :meth:`authenticate` a call's ``authorization``
    header, and :meth:`client` the Spark session of a caller (opened on first use with
    ``connect``, one per caller, closed by :meth:`close`). ``prepare`` (the server's session
    settings) runs once on a caller's client before its first statement reaches Spark: not
    when the client opens, so that a call that sends Spark nothing (a refused statement, a
    strict caller's metadata) still sends it nothing."""

    def __init__(
        self,
        callers: tuple[Caller, ...] | None,
        default: Policy | None,
        connect: Callable[[Caller], Client],
        prepare: Callable[[Client], None] | None = None,
    ):
        #: None: no tokens file; every call is the anonymous caller's
        self._callers = callers
        self._anonymous = Caller(ANONYMOUS, default) if callers is None else None
        self._connect = connect
        self._prepare = prepare
        self._prepared: set[str] = set()
        self._clients: dict[str, Client] = {}
        self._lock = threading.Lock()
        self._closed = False

    @property
    def needs_token(self) -> bool:
        return self._callers is not None

    @property
    def names(self) -> tuple[str, ...]:
        return (ANONYMOUS,) if self._callers is None else tuple(c.name for c in self._callers)

    def authenticate(self, metadata: Iterable[tuple[str, Any]]) -> Caller | None:
        """The caller whose token the call's ``authorization: Bearer <token>`` header carries
        (every token compared, in constant time), or None: refused. ``metadata`` is the
        call's (key, value) pairs."""
        if self._anonymous is not None:
            return self._anonymous
        header = ""
        for key, value in metadata:
            if key == "authorization" and isinstance(value, str):
                header = value
        token = header[len(_BEARER) :] if header[: len(_BEARER)].lower() == _BEARER else ""
        given = _digest(token.strip())
        found: Caller | None = None
        for caller in self._callers or ():
            if hmac.compare_digest(given, caller.digest) and token:
                found = caller
        return found

    def client(self, caller: Caller, *, statement: bool = False) -> Client:
        """The caller's own client (and Spark session), opened on its first call; for a
        ``statement`` (one that will reach Spark), prepared first (see the class doc). Two
        first statements at once may both prepare it: the settings are the same."""
        client = self._clients.get(caller.name)
        if client is None:
            with self._lock:
                if self._closed:
                    raise RuntimeError("the server is shutting down")
                client = self._clients.get(caller.name)
                if client is None:
                    client = self._connect(caller)
                    self._clients[caller.name] = client
        if statement and self._prepare is not None and caller.name not in self._prepared:
            self._prepare(client)
            self._prepared.add(caller.name)
        return client

    def open_clients(self) -> dict[str, Client]:
        return dict(self._clients)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            clients, self._clients = list(self._clients.values()), {}
        for client in clients:
            client.close()
