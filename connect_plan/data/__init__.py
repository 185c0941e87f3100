"""Data: inline rows + schema → Arrow, column by column, and Arrow as Spark Connect carries it.

Rows arrive as JSON-ish Python values (lists in schema order, or dicts keyed by column
name). Each column is converted in one of two ways:

* **fast path** — when the Python types present in a column are exactly what Arrow
  accepts for the target type (checked with one C-level ``set(map(type, values))``), the
  whole column goes to ``pyarrow.array`` / an Arrow cast in one call;
* **slow path** — otherwise each value is coerced by the rules of PLAN_FORMAT.md §6.1
  (ISO date strings, numeric strings, ``{"year","month","day"}`` objects, base64 binary,
  JSON strings holding arrays/objects ...), and every value that does not fit becomes an
  :class:`~connect_plan.errors.ErrorDetail` naming its row and column.

Nothing here talks to a server; the result is a ``pyarrow.Table`` whose Arrow types are
what Spark reads back as the declared Spark types (see :mod:`connect_plan.types`).

Modules, in import order:

``coerce``   one value coerced to its column's type (the slow path; also fixtures and literals)
``buffers``  columns built straight from Arrow buffers (the fast paths)
``rows``     rows + schema → an Arrow table, with every problem located (``rows_to_arrow``)
``ipc``      Arrow IPC bytes, ``LocalRelation`` filling, chunks of a cached relation
"""

from __future__ import annotations

from .coerce import CoerceError, Field, coerce_value
from .ipc import fill_local_relation, ipc_chunks, serialize_ipc
from .rows import nbytes_bound, rows_to_arrow

__all__ = [
    "CoerceError",
    "Field",
    "coerce_value",
    "fill_local_relation",
    "ipc_chunks",
    "nbytes_bound",
    "rows_to_arrow",
    "serialize_ipc",
]
