"""What the ``connect-plan`` process builds without PySpark's type classes (whose import
imports pandas, which that process has not) equals what PySpark builds: typed literals (a
SQL parameter's ``{"lit", "type"}``) equal ``LiteralExpression(value, type).to_plan`` for
every type PySpark can build, and an empty table's ``LocalRelation.schema`` equals
``from_arrow_schema(schema, prefer_timestamp_ntz=True).json()`` for every Arrow type."""

from __future__ import annotations

import datetime
import decimal
from typing import Any

import pyarrow as pa
import pytest

from connect_plan import _pyspark_import  # noqa: F401  (before any PySpark import)
from connect_plan.arrow_types import METADATA_KEY, VARIANT_METADATA, spark_schema_json
from connect_plan.data import coerce_value
from connect_plan.spark_proto import pb
from connect_plan.translator.expressions import typed_literal
from connect_plan.types import parse_type

#: (plan-format type, value as written): every type PySpark's LiteralExpression takes
LITERALS: list[tuple[str, Any]] = [
    ("boolean", True),
    ("tinyint", -7),
    ("smallint", 300),
    ("int", 2**31 - 1),
    ("bigint", -(2**63)),
    ("float", 1.5),
    ("double", -2.25e300),
    ("decimal(5,2)", "1.5"),
    ("decimal(38,10)", "-12345678901234567890.0123456789"),
    ("string", "東京"),
    ("binary", "AQI="),
    ("date", "2024-02-28"),
    ("date", "1969-12-31"),
    ("timestamp", "2024-01-01 10:00:00.123456+02:00"),
    ("timestamp", "1960-01-01 00:00:00"),
    ("timestamp_ntz", "2024-01-01 10:00:00.5"),
    ("timestamp_ntz", "1900-03-01 23:59:59"),
    ("array<bigint>", "[1, null, 3]"),
    ("array<date>", '["2024-01-01"]'),
    ("array<array<string>>", '[["a"], [], null]'),
    ("int", None),
    ("array<int>", None),
]


@pytest.mark.parametrize("type_text,raw", LITERALS, ids=[f"{t}:{v}" for t, v in LITERALS])
def test_typed_literals_equal_pysparks(type_text: str, raw: Any) -> None:
    from pyspark.sql.connect.expressions import LiteralExpression
    from pyspark.sql.connect.types import proto_schema_to_pyspark_data_type

    from connect_plan.types import spark_type_proto

    t = parse_type(type_text)
    value = coerce_value(raw, t)
    theirs = LiteralExpression(value, proto_schema_to_pyspark_data_type(spark_type_proto(t))).to_plan(None)  # type: ignore[arg-type]
    ours = pb.Expression()
    typed_literal(value, t, ours.literal)
    assert ours == _default_collation_unnamed(theirs), f"{ours} != {theirs}"


def _default_collation_unnamed(message: Any) -> Any:
    """PySpark names a string type's default collation (``UTF8_BINARY``), which connect_plan's
    type protos leave empty: the same type for the server."""
    for desc, value in message.ListFields():
        if desc.name == "collation" and value == "UTF8_BINARY":
            message.ClearField("collation")
        elif desc.message_type is not None:
            repeated = desc.is_repeated if hasattr(desc, "is_repeated") else desc.label == desc.LABEL_REPEATED
            for item in value if repeated else (value,):
                _default_collation_unnamed(item)
    return message


def test_maps_and_structs_are_literals_of_their_type() -> None:
    """PySpark has no builder for these: Spark's converter reads keys/values and elements."""
    t = parse_type("map<string,array<int>>")
    out = pb.Expression.Literal()
    typed_literal(coerce_value('{"a": [1], "b": null}', t), t, out)
    assert [k.string for k in out.map.keys] == ["a", "b"]
    assert [v.WhichOneof("literal_type") for v in out.map.values] == ["array", "null"]
    assert out.map.key_type.WhichOneof("kind") == "string" and out.map.value_type.WhichOneof("kind") == "array"
    s = parse_type("struct<x:int,y:string>")
    out = pb.Expression.Literal()
    typed_literal(coerce_value('{"x": 1}', s), s, out)
    assert [e.WhichOneof("literal_type") for e in out.struct.elements] == ["integer", "null"]
    assert [f.name for f in out.struct.struct_type.struct.fields] == ["x", "y"]


def _meta(d: dict[str, Any]) -> dict[bytes, bytes]:
    import json

    return {METADATA_KEY: json.dumps(d).encode()}


#: Arrow schemas of every kind PySpark's from_arrow_type maps
SCHEMAS: list[pa.Schema] = [
    pa.schema(
        [
            pa.field("b", pa.bool_()),
            pa.field("i8", pa.int8(), nullable=False),
            pa.field("i16", pa.int16()),
            pa.field("i32", pa.int32()),
            pa.field("i64", pa.int64()),
            pa.field("f32", pa.float32()),
            pa.field("f64", pa.float64()),
            pa.field("dec", pa.decimal128(12, 3)),
            pa.field("s", pa.string()),
            pa.field("ls", pa.large_string()),
            pa.field("bin", pa.binary()),
            pa.field("lbin", pa.large_binary()),
            pa.field("fbin", pa.binary(4)),
            pa.field("d", pa.date32()),
            pa.field("t", pa.time64("us")),
            pa.field("ts", pa.timestamp("us", tz="UTC")),
            pa.field("tsn", pa.timestamp("us")),
            pa.field("tsn_ns", pa.timestamp("ns")),
            pa.field("dur", pa.duration("us")),
            pa.field("n", pa.null()),
            pa.field("dict", pa.dictionary(pa.int32(), pa.string())),
        ]
    ),
    pa.schema(
        [
            pa.field("arr", pa.list_(pa.field("element", pa.int64(), nullable=False))),
            pa.field("larr", pa.large_list(pa.string())),
            pa.field("farr", pa.list_(pa.float64(), 3)),
            pa.field("m", pa.map_(pa.string(), pa.field("value", pa.int32(), nullable=False))),
            pa.field("m2", pa.map_(pa.int32(), pa.list_(pa.date32()))),
            pa.field(
                "st",
                pa.struct(
                    [
                        pa.field("x", pa.int32(), nullable=False),
                        pa.field("y", pa.struct([pa.field("z", pa.timestamp("us"))]), metadata=_meta({"c": 1})),
                    ]
                ),
            ),
            pa.field(
                "v",
                pa.struct(
                    [
                        pa.field("value", pa.binary(), nullable=False),
                        pa.field("metadata", pa.binary(), nullable=False, metadata=VARIANT_METADATA),
                    ]
                ),
            ),
            pa.field("with_meta", pa.string(), metadata=_meta({"comment": "note", "n": [1, 2]})),
            pa.field("東京 `odd` name", pa.int32()),
        ]
    ),
    pa.schema([]),
]


@pytest.mark.parametrize("schema", SCHEMAS)
def test_empty_tables_carry_pysparks_json_schema(schema: pa.Schema) -> None:
    from pyspark.sql.pandas.types import from_arrow_schema

    assert spark_schema_json(schema) == from_arrow_schema(schema, prefer_timestamp_ntz=True).json()


def test_decimal_and_date_literal_edges() -> None:
    out = pb.Expression.Literal()
    typed_literal(decimal.Decimal("0.10"), parse_type("decimal(3,2)"), out)
    assert (out.decimal.value, out.decimal.precision, out.decimal.scale) == ("0.10", 3, 2)
    out = pb.Expression.Literal()
    typed_literal(datetime.date(1970, 1, 2), parse_type("date"), out)
    assert out.date == 1
