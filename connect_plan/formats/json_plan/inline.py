"""Inline inputs: rows with their schema (converted to Arrow here, value by value, each
problem located), Arrow data given as data (pyarrow tables, batches, readers, datasets, pandas
DataFrames and any Arrow PyCapsule producer: polars, DuckDB, nanoarrow), and
schema fields (``{"name", "type"}`` objects, ``[name, type]`` pairs, Spark's StructType JSON).
"""

from __future__ import annotations

import functools
from typing import Any

from ... import ir
from ...arrow_types import from_arrow, inline_arrow_type
from ...data import Field, rows_to_arrow
from ...types import StructType, TypeParseError, incomplete, parse_type, type_string
from .core import MAP, MISSING, Parser, check_keys, key
from .spellings import SCHEMA_FIELD_KEYS

__all__ = ["inline", "is_table_input", "parse_schema"]


def is_table_input(rows: Any) -> bool:
    """Whether ``rows`` is table data that carries its own schema: a pyarrow Table,
    RecordBatch, RecordBatchReader or dataset, a pandas DataFrame, or any object exposing the
    Arrow PyCapsule interface (``__arrow_c_stream__``/``__arrow_c_array__``: polars, DuckDB
    relations, nanoarrow, ...)."""
    if isinstance(rows, (list, tuple, dict, str, bytes)):
        return False
    mod = type(rows).__module__
    if mod.startswith("pyarrow"):
        import pyarrow as pa

        if isinstance(rows, (pa.Table, pa.RecordBatch, pa.RecordBatchReader)) or _is_dataset(rows):
            return True
    if mod.startswith("pandas") and type(rows).__name__ == "DataFrame":
        return True
    return hasattr(rows, "__arrow_c_stream__") or hasattr(rows, "__arrow_c_array__")


def _is_dataset(rows: Any) -> bool:
    if not type(rows).__module__.startswith("pyarrow._dataset"):
        return False
    import pyarrow.dataset as ds

    return isinstance(rows, (ds.Dataset, ds.Scanner))


def _from_capsule(p: Parser, rows: Any, rows_loc: str) -> Any:
    """An Arrow PyCapsule producer → a pyarrow Table over the producer's buffers (the C
    stream/array interface moves buffers without copying them); a stream of anything but
    table rows (a struct per row), e.g. a polars Series, is a located error."""
    import pyarrow as pa

    what = f"{type(rows).__module__}.{type(rows).__name__}"
    try:
        if hasattr(rows, "__arrow_c_stream__"):
            return pa.RecordBatchReader.from_stream(rows).read_all()
        return pa.Table.from_batches([pa.record_batch(rows)])
    except (pa.ArrowException, TypeError, ValueError) as exc:
        p.err(
            "rows_type",
            rows_loc,
            f"the {what} given as rows is not an Arrow table (a stream of record batches): {exc}",
            what,
        )
        return None


def parse_schema(p: Parser, raw: Any, loc: str, *, bare_array: bool = False) -> list[Field] | None:
    """Schema fields; ``bare_array``: a top-level bare ``array`` column is allowed (inline
    rows infer its element type)."""
    if isinstance(raw, MAP) and isinstance(raw.get("fields"), list):
        raw, loc = raw["fields"], f"{loc}/fields"  # Spark's StructType JSON
    elif isinstance(raw, str):
        raw = _ddl_fields(p, raw, loc)
        if raw is None:
            return None
    elif not isinstance(raw, (list, tuple, MAP)) and hasattr(raw, "fields"):
        raw = _struct_type_fields(p, raw, loc)
        if raw is None:
            return None
    if not isinstance(raw, (list, tuple)):
        p.err(
            "schema_type",
            loc,
            'a schema must be a list of {"name", "type"} objects or [name, type] pairs, a DDL string '
            "('name string, age int') or a StructType",
            raw,
        )
        return None
    fields: list[Field] = []
    seen: dict[str, int] = {}
    ok = True
    for i, item in enumerate(raw):
        at = f"{loc}/{i}"
        name: Any
        tval: Any
        if type(item) is dict and len(item) == 2 and "name" in item and "type" in item:
            # the usual {"name", "type"}: both keys read here, and the first spellings of theirs
            name, tval = item["name"], item["type"]
            if isinstance(tval, MAP):
                tval = tval.get("typeName", tval.get("type", MISSING))
        elif isinstance(item, MAP):
            check_keys(p, item, at, SCHEMA_FIELD_KEYS, "a schema field")
            _, name = key(item, "schema_field", "name")
            _, tval = key(item, "schema_field", "type")
            if isinstance(tval, MAP):
                tval = tval.get("typeName", tval.get("type", MISSING))
        elif isinstance(item, (list, tuple)) and len(item) == 2:
            name, tval = item
        else:
            p.err("schema_field", at, 'a schema field must be {"name", "type"} or a [name, type] pair', item)
            ok = False
            continue
        if not isinstance(name, str) or not name:
            p.err("schema_field", f"{at}/name", "a schema field needs a non-empty string 'name'", name)
            ok = False
            continue
        if not isinstance(tval, str):
            p.err("schema_field", f"{at}/type", f"field {name!r} needs a type string", tval)
            ok = False
            continue
        try:
            t = parse_type(tval)
        except TypeParseError as exc:
            p.err("unknown_type", f"{at}/type", f"field {name!r}: {exc}", tval)
            ok = False
            continue
        problem = incomplete(t, bare_array=bare_array)
        if problem is not None:
            p.err("incomplete_type", f"{at}/type", f"field {name!r}: {problem}", tval)
            ok = False
            continue
        if name.lower() in seen:
            p.err(
                "duplicate_column",
                at,
                f"column name {name!r} appears twice in the schema (names are case-insensitive)",
                name,
            )
            ok = False
            continue
        seen[name.lower()] = i
        fields.append(Field(name, t, at))
    return fields if ok else None


def _ddl_fields(p: Parser, text: str, loc: str) -> list[tuple[str, str]] | None:
    """A DDL schema string (``'name string, age int'``, as ``createDataFrame`` takes it) as
    ``(name, type)`` pairs, read by the plan format's type parser as a struct's fields."""
    try:
        t = parse_type(f"struct<{text}>") if text.strip() else None
    except TypeParseError as exc:
        p.err("schema_type", loc, f"not a DDL schema ('name string, age int'): {exc}", text)
        return None
    if not isinstance(t, StructType) or not t.fields:
        p.err("schema_type", loc, "a DDL schema names at least one column ('name string, age int')", text)
        return None
    return [(name, type_string(ftype)) for name, ftype in t.fields]


def _struct_type_fields(p: Parser, schema: Any, loc: str) -> list[tuple[str, str]] | None:
    """A ``StructType`` object (PySpark's or Sparkless') as ``(name, type)`` pairs. Its types
    are read from their parts, not from ``simpleString()``: Sparkless 3.31 writes a
    ``DecimalType(10, 2)`` as ``decimal``, which would read as ``decimal(10,0)``."""
    try:
        return [(str(f.name), _type_text(f.dataType)) for f in schema.fields]
    except (AttributeError, TypeError) as exc:
        p.err("schema_type", loc, f"a {type(schema).__name__} whose fields cannot be read: {exc}", repr(schema))
        return None


def _type_text(t: Any) -> str:
    """A PySpark-like ``DataType`` object as a type string, from its parts."""
    if hasattr(t, "fields"):
        return "struct<" + ",".join(f"`{f.name.replace('`', '``')}`:{_type_text(f.dataType)}" for f in t.fields) + ">"
    if hasattr(t, "precision") and hasattr(t, "scale"):
        return f"decimal({int(t.precision)},{int(t.scale)})"
    element = getattr(t, "elementType", getattr(t, "element_type", None))
    if element is not None:
        return f"array<{_type_text(element)}>"
    k, v = getattr(t, "keyType", getattr(t, "key_type", None)), getattr(t, "valueType", getattr(t, "value_type", None))
    if k is not None and v is not None:
        return f"map<{_type_text(k)},{_type_text(v)}>"
    return str(t.simpleString())


def inline(
    p: Parser, rows: Any, schema: Any, rows_loc: str, schema_loc: str, *, other_keys: bool = False
) -> ir.InlineData | None:
    """Rows (lists in schema order or objects keyed by column name) and their schema, or
    Arrow/pandas data with an optional schema. A row object's key that names no column is
    an error, except with ``other_keys``: Sparkless' right side of a join or union, whose
    ``other_schema`` is the schema *after* its ``other_plan`` steps while ``other_data`` holds
    the rows before them (columns those steps drop are not in its output)."""
    if is_table_input(rows):
        table = _arrow_input(p, rows, rows_loc)
        if table is None:
            return None
        return _arrow_source(p, table, schema, rows_loc, schema_loc)
    fields = parse_schema(p, schema, schema_loc, bare_array=True)
    if fields is None:
        return None
    if not isinstance(rows, (list, tuple)):
        p.err(
            "rows_type",
            rows_loc,
            "rows must be a list of lists (schema order) or of objects keyed by column name",
            rows,
        )
        return None
    table = rows_to_arrow(rows, fields, rows_loc, p.errors, other_keys=other_keys, case_sensitive=p.case_sensitive)
    return ir.InlineData(table, rows_loc)


def _arrow_input(p: Parser, rows: Any, rows_loc: str) -> Any:
    """A pyarrow Table/RecordBatch or pandas DataFrame given as data → a pyarrow Table,
    or None after recording located errors (``{rows_loc}/columns/{i}``). Column names
    follow the inline schema's rules: non-empty and unique case-insensitively."""
    import pyarrow as pa

    if isinstance(rows, pa.RecordBatch):
        table = pa.Table.from_batches([rows])
    elif isinstance(rows, pa.Table):
        table = rows
    elif isinstance(rows, pa.RecordBatchReader):
        table = rows.read_all()
    elif _is_dataset(rows):
        table = rows.to_table()
    elif type(rows).__module__.startswith("pandas"):
        table = _from_pandas(p, rows, rows_loc)
    else:
        table = _from_capsule(p, rows, rows_loc)
    if table is None:
        return None
    seen: dict[str, int] = {}
    ok = True
    for i, name in enumerate(table.schema.names):  # Table.column_names: 6x slower
        at = f"{rows_loc}/columns/{i}"
        if not name:
            p.err("column_name", at, "an input column needs a non-empty name", name)
            ok = False
        elif name.lower() in seen:
            p.err(
                "duplicate_column",
                at,
                f"column name {name!r} appears twice in the input (names are case-insensitive; the first is column {seen[name.lower()]})",
                name,
            )
            ok = False
        else:
            seen[name.lower()] = i
    return table if ok else None


def _from_pandas(p: Parser, df: Any, rows_loc: str) -> Any:
    """pandas → Arrow, each column that pyarrow cannot convert located by name (mixed
    object columns, complex numbers, sparse data ...)."""
    import pyarrow as pa

    names = [str(c) for c in df.columns]
    dupes = {n for n in names if names.count(n) > 1}
    if dupes:
        for i, n in enumerate(names):
            if n in dupes and names.index(n) != i:
                p.err(
                    "duplicate_column",
                    f"{rows_loc}/columns/{i}",
                    f"column name {n!r} appears twice in the DataFrame",
                    n,
                )
        return None
    try:
        return pa.Table.from_pandas(df, preserve_index=False)
    except (pa.ArrowException, ValueError, TypeError, OverflowError):
        pass  # find the column(s) at fault
    found = False
    for i, name in enumerate(names):
        try:
            pa.Table.from_pandas(df.iloc[:, [i]], preserve_index=False)
        except (pa.ArrowException, ValueError, TypeError, OverflowError) as exc:
            found = True
            dtype = str(df.dtypes.iloc[i])
            p.err(
                "unsupported_column",
                f"{rows_loc}/columns/{i}",
                f"column {name!r} ({dtype}) cannot be converted to Arrow: {_arrow_reason(exc)}",
                dtype,
            )
    if not found:
        p.err("unsupported_column", rows_loc, "the DataFrame cannot be converted to Arrow")
    return None


def _arrow_reason(exc: BaseException) -> str:
    """pyarrow's message without its repetition of the column (it wraps both in a tuple)."""
    first = next(iter(exc.args), None)
    return first if isinstance(first, str) else str(exc)


def _arrow_source(p: Parser, table: Any, schema: Any, rows_loc: str, schema_loc: str) -> ir.InlineData | None:
    if schema is not None and schema != [] and schema is not MISSING:
        fields = parse_schema(p, schema, schema_loc)
        if fields is None:
            return None
        if [f.name for f in fields] != table.column_names:
            p.err(
                "schema_mismatch",
                schema_loc,
                f"the schema names {[f.name for f in fields]} differ from the Arrow columns {table.column_names}",
            )
            return None
        import pyarrow as pa

        try:
            target = pa.schema([pa.field(f.name, inline_arrow_type(f.type)) for f in fields])
            if table.schema.types != target.types:  # casting to the same types still costs ~5 µs a column
                table = table.cast(target)
        except (pa.ArrowException, TypeParseError, ValueError, TypeError) as exc:
            p.err("schema_mismatch", schema_loc, f"the Arrow data cannot be cast to the schema: {exc}")
            return None
        return ir.InlineData(table, rows_loc)
    return _spark_readable(p, table, rows_loc)


def _spark_readable(p: Parser, table: Any, rows_loc: str) -> ir.InlineData | None:
    """Arrow data without a declared schema, with each column cast to the Arrow type
    Spark reads for its Spark type: unsigned ints widen, nanosecond timestamps become
    microseconds, dictionaries (pandas categoricals) are decoded, large/view strings
    become plain strings. Spark rejects the original types (or, for dictionaries, reads
    the indices)."""
    import pyarrow as pa

    schema = table.schema
    try:
        # the usual columns (integers, doubles, strings, booleans, dates ...) are already
        # Spark's: known by their type ids, without hashing the schema for the cache below
        plain = _spark_as_is().issuperset(t.id for t in schema.types)
        target = None if plain else _spark_readable_schema(schema)
    except TypeParseError:
        for i, f in enumerate(table.schema):
            try:
                from_arrow(f.type)
            except TypeParseError as exc:
                p.err("unsupported_type", f"{rows_loc}/columns/{i}", f"column {f.name!r}: {exc}", str(f.type))
        return None
    if target is not None:
        try:
            table = table.cast(target)
        except (pa.ArrowException, ValueError, TypeError) as exc:
            p.err("unsupported_type", rows_loc, f"the Arrow data cannot be converted to Spark's types {target}: {exc}")
            return None
    return ir.InlineData(table, rows_loc)


@functools.cache
def _spark_as_is() -> frozenset[int]:
    """The ids of the Arrow types without parameters that Spark reads as they are
    (``inline_arrow_type(from_arrow(t)) == t``: two such types are equal when their ids are)."""
    import pyarrow as pa

    names = ("int8", "int16", "int32", "int64", "float32", "float64", "string", "bool", "date32", "binary", "null")
    plain = [pa.type_for_alias(name) for name in names]
    return frozenset(t.id for t in plain if inline_arrow_type(from_arrow(t)) == t)


@functools.lru_cache(maxsize=256)
def _spark_readable_schema(schema: Any) -> Any:
    """``schema`` with each type replaced by the Arrow type Spark reads for its Spark type,
    or None when nothing changes; cached, as inputs repeat their schemas."""
    import pyarrow as pa

    target = pa.schema([pa.field(f.name, inline_arrow_type(from_arrow(f.type))) for f in schema])
    return None if target.types == schema.types else target
