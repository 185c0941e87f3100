"""Substrait types → Spark types, and the column names and nested layouts of a ``NamedStruct``
(a read's base schema, a written table's schema)."""

from __future__ import annotations

from google.protobuf.message import Message

from ...types import ArrayType, DataType, MapType, Primitive, StructType
from .state import Converter, Shape, json_name

__all__ = ["NO_TIME", "PRIMITIVE_TYPES", "TIME_KINDS", "schema_shapes", "spark_type", "top_names"]

#: Substrait type kind → Spark primitive (parameterised kinds are handled in :func:`spark_type`)
PRIMITIVE_TYPES: dict[str, str] = {
    "bool": "boolean",
    "i8": "tinyint",
    "i16": "smallint",
    "i32": "int",
    "i64": "bigint",
    "fp32": "float",
    "fp64": "double",
    "string": "string",
    "varchar": "string",
    "fixed_char": "string",
    "binary": "binary",
    "fixed_binary": "binary",
    "date": "date",
    "timestamp": "timestamp_ntz",
    "precision_timestamp": "timestamp_ntz",
    "timestamp_tz": "timestamp",
    "precision_timestamp_tz": "timestamp",
    "uuid": "string",  # Spark has no UUID type; its uuid() is a string, and so are UUID literals here
}

#: Substrait's time of day (the old microsecond ``time`` and ``precision_time``)
TIME_KINDS = frozenset({"time", "precision_time"})
NO_TIME = (
    "a time of day has no Spark type: Spark 4.3 refuses its TIME type by default "
    "(UNSUPPORTED_TIME_TYPE, measured over Spark Connect)"
)


def spark_type(c: Converter, msg: Message, loc: str) -> DataType | None:
    kind = msg.WhichOneof("kind")
    if kind in PRIMITIVE_TYPES:
        return Primitive(PRIMITIVE_TYPES[kind])
    if kind == "decimal":
        return Primitive("decimal", msg.decimal.precision, msg.decimal.scale)
    if kind == "interval_year":
        return Primitive("interval year to month")
    if kind == "interval_day":
        if msg.interval_day.HasField("precision") and msg.interval_day.precision > 6:
            c.err(
                "substrait_type",
                f"{loc}/intervalDay/precision",
                f"an interval of precision {msg.interval_day.precision}: Spark's intervals hold microseconds",
            )
            return None
        return Primitive("interval day to second")
    if kind == "interval_compound":
        return Primitive("interval")  # months, days and time apart, as interval_compound literals run
    if kind == "list":
        inner = spark_type(c, msg.list.type, f"{loc}/list/type")
        return ArrayType(inner) if inner is not None else None
    if kind == "map":
        k = spark_type(c, msg.map.key, f"{loc}/map/key")
        v = spark_type(c, msg.map.value, f"{loc}/map/value")
        return MapType(k, v) if k is not None and v is not None else None
    if kind == "struct":
        fields = []
        for i, t in enumerate(msg.struct.types):
            ft = spark_type(c, t, f"{loc}/struct/types/{i}")
            if ft is None:
                return None
            fields.append((f"f{i}", ft))
        return StructType(tuple(fields))
    c.err(
        "substrait_type",
        f"{loc}/{json_name(msg, kind) if kind else 'kind'}",
        (f"the Substrait type '{kind}' has no Spark type" if kind else "a type with no kind set")
        + (f" ({NO_TIME})" if kind in TIME_KINDS else ""),
    )
    return None


def schema_shapes(schema: Message) -> list[Shape | None]:
    """The shape of each top-level column of a NamedStruct (struct field names come after
    their column's name, depth-first)."""
    names = iter(list(schema.names))

    def one(t: Message) -> Shape | None:
        if t.WhichOneof("kind") != "struct":
            return None
        fields = []
        for sub in t.struct.types:
            fields.append((next(names, ""), one(sub)))
        return Shape(tuple(fields))

    out = []
    for t in schema.struct.types:
        next(names, None)
        out.append(one(t))
    return out


def top_names(schema: Message) -> list[str]:
    """The top-level column names of a NamedStruct: its names are depth-first, a struct
    column's field names right after its own name."""
    names = list(schema.names)
    out: list[str] = []
    pos = 0

    def skip(t: Message) -> None:
        nonlocal pos
        if t.WhichOneof("kind") == "struct":
            for sub in t.struct.types:
                pos += 1
                skip(sub)

    for t in schema.struct.types:
        if pos >= len(names):
            break
        out.append(names[pos])
        skip(t)
        pos += 1
    return out if schema.struct.types else names
