"""Inline rows + schema → an Arrow table, column by column: :func:`rows_to_arrow`.

Rows arrive as JSON-ish Python values (lists in schema order, or dicts keyed by column
name). Each column goes to Arrow in one step where its values' types allow
(:mod:`.buffers`), else value by value (:mod:`.coerce`), every value that does not fit an
:class:`~connect_plan.errors.ErrorDetail` naming its row and column.
"""

from __future__ import annotations

import difflib
import weakref
from collections.abc import Mapping, Sequence
from itertools import repeat
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from ..arrow_types import inline_arrow_type
from ..errors import ErrorDetail
from ..limits import CHEAP_WALK_NODES, MAX_ROW_ERRORS
from ..shapes import container_problem, plain_tree_encodable
from ..types import ArrayType, DataType, TypeParseError
from . import buffers
from .coerce import CoerceError, Field, coerce_value

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["nbytes_bound", "rows_to_arrow"]


def _column(
    values: list[Any],
    field: Field,
    at: pa.DataType,
    rows_loc: str,
    col_index: int,
    errors: list[ErrorDetail],
    present: set[type],
) -> pa.Array:
    import pyarrow as pa

    fast = buffers.fast_column(values, field.type, at, present)
    if fast is not None:
        return fast
    out: list[Any] = []
    for i, v in enumerate(values):
        try:
            out.append(coerce_value(v, field.type))
        except CoerceError as bad:
            out.append(None)
            if len(errors) < MAX_ROW_ERRORS:
                errors.append(
                    ErrorDetail(
                        "row_value",
                        f"{rows_loc}/{i}/{col_index}",
                        f"row {i}, column {field.name!r} ({_tname(field.type)}): {bad}",
                        v,
                    )
                )
    if errors:
        return pa.nulls(len(values), type=at)
    built = buffers.coerced_array(out, field.type, at)
    if built is not None:
        return built
    try:
        return pa.array(out, type=at)
    except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError, ValueError, TypeError) as exc:
        errors.append(ErrorDetail("row_value", f"{rows_loc}", f"column {field.name!r} cannot be converted: {exc}"))
        return pa.nulls(len(values), type=at)


def _tname(t: DataType) -> str:
    from ..types import type_string

    return type_string(t)


def _infer_array_column(values: list[Any], field: Field) -> tuple[DataType, pa.DataType]:
    """A bare ``array``/``list`` column: element type from the data (bigint if unknown)."""
    import pyarrow as pa

    from ..arrow_types import from_arrow

    sample = [v for v in values if v is not None]
    try:
        inferred = pa.array(sample).type if sample else pa.list_(pa.int64())
    except (
        pa.ArrowInvalid,
        pa.ArrowTypeError,
        pa.ArrowNotImplementedError,
        RecursionError,
        ValueError,
        TypeError,
        OverflowError,
    ):
        inferred = pa.list_(pa.int64())
    if not pa.types.is_list(inferred) or pa.types.is_null(inferred.value_type):
        inferred = pa.list_(pa.int64())
    t = from_arrow(inferred)
    return t, inline_arrow_type(t)


def _columns(
    rows: Sequence[Any],
    names: list[str],
    rows_loc: str,
    errors: list[ErrorDetail],
    other_keys: bool = False,
    case_sensitive: bool = False,
) -> list[list[Any]]:
    """Rows → one list of values per column.

    The common shapes (every row a list/tuple of the schema's length, or every row a dict)
    are transposed column by column with C-level ``map`` calls: no Python code runs per
    value and no per-row objects are allocated (``zip(*rows)`` allocates an iterator per
    row, which also wakes the cyclic GC; it is ~4x slower at 1e6 rows). Anything else
    takes a per-row loop that reports each malformed row.
    """
    n_cols = len(names)
    row_types = set(map(type, rows))
    if row_types <= {list, tuple}:
        if set(map(len, rows)) <= {n_cols}:
            return [list(map(itemgetter(j), rows)) for j in range(n_cols)]
    elif row_types == {dict}:
        # missing keys read as null; every key must name a column (the check is one C-level
        # union of the key sets; rows with other keys take the loop below)
        if other_keys or set().union(*map(dict.keys, rows)) <= set(names):
            return [list(map(dict.get, rows, repeat(name))) for name in names]
    columns: list[list[Any]] = [[] for _ in names]
    by_name = _RowKeys(names, case_sensitive)
    for i, r in enumerate(rows):
        if isinstance(r, Mapping):
            if not other_keys:
                r = by_name.rekey(r, i, rows_loc, errors)
            for j, name in enumerate(names):
                columns[j].append(r.get(name))
        elif isinstance(r, (list, tuple)):
            if len(r) != n_cols:
                if len(errors) < MAX_ROW_ERRORS:
                    errors.append(
                        ErrorDetail(
                            "row_length",
                            f"{rows_loc}/{i}",
                            f"row {i} has {len(r)} values but the schema has {n_cols} columns",
                            r,
                        )
                    )
                continue
            for j in range(n_cols):
                columns[j].append(r[j])
        elif len(errors) < MAX_ROW_ERRORS:
            errors.append(
                ErrorDetail(
                    "row_type",
                    f"{rows_loc}/{i}",
                    f"row {i} must be a list (schema order) or an object keyed by column name",
                    r,
                )
            )
    return columns


class _RowKeys:
    """The keys a row object may have: the column names, and (as Spark resolves names
    case-insensitively unless ``spark.sql.caseSensitive``) any spelling of one that differs
    only in case, where that is unambiguous. A key naming no column is an error at the row
    and key, never dropped."""

    def __init__(self, names: Sequence[str], case_sensitive: bool = False) -> None:
        self.names = frozenset(names)
        lowered: dict[str, list[str]] = {}
        for n in names:
            lowered.setdefault(n.lower(), []).append(n)
        self.folded = {} if case_sensitive else {k: v[0] for k, v in lowered.items() if len(v) == 1}
        self.case_sensitive = case_sensitive
        self.sorted = sorted(names)

    def rekey(self, row: Mapping[Any, Any], i: int, rows_loc: str, errors: list[ErrorDetail]) -> Mapping[Any, Any]:
        if all(k in self.names for k in row):
            return row
        out: dict[Any, Any] = {}
        for k, v in row.items():
            target = k if k in self.names else self.folded.get(k.lower()) if isinstance(k, str) else None
            if target is None:
                if len(errors) < MAX_ROW_ERRORS:
                    near = difflib.get_close_matches(str(k), self.sorted, n=1, cutoff=0.6)
                    if not near and isinstance(k, str):
                        near = difflib.get_close_matches(k.lower(), [n.lower() for n in self.sorted], n=1, cutoff=0.6)
                    hint = f"; did you mean {near[0]!r}?" if near else ""
                    if self.case_sensitive and isinstance(k, str) and k.lower() in map(str.lower, self.names):
                        hint += (
                            " (the plan's conf sets spark.sql.caseSensitive, so names match only in their exact case)"
                        )
                    errors.append(
                        ErrorDetail(
                            "row_key",
                            f"{rows_loc}/{i}/{k}",
                            f"row {i} has a key {k!r} that names no column of the schema ({', '.join(self.sorted)}){hint}",
                            k,
                        )
                    )
                continue
            if target in out:
                if len(errors) < MAX_ROW_ERRORS:
                    errors.append(
                        ErrorDetail(
                            "row_key",
                            f"{rows_loc}/{i}/{k}",
                            f"row {i} gives column {target!r} twice (column names match case-insensitively)",
                            k,
                        )
                    )
                continue
            out[target] = v
        return out


def rows_to_arrow(
    rows: Sequence[Any],
    fields: Sequence[Field],
    rows_loc: str,
    errors: list[ErrorDetail],
    *,
    other_keys: bool = False,
    case_sensitive: bool = False,
) -> pa.Table:
    """Convert rows (lists in schema order or dicts by name) to an Arrow table.
    ``case_sensitive``: a row object's key must name its column in the exact case
    (``spark.sql.caseSensitive``), else any unambiguous case matches.

    Problems are appended to ``errors`` (row shape, bad values); the returned table is then
    only a placeholder of the right schema.
    """
    import pyarrow as pa

    names = [f.name for f in fields]
    start_errors = len(errors)
    if not isinstance(rows, (list, tuple)):
        errors.append(ErrorDetail("rows_type", rows_loc, "rows must be a list", rows))
        rows = []
    columns = _columns(rows, names, rows_loc, errors, other_keys, case_sensitive)
    if len(errors) > start_errors:
        return _empty_table(fields)
    present = [set(map(type, values)) for values in columns]  # one C-speed scan per column
    for j, field in enumerate(fields):
        if not _CONTAINERS.isdisjoint(present[j]):
            _check_containers(columns[j], field, rows_loc, j, errors)
    if len(errors) > start_errors:  # before any conversion, which would copy every reuse
        _locate(errors, start_errors, rows, names, rows_loc)
        return _empty_table(fields)
    arrays = []
    for j, field in enumerate(fields):
        t = field.type
        if isinstance(t, ArrayType) and t.element is None:
            t, at = _infer_array_column(columns[j], field)
            field = Field(field.name, t, field.loc)
        else:
            at = inline_arrow_type(t)
        arrays.append(_column(columns[j], field, at, rows_loc, j, errors, present[j]))
    if len(errors) > start_errors:
        _locate(errors, start_errors, rows, names, rows_loc)
        return pa.Table.from_arrays(arrays, names=names)
    # every array has its column's Arrow type ``at``: the schema is read from them (nullable
    # fields without metadata, as pa.field makes them), not built field by field
    table = pa.Table.from_arrays(arrays, names=names)
    _own_buffers(table)
    return table


#: the tables rows_to_arrow built, by id while they live. Each of their buffers was made for
#: one of their arrays (by pa.array, a cast, or packed here) and no array of theirs is a slice,
#: so the bytes their arrays reference (``nbytes``, which costs ~2 µs a column to count) are
#: at most the bytes of their distinct buffers (``get_total_buffer_size()``, 0.2 µs a table),
#: but for one thing: CPython hands out one shared ``bytes`` object for each single byte, so
#: the one-byte buffers packed here (a validity bitmap, booleans, a string column's text: at
#: most 3 a column) may be one buffer for several arrays, counted once. See :func:`nbytes_bound`.
_OWN_BUFFERS: dict[int, weakref.ref[Any]] = {}
_SHARED_BYTES_PER_COLUMN = 3


def _own_buffers(table: pa.Table) -> None:
    key = id(table)

    def forget(_: object, key: int = key) -> None:
        _OWN_BUFFERS.pop(key, None)

    _OWN_BUFFERS[key] = weakref.ref(table, forget)


def nbytes_bound(table: pa.Table) -> int | None:
    """An upper bound of ``table.nbytes`` that costs next to nothing, for a table
    :func:`rows_to_arrow` built; None for any other table (whose arrays may share buffers,
    each use of which ``nbytes`` counts)."""
    ref = _OWN_BUFFERS.get(id(table))
    built_here = ref is not None and ref() is table
    if not built_here:
        return None
    return int(table.get_total_buffer_size() + _SHARED_BYTES_PER_COLUMN * table.num_columns)


_CONTAINERS = frozenset({list, tuple, dict})


def _check_containers(
    values: list[Any], field: Field, rows_loc: str, col_index: int, errors: list[ErrorDetail]
) -> None:
    """Lists and objects among ``values`` must be trees of bounded size (see
    :func:`connect_plan.shapes.container_problem`)."""

    if plain_tree_encodable(values, CHEAP_WALK_NODES):  # the usual case: one walk, no call per value
        return
    for i, v in enumerate(values):
        if type(v) in _CONTAINERS and len(errors) < MAX_ROW_ERRORS:
            problem = container_problem(v)
            if problem is not None:
                code, message = problem
                errors.append(
                    ErrorDetail(code, f"{rows_loc}/{i}/{col_index}", f"row {i}, column {field.name!r}: {message}")
                )


def _locate(errors: list[ErrorDetail], start: int, rows: Sequence[Any], names: list[str], rows_loc: str) -> None:
    """Report bad values row by row, as a reader scans the input; a value of a row given as
    an object is located by its key, as the user wrote it."""
    errors[start:] = [_by_key(d, rows, names, rows_loc) for d in sorted(errors[start:], key=_row_col_key)]


def _by_key(d: ErrorDetail, rows: Sequence[Any], names: Sequence[str], rows_loc: str) -> ErrorDetail:
    parts = d.loc[len(rows_loc) :].split("/")  # ["", row, column] for a value
    if (
        len(parts) != 3
        or not parts[1].isdigit()
        or not parts[2].isdigit()
        or not isinstance(rows[int(parts[1])], Mapping)
    ):
        return d
    return ErrorDetail(d.code, f"{rows_loc}/{parts[1]}/{names[int(parts[2])]}", d.message, d.input)


def _row_col_key(d: ErrorDetail) -> tuple[int, ...]:
    return tuple(int(p) for p in d.loc.rsplit("/", 2)[-2:] if p.isdigit())


def _empty_table(fields: Sequence[Field]) -> pa.Table:
    import pyarrow as pa

    cols = []
    for f in fields:
        try:
            cols.append(pa.field(f.name, inline_arrow_type(f.type)))
        except TypeParseError:
            cols.append(pa.field(f.name, pa.int64()))
    return pa.schema(cols).empty_table()
