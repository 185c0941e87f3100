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

import contextlib
import sys
import sysconfig
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from .errors import ConnectPlanError
from .translator.expressions import InlineUdf
from .types import DataType, TypeParseError, incomplete, parse_type, spark_type_proto

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
    pickle_by_value: bool | None = None,
) -> InlineUdf:
    """Build the inline form of a Python UDF (no network).

    ``pickle_by_value``: cloudpickle sends a function of an importable module as a
    reference, which the server can only resolve if it has that module. ``None`` (the
    default) sends functions of the caller's own modules by value (module code outside
    ``site-packages`` and the standard library) and references to installed packages;
    ``True``/``False`` force either way.
    """
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
        problem = incomplete(ours)
        if problem is not None:
            raise ConnectPlanError(f"UDF {name!r}: bad return type {return_type!r}: {problem}")
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
    with _by_value(func, pickle_by_value):
        try:
            udf.command = CloudPickleSerializer().dumps((func, spark_type))  # type: ignore[no-untyped-call]
        except Exception as exc:  # PicklingError and whatever a custom __reduce__ raises
            raise ConnectPlanError(f"UDF {name!r}: the function cannot be pickled: {exc}") from None
    udf.python_ver = f"{sys.version_info[0]}.{sys.version_info[1]}"
    return InlineUdf(name, udf, deterministic, kind == "grouped_agg", ours)


def _installed(module_file: str) -> bool:
    """Is this module file part of an installed package or the standard library?"""
    path = Path(module_file).resolve()
    if any(part in ("site-packages", "dist-packages") for part in path.parts):
        return True
    for key in ("stdlib", "platstdlib"):
        root = sysconfig.get_paths().get(key)
        if root and path.is_relative_to(Path(root).resolve()):
            return True
    return False


@contextlib.contextmanager
def _by_value(func: Callable[..., Any], pickle_by_value: bool | None) -> Iterator[None]:
    """Let cloudpickle serialise the function's own module by value while it pickles."""
    from pyspark import cloudpickle

    module = sys.modules.get(getattr(func, "__module__", None) or "")
    if module is None or module.__name__ == "__main__" or pickle_by_value is False:
        yield
        return
    if pickle_by_value is None:
        module_file = getattr(module, "__file__", None)
        if not module_file or _installed(module_file):
            yield
            return
    try:
        cloudpickle.register_pickle_by_value(module)  # type: ignore[no-untyped-call]
    except ValueError:  # not a module cloudpickle can pickle by value
        yield
        return
    try:
        yield
    finally:
        cloudpickle.unregister_pickle_by_value(module)  # type: ignore[no-untyped-call]
