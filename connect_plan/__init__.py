"""connect_plan: run JSON logical plans on Apache Spark through Spark Connect.

The public verbs are below; everything heavy (PySpark's protos and client, pyarrow) is
imported on first use, so ``import connect_plan`` stays cheap.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .errors import (
    ConnectPlanError,
    ErrorDetail,
    InputTooLargeError,
    InsecureTransportError,
    LocalServerError,
    PlanError,
    PlanTooLargeError,
    QueryTimeoutError,
    ResultIntegrityError,
    ServerError,
    ServerUnavailableError,
    UnsupportedServerError,
)

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql.connect import proto as pb

    from .client import Client

__version__ = "0.1.0"

__all__ = [
    "Client",
    "ConnectPlanError",
    "ErrorDetail",
    "InputTooLargeError",
    "InsecureTransportError",
    "LocalServerError",
    "PlanError",
    "PlanTooLargeError",
    "QueryTimeoutError",
    "ResultIntegrityError",
    "ServerError",
    "ServerUnavailableError",
    "UnsupportedServerError",
    "__version__",
    "connect",
    "execute_plan",
    "supported_plan_operations",
    "translate",
    "validate",
]


def supported_plan_operations() -> tuple[str, ...]:
    """Every plan op name connect_plan accepts (robin-sparkless' discovery call)."""
    from .formats.json_plan import OPS

    return tuple(OPS)


def validate(rows: Any, schema: Any, plan: Any, *, tables: Mapping[str, Any] | None = None) -> None:
    """Check a plan without a server; raise :class:`PlanError` listing every problem.

    Everything is checked that can be known without a server; the column names of a table,
    files or SQL input are the server's to tell, so a join that must rename colliding columns
    of such an input passes here (``translate`` without a client reports ``needs_schema``).
    """
    from .formats import load_plan
    from .translator import translate_ir

    translate_ir(load_plan(plan, rows, schema, tables=tables), check_only=True)


def translate(
    rows: Any, schema: Any, plan: Any, *, case_sensitive: bool = False, tables: Mapping[str, Any] | None = None
) -> pb.Plan:
    """Translate a plan to a Spark Connect ``Plan`` proto. Pure: no network, no JVM, and the
    same input always gives the same proto.

    ``plan`` is a list of steps or its JSON text (``rows``/``schema`` are the input data), or
    a plan document ``{"input": ..., "plan": [...]}`` (then pass ``None`` for both), or a
    Substrait ``Plan`` (binary, JSON text or dict, or a protobuf message; ``None`` for both),
    whose table names ``tables`` may map to sources (``{"t": {"files": [...], "format": "parquet"}}``).
    """
    from .formats import load_plan
    from .translator import translate_ir

    return translate_ir(load_plan(plan, rows, schema, tables=tables), case_sensitive=case_sensitive).plan


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
    tables: Mapping[str, Any] | None = None,
    **kwargs: Any,
) -> pa.Table | pa.RecordBatchReader:
    """Run a plan on a Spark Connect server and return the result as a ``pyarrow.Table``,
    or with ``stream=True`` as a ``pyarrow.RecordBatchReader`` that yields batches as they
    arrive (its connection closes when the reader is exhausted or dropped).

    Same argument shapes as ``robin_sparkless._execute_plan(data, schema, plan_json)``;
    ``max_rows``/``max_bytes`` bound the result (see :meth:`Client.stream`).
    """
    client = connect(remote, **kwargs)
    if not stream:
        with client:
            return client.execute(plan, data=rows, schema=schema, tables=tables, max_rows=max_rows, max_bytes=max_bytes)
    from .client import owned_stream

    # the reader owns the client: its connection closes with the stream
    return owned_stream(client, plan, rows, schema, max_rows=max_rows, max_bytes=max_bytes, tables=tables)


def __getattr__(name: str) -> Any:
    if name == "Client":
        from .client import Client

        return Client
    raise AttributeError(f"module 'connect_plan' has no attribute {name!r}")
