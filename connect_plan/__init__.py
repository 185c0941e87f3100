"""connect_plan: run logical plans — JSON plan documents and Substrait plans — on Apache Spark
(or Sail) through Spark Connect, with no JVM on the client side.

The public verbs are below; everything heavy (Spark Connect's message classes, gRPC,
pyarrow) is imported on first use, so ``import connect_plan`` stays cheap.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from .errors import (
    ConnectPlanError,
    ErrorDetail,
    InputTooLargeError,
    InsecureTransportError,
    InvalidPolicyError,
    LocalServerError,
    PlanError,
    PlanTooLargeError,
    PolicyError,
    QueryTimeoutError,
    ResultContractError,
    ResultIntegrityError,
    ServerError,
    ServerUnavailableError,
    UnsupportedServerError,
    Violation,
)

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql.connect import proto as pb

    from .client import Client
    from .drawing import PlanDrawing
    from .policy import Policy
    from .telemetry import Progress, QueryStats

__version__ = "0.1.0"

__all__ = [
    "Client",
    "ConnectPlanError",
    "ErrorDetail",
    "InputTooLargeError",
    "InsecureTransportError",
    "InvalidPolicyError",
    "LocalServerError",
    "PlanError",
    "PlanTooLargeError",
    "Policy",
    "PolicyError",
    "QueryTimeoutError",
    "ResultContractError",
    "ResultIntegrityError",
    "ServerError",
    "ServerUnavailableError",
    "UnsupportedServerError",
    "Violation",
    "__version__",
    "connect",
    "draw",
    "execute_plan",
    "serve",
    "supported_plan_operations",
    "translate",
    "validate",
]


def supported_plan_operations() -> tuple[str, ...]:
    """Every plan op name connect_plan accepts (robin-sparkless' discovery call)."""
    from .formats.json_plan import OPS

    return tuple(OPS)


def validate(
    rows: Any, schema: Any, plan: Any, *, policy: Policy | None = None, tables: Mapping[str, Any] | None = None
) -> None:
    """Check a plan without a server; raise :class:`PlanError` listing every problem
    (:class:`PolicyError`, a ``PlanError``, listing every violation when ``policy`` refuses it).

    Everything is checked that can be known without a server; the column names of a table,
    files or SQL input are the server's to tell, so a join that must rename colliding columns
    of such an input passes here (``translate`` without a client reports ``needs_schema``).
    """
    from .translator import translate_ir

    translate_ir(_load_checked(plan, rows, schema, policy, tables), check_only=True)


def translate(
    rows: Any,
    schema: Any,
    plan: Any,
    *,
    case_sensitive: bool = False,
    policy: Policy | None = None,
    tables: Mapping[str, Any] | None = None,
) -> pb.Plan:
    """Translate a plan to a Spark Connect ``Plan`` proto. Pure: no network, no JVM, and the
    same input always gives the same proto.

    ``plan`` is a list of steps or its JSON text (``rows``/``schema`` are the input data), or
    a plan document ``{"input": ..., "plan": [...]}`` (then pass ``None`` for both), or a
    Substrait ``Plan`` (binary, JSON text or dict, or a protobuf message; ``None`` for both),
    whose table names ``tables`` may map to sources (``{"t": {"files": [...], "format": "parquet"}}``).
    ``policy``: a :class:`~connect_plan.policy.Policy` the plan must pass (:class:`PolicyError`).
    """
    from .translator import translate_ir

    return translate_ir(_load_checked(plan, rows, schema, policy, tables), case_sensitive=case_sensitive).plan


def _load_checked(
    plan: Any, rows: Any, schema: Any, policy: Policy | None, tables: Mapping[str, Any] | None = None
) -> Any:
    """The plan as IR, checked against ``policy`` when one is given (before any translation)."""
    from .formats import load_plan

    ir_plan = load_plan(plan, rows, schema, tables=tables)
    if policy is not None:
        policy.check(ir_plan)
    return ir_plan


def draw(
    plan: Any, data: Any = None, schema: Any = None, *, failed_step: int | None = None, title: str | None = None
) -> PlanDrawing:
    """The plan drawn as a tree, without a server: a :class:`~connect_plan.drawing.PlanDrawing`
    (``.dot()``, ``.mermaid()``, ``.svg()``, ``.png()``, ``.save(path)``; a notebook shows it
    as a picture). Each source, step and output is a node with its op, its key arguments and
    the columns it outputs where they are known without Spark; ``failed_step`` (a
    ``ServerError``'s ``op_index``) is highlighted. The tree is titled by the plan's format
    ("JSON plan", "Substrait plan"), or ``title``. ``Client.draw(..., analyzed=True)`` adds
    Spark's optimized and physical plans."""
    from .drawing import PlanDrawing, draw_plan
    from .formats import load_plan, title_of
    from .translator import translate_ir

    ir_plan = load_plan(plan, data, schema)
    columns = translate_ir(ir_plan, check_only=True).step_columns
    title = title or title_of(plan)
    return PlanDrawing((draw_plan(ir_plan, columns, failed_step=failed_step, title=title),))


def connect(remote: str | None = None, **kwargs: Any) -> Client:
    """Open a connection (``remote``: ``sc://host:port/;token=...``; default ``SPARK_REMOTE``,
    then the local server started by ``connect-plan server start``)."""
    from .client import Client

    return Client(remote, **kwargs)


def execute_plan(
    rows: Any,
    schema: Any,
    plan: Any,
    remote: str | None = None,
    *,
    stream: bool = False,
    max_rows: int | None = None,
    max_bytes: int | None = None,
    on_progress: Callable[[Progress], object] | None = None,
    on_stats: Callable[[QueryStats], object] | None = None,
    tables: Mapping[str, Any] | None = None,
    **kwargs: Any,
) -> pa.Table | pa.RecordBatchReader:
    """Run a plan on a Spark Connect server and return the result as a ``pyarrow.Table``,
    or with ``stream=True`` as a ``pyarrow.RecordBatchReader`` that yields batches as they
    arrive (its connection closes when the reader is exhausted or dropped).

    Same argument shapes as ``robin_sparkless._execute_plan(data, schema, plan_json)``;
    ``max_rows``/``max_bytes`` bound the result (see :meth:`Client.stream`); ``policy=``
    (among ``kwargs``) is the client's :class:`~connect_plan.policy.Policy`, checked before
    anything is sent; ``on_progress``/``on_stats`` watch the query (see :meth:`Client.execute`).
    """
    client = connect(remote, **kwargs)
    watch: dict[str, Any] = {"on_progress": on_progress, "on_stats": on_stats, "tables": tables}
    if not stream:
        with client:
            return client.execute(plan, data=rows, schema=schema, max_rows=max_rows, max_bytes=max_bytes, **watch)
    from .client import owned_stream

    # the reader owns the client: its connection closes with the stream
    return owned_stream(client, plan, rows, schema, max_rows=max_rows, max_bytes=max_bytes, **watch)


def __getattr__(name: str) -> Any:
    if name == "Client":
        from .client import Client

        return Client
    if name == "Policy":
        from .policy import Policy

        return Policy
    if name == "serve":  # the Flight SQL server (connect_plan.flightsql), loaded when asked for
        from .flightsql import serve

        return serve
    raise AttributeError(f"module 'connect_plan' has no attribute {name!r}")


def __dir__() -> list[str]:
    """The public names only (not the typing helpers this module imports)."""
    return sorted(__all__)
