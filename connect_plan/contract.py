"""The result contract: Spark's result held to what the plan declares, before its first row
reaches the caller (the seed ``datafusion-invariants``: the schema a plan derives is the
schema that runs).

A Substrait plan declares its result (``RelRoot.names``, every type it states: the front-end
reads them into an :class:`~connect_plan.ir.Contract` of Spark-side facts). :func:`check_schema`
compares the first schema of the result (its first batch's, or the announced one) with it:

- the column count, and each column's position (its name, where the plan names it), must be
  equal: a difference is an error naming the relation and the column;
- each column's type *class* must be equal (integer, decimal, floating, string, binary,
  boolean, date, timestamp, timestamp with time zone, the three intervals; lists, maps and
  structs part by part), except that Spark's number may be of a more exact class than the
  plan's (an integer where a decimal or a float is declared, a decimal where a float is):
  never of a less exact one (a decimal where an integer is declared is the signature of a
  measure read from the wrong column);
- within a class, the column is returned in the declared type (:class:`Conformed`): cast with
  pyarrow's safe cast, which raises where a value overflows or would lose digits (so a
  would-be wrong value is an error, never a silent rounding). The tolerated differences, each
  with its reason, are listed in docs/substrait.md ("The result contract").

A column the plan does not type is checked for its position only. A NULL in a column the plan
declares required is an error too (checked on every batch: Arrow batches carry their null
counts, so it costs a lookup per column). Every problem is listed at once in one
:class:`~connect_plan.errors.ResultContractError`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import ir
from .errors import ErrorDetail, ResultContractError
from .records import Value, frozen
from .types import ArrayType, DataType, MapType, Primitive, StructType, type_string

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["Conformed", "check_schema"]

#: Spark type name (:class:`~connect_plan.types.Primitive`) → its class
SPARK_CLASSES: dict[str, str] = {
    "tinyint": "integer",
    "smallint": "integer",
    "int": "integer",
    "bigint": "integer",
    "decimal": "decimal",
    "float": "floating point",
    "double": "floating point",
    "string": "string",
    "binary": "binary",
    "boolean": "boolean",
    "date": "date",
    "timestamp_ntz": "timestamp",
    "timestamp": "timestamp with time zone",
    "interval year to month": "year-month interval",
    "interval day to second": "day-time interval",
    "interval": "calendar interval",
}

#: numeric classes by exactness: Spark's may be more exact than the declared one, not less
EXACTNESS = {"integer": 0, "decimal": 1, "floating point": 2}

#: Arrow's names of the interval types Spark's batches carry → class
ARROW_INTERVALS = {
    "month_interval": "year-month interval",
    "month_day_nano_interval": "calendar interval",
}

#: the largest finite float32: a double beyond it has no float32 value
FLOAT32_MAX = 3.4028234663852886e38


@frozen
class Conformed(Value):
    """How to return a result: its ``schema`` (Spark's, with each column the plan declares in
    another type of the same class in the declared type), the ``casts`` that makes each batch
    so (column index → target type) and the columns the plan declares ``required`` (a NULL
    there is an error), with the contract for messages."""

    schema: pa.Schema
    casts: tuple[tuple[int, pa.DataType], ...] = ()
    required: tuple[int, ...] = ()
    contract: ir.Contract | None = None

    def batch(self, batch: pa.RecordBatch) -> pa.RecordBatch:
        """``batch`` in the declared types; :class:`ResultContractError` if a value does not fit
        its declared type or a NULL is in a required column."""
        if self.contract is None or not (self.required or self.casts):
            return batch
        import pyarrow as pa

        contract = self.contract
        nulls = [i for i in self.required if batch.column(i).null_count]
        if nulls:
            raise ResultContractError(
                [
                    ErrorDetail(
                        "result_contract",
                        contract.columns[i].loc,
                        f"{_column(contract, i)} is declared required ({contract.columns[i].declared}), "
                        "and Spark returned a NULL in it",
                    )
                    for i in nulls
                ],
                contract.loc,
            )
        if not self.casts:
            return batch
        arrays = list(batch.columns)
        for i, target in self.casts:
            arrays[i] = _cast(arrays[i], target, contract, i)
        return pa.RecordBatch.from_arrays(arrays, schema=self.schema)


def check_schema(contract: ir.Contract | None, schema: pa.Schema) -> Conformed:
    """Hold ``schema`` (Spark's, for the plan's result) to ``contract``: how to return the
    result (:class:`Conformed`; as Spark sends it when there is no contract), or
    :class:`ResultContractError` listing every difference."""
    if contract is None:
        return Conformed(schema)
    import pyarrow as pa

    columns = contract.columns
    if len(columns) != len(schema):
        declared = ", ".join(repr(c.name) if c.name is not None else f"#{i}" for i, c in enumerate(columns))
        raise ResultContractError(
            [
                ErrorDetail(
                    "result_contract",
                    contract.loc,
                    f"the plan declares {len(columns)} columns ({declared}), Spark returned {len(schema)} "
                    f"({', '.join(map(repr, schema.names))})" + _first_difference(columns, schema),
                )
            ],
            contract.loc,
        )
    problems: list[ErrorDetail] = []
    fields = list(schema)
    casts: list[tuple[int, pa.DataType]] = []
    for i, (column, spark) in enumerate(zip(columns, fields, strict=True)):
        if column.name is not None and column.name != spark.name:
            problems.append(
                ErrorDetail(
                    "result_contract",
                    column.name_loc,
                    f"column {i} is {column.name!r} in the plan, Spark returned {spark.name!r} there",
                )
            )
            continue
        if column.type is None:
            continue
        try:
            target = _target(column.type, spark.type)
        except _Mismatch as e:
            where = f" (at {e.path.lstrip('/')})" if e.path else ""
            problems.append(
                ErrorDetail(
                    "result_contract",
                    column.loc,
                    f"{_column(contract, i)} is declared {column.declared}, Spark returned {spark_text(spark.type)}: "
                    f"{e.why}{where}",
                )
            )
            continue
        if not target.equals(spark.type):
            casts.append((i, target))
            fields[i] = pa.field(spark.name, target, spark.nullable, spark.metadata)
    if problems:
        raise ResultContractError(problems, contract.loc)
    required = tuple(i for i, c in enumerate(columns) if c.nullable is False)
    return Conformed(pa.schema(fields, schema.metadata), tuple(casts), required, contract)


def _column(contract: ir.Contract, i: int) -> str:
    name = contract.columns[i].name
    return f"column {i}" + (f" ({name!r})" if name is not None else "")


def _first_difference(columns: tuple[ir.ContractColumn, ...], schema: pa.Schema) -> str:
    for i, (c, name) in enumerate(zip(columns, schema.names)):
        if c.name is not None and c.name != name:
            return f"; they first differ at column {i} ({c.name!r}, Spark {name!r})"
    shorter = min(len(columns), len(schema))
    return f"; they first differ at column {shorter}"


def spark_text(t: pa.DataType) -> str:
    """An Arrow type Spark sent, as Spark names its type (``decimal(25,2)``, ``bigint``)."""
    from .arrow_types import from_arrow
    from .types import TypeParseError

    try:
        return type_string(from_arrow(t))
    except TypeParseError:  # the intervals: Arrow's own name
        return str(t)


def _a(what: str) -> str:
    return ("an " if what[0] in "aeiou" else "a ") + what


class _Mismatch(Exception):
    """A part of a column whose class differs (``path``: where in a nested type, or empty)."""

    def __init__(self, why: str, path: str = "") -> None:
        super().__init__(why)
        self.why = why
        self.path = path


def arrow_class(t: pa.DataType) -> str:
    """The class of an Arrow type Spark sends."""
    import pyarrow as pa

    checks = (
        (pa.types.is_integer, "integer"),
        (pa.types.is_decimal, "decimal"),
        (pa.types.is_floating, "floating point"),
        (lambda x: pa.types.is_string(x) or pa.types.is_large_string(x), "string"),
        (lambda x: pa.types.is_binary(x) or pa.types.is_large_binary(x) or pa.types.is_fixed_size_binary(x), "binary"),
        (pa.types.is_boolean, "boolean"),
        (pa.types.is_date, "date"),
        (pa.types.is_duration, "day-time interval"),
        (lambda x: pa.types.is_list(x) or pa.types.is_large_list(x), "list"),
        (pa.types.is_map, "map"),
        (pa.types.is_struct, "struct"),
        (pa.types.is_null, "null"),
    )
    for check, name in checks:
        if check(t):
            return name
    if pa.types.is_timestamp(t):
        return "timestamp" if t.tz is None else "timestamp with time zone"
    return ARROW_INTERVALS.get(str(t), str(t))


def declared_class(t: DataType) -> str:
    if isinstance(t, ArrayType):
        return "list"
    if isinstance(t, MapType):
        return "map"
    if isinstance(t, StructType):
        return "struct"
    return SPARK_CLASSES.get(t.name, t.name)


def _target(declared: DataType, actual: pa.DataType, path: str = "") -> pa.DataType:
    """The Arrow type to return a column of Spark type ``actual`` in, the plan having declared
    ``declared``; :class:`_Mismatch` where the classes differ (or a struct's fields do)."""
    import pyarrow as pa

    want, got = declared_class(declared), arrow_class(actual)
    if got == "null":  # Spark's NULL type (an untyped NULL): every value fits any type
        return _arrow_of(declared) or actual
    if want != got:
        if want in EXACTNESS and got in EXACTNESS and EXACTNESS[got] < EXACTNESS[want]:
            return _numeric(declared)  # a more exact number than declared: converted, checked
        raise _Mismatch(f"{_a(got)} where the plan declares {_a(want)}", path)
    if isinstance(declared, Primitive):
        if want in EXACTNESS:
            if want == "decimal" and actual.scale > declared.scale:
                return actual  # Spark's decimal keeps more digits than declared: none is dropped
            return _numeric(declared)
        return actual  # one Arrow type per class: Spark's is the declared type's
    if isinstance(declared, ArrayType):
        if declared.element is None:
            return actual
        item = actual.value_field
        return pa.list_(item.with_type(_target(declared.element, item.type, f"{path}/element")))
    if isinstance(declared, MapType):
        if declared.key is None or declared.value is None:
            return actual
        key = actual.key_field.with_type(_target(declared.key, actual.key_type, f"{path}/key"))
        return pa.map_(key, actual.item_field.with_type(_target(declared.value, actual.item_type, f"{path}/value")))
    if actual.num_fields != len(declared.fields):
        raise _Mismatch(f"a struct of {actual.num_fields} fields where the plan declares {len(declared.fields)}", path)
    fields = []
    for k, (name, t) in enumerate(declared.fields):
        spark = actual.field(k)
        if name and name != spark.name:
            raise _Mismatch(f"struct field {k} is {name!r} in the plan, {spark.name!r} in Spark's", path)
        fields.append(spark.with_type(_target(t, spark.type, f"{path}/{spark.name}")))
    return pa.struct(fields)


def _numeric(declared: DataType) -> pa.DataType:
    from .arrow_types import inline_arrow_type as arrow_type

    return arrow_type(declared)


def _arrow_of(declared: DataType) -> pa.DataType | None:
    """The Arrow type of a declared type, for a column of nulls (none for the intervals and
    zoned timestamps, whose Arrow types depend on what Spark sends: the nulls stay untyped)."""
    from .arrow_types import inline_arrow_type as arrow_type
    from .types import TypeParseError

    if "interval" in type_string(declared) or declared_class(declared) == "timestamp with time zone":
        return None
    try:
        return arrow_type(declared)
    except TypeParseError:
        return None


def _cast(array: Any, target: pa.DataType, contract: ir.Contract, i: int) -> Any:
    """``array`` in ``target``: pyarrow's safe cast (an overflow or a lost digit raises); a
    decimal to a float through its exact text (the nearest float: pyarrow's own cast can miss it
    by one unit in the last place); a double to a float32 checked for its range."""
    import pyarrow as pa
    import pyarrow.compute as pc

    try:
        if pa.types.is_decimal(array.type) and pa.types.is_floating(target):
            return array.cast(pa.string()).cast(target)
        if pa.types.is_float64(array.type) and pa.types.is_float32(target):
            finite = pc.filter(array, pc.is_finite(array))
            if len(finite) and pc.max(pc.abs(finite)).as_py() > FLOAT32_MAX:
                raise pa.ArrowInvalid(f"a value beyond float32's range ({FLOAT32_MAX})")
        return array.cast(target, safe=True)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
        column = contract.columns[i]
        raise ResultContractError(
            [
                ErrorDetail(
                    "result_contract",
                    column.loc,
                    f"{_column(contract, i)}: a value Spark returned does not fit the declared type "
                    f"{column.declared} exactly ({exc})",
                )
            ],
            contract.loc,
        ) from None
