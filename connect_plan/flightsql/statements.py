"""Statements: what a Flight SQL command asks to run, as a plan of the pipeline, and the server's
handles to them (prepared statements, tickets).

* ``CommandStatementSubstraitPlan`` (and ``CreatePreparedSubstraitPlan``): the Substrait plan's
  bytes, read by the Substrait front-end with the server's ``--table`` names.
* ``CommandStatementQuery`` (and ``CreatePreparedStatement``): a text that starts, after white
  space, with ``{`` or ``[`` is a plan document (a JSON plan, or a Substrait plan in JSON), read
  as ``connect-plan run`` reads a file; any other text is Spark SQL, sent as it is (the JSON plan
  format's SQL source, no parameters), which the caller's policy allows or not (``sql``).

Every statement is checked against the caller's policy when it is made (nothing is sent for a
refused one) and again when it runs. A handle is 16 random bytes, valid for the caller that got
it only; each caller holds at most :data:`MAX_HANDLES` of each kind (the oldest is dropped), for
at most :data:`HANDLE_SECONDS` unused.

:class:`Loaded` keeps the statements last made of small commands (up to
:data:`LOADED_MAX_BYTES`), by caller and by the SHA-256 of the command's text or bytes: a
client that sends the same text again (an unprepared statement re-run, as a dashboard does)
gets the same statement without its text being parsed, read into the pipeline's IR and checked
against the policy again. That is safe because a statement is a pure function of the command,
the server's ``--table`` names and the caller's policy, all fixed while the server runs (the
front-ends read no file and no environment); its result schema is not kept (the tables it
reads may change: each statement is described by Spark anew).
"""

from __future__ import annotations

import hashlib
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from ..records import Value, frozen

if TYPE_CHECKING:
    import pyarrow as pa

    from .. import ir
    from ..policy import Policy

__all__ = [
    "HANDLE_SECONDS",
    "LOADED_MAX_BYTES",
    "LOADED_STATEMENTS",
    "MAX_HANDLES",
    "Handles",
    "Loaded",
    "Statement",
    "load_statement",
]

#: most handles of one kind (prepared statements, tickets) a caller holds at once
MAX_HANDLES = 1000
#: how long an unused handle stays valid
HANDLE_SECONDS = 3600.0
#: statements kept by :class:`Loaded`, and the largest command kept (bytes)
LOADED_STATEMENTS = 512
LOADED_MAX_BYTES = 64 * 1024

T = TypeVar("T")


@frozen
class Statement(Value):
    """A statement ready to run: its plan (IR, checked against the caller's policy), the kind
    of text it came from (``substrait``, ``json``, ``sql``) and its result's Arrow schema
    once known (None until then)."""

    plan: ir.Plan
    kind: str
    schema: pa.Schema | None = None


def load_statement(
    kind: str, payload: str | bytes, tables: Mapping[str, Any] | None, policy: Policy | None
) -> Statement:
    """The statement of a command (``kind``: ``substrait`` for a Substrait plan's bytes, ``query``
    for a query text); a ``PlanError``/``PolicyError`` naming every problem, before anything is sent."""
    from ..formats import front_end_of, load_plan
    from ..formats.registry import SUBSTRAIT, decoded

    if kind == "substrait":
        plan = SUBSTRAIT.parse(payload.encode() if isinstance(payload, str) else bytes(payload), None, None, tables)
        what = "substrait"
    else:
        text = payload if isinstance(payload, str) else payload.decode("utf-8")
        if text.lstrip()[:1] in ("{", "["):
            doc = decoded(text)
            front = front_end_of(doc)
            plan = front.parse(doc, None, None, tables if front is SUBSTRAIT else None)
            what = "substrait" if front is SUBSTRAIT else "json"
        else:
            plan = load_plan({"input": {"sql": text}, "plan": []})
            what = "sql"
    if policy is not None:
        policy.check(plan)
    return Statement(plan, what)


class Loaded:
    """The statements last made of small commands, by caller and command (see module doc);
    thread-safe. A command that fails to load is not kept: it fails again, the same way."""

    def __init__(self, tables: Mapping[str, Any] | None, limit: int = LOADED_STATEMENTS) -> None:
        self._tables = tables
        self._limit = limit
        self._items: OrderedDict[tuple[str, str, bytes], Statement] = OrderedDict()
        self._lock = threading.Lock()

    def load(self, caller: str, kind: str, payload: str | bytes, policy: Policy | None) -> Statement:
        """:func:`load_statement` of the command, or the statement made of it before for ``caller``."""
        data = payload.encode("utf-8") if isinstance(payload, str) else bytes(payload)
        if len(data) > LOADED_MAX_BYTES:
            return load_statement(kind, payload, self._tables, policy)
        key = (caller, kind, hashlib.sha256(data).digest())
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
                return found
        statement = load_statement(kind, payload, self._tables, policy)
        with self._lock:
            self._items[key] = statement
            while len(self._items) > self._limit:
                self._items.popitem(last=False)
        return statement


class Handles(Generic[T]):
    """Values behind opaque handles, per caller (see module doc); thread-safe."""

    def __init__(self, limit: int = MAX_HANDLES, seconds: float = HANDLE_SECONDS) -> None:
        self._limit = limit
        self._seconds = seconds
        self._items: dict[str, OrderedDict[bytes, tuple[float, T]]] = {}
        self._lock = threading.Lock()

    def add(self, caller: str, value: T) -> bytes:
        handle = secrets.token_bytes(16)
        now = time.monotonic()
        with self._lock:
            items = self._items.setdefault(caller, OrderedDict())
            items[handle] = (now + self._seconds, value)
            while len(items) > self._limit:
                items.popitem(last=False)
            self._expire(items, now)
        return handle

    def get(self, caller: str, handle: bytes, *, remove: bool = False) -> T | None:
        """The value of ``handle`` if ``caller`` holds it (and it has not expired)."""
        now = time.monotonic()
        with self._lock:
            items = self._items.get(caller)
            if items is None:
                return None
            self._expire(items, now)
            found = items.pop(handle, None) if remove else items.get(handle)
            if found is None:
                return None
            if not remove:  # used: valid for another while
                items[handle] = (now + self._seconds, found[1])
                items.move_to_end(handle)
            return found[1]

    def count(self, caller: str) -> int:
        with self._lock:
            return len(self._items.get(caller, ()))

    @staticmethod
    def _expire(items: OrderedDict[bytes, tuple[float, Any]], now: float) -> None:
        while items:
            until, _ = next(iter(items.values()))
            if until > now:
                return
            items.popitem(last=False)
