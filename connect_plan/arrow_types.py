"""Arrow ↔ Spark type facts, one home: every question of which Arrow type a Spark type has,
and back, is answered here (the result checker, the client, the inline-data converter, the
front-ends and the output writer all ask this module).

* a result schema the server announces (``spark.connect.DataType`` protos) → Arrow
  (:func:`arrow_schema`, :func:`arrow_type`, :func:`announced`), without PySpark;
* a plan-format type ↔ Arrow (:func:`inline_arrow_type` for inline data, :func:`from_arrow`
  for Arrow inputs and results);
* Spark's own Arrow conventions (:func:`spark_arrow_schema`: other engines' large and view
  types cast to Spark's);
* what the written forms need of a column's type (:func:`months_type` for year-month
  intervals, :func:`variant_shaped`).

The server announces a result's schema as a ``DataType`` proto (in the ``ExecutePlan``
stream, and as the answer of an ``AnalyzePlan``). PySpark reads it through its own type
classes, ``to_arrow_schema(proto_schema_to_pyspark_data_type(dt))``; importing those runs
``pyspark/__init__`` and the Connect package's dependency check, which imports pandas
(~0.5 s of a cold start). This module gives the same Arrow types from the proto directly,
type by type as PySpark 4.3 does (``pyspark/sql/connect/types.py`` and
``pyspark/sql/pandas/types.py``; tests/unit/test_arrow_types.py compares the two over every
kind):

* strings of every collation → ``string``; binary → ``binary``; decimal(p, s) →
  ``decimal128(p, s)`` (10, 0 when the proto leaves them out); date → ``date32``;
  timestamp → ``timestamp[us, tz]`` (the session's zone), timestamp_ntz → ``timestamp[us]``;
  day-time interval → ``duration[us]``; time → ``time64[ns]``; void → ``null``;
* arrays → ``list<element>`` (``containsNull``), maps → ``map<key, value>`` (key never null,
  ``valueContainsNull``), structs → ``struct`` (field nullability, and a field's JSON metadata
  re-serialised under ``SPARK::metadata::json``);
* variant → ``struct<value, metadata>``, geometry/geography → ``struct<srid, wkb>``, tagged in
  field metadata as PySpark tags them;
* a UDT → its ``sql_type`` as the proto carries it (PySpark imports the Python class the
  server names and asks it; the server sends both, and they agree);
* year-month and calendar intervals, char/varchar, kinds PySpark does not know
  (``unparsed``, the nanosecond timestamps) and invalid parameters (an unknown SRID, a
  precision Arrow refuses) have no mapping: :class:`NoArrowType`, which the result checker
  skips as it skipped PySpark's error. :func:`arrow_schema` with ``intervals=True`` gives the
  two intervals the types Spark's Arrow batches carry (``month_interval``,
  ``month_day_nano_interval``), for a schema read without batches.

Everything here is pure (no I/O) and imports only pyarrow and the standard library.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .records import Value, frozen
from .types import ArrayType, DataType, MapType, Primitive, StructType, TypeParseError

if TYPE_CHECKING:
    import pyarrow as pa

    from .spark_proto import pb

__all__ = [
    "METADATA_KEY",
    "VARIANT_METADATA",
    "AnnouncedField",
    "AnnouncedSchema",
    "NoArrowType",
    "announced",
    "arrow_schema",
    "arrow_type",
    "cast_batch",
    "from_arrow",
    "has_month_intervals",
    "has_timestamp",
    "inline_arrow_type",
    "is_variant",
    "months_type",
    "simple_string",
    "spark_arrow_schema",
    "spark_schema_json",
    "variant_shaped",
    "without_months",
]

#: the Arrow field-metadata key PySpark keeps a Spark field's JSON metadata under
METADATA_KEY = b"SPARK::metadata::json"

#: day-time and year-month interval fields, as Spark numbers them (start_field, end_field)
DAY_TIME_FIELDS = ("day", "hour", "minute", "second")
YEAR_MONTH_FIELDS = ("year", "month")
#: the SRIDs PySpark 4.3 accepts (``pyspark/sql/geo_utils.py``); geography only geographic ones
GEOMETRY_SRIDS = frozenset({0, 3857, 4326})
GEOGRAPHY_SRIDS = frozenset({4326})
#: SRID of a geometry/geography column that mixes SRIDs (``SpatialType.MIXED_SRID``)
MIXED_SRID = -1

#: simple strings of the kinds that carry no parameters (Spark's ``simpleString``)
SIMPLE_NAMES: dict[str, str] = {
    "null": "void",
    "boolean": "boolean",
    "binary": "binary",
    "byte": "tinyint",
    "short": "smallint",
    "integer": "int",
    "long": "bigint",
    "float": "float",
    "double": "double",
    "date": "date",
    "timestamp": "timestamp",
    "timestamp_ntz": "timestamp_ntz",
    "calendar_interval": "interval",
    "variant": "variant",
    "udt": "udt",
}


class NoArrowType(TypeError):
    """A Spark type with no Arrow form in PySpark's mapping (it raises for the same types)."""

    def __init__(self, type_string: str, why: str = "") -> None:
        self.type_string = type_string
        super().__init__(f"{type_string} has no Arrow type{f' ({why})' if why else ''}")


@frozen
class AnnouncedField(Value):
    """One column of an announced result schema: what the result checker compares."""

    name: str
    nullable: bool
    #: the Arrow type PySpark maps the column's type to (time zone UTC), None when none
    arrow: pa.DataType | None
    #: Spark's ``simpleString`` of the type, for messages
    type_string: str


@frozen
class AnnouncedSchema(Value):
    """A result schema the server announced (a struct ``DataType``), read for checking."""

    proto: pb.DataType
    fields: tuple[AnnouncedField, ...]

    @property
    def names(self) -> list[str]:
        return [f.name for f in self.fields]


def announced(dt: pb.DataType) -> AnnouncedSchema:
    """The columns of result schema ``dt`` with their Arrow types (UTC for timestamps: the
    checker does not compare zones). Raises ``ValueError`` if ``dt`` is not a struct."""
    if dt.WhichOneof("kind") != "struct":
        raise ValueError(f"a result schema is a struct, the server sent {simple_string(dt)}")
    fields = []
    for f in dt.struct.fields:
        try:
            arrow: pa.DataType | None = arrow_type(f.data_type)
        except NoArrowType:
            arrow = None
        fields.append(AnnouncedField(f.name, f.nullable, arrow, simple_string(f.data_type)))
    return AnnouncedSchema(dt, tuple(fields))


def arrow_schema(dt: pb.DataType, *, timezone: str = "UTC", intervals: bool = False) -> pa.Schema:
    """The Arrow schema of a result whose Spark schema is ``dt`` (a struct), as PySpark's
    ``to_arrow_schema`` gives it; timestamps in ``timezone`` (Spark's batches carry the
    session's). ``intervals``: year-month and calendar intervals as Spark's Arrow batches
    carry them, instead of :class:`NoArrowType`."""
    import pyarrow as pa

    if dt.WhichOneof("kind") != "struct":
        raise ValueError(f"a result schema is a struct, the server sent {simple_string(dt)}")
    return pa.schema([_arrow_field(f, timezone, intervals) for f in dt.struct.fields])


def arrow_type(dt: pb.DataType, *, timezone: str = "UTC") -> pa.DataType:
    """The Arrow type of Spark type ``dt``, as PySpark's ``to_arrow_type`` gives it; raises
    :class:`NoArrowType` where PySpark raises (see the module's docstring)."""
    return _arrow(dt, timezone, False)


def has_timestamp(dt: pb.DataType) -> bool:
    """Does ``dt`` hold a timestamp with a time zone anywhere (whose Arrow type needs the
    session's zone)?"""
    kind = dt.WhichOneof("kind")
    if kind == "timestamp":
        return True
    if kind == "array":
        return has_timestamp(dt.array.element_type)
    if kind == "map":
        return has_timestamp(dt.map.key_type) or has_timestamp(dt.map.value_type)
    if kind == "struct":
        return any(has_timestamp(f.data_type) for f in dt.struct.fields)
    if kind == "udt":
        return dt.udt.HasField("sql_type") and has_timestamp(dt.udt.sql_type)
    return False


def simple_string(dt: pb.DataType) -> str:
    """Spark's ``simpleString`` of ``dt`` (``bigint``, ``array<string>``,
    ``struct<a:int,b:decimal(10,2)>``), for messages."""
    kind = dt.WhichOneof("kind")
    if kind in SIMPLE_NAMES:
        return SIMPLE_NAMES[kind]
    describe = _SIMPLE_BUILDERS.get(kind or "")
    return describe(dt) if describe is not None else f"{kind or 'unknown'} type"


# ---------------------------------------------------------------- Arrow types, kind by kind


def _arrow(dt: pb.DataType, timezone: str, intervals: bool) -> pa.DataType:
    kind = dt.WhichOneof("kind") or ""
    build = _ARROW_BUILDERS.get(kind)
    if build is None:
        if intervals and kind in _SPARK_INTERVALS:
            return _SPARK_INTERVALS[kind]()
        raise NoArrowType(simple_string(dt))
    try:
        return build(getattr(dt, kind), timezone, intervals)
    except NoArrowType:
        raise
    except (ValueError, TypeError, OverflowError) as exc:  # Arrow refused the parameters
        raise NoArrowType(simple_string(dt), str(exc)) from None


def _arrow_field(f: pb.DataType.StructField, timezone: str, intervals: bool) -> pa.Field:
    import pyarrow as pa

    return pa.field(f.name, _arrow(f.data_type, timezone, intervals), nullable=f.nullable, metadata=_field_metadata(f))


def _field_metadata(f: pb.DataType.StructField) -> dict[bytes, bytes] | None:
    """A field's JSON metadata as PySpark carries it into Arrow: parsed, then dumped again
    with ``json.dumps``' default spacing; none when empty."""
    if not f.HasField("metadata"):
        return None
    try:
        metadata = json.loads(f.metadata)
    except ValueError as exc:
        raise NoArrowType(f"field {f.name!r}", f"its metadata is not JSON: {exc}") from None
    if not metadata:
        return None
    return {METADATA_KEY: json.dumps(metadata).encode("utf-8")}


def _decimal(t: Any, _tz: str, _iv: bool) -> pa.DataType:
    import pyarrow as pa

    precision = t.precision if t.HasField("precision") else 10
    scale = t.scale if t.HasField("scale") else 0
    return pa.decimal128(precision, scale)


def _day_time_interval(t: Any, _tz: str, _iv: bool) -> pa.DataType:
    import pyarrow as pa

    _interval_fields(t, DAY_TIME_FIELDS)
    return pa.duration("us")


def _array(t: Any, tz: str, iv: bool) -> pa.DataType:
    import pyarrow as pa

    return pa.list_(pa.field("element", _arrow(t.element_type, tz, iv), nullable=t.contains_null))


def _map(t: Any, tz: str, iv: bool) -> pa.DataType:
    import pyarrow as pa

    key = pa.field("key", _arrow(t.key_type, tz, iv), nullable=False)
    return pa.map_(key, pa.field("value", _arrow(t.value_type, tz, iv), nullable=t.value_contains_null))


def _struct(t: Any, tz: str, iv: bool) -> pa.DataType:
    import pyarrow as pa

    return pa.struct([_arrow_field(f, tz, iv) for f in t.fields])


def _variant(_t: Any, _tz: str, _iv: bool) -> pa.DataType:
    import pyarrow as pa

    return pa.struct(
        [
            pa.field("value", pa.binary(), nullable=False),
            pa.field("metadata", pa.binary(), nullable=False, metadata={b"variant": b"true"}),
        ]
    )


def _spatial(tag: bytes, srids: frozenset[int]) -> Callable[[Any, str, bool], pa.DataType]:
    def build(t: Any, _tz: str, _iv: bool) -> pa.DataType:
        import pyarrow as pa

        if t.srid != MIXED_SRID and t.srid not in srids:
            raise NoArrowType(f"{tag.decode()}({t.srid})", "an SRID PySpark does not know")
        return pa.struct(
            [
                pa.field("srid", pa.int32(), nullable=False),
                pa.field("wkb", pa.binary(), nullable=False, metadata={tag: b"true", b"srid": str(t.srid)}),
            ]
        )

    return build


def _udt(t: Any, tz: str, iv: bool) -> pa.DataType:
    if not t.HasField("sql_type"):
        raise NoArrowType("udt", "the server sent no sql_type")
    return _arrow(t.sql_type, tz, iv)


def _pa(name: str, *args: Any) -> Callable[[Any, str, bool], pa.DataType]:
    """A builder of ``pyarrow.<name>(*args)`` (pyarrow imported when first used)."""

    def build(_t: Any, _tz: str, _iv: bool) -> pa.DataType:
        import pyarrow as pa

        return getattr(pa, name)(*args)

    return build


def _timestamp(_t: Any, tz: str, _iv: bool) -> pa.DataType:
    import pyarrow as pa

    return pa.timestamp("us", tz=tz)


#: kind → builder of its Arrow type, from the kind's message (PySpark's ``to_arrow_type``)
_ARROW_BUILDERS: dict[str, Callable[[Any, str, bool], pa.DataType]] = {
    "null": _pa("null"),
    "boolean": _pa("bool_"),
    "byte": _pa("int8"),
    "short": _pa("int16"),
    "integer": _pa("int32"),
    "long": _pa("int64"),
    "float": _pa("float32"),
    "double": _pa("float64"),
    "decimal": _decimal,
    "string": _pa("string"),
    "binary": _pa("binary"),
    "date": _pa("date32"),
    "timestamp": _timestamp,
    "timestamp_ntz": _pa("timestamp", "us"),
    "day_time_interval": _day_time_interval,
    "time": _pa("time64", "ns"),
    "array": _array,
    "map": _map,
    "struct": _struct,
    "variant": _variant,
    "geometry": _spatial(b"geometry", GEOMETRY_SRIDS),
    "geography": _spatial(b"geography", GEOGRAPHY_SRIDS),
    "udt": _udt,
}


#: an Arrow IPC schema of one ``month_interval`` field: pyarrow has no factory for Arrow's
#: Interval(YEAR_MONTH), but reads it (Spark's batches carry year-month intervals so)
MONTH_INTERVAL_SCHEMA = bytes.fromhex(
    "ffffffff700000001000000000000a000c000600050008000a000000000104000c00000008000800000004000800"
    "0000040000000100000014000000100014000800060007000c0000001000100000000000010b1000000018000000"
    "0400000000000000010000006d000000040004000400000000000000"
)


def _month_interval() -> pa.DataType:
    import pyarrow as pa

    return pa.ipc.read_schema(pa.py_buffer(MONTH_INTERVAL_SCHEMA)).field(0).type


def _month_day_nano_interval() -> pa.DataType:
    import pyarrow as pa

    return pa.month_day_nano_interval()


#: the interval kinds PySpark has no Arrow type for, as Spark's batches carry them
_SPARK_INTERVALS: dict[str, Callable[[], pa.DataType]] = {
    "year_month_interval": _month_interval,
    "calendar_interval": _month_day_nano_interval,
}


# ---------------------------------------------------------------- simple strings


def _interval_fields(t: Any, names: tuple[str, ...]) -> tuple[str, str]:
    """The start and end field names of an interval type (PySpark's defaults: the widest
    range when neither is given, the start alone when only it is)."""
    if not t.HasField("start_field") and not t.HasField("end_field"):
        return names[0], names[-1]
    start = t.start_field if t.HasField("start_field") else None
    end = t.end_field if t.HasField("end_field") else start
    if start is None or end is None or not (0 <= start < len(names) and 0 <= end < len(names)):
        raise NoArrowType(f"interval ({start}, {end})", "fields Spark does not know")
    return names[start], names[end]


def _interval_string(dt: pb.DataType, which: str, names: tuple[str, ...]) -> str:
    try:
        start, end = _interval_fields(getattr(dt, which), names)
    except NoArrowType as exc:
        return exc.type_string
    return f"interval {start}" if start == end else f"interval {start} to {end}"


def _string_string(dt: pb.DataType) -> str:
    collation = dt.string.collation or "UTF8_BINARY"
    return "string" if collation == "UTF8_BINARY" else f"string collate {collation}"


def _spatial_string(dt: pb.DataType, which: str) -> str:
    srid = getattr(dt, which).srid
    return f"{which}(any)" if srid == MIXED_SRID else f"{which}({srid})"


def _decimal_string(dt: pb.DataType) -> str:
    t = dt.decimal
    return f"decimal({t.precision if t.HasField('precision') else 10},{t.scale if t.HasField('scale') else 0})"


_SIMPLE_BUILDERS: dict[str, Callable[[pb.DataType], str]] = {
    "decimal": _decimal_string,
    "string": _string_string,
    "char": lambda dt: f"char({dt.char.length})",
    "var_char": lambda dt: f"varchar({dt.var_char.length})",
    "time": lambda dt: f"time({dt.time.precision if dt.time.HasField('precision') else 6})",
    "day_time_interval": lambda dt: _interval_string(dt, "day_time_interval", DAY_TIME_FIELDS),
    "year_month_interval": lambda dt: _interval_string(dt, "year_month_interval", YEAR_MONTH_FIELDS),
    "array": lambda dt: f"array<{simple_string(dt.array.element_type)}>",
    "map": lambda dt: f"map<{simple_string(dt.map.key_type)},{simple_string(dt.map.value_type)}>",
    "struct": lambda dt: "struct<" + ",".join(f"{f.name}:{simple_string(f.data_type)}" for f in dt.struct.fields) + ">",
    "geometry": lambda dt: _spatial_string(dt, "geometry"),
    "geography": lambda dt: _spatial_string(dt, "geography"),
}


# ---------------------------------------------------------------- plan-format types ↔ Arrow


#: metadata field tagged ``variant=true`` (pyspark.sql.pandas.types.to_arrow_type)
VARIANT_METADATA = {b"variant": b"true"}


@functools.lru_cache(maxsize=1024)
def inline_arrow_type(t: DataType) -> pa.DataType:
    """Arrow type used for inline data of plan-format type ``t`` (as Spark reads it back)."""
    import pyarrow as pa

    if isinstance(t, Primitive):
        if t.name == "decimal":
            return pa.decimal128(t.precision, t.scale)
        if t.name == "variant":
            return pa.struct(
                [
                    pa.field("value", pa.binary(), nullable=False),
                    pa.field("metadata", pa.binary(), nullable=False, metadata=VARIANT_METADATA),
                ]
            )
        factory = _ARROW_PRIMITIVES.get(t.name)
        if factory is None:
            raise TypeParseError(f"type {t.name!r} cannot be used for inline data")
        return factory(pa)
    if isinstance(t, ArrayType):
        if t.element is None:
            raise TypeParseError("bare 'array' has no element type")
        return pa.list_(inline_arrow_type(t.element))
    if isinstance(t, MapType):
        if t.key is None or t.value is None:
            raise TypeParseError("bare 'map' has no key and value types; write map<K,V>")
        return pa.map_(inline_arrow_type(t.key), inline_arrow_type(t.value))
    return pa.struct([pa.field(n, inline_arrow_type(ft)) for n, ft in t.fields])


_ARROW_PRIMITIVES: dict[str, Any] = {
    "tinyint": lambda pa: pa.int8(),
    "smallint": lambda pa: pa.int16(),
    "int": lambda pa: pa.int32(),
    "bigint": lambda pa: pa.int64(),
    "float": lambda pa: pa.float32(),
    "double": lambda pa: pa.float64(),
    "string": lambda pa: pa.string(),
    "boolean": lambda pa: pa.bool_(),
    "date": lambda pa: pa.date32(),
    "timestamp": lambda pa: pa.timestamp("us", tz="UTC"),
    "timestamp_ntz": lambda pa: pa.timestamp("us"),
    "binary": lambda pa: pa.binary(),
    "void": lambda pa: pa.null(),
}


def from_arrow(t: pa.DataType) -> DataType:
    """The plan-format type of an Arrow type (results and Arrow inputs); raises
    :class:`~connect_plan.types.TypeParseError` for one Spark has no type for."""
    # a type without parameters is known by its id alone (one dict lookup: every inline
    # table's columns come through here on each translation)
    known = _by_type_id().get(t.id)
    if known is not None:
        return known
    import pyarrow.types as pat

    if pat.is_dictionary(t):  # e.g. pandas categoricals: the values' type
        return from_arrow(t.value_type)
    if pat.is_decimal(t):
        if t.precision > 38:
            raise TypeParseError(f"Arrow type {t} is wider than Spark's decimals (at most 38 digits)")
        return Primitive("decimal", t.precision, t.scale)
    if pat.is_timestamp(t):
        return Primitive("timestamp" if t.tz is not None else "timestamp_ntz")
    if pat.is_list(t) or pat.is_large_list(t) or pat.is_fixed_size_list(t):
        return ArrayType(from_arrow(t.value_type))
    if pat.is_map(t):
        return MapType(from_arrow(t.key_type), from_arrow(t.item_type))
    if pat.is_struct(t) and is_variant(t):
        return Primitive("variant")
    if pat.is_struct(t):
        return StructType(tuple((t.field(i).name, from_arrow(t.field(i).type)) for i in range(t.num_fields)))
    raise TypeParseError(f"Arrow type {t} has no Spark equivalent")


@functools.cache
def _by_type_id() -> dict[int, Primitive]:
    """Arrow type id → plan-format type, for the Arrow types that have no parameters (two
    such types are equal exactly when their ids are): Spark's own primitives, then the
    Arrow types Spark reads as one of them (wider strings and binaries, date64, unsigned
    ints widened, half floats)."""
    import pyarrow as pa

    out: dict[int, Primitive] = {}
    for name, factory in _ARROW_PRIMITIVES.items():
        if name not in ("timestamp", "timestamp_ntz"):  # parameterised (unit, zone): above
            out.setdefault(factory(pa).id, Primitive(name))
    wider = {
        "string": ("large_string", "string_view"),
        "binary": ("large_binary", "binary_view"),
        "date": ("date64",),
        "int": ("uint8", "uint16"),
        "bigint": ("uint32", "uint64"),
        "float": ("float16",),
    }
    for name, factories in wider.items():
        for factory_name in factories:
            arrow_factory = getattr(pa, factory_name, None)  # views: pyarrow 16 and later
            if arrow_factory is not None:
                out.setdefault(arrow_factory().id, Primitive(name))
    return out


def is_variant(t: pa.StructType) -> bool:
    """Is the struct Spark's variant? Spark's test (ArrowUtils): two fields value/metadata,
    the metadata field tagged :data:`VARIANT_METADATA`."""
    if t.num_fields != 2 or {t.field(i).name for i in range(2)} != {"value", "metadata"}:
        return False
    meta = t.field("metadata").metadata or {}
    return meta.get(b"variant") == b"true"


# ---------------------------------------------------------------- Spark's Arrow conventions


def _spark_arrow_type(t: Any) -> Any:
    import pyarrow as pa

    if pa.types.is_large_string(t) or pa.types.is_string_view(t):
        return pa.string()
    if pa.types.is_large_binary(t) or pa.types.is_binary_view(t):
        return pa.binary()
    if pa.types.is_decimal256(t) and t.precision <= 38:
        return pa.decimal128(t.precision, t.scale)
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_list_view(t) or pa.types.is_large_list_view(t):
        f = t.value_field
        return pa.list_(pa.field("element", _spark_arrow_type(f.type), f.nullable))
    if pa.types.is_map(t):
        k, v = t.key_field, t.item_field
        key, value = _spark_arrow_type(k.type), _spark_arrow_type(v.type)
        if (k.name, v.name) == ("key", "value") and key.equals(k.type) and value.equals(v.type):
            return t
        return pa.map_(pa.field("key", key, k.nullable), pa.field("value", value, v.nullable))
    if pa.types.is_struct(t):
        return pa.struct([f.with_type(_spark_arrow_type(f.type)) for f in t])
    return t


def spark_arrow_schema(schema: Any) -> Any:
    """``schema`` with Spark's Arrow conventions (what Spark itself sends and PySpark's
    ``toArrow`` gives): ``string``/``binary``/``list`` rather than their large or view
    forms, ``decimal128`` up to precision 38, list items named ``element``, map entries
    ``key``/``value``. Spark's results
    already are so; other engines' (Sail sends ``large_string``, ``list<item>``) are cast."""
    import pyarrow as pa

    return pa.schema([f.with_type(_spark_arrow_type(f.type)) for f in schema], metadata=schema.metadata)


def spark_schema_json(schema: pa.Schema) -> str:
    """Spark's JSON schema of an Arrow schema, as PySpark's ``from_arrow_schema(schema,
    prefer_timestamp_ntz=True).json()`` writes it (a ``LocalRelation``'s ``schema`` for a
    table without rows), without PySpark's type classes: importing those imports pandas,
    which the ``connect-plan`` process has not. tests/unit/test_arrow_types.py compares the
    two over every kind. A type PySpark has no Spark type for raises :class:`TypeParseError`."""
    fields = [_json_field(f) for f in schema]
    return json.dumps({"fields": fields, "type": "struct"}, separators=(",", ":"), sort_keys=True)


def _json_field(f: pa.Field) -> dict[str, Any]:
    meta = f.metadata or {}
    metadata = json.loads(meta[METADATA_KEY].decode("utf-8")) if METADATA_KEY in meta else {}
    return {"metadata": metadata, "name": f.name, "nullable": f.nullable, "type": _json_type(f.type)}


#: Arrow type id → Spark's JSON name, for the types without parameters PySpark maps
_JSON_NAMES = {
    "bool": "boolean",
    "int8": "byte",
    "int16": "short",
    "int32": "integer",
    "int64": "long",
    "float": "float",
    "double": "double",
    "string": "string",
    "large_string": "string",
    "binary": "binary",
    "large_binary": "binary",
    "date32[day]": "date",
    "null": "void",
    "month_interval": "interval year to month",
}


def _json_type(t: pa.DataType) -> Any:
    import pyarrow.types as pat

    name = _JSON_NAMES.get(str(t))
    if name is not None:
        return name
    if pat.is_decimal(t):
        return f"decimal({t.precision},{t.scale})"
    if pat.is_fixed_size_binary(t):
        return "binary"
    if pat.is_time64(t):
        return "time(6)"
    if pat.is_timestamp(t):
        return "timestamp" if t.tz is not None else "timestamp_ntz"
    if pat.is_duration(t):
        return "interval day to second"
    if pat.is_list(t) or pat.is_large_list(t) or pat.is_fixed_size_list(t):
        return {"containsNull": t.value_field.nullable, "elementType": _json_type(t.value_type), "type": "array"}
    if pat.is_map(t):
        return {
            "keyType": _json_type(t.key_type),
            "type": "map",
            "valueContainsNull": t.item_field.nullable,
            "valueType": _json_type(t.item_type),
        }
    if pat.is_struct(t):
        if is_variant(t):
            return "variant"
        return {"fields": [_json_field(t.field(i)) for i in range(t.num_fields)], "type": "struct"}
    if pat.is_dictionary(t):
        return _json_type(t.value_type)
    raise TypeParseError(f"Arrow type {t} has no Spark type")


def cast_batch(batch: Any, target: Any) -> Any:
    """``batch`` with its columns cast to ``target``'s types (:func:`spark_arrow_schema`)."""
    import pyarrow as pa

    return pa.RecordBatch.from_arrays([c.cast(f.type) for c, f in zip(batch.columns, target)], schema=target)


# ---------------------------------------------------------------- result columns, as written


#: a year-month interval's Arrow type, by name: pyarrow's Python layer cannot wrap such arrays
#: (``KeyError: 21``), so they are re-read as ``int32`` months through the C data interface
_MONTH_INTERVAL = "month_interval"


def months_type(t: pa.DataType) -> pa.DataType:
    """``t`` with every year-month interval inside it replaced by ``int32`` (its months)."""
    import pyarrow as pa

    if str(t) == _MONTH_INTERVAL:
        return pa.int32()
    if pa.types.is_map(t):
        return pa.map_(without_months(t.key_field), without_months(t.item_field), t.keys_sorted)
    if pa.types.is_large_list(t):
        return pa.large_list(without_months(t.value_field))
    if pa.types.is_fixed_size_list(t):
        return pa.list_(without_months(t.value_field), t.list_size)
    if pa.types.is_list(t):
        return pa.list_(without_months(t.value_field))
    if pa.types.is_struct(t):
        return pa.struct([without_months(t.field(i)) for i in range(t.num_fields)])
    return t


def without_months(f: pa.Field) -> pa.Field:
    """``f`` with :func:`months_type`."""
    import pyarrow as pa

    return pa.field(f.name, months_type(f.type), f.nullable, f.metadata)


def has_month_intervals(t: pa.DataType) -> bool:
    """Does ``t`` hold a year-month interval anywhere?"""
    return bool(months_type(t) != t)


def variant_shaped(field_or_type: Any) -> bool:
    """Is a result column (a field or its type) a variant by its shape: two binary fields
    ``value`` and ``metadata`` (whether or not the metadata field is tagged)?"""
    import pyarrow as pa

    t = field_or_type.type if isinstance(field_or_type, pa.Field) else field_or_type
    if not pa.types.is_struct(t) or t.num_fields != 2:
        return False
    names = {t.field(0).name, t.field(1).name}
    return names == {"value", "metadata"} and all(pa.types.is_binary(t.field(i).type) for i in range(2))
