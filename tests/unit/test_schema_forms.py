"""The schema forms a Sparkless (or PySpark) user holds, for ``execute_plan(rows, schema,
plan)`` (issue 35: the README's Sparkless snippet passes the schema the DataFrame was created
with): a DDL string, a ``StructType`` (Sparkless' or PySpark's) and ``(name, type)`` pairs
give the same plan; a bad one is a located ``schema_type`` error."""

from __future__ import annotations

from typing import Any

import pytest

import connect_plan

ROWS = [{"name": "a", "n": 1, "d": "1.25", "tags": ["x"], "m": {"k": "2.50"}}]
PLAN = [{"op": "filter", "payload": {"condition": {"op": ">", "left": {"col": "n"}, "right": {"lit": 0}}}}]
PAIRS = [
    ("name", "string"),
    ("n", "int"),
    ("d", "decimal(10,2)"),
    ("tags", "array<string>"),
    ("m", "map<string,decimal(10,2)>"),
]
DDL = "name string, n int, d decimal(10,2), tags array<string>, m map<string, decimal(10,2)>"


def struct_type(t: Any) -> Any:
    return t.StructType(
        [
            t.StructField("name", t.StringType()),
            t.StructField("n", t.IntegerType()),
            t.StructField("d", t.DecimalType(10, 2)),
            t.StructField("tags", t.ArrayType(t.StringType())),
            t.StructField("m", t.MapType(t.StringType(), t.DecimalType(10, 2))),
        ]
    )


def test_a_ddl_string_is_the_same_schema_as_its_pairs() -> None:
    assert connect_plan.translate(ROWS, DDL, PLAN) == connect_plan.translate(ROWS, PAIRS, PLAN)


def test_pysparks_struct_type_is_the_same_schema_as_its_pairs() -> None:
    import pyspark.sql.types as t

    assert connect_plan.translate(ROWS, struct_type(t), PLAN) == connect_plan.translate(ROWS, PAIRS, PLAN)


def test_sparkless_struct_type_keeps_its_decimals_precision() -> None:
    """Sparkless 3.31's ``simpleString()`` of ``DecimalType(10, 2)`` is ``decimal``, which
    would read as ``decimal(10,0)`` and round 1.25 to 1: the types are read from their parts."""
    t = pytest.importorskip("sparkless.sql.types")
    schema = struct_type(t)
    assert schema.fields[2].dataType.simpleString() == "decimal"  # why the parts are read
    assert connect_plan.translate(ROWS, schema, PLAN) == connect_plan.translate(ROWS, PAIRS, PLAN)


@pytest.mark.parametrize(
    ("schema", "said"),
    [
        ("", "a DDL schema names at least one column"),
        ("name strin", "not a DDL schema ('name string, age int'): unknown type name 'strin'"),
        (42, "a DDL string ('name string, age int') or a StructType"),
    ],
)
def test_a_bad_schema_is_a_located_error(schema: Any, said: str) -> None:
    with pytest.raises(connect_plan.PlanError) as info:
        connect_plan.validate(ROWS, schema, PLAN)
    (detail,) = info.value.details
    assert (detail.code, detail.loc) == ("schema_type", "/input/schema") and said in detail.message
