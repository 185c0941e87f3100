"""Python UDFs that travel inline in a plan.

A plan calls a UDF by name (``{"udf": "f", "args": [...]}``, ``{"op": "udf", ...}``,
``{"fn": "call_udf", "args": ["f", ...]}`` or the ``python_grouped_udf`` aggregation entry).
A name registered with :meth:`connect_plan.Client.register_udf` is sent as a Spark Connect
``CommonInlineUserDefinedFunction`` holding the cloudpickled function, exactly as PySpark's
``udf``/``pandas_udf`` send it; the server runs it in its Python workers, so their Python
must be able to unpickle it (same minor version, and pandas + pyarrow for pandas UDFs).
Any other name is called as a function registered on the server.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from .errors import ConnectPlanError
from .translate.expressions import InlineUdf
from .types import DataType, TypeParseError, parse_type, spark_type_proto

__all__ = ["UDF_KINDS", "make_inline_udf"]

#: kind → PySpark eval type (pyspark.util.PythonEvalType)
UDF_KINDS: dict[str, int] = {
    "scalar": 100,  # SQL_BATCHED_UDF: a plain Python function, one row at a time
    "arrow": 101,  # SQL_ARROW_BATCHED_UDF: the same function, Arrow-optimised transfer
    "pandas": 200,  # SQL_SCALAR_PANDAS_UDF: pandas.Series -> pandas.Series
    "grouped_agg": 202,  # SQL_GROUPED_AGG_PANDAS_UDF: pandas.Series -> scalar (an aggregate)
}


def make_inline_udf(
    name: str,
    func: Callable[..., Any],
    return_type: Any,
    *,
    kind: str = "scalar",
    deterministic: bool = True,
) -> InlineUdf:
    """Build the inline form of a Python UDF (no network)."""
    from pyspark.serializers import CloudPickleSerializer
    from pyspark.sql.connect import proto as pb
    from pyspark.sql.connect.types import proto_schema_to_pyspark_data_type, pyspark_types_to_proto_types
    from pyspark.sql.types import DataType as SparkDataType

    if not isinstance(name, str) or not name:
        raise ConnectPlanError("a UDF needs a non-empty string name")
    if not callable(func):
        raise ConnectPlanError(f"UDF {name!r}: {func!r} is not callable")
    if kind not in UDF_KINDS:
        raise ConnectPlanError(f"UDF {name!r}: kind must be one of {sorted(UDF_KINDS)}, not {kind!r}")
    ours: DataType | None = None
    if isinstance(return_type, SparkDataType):
        spark_type = return_type
        type_proto = pyspark_types_to_proto_types(return_type)
    elif isinstance(return_type, str):
        try:
            ours = parse_type(return_type)
        except TypeParseError as exc:
            raise ConnectPlanError(f"UDF {name!r}: bad return type {return_type!r}: {exc}") from None
        type_proto = spark_type_proto(ours)
        spark_type = proto_schema_to_pyspark_data_type(type_proto)
    else:
        raise ConnectPlanError(
            f"UDF {name!r}: return_type must be a type string ('bigint', 'array<string>') or a "
            f"pyspark.sql.types.DataType, not {type(return_type).__name__}"
        )
    udf = pb.PythonUDF()
    udf.output_type.CopyFrom(type_proto)
    udf.eval_type = UDF_KINDS[kind]
    udf.command = CloudPickleSerializer().dumps((func, spark_type))
    udf.python_ver = f"{sys.version_info[0]}.{sys.version_info[1]}"
    return InlineUdf(name, udf, deterministic, kind == "grouped_agg", ours)
