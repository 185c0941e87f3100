"""The one exception tree of connect_plan.

::

    ConnectPlanError                      base of everything raised on purpose
    ├── PlanError (also ValueError)       the plan, its data or its schema is invalid;
    │   │                                 raised before any network call; carries
    │   │                                 every problem found as an ErrorDetail
    │   └── PolicyError                   the plan is valid but asks for something the
    │                                     caller's Policy refuses (each detail a
    │                                     Violation naming its rule); nothing sent
    ├── ServerError                       the Spark Connect server refused or failed
    │   │                                 the query: Spark's error class, SQLSTATE,
    │   │                                 message, and the plan step when known
    │   ├── ServerUnavailableError        no server answered (not running, refused,
    │   │                                 dead connection, deadline before any answer)
    │   └── QueryTimeoutError (also       the operation outlived its ``timeout=``; it
    │       TimeoutError)                 was interrupted and released on the server
    ├── ResultIntegrityError              the result stream broke an invariant
    │   │                                 (schema drift, row counts, truncation)
    │   └── ResultContractError           ... the result differs from what the plan
    │                                     declares (columns, names, types); each
    │                                     difference an ErrorDetail; nothing returned
    ├── UnsupportedServerError            the server speaks a Spark Connect version
    │                                     connect_plan cannot use (before 4.0)
    ├── PlanTooLargeError                 the plan is over the gRPC message limit
    │   │                                 (says the size and the limit); not sent
    │   └── InputTooLargeError            ... because of its inline input data, which
    │                                     the server cannot cache as an artifact
    ├── InsecureTransportError (also      a token would travel without TLS and the
    │   ValueError)                       caller did not opt in to that
    ├── InvalidPolicyError (also          a policy (Python or JSON) is malformed: an
    │   ValueError)                       unknown key, a value of the wrong kind
    └── LocalServerError                  the local Spark Connect launcher failed
                                          (no Java, no jars, did not become ready)

A ``PlanError`` lists *all* problems found in one pass, each with a stable ``code``,
a JSON-pointer-like ``loc`` (``/plan/2/payload/expr/args/0``), a sentence and the
offending input, in the manner of pydantic-core's ``ErrorDetails``.

The codes are public API: a released code keeps its name and meaning (messages may be
reworded). Every code is registered with a one-line meaning in
:data:`connect_plan.error_codes.CODES`, listed in docs/error-codes.md.
"""

from __future__ import annotations

import reprlib
from collections.abc import Iterable, Sequence
from typing import Any

from .records import Value, frozen

__all__ = [
    "MISSING",
    "ConnectPlanError",
    "ErrorDetail",
    "InputTooLargeError",
    "InsecureTransportError",
    "InvalidPolicyError",
    "LocalServerError",
    "PlanError",
    "PlanTooLargeError",
    "PolicyError",
    "QueryTimeoutError",
    "ResultContractError",
    "ResultIntegrityError",
    "ServerError",
    "ServerUnavailableError",
    "UnsupportedServerError",
    "Violation",
    "short_repr",
]

_short = reprlib.Repr()
_short.maxstring = 60
_short.maxother = 60
_short.maxlist = 4
_short.maxdict = 4
_short.maxlevel = 2


def short_repr(value: Any) -> str:
    """A bounded ``repr`` of user input for messages (``repr`` itself recurses without bound
    into a list nested thousands deep and copies a huge string whole)."""
    return _short.repr(value)


#: sentinel for "no offending input recorded" (the parser passes it where a key is absent)
MISSING: Any = type("Missing", (), {"__repr__": lambda self: "<missing>"})()


@frozen
class ErrorDetail(Value):
    """One problem in a plan: where, what kind, what was found, what was expected.

    ``code`` is stable (one of :data:`connect_plan.error_codes.CODES`, docs/error-codes.md);
    ``message`` is for people and may be reworded."""

    code: str
    loc: str
    message: str
    input: Any = MISSING

    def __str__(self) -> str:
        text = f"{self.loc or '/'}: {self.message} [{self.code}]"
        if self.input is not MISSING:
            text += f" (got {_short.repr(self.input)})"
        return text

    def as_dict(self) -> dict[str, Any]:
        """A JSON-friendly view (the CLI prints these with ``--format json``)."""
        out: dict[str, Any] = {"code": self.code, "loc": self.loc, "message": self.message}
        if self.input is not MISSING:
            out["input"] = _short.repr(self.input)
        return out


class ConnectPlanError(Exception):
    """Base class of every error connect_plan raises on purpose."""


class PlanError(ConnectPlanError, ValueError):
    """The plan (or its inline data or schema) is invalid.

    ``details`` lists every problem found, in document order.
    """

    def __init__(self, details: Sequence[ErrorDetail] | ErrorDetail) -> None:
        if isinstance(details, ErrorDetail):
            details = [details]
        self.details: tuple[ErrorDetail, ...] = tuple(details)
        super().__init__(self._render())

    @classmethod
    def single(cls, code: str, loc: str, message: str, input: Any = MISSING) -> PlanError:
        return cls([ErrorDetail(code, loc, message, input)])

    def _render(self) -> str:
        n = len(self.details)
        head = "invalid plan: 1 problem" if n == 1 else f"invalid plan: {n} problems"
        return head + "\n" + "\n".join(f"  {d}" for d in self.details)

    @property
    def codes(self) -> tuple[str, ...]:
        return tuple(d.code for d in self.details)

    @property
    def locs(self) -> tuple[str, ...]:
        return tuple(d.loc for d in self.details)


@frozen
class Violation(ErrorDetail):
    """One thing a plan asks for that a :class:`~connect_plan.policy.Policy` refuses:
    where (``loc``), what (``code``, ``message``, ``input``) and the policy field that
    refuses it (``rule``, e.g. ``tables``, ``denied_functions``)."""

    rule: str = ""

    def __str__(self) -> str:
        return super().__str__() + (f" (rule: {self.rule})" if self.rule else "")

    def as_dict(self) -> dict[str, Any]:
        out = super().as_dict()
        out["rule"] = self.rule
        return out


class PolicyError(PlanError):
    """The plan asks for something the caller's policy refuses (a table it may not read, a
    write, a conf change, a UDF...). ``details`` are :class:`Violation` objects, every
    one found, each with its location and rule; nothing was sent to the server."""

    def _render(self) -> str:
        n = len(self.details)
        head = "plan refused by policy: 1 violation" if n == 1 else f"plan refused by policy: {n} violations"
        return head + "\n" + "\n".join(f"  {d}" for d in self.details)

    @property
    def rules(self) -> tuple[str, ...]:
        return tuple(getattr(d, "rule", "") for d in self.details)


class InvalidPolicyError(ConnectPlanError, ValueError):
    """A policy is malformed (an unknown key of a JSON policy, a value of the wrong kind);
    ``details`` lists every problem with its location in the policy document."""

    def __init__(self, details: Sequence[ErrorDetail]) -> None:
        self.details: tuple[ErrorDetail, ...] = tuple(details)
        n = len(self.details)
        head = "invalid policy: 1 problem" if n == 1 else f"invalid policy: {n} problems"
        super().__init__(head + "\n" + "\n".join(f"  {d}" for d in self.details))


class ServerError(ConnectPlanError):
    """The Spark Connect server reported an error for a query.

    ``error_class`` is Spark's error condition (``UNRESOLVED_COLUMN.WITH_SUGGESTION``),
    ``sqlstate`` its SQLSTATE, ``op_index`` the index of the plan step that caused it
    when it could be determined (else ``None``). ``exception_type`` is the kind of error
    PySpark reported (``AnalysisException``, ``NumberFormatException`` ...): servers
    without error classes (Sail) still send it. ``grpc_status`` is the gRPC status of a
    failure that had no Spark error record. ``session_lost`` is True when the server no
    longer had the client's session (it restarted, or closed it): the client ran the
    operation once more on a new session before raising this.
    """

    session_lost: bool = False

    def __init__(
        self,
        message: str,
        *,
        error_class: str | None = None,
        sqlstate: str | None = None,
        op_index: int | None = None,
        op_name: str | None = None,
        grpc_status: str | None = None,
        server_stacktrace: str | None = None,
        message_parameters: dict[str, str] | None = None,
        exception_type: str | None = None,
    ) -> None:
        self.message = message
        self.exception_type = exception_type
        self.error_class = error_class
        self.sqlstate = sqlstate
        self.op_index = op_index
        self.op_name = op_name
        self.grpc_status = grpc_status
        self.server_stacktrace = server_stacktrace
        self.message_parameters = dict(message_parameters or {})
        super().__init__(self._render())

    def _render(self) -> str:
        parts = []
        if self.op_index is not None:
            step = f"plan step {self.op_index}"
            if self.op_name:
                step += f" ({self.op_name})"
            parts.append(f"{step}: ")
        if self.error_class and f"[{self.error_class}]" not in self.message:
            parts.append(f"[{self.error_class}] ")
        parts.append(self.message)
        if self.sqlstate and "SQLSTATE" not in self.message:
            parts.append(f" SQLSTATE: {self.sqlstate}")
        return "".join(parts)

    def with_step(self, op_index: int | None, op_name: str | None) -> ServerError:
        """A copy of this error that names the plan step that caused it."""
        return self.replace(op_index=op_index, op_name=op_name)

    def replace(self, **changes: Any) -> ServerError:
        """A copy of this error (same class, same cause) with ``changes`` to its fields;
        every field not named is kept."""
        fields: dict[str, Any] = {
            "message": self.message,
            "error_class": self.error_class,
            "sqlstate": self.sqlstate,
            "op_index": self.op_index,
            "op_name": self.op_name,
            "grpc_status": self.grpc_status,
            "server_stacktrace": self.server_stacktrace,
            "message_parameters": self.message_parameters,
            "exception_type": self.exception_type,
        }
        unknown = set(changes) - set(fields)
        if unknown:
            raise TypeError(f"ServerError has no field(s) {sorted(unknown)}")
        fields.update(changes)
        message = fields.pop("message")
        err = type(self)(message, **fields)
        err.session_lost = self.session_lost
        err.__cause__ = self.__cause__
        err.__suppress_context__ = self.__suppress_context__
        return err


class ServerUnavailableError(ServerError):
    """No Spark Connect server answered at the given address."""


class QueryTimeoutError(ServerError, TimeoutError):
    """An operation ran past its ``timeout=``: it was interrupted on the server (when the
    server could be reached) and its results released; nothing partial is returned.

    ``unanswered`` is True when the server did not answer the release and interrupt sent
    after the timeout (a hung server, a black-holed network)."""

    unanswered: bool = False


class ResultIntegrityError(ConnectPlanError):
    """The result stream violated an invariant; no partial result is returned."""


class ResultContractError(ResultIntegrityError):
    """Spark's result differs from the result the plan declares (a Substrait plan's
    ``RelRoot.names`` and types: :mod:`connect_plan.contract`): a column too many or too few, in
    another place, or of another type class, or a value that does not fit its declared type.
    Raised after the query started (so not a :class:`PlanError`), before any row is returned;
    the execution is released. ``details`` lists every difference (code ``result_contract``),
    each located in the plan; ``loc`` is the relation whose output it is."""

    def __init__(self, details: Sequence[ErrorDetail], loc: str) -> None:
        self.details: tuple[ErrorDetail, ...] = tuple(details)
        self.loc = loc
        n = len(self.details)
        head = f"the result differs from what the plan declares at {loc}: " + (
            "1 difference" if n == 1 else f"{n} differences"
        )
        super().__init__(head + "\n" + "\n".join(f"  {d}" for d in self.details))

    @property
    def codes(self) -> tuple[str, ...]:
        return tuple(d.code for d in self.details)


class UnsupportedServerError(ConnectPlanError):
    """The server's Spark Connect version is older than connect_plan supports
    (:data:`connect_plan.versions.MINIMUM`): refused before any plan is sent, since an
    older server would ignore protocol fields it does not know."""


class PlanTooLargeError(ConnectPlanError):
    """The serialised request is over the gRPC message limit (``size`` and ``limit`` in
    bytes); it was not sent, since the server would only refuse it."""

    def __init__(self, message: str, *, size: int, limit: int) -> None:
        super().__init__(message)
        self.size = size
        self.limit = limit


class InputTooLargeError(PlanTooLargeError):
    """Inline input data is too large to send: the server cannot cache it as an artifact
    and the plan would exceed the gRPC message limit."""


class InsecureTransportError(ConnectPlanError, ValueError):
    """A bearer token would be sent without TLS (``use_ssl=false``) and the caller did not
    opt in with ``allow_insecure_token=True``."""


class LocalServerError(ConnectPlanError):
    """The local Spark Connect server could not be started, found or stopped."""


def collect(details: Iterable[ErrorDetail]) -> None:
    """Raise one PlanError listing ``details`` if there are any."""
    found = list(details)
    if found:
        raise PlanError(found)
