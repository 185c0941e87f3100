"""connect_plan: run JSON logical plans on Apache Spark through Spark Connect.

The public verbs are below; everything heavy (PySpark's protos and client, pyarrow) is
imported on first use, so ``import connect_plan`` stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .errors import (
    ConnectPlanError,
    ErrorDetail,
    LocalServerError,
    PlanError,
    ResultIntegrityError,
    ServerError,
    ServerUnavailableError,
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
    "LocalServerError",
    "PlanError",
    "ResultIntegrityError",
    "ServerError",
    "ServerUnavailableError",
    "__version__",
    "connect",
    "execute_plan",
    "supported_plan_operations",
    "translate",
    "validate",
]


def supported_plan_operations() -> tuple[str, ...]:
    """Every plan op name connect_plan accepts (robin-sparkless' discovery call)."""
    from .parse import OPS

    return tuple(OPS)


def validate(rows: Any, schema: Any, plan: Any) -> None:
    """Parse and check a plan without translating it; raise :class:`PlanError` if invalid."""
    from .client import load_plan
    from .translator import translate_ir

    translate_ir(load_plan(plan, rows, schema))


def translate(rows: Any, schema: Any, plan: Any, *, case_sensitive: bool = False) -> pb.Plan:
    """Translate a plan to a Spark Connect ``Plan`` proto. Pure: no network, no JVM, and the
    same input always gives the same proto.

    ``plan`` is a list of steps or its JSON text (``rows``/``schema`` are the input data), or
    a plan document ``{"input": ..., "plan": [...]}`` (then pass ``None`` for both).
    """
    from .client import load_plan
    from .translator import translate_ir

    return translate_ir(load_plan(plan, rows, schema), case_sensitive=case_sensitive).plan


def connect(remote: str | None = None, **kwargs: Any) -> Client:
    """Open a connection (``remote``: ``sc://host:port/;token=...``; default ``SPARK_REMOTE``,
    then the local server started by ``connect-plan server start``)."""
    from .client import Client

    return Client(remote, **kwargs)


def execute_plan(rows: Any, schema: Any, plan: Any, remote: str | None = None, **kwargs: Any) -> pa.Table:
    """Run a plan on a Spark Connect server and return the result as a ``pyarrow.Table``.

    Same argument shapes as ``robin_sparkless._execute_plan(data, schema, plan_json)``.
    """
    with connect(remote, **kwargs) as client:
        return client.execute(plan, data=rows, schema=schema)


def __getattr__(name: str) -> Any:
    if name == "Client":
        from .client import Client

        return Client
    raise AttributeError(f"module 'connect_plan' has no attribute {name!r}")
