"""Plan outputs → Spark Connect commands (Substrait *Write*).

A plan whose last step is ``write`` (or whose document has ``output``) becomes a
``WriteOperation`` command; ``createOrReplaceTempView`` and friends become a
``CreateDataFrameViewCommand``. The written relation is wrapped in ``CollectMetrics`` so
the server reports how many rows it wrote (observed metric :data:`ROWS_METRIC`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import ir
from ..spark_proto import pb
from .relations import Emitter
from .rels import Rel

__all__ = ["METRICS_NAME", "ROWS_METRIC", "emit_output"]

#: name of the observation attached to a write, and its one metric
METRICS_NAME = "connect_plan.write"
ROWS_METRIC = "rows"

_MODES = {
    "error": pb.WriteOperation.SAVE_MODE_ERROR_IF_EXISTS,
    "append": pb.WriteOperation.SAVE_MODE_APPEND,
    "overwrite": pb.WriteOperation.SAVE_MODE_OVERWRITE,
    "ignore": pb.WriteOperation.SAVE_MODE_IGNORE,
}
_METHODS = {
    "save_as_table": pb.WriteOperation.SaveTable.TABLE_SAVE_METHOD_SAVE_AS_TABLE,
    "insert_into": pb.WriteOperation.SaveTable.TABLE_SAVE_METHOD_INSERT_INTO,
}


def build_write(output: ir.Write, chain: list[Rel], plan_id: int, out: pb.Plan, em: Emitter) -> None:
    em.files = True
    w = out.command.write_operation
    counted = w.input
    counted.common.plan_id = plan_id
    cm = counted.collect_metrics
    cm.name = METRICS_NAME
    metric = cm.metrics.add().alias
    metric.name.append(ROWS_METRIC)
    count = metric.expr.unresolved_function
    count.function_name = "count"
    count.arguments.add().literal.integer = 1
    em.chain(chain, cm.input)
    if output.format is not None:
        w.source = output.format
    if output.path is not None:
        w.path = output.path
    else:
        assert output.table is not None and output.method is not None
        w.table.table_name = output.table
        w.table.save_method = _METHODS[output.method]
    w.mode = _MODES[output.mode]
    w.partitioning_columns.extend(output.partition_by)
    for k, v in output.options:
        w.options[k] = v


def build_view(output: ir.TempView, chain: list[Rel], plan_id: int, out: pb.Plan, em: Emitter) -> None:
    v = out.command.create_dataframe_view
    em.chain(chain, v.input)
    v.name = output.name
    v.is_global = output.is_global
    v.replace = output.replace


OUTPUT_BUILDERS: dict[type, Callable[[Any, list[Rel], int, pb.Plan, Emitter], None]] = ir.covering(
    {ir.Write: build_write, ir.TempView: build_view}, ir.OUTPUT_CLASSES, "translator.outputs.OUTPUT_BUILDERS"
)


def emit_output(output: ir.Output, chain: list[Rel], plan_id: int, out: pb.Plan, em: Emitter) -> None:
    OUTPUT_BUILDERS[type(output)](output, chain, plan_id, out, em)


def describe(output: ir.Output) -> dict[str, Any]:
    """What an output does, as the one-row report a write returns (rows added later)."""
    if isinstance(output, ir.TempView):
        kind = ("global " if output.is_global else "") + "temp view"
        return {
            "operation": output.op,
            "target": output.name,
            "format": kind,
            "mode": "overwrite" if output.replace else "error",
            "partition_by": [],
        }
    op = {"save_as_table": "saveAsTable", "insert_into": "insertInto"}.get(output.method or "", "write")
    return {
        "operation": op,
        "target": output.path if output.path is not None else output.table,
        "format": output.format,
        "mode": output.mode,
        "partition_by": list(output.partition_by),
    }
