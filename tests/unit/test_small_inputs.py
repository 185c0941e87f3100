"""The fixed per-query cost of small inline inputs (issue 17): the shortcuts taken for a few
rows must give exactly what the general paths give (same Arrow arrays, same IPC bytes, same
errors at the same locations)."""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pytest

# ---------------------------------------------------------------- from_arrow


def _from_arrow_by_predicates(t: pa.DataType) -> Any:
    """from_arrow as it was written before its table by type id: the pyarrow.types predicates."""
    import pyarrow.types as pat

    from connect_plan.types import ArrayType, MapType, Primitive, StructType, TypeParseError, _is_variant

    if pat.is_dictionary(t):
        return _from_arrow_by_predicates(t.value_type)
    if pat.is_decimal(t):
        if t.precision > 38:
            raise TypeParseError(f"Arrow type {t} is wider than Spark's decimals (at most 38 digits)")
        return Primitive("decimal", t.precision, t.scale)
    if pat.is_timestamp(t):
        return Primitive("timestamp" if t.tz is not None else "timestamp_ntz")
    if pat.is_list(t) or pat.is_large_list(t) or pat.is_fixed_size_list(t):
        return ArrayType(_from_arrow_by_predicates(t.value_type))
    if pat.is_map(t):
        return MapType(_from_arrow_by_predicates(t.key_type), _from_arrow_by_predicates(t.item_type))
    if pat.is_struct(t) and _is_variant(t):
        return Primitive("variant")
    if pat.is_struct(t):
        return StructType(tuple((f.name, _from_arrow_by_predicates(f.type)) for f in t))
    plain = {
        "tinyint": pa.int8(),
        "smallint": pa.int16(),
        "int": pa.int32(),
        "bigint": pa.int64(),
        "float": pa.float32(),
        "double": pa.float64(),
        "string": pa.string(),
        "boolean": pa.bool_(),
        "date": pa.date32(),
        "binary": pa.binary(),
        "void": pa.null(),
    }
    for name, arrow in plain.items():
        if t == arrow:
            return Primitive(name)
    if pat.is_large_string(t) or pat.is_string_view(t):
        return Primitive("string")
    if pat.is_large_binary(t) or pat.is_binary_view(t):
        return Primitive("binary")
    if pat.is_date64(t):
        return Primitive("date")
    if pat.is_uint8(t) or pat.is_uint16(t):
        return Primitive("int")
    if pat.is_uint32(t) or pat.is_uint64(t):
        return Primitive("bigint")
    if pat.is_float16(t):
        return Primitive("float")
    raise TypeParseError(f"Arrow type {t} has no Spark equivalent")


_ARROW_TYPES = [
    *(
        getattr(pa, name)()
        for name in (
            "int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64 string large_string "
            "string_view binary large_binary binary_view bool_ date32 date64 null month_day_nano_interval"
        ).split()
    ),
    pa.binary(4),
    pa.timestamp("us"),
    pa.timestamp("ns", tz="UTC"),
    pa.timestamp("s", tz="+01:00"),
    pa.time32("s"),
    pa.time64("us"),
    pa.duration("us"),
    pa.decimal128(10, 2),
    pa.decimal128(38, 0),
    pa.decimal256(39, 2),
    pa.decimal256(20, 2),
    pa.list_(pa.int64()),
    pa.large_list(pa.string()),
    pa.list_(pa.int8(), 3),
    pa.list_(pa.uint32()),
    pa.map_(pa.string(), pa.int64()),
    pa.struct([("a", pa.int64()), ("b", pa.list_(pa.date32()))]),
    pa.struct([("value", pa.binary()), ("metadata", pa.binary())]),
    pa.struct(
        [
            pa.field("value", pa.binary(), nullable=False),
            pa.field("metadata", pa.binary(), nullable=False, metadata={b"variant": b"true"}),
        ]
    ),
    pa.dictionary(pa.int32(), pa.string()),
    pa.dictionary(pa.int8(), pa.uint64()),
    pa.dense_union([pa.field("a", pa.int8())]),
    pa.run_end_encoded(pa.int32(), pa.string()),
]


@pytest.mark.parametrize("arrow", _ARROW_TYPES, ids=str)
def test_from_arrow_reads_each_arrow_type_as_before(arrow: pa.DataType) -> None:
    from connect_plan.types import TypeParseError, from_arrow

    try:
        expected: Any = _from_arrow_by_predicates(arrow)
    except TypeParseError as exc:
        expected = str(exc)
    try:
        got: Any = from_arrow(arrow)
    except TypeParseError as exc:
        got = str(exc)
    assert got == expected
