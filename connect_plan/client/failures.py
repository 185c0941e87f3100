"""Failures of server calls, as the caller sees them: mapped, scrubbed of credentials, located.

* :func:`server_error` maps a transport's typed failure of a call
  (:class:`~connect_plan.call_failures.CallFailure`) to the exception tree, by its type:
  Spark's error class, SQLSTATE, message and parameters; an unreachable server, a refused
  credential, a bare gRPC status as a sentence. No failure's text is read here.
* :class:`Redactor` keeps credentials out of every text that leaves the client: the URL's
  token and password (:func:`redact`, :func:`url_secrets`), and any literal echo of them
  in a server's message; an error whose own text holds one is not kept as the cause.
* :func:`locate` names the plan step that caused an analysis error, by a binary search
  over plan prefixes (each analysed by the caller's ``analyse``).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import field
from typing import TYPE_CHECKING

from ..call_failures import (
    STATUS_SENTENCES,
    CallFailure,
    CredentialsRefused,
    ServerFailure,
    ServerUnavailable,
    SessionLost,
    StatusFailure,
    is_analysis_error,
)
from ..deadlines import remaining, timeout_error
from ..errors import ConnectPlanError, PlanError, ServerError, ServerUnavailableError
from ..records import Value, frozen

if TYPE_CHECKING:
    from .. import ir

__all__ = [
    "Redactor",
    "is_analysis_error",
    "locate",
    "redact",
    "same_analysis_error",
    "server_error",
    "url_secrets",
]

log = logging.getLogger("connect_plan")

#: a token's value runs to the next URL parameter (';'): base64 tokens hold '/', '+' and
#: '=' (percent-encoded or not); in free text it also ends at whitespace or a quote
TOKEN_RE = re.compile(r"""(?i)(token=)[^;\s'"]*""")
#: the userinfo of a URL (``sc://user:password@host``, also as PySpark rewrites it to
#: ``http://``): PySpark ignores it, but a password there must not be echoed; greedy up to
#: the last '@' before the path, as URL parsers split it
_USERINFO_RE = re.compile(r"""(?i)\b([a-z][a-z0-9+.-]*://)[^/\s'"]*@""")
#: bare gRPC statuses with an error class of their own (the others are a plain ServerError):
#: a call that met its deadline had no answer
_STATUS_ERRORS: dict[str, type[ServerError]] = {"DEADLINE_EXCEEDED": ServerUnavailableError}


# ---------------------------------------------------------------------------- credentials


def redact(url: str) -> str:
    """The URL (or any text holding one) with its token and the password of its userinfo
    replaced by ``***`` (safe for logs, errors and repr)."""
    return _USERINFO_RE.sub(r"\1***@", TOKEN_RE.sub(r"\1***", url))


def url_secrets(url: str) -> tuple[str, ...]:
    """The credentials written in an ``sc://`` URL, as written and percent-decoded: the
    ``token`` parameter's value and the userinfo's password. Texts that echo them in any
    other form than ``token=...`` (a server message naming the value) are scrubbed of
    them literally."""
    from urllib.parse import unquote, urlsplit

    found: list[str] = []
    try:
        parts = urlsplit("http" + url[2:] if url[:5].lower() == "sc://" else url)
        userinfo, _, _ = parts.netloc.rpartition("@")
        if ":" in userinfo:
            found.append(userinfo.split(":", 1)[1])
    except ValueError:
        pass
    _, _, params = url.partition(";")
    for param in params.split(";"):
        key, _, value = param.partition("=")
        if key.strip().lower() == "token":
            found.append(value)
    out: list[str] = []
    for secret in found:
        for form in (secret, unquote(secret)):
            if form and form not in out:
                out.append(form)
    return tuple(out)


def _hide(text: str, secrets: Sequence[str]) -> str:
    for secret in sorted(secrets, key=len, reverse=True):  # 'a%2Fb' before its decoded 'a/b'
        if secret:
            text = text.replace(secret, "***")
    return text


@frozen
class Redactor(Value):
    """Maps failures of one client's calls to errors with no credential in them. Its own
    ``repr`` shows neither the URL nor the secrets (a traceback or a log may print it)."""

    url: str = field(repr=False)
    secrets: tuple[str, ...] = field(repr=False)

    def hide(self, text: str) -> str:
        """``text`` with the URL's credentials and every known secret replaced by ``***``."""
        return _hide(redact(text), self.secrets)

    def error(self, failure: CallFailure) -> ServerError:
        """The error to raise for a failed call: a timeout when the operation's deadline
        passed, else :func:`server_error`, scrubbed of any secret its texts echo."""
        if failure.record.chain_status == "DEADLINE_EXCEEDED":
            left = remaining()
            if left is not None and left <= 0.05:  # our operation deadline, not a per-RPC one
                timed_out = timeout_error()
                timed_out.unanswered = True
                return timed_out
        err = server_error(failure, self.url)
        texts = [err.message, err.server_stacktrace or "", *err.message_parameters.values()]
        if any(self.hide(t) != t for t in texts):
            # every field kept (exception_type too: locating the failing step needs it)
            err = err.replace(
                message=self.hide(err.message),
                server_stacktrace=self.hide(err.server_stacktrace or "") or None,
                message_parameters={k: self.hide(v) for k, v in err.message_parameters.items()},
            )
        return err

    def raisable(self, failure: CallFailure) -> ServerError:
        """``failure`` mapped to a ServerError whose cause is ``failure`` (and its own cause,
        the original error), unless a text of the original error holds a credential: then
        the error is scrubbed and has no cause. Called outside the ``except`` block, so that
        the error does not keep ``failure`` as its context either."""
        err = self.error(failure)
        if err.__cause__ is None and not err.__suppress_context__:
            err.__cause__ = None if self.leaks(failure) else failure
            err.__suppress_context__ = True
        return err

    def leaks(self, failure: CallFailure) -> bool:
        """Does a text of the original error hold a credential?"""
        return any(self.hide(t) != t for t in failure.record.texts)


# ---------------------------------------------------------------------------- mapping


def server_error(failure: CallFailure, url: str) -> ServerError:
    """Map a failed call to our tree (message, error class, SQLSTATE), by the failure's type;
    ``url`` is named (redacted) when the server could not be reached. A lost session is the
    error of what the server said, with ``session_lost`` True."""
    if isinstance(failure, SessionLost):
        err = server_error(failure.failure, url)
        err.session_lost = True
        return err
    if isinstance(failure, ServerUnavailable):
        return ServerUnavailableError(
            f"cannot reach the Spark Connect server at {redact(url)}: {failure.reason}", grpc_status="UNAVAILABLE"
        )
    if isinstance(failure, CredentialsRefused):
        return ServerError(
            f"the Spark Connect server at {redact(url)} refused the credentials: {failure.details}",
            grpc_status="UNAUTHENTICATED",
        )
    if isinstance(failure, StatusFailure):
        sentence = _status_sentence(failure, url)
        if sentence:
            return ServerError(sentence, grpc_status=failure.status)
        cls = _STATUS_ERRORS.get(failure.status or "", ServerError)
        return cls(f"{failure.details} (server {redact(url)})", grpc_status=failure.status)
    record = failure.record
    if not isinstance(failure, ServerFailure):
        return ServerError(record.text)
    return ServerError(
        failure.message,
        error_class=record.error_class,
        sqlstate=record.sqlstate,
        server_stacktrace=record.stacktrace,
        message_parameters=dict(record.message_parameters) or None,
        exception_type=record.exception_type,
    )


def _status_sentence(failure: StatusFailure, url: str) -> str | None:
    """A bare gRPC status as a sentence (what was reached, what it answered, what to check)."""
    if failure.http_status is not None:
        return (
            f"the server at {redact(url)} is not a Spark Connect server: it answered with HTTP status "
            f"{failure.http_status} ({failure.status}: {failure.details}); check the host and port (Spark's "
            "default is 15002), and that a proxy in between routes gRPC to Spark Connect"
        )
    template = STATUS_SENTENCES.get(failure.status or "")
    return template.format(url=redact(url), details=redact(failure.details)) if template else None


# ---------------------------------------------------------------------------- the failing step


def same_analysis_error(found: ServerError, wanted: ServerError) -> bool:
    """Is ``found`` (a plan prefix's analysis error) the kind of error ``wanted`` is? The same
    error class (its main part: a prefix may offer other suggestions), else the same
    SQLSTATE, else (servers without either, such as Sail) the same kind of analysis error."""
    if not is_analysis_error(found):
        return False
    if wanted.error_class:
        return (found.error_class or "").split(".")[0] == wanted.error_class.split(".")[0]
    if wanted.sqlstate:
        return found.sqlstate == wanted.sqlstate
    return found.exception_type == wanted.exception_type


class _GiveUp(Exception):
    """A prefix's analysis failed otherwise than the error being located."""


def locate(err: ServerError, plan: ir.Plan, analyse: Callable[[ir.Plan], object]) -> ServerError:
    """``err`` naming the first plan step whose prefix fails analysis the same way (binary
    search, O(log n) ``analyse`` calls); only for analysis errors, which a prefix reproduces.

    ``analyse(prefix)`` translates and analyses a prefix on the server, raising what that
    raises. A prefix fails only if its analysis raises the same kind of error (see
    :func:`same_analysis_error`); a ``PlanError`` means it passes. Anything else during the
    search — a timeout, an unreachable server, another error — gives up locating: ``err``
    is returned as it is, naming no step rather than a wrong one."""
    from .. import ir

    if err.op_index is not None or not is_analysis_error(err):
        return err

    def fails(k: int) -> bool:
        prefix = ir.Plan(plan.source, plan.steps[:k], plan.loc, conf=plan.conf)
        try:
            analyse(prefix)
        except PlanError:
            return False
        except ServerError as other:
            if same_analysis_error(other, err):
                return True
            log.info("not locating the failing plan step: a prefix's analysis failed otherwise (%s)", other)
            raise _GiveUp from None
        except ConnectPlanError as other:
            log.info("not locating the failing plan step: %s", other)
            raise _GiveUp from None
        return False

    try:
        lo, hi = 0, len(plan.steps)  # prefix of lo steps passes, of hi steps fails
        if not fails(hi):
            # the whole query analyses: the write itself failed, or the error arose only at
            # execution (Sail checks some expressions, e.g. a filter's type, only then),
            # where no prefix says which step caused it
            return err.with_step(plan.output.index, plan.output.op) if plan.output is not None else err
        if not plan.steps or fails(0):
            return err
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if fails(mid):
                hi = mid
            else:
                lo = mid
    except _GiveUp:
        return err
    step = plan.steps[hi - 1]
    if isinstance(step, ir.GroupBy) and step.agg_index is not None:
        # a groupBy written without aggs and its agg step are one step once parsed; the
        # aggregates (where an analysis error usually is) were written in the agg step
        return err.with_step(step.agg_index, "agg")
    return err.with_step(step.index, step.op)
