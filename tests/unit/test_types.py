"""Type strings ↔ Arrow ↔ Spark DataType protos."""

from __future__ import annotations

import pyarrow as pa
import pytest

from connect_plan.arrow_types import from_arrow
from connect_plan.arrow_types import inline_arrow_type as arrow_type
from connect_plan.types import (
    ArrayType,
    MapType,
    Primitive,
    StructType,
    TypeParseError,
    incomplete,
    parse_type,
    spark_type_proto,
    type_string,
)


@pytest.mark.parametrize(
    "text,canonical,arrow",
    [
        ("int", "int", pa.int32()),
        ("INTEGER", "int", pa.int32()),
        ("bigint", "bigint", pa.int64()),
        ("long", "bigint", pa.int64()),
        ("smallint", "smallint", pa.int16()),
        ("short", "smallint", pa.int16()),
        ("tinyint", "tinyint", pa.int8()),
        ("byte", "tinyint", pa.int8()),
        ("float", "float", pa.float32()),
        ("double", "double", pa.float64()),
        ("double_precision", "double", pa.float64()),
        ("decimal(10,2)", "decimal(10,2)", pa.decimal128(10, 2)),
        ("decimal", "decimal(10,0)", pa.decimal128(10, 0)),
        ("numeric(5)", "decimal(5,0)", pa.decimal128(5, 0)),
        ("string", "string", pa.string()),
        ("str", "string", pa.string()),
        ("varchar", "string", pa.string()),
        ("varchar(20)", "string", pa.string()),
        ("char(3)", "string", pa.string()),
        ("boolean", "boolean", pa.bool_()),
        ("bool", "boolean", pa.bool_()),
        ("date", "date", pa.date32()),
        ("timestamp", "timestamp", pa.timestamp("us", tz="UTC")),
        ("datetime", "timestamp", pa.timestamp("us", tz="UTC")),
        ("timestamp_ltz", "timestamp", pa.timestamp("us", tz="UTC")),
        ("timestamp_ntz", "timestamp_ntz", pa.timestamp("us")),
        ("binary", "binary", pa.binary()),
        ("array<int>", "array<int>", pa.list_(pa.int32())),
        ("list<string>", "array<string>", pa.list_(pa.string())),
        ("map<string,array<double>>", "map<string,array<double>>", pa.map_(pa.string(), pa.list_(pa.float64()))),
        ("struct<a:int,b string>", "struct<a:int,b:string>", pa.struct([("a", pa.int32()), ("b", pa.string())])),
        ("struct<`x.y`:int>", "struct<`x.y`:int>", pa.struct([("x.y", pa.int32())])),
        (" Array < STRUCT< k : bigint > > ", "array<struct<k:bigint>>", pa.list_(pa.struct([("k", pa.int64())]))),
    ],
)
def test_type_table(text: str, canonical: str, arrow: pa.DataType) -> None:
    t = parse_type(text)
    assert type_string(t) == canonical
    assert arrow_type(t) == arrow
    assert from_arrow(arrow) == t
    spark_type_proto(t)  # every parsed type has a Spark proto


@pytest.mark.parametrize(
    "text",
    [
        "",
        "int64",
        "decimal(40,2)",
        "decimal(5,6)",
        "array<int",
        "map<string>",
        "struct<a:int,a:int>",
        "int int",
        "array<>",
        "decimal(a)",
        "x" * 20_000,
        "array<" * 40 + "int" + ">" * 40,
    ],
)
def test_invalid_types(text: str) -> None:
    with pytest.raises(TypeParseError):
        parse_type(text)


def test_bare_containers() -> None:
    assert parse_type("array") == ArrayType(None)
    assert parse_type("map") == MapType(None, None)
    with pytest.raises(TypeParseError):
        arrow_type(parse_type("map"))


@pytest.mark.parametrize(
    "text,bare_array,problem",
    [
        ("map", False, "bare 'map'"),
        ("array<map>", True, "bare 'map'"),
        ("struct<a:map>", False, "bare 'map'"),
        ("map<string,map>", False, "bare 'map'"),
        ("array", False, "bare 'array'"),
        ("array<array>", True, "bare 'array'"),
        ("struct<a:array>", True, "bare 'array'"),
        ("map<string,array>", True, "bare 'array'"),
        ("array", True, None),
        ("map<int,string>", False, None),
        ("variant", False, None),
        ("struct<a:variant>", False, None),
    ],
)
def test_incomplete_types_say_why(text: str, bare_array: bool, problem: str | None) -> None:
    got = incomplete(parse_type(text), bare_array=bare_array)
    assert (got is None) if problem is None else (got is not None and problem in got)


def test_variant_is_spark_arrow_struct_both_ways() -> None:
    """Spark's Arrow form of a variant (pyspark.sql.pandas.types.to_arrow_type): nested too."""
    from pyspark.sql.pandas.types import to_arrow_type
    from pyspark.sql.types import ArrayType as SparkArray
    from pyspark.sql.types import VariantType

    t = parse_type("variant")
    assert arrow_type(t) == to_arrow_type(VariantType())
    assert arrow_type(t).field("metadata").metadata == {b"variant": b"true"}
    assert from_arrow(arrow_type(t)) == t
    assert from_arrow(to_arrow_type(SparkArray(VariantType()))) == parse_type("array<variant>")
    # a plain struct of the same shape without the tag stays a struct
    plain = pa.struct([pa.field("value", pa.binary(), False), pa.field("metadata", pa.binary(), False)])
    assert from_arrow(plain) == parse_type("struct<value:binary,metadata:binary>")


def test_spark_proto_shapes() -> None:
    p = spark_type_proto(parse_type("decimal(12,3)"))
    assert (p.decimal.precision, p.decimal.scale) == (12, 3)
    s = spark_type_proto(StructType((("a", Primitive("int")), ("b", ArrayType(Primitive("string"))))))
    assert [f.name for f in s.struct.fields] == ["a", "b"]
    assert s.struct.fields[1].data_type.array.element_type.HasField("string")
