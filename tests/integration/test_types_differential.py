"""Every schema type string of PLAN_FORMAT.md §6 and every accepted value spelling, loaded
as inline data, against PySpark's own createDataFrame of the equivalent Python values."""

from __future__ import annotations

import datetime as dt
import decimal
from typing import Any

import pytest

UTC = dt.timezone.utc

# (type string as a plan writes it, Spark DDL for the oracle, [(plan value, Python value)])
TYPES: list[tuple[str, str, list[tuple[Any, Any]]]] = [
    ("tinyint", "tinyint", [(1, 1), (-128, -128), ("7", 7)]),
    ("byte", "tinyint", [(127, 127), (3.0, 3), (None, None)]),
    ("smallint", "smallint", [(-32768, -32768), (" 12 ", 12), (0, 0)]),
    ("short", "smallint", [(5, 5), (None, None), (32767, 32767)]),
    ("int", "int", [(2**31 - 1, 2**31 - 1), ("42", 42), (-1, -1)]),
    ("integer", "int", [(0, 0), (1.0, 1), (None, None)]),
    ("bigint", "bigint", [(2**62, 2**62), ("-9", -9), (None, None)]),
    ("long", "bigint", [(1, 1), (2, 2), (3, 3)]),
    ("float", "float", [(1.5, 1.5), (2, 2.0), ("0.25", 0.25)]),
    ("real", "float", [(None, None), (-0.5, -0.5), (3, 3.0)]),
    ("double", "double", [(1e300, 1e300), (-2, -2.0), ("3.5", 3.5)]),
    ("double_precision", "double", [(0.1, 0.1), (None, None), (7, 7.0)]),
    (
        "decimal(10,2)",
        "decimal(10,2)",
        [(1.5, decimal.Decimal("1.50")), ("12345678.91", decimal.Decimal("12345678.91")), (3, decimal.Decimal("3.00"))],
    ),
    (
        "decimal(38,10)",
        "decimal(38,10)",
        [
            ("1234567890123456789012345678.0123456789", decimal.Decimal("1234567890123456789012345678.0123456789")),
            (None, None),
            (-1, decimal.Decimal("-1.0000000000")),
        ],
    ),
    ("decimal", "decimal(10,0)", [(42, decimal.Decimal(42)), (2.5, decimal.Decimal(3)), (None, None)]),
    ("string", "string", [("a", "a"), (1, "1"), (True, "true")]),
    ("str", "string", [("", ""), (None, None), (2.5, "2.5")]),
    ("varchar", "string", [("x", "x"), ("ü", "ü"), ("漢", "漢")]),
    ("varchar(10)", "string", [("short", "short"), (None, None), ("y", "y")]),
    ("boolean", "boolean", [(True, True), (False, False), ("TRUE", True)]),
    ("bool", "boolean", [("false", False), (None, None), (True, True)]),
    (
        "date",
        "date",
        [
            ("2024-02-29", dt.date(2024, 2, 29)),
            ({"year": 1999, "month": 12, "day": 31}, dt.date(1999, 12, 31)),
            (dt.date(2000, 1, 1), dt.date(2000, 1, 1)),
        ],
    ),
    (
        "timestamp",
        "timestamp",
        [
            ("2024-01-02T03:04:05", dt.datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC)),
            ("2024-01-02 03:04:05.123456", dt.datetime(2024, 1, 2, 3, 4, 5, 123456, tzinfo=UTC)),
            ("2024-01-02T03:04:05+02:00", dt.datetime(2024, 1, 2, 1, 4, 5, tzinfo=UTC)),
        ],
    ),
    (
        "datetime",
        "timestamp",
        [
            ("2024-01-02", dt.datetime(2024, 1, 2, tzinfo=UTC)),
            ("2024-01-02T03:04:05Z", dt.datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC)),
            (1_700_000_000_000_000, dt.datetime(2023, 11, 14, 22, 13, 20, tzinfo=UTC)),
        ],
    ),
    (
        "timestamp_ntz",
        "timestamp_ntz",
        [
            ("2024-01-02T03:04:05", dt.datetime(2024, 1, 2, 3, 4, 5)),
            ({"year": 2020, "month": 5, "day": 6, "hour": 7}, dt.datetime(2020, 5, 6, 7)),
            (None, None),
        ],
    ),
    ("binary", "binary", [("aGVsbG8=", bytearray(b"hello")), ("", bytearray(b"")), (None, None)]),
    ("array<int>", "array<int>", [([1, 2, None], [1, 2, None]), ("[3, 4]", [3, 4]), ([], [])]),
    ("array<string>", "array<string>", [(["a"], ["a"]), (None, None), ([None], [None])]),
    ("array<array<bigint>>", "array<array<bigint>>", [([[1], [2, 3]], [[1], [2, 3]]), ([[]], [[]]), (None, None)]),
    ("map<string,int>", "map<string,int>", [({"a": 1}, {"a": 1}), ('{"b": 2}', {"b": 2}), ({}, {})]),
    (
        "map<string,array<int>>",
        "map<string,array<int>>",
        [({"k": [1]}, {"k": [1]}), (None, None), ({"z": None}, {"z": None})],
    ),
    (
        "struct<a:int,b:string>",
        "struct<a:int,b:string>",
        [({"a": 1, "b": "x"}, (1, "x")), ({"a": 2}, (2, None)), ([3, "y"], (3, "y"))],
    ),
    (
        "struct<a int, `b c`: date>",
        "struct<a:int,`b c`:date>",
        [({"a": 1, "b c": "2024-01-01"}, (1, dt.date(2024, 1, 1))), (None, None), ({"b c": None}, (None, None))],
    ),
    (
        "array<struct<k:string,v:double>>",
        "array<struct<k:string,v:double>>",
        [([{"k": "a", "v": 1}], [("a", 1.0)]), ([], []), (None, None)],
    ),
]


@pytest.mark.parametrize("type_string,ddl,values", TYPES, ids=[t[0] for t in TYPES])
def test_type_round_trip(client: Any, spark: Any, type_string: str, ddl: str, values: list[tuple[Any, Any]]) -> None:
    from tests.support.tables import assert_same

    rows = [[i, plan_value] for i, (plan_value, _) in enumerate(values)]
    ours = client.execute([], data=rows, schema=[{"name": "i", "type": "int"}, {"name": "v", "type": type_string}])
    py_rows = [(i, py_value) for i, (_, py_value) in enumerate(values)]
    theirs = spark.createDataFrame(py_rows, f"i int, v {ddl}").toArrow()
    assert_same(ours, theirs, ordered=False)


def test_bare_array_infers_element_type(client: Any, spark: Any) -> None:
    from tests.support.tables import assert_same

    ours = client.execute([], data=[[[1, 2]], [None], [[3]]], schema=[("a", "array")])
    theirs = spark.createDataFrame([([1, 2],), (None,), ([3],)], "a array<bigint>").toArrow()
    assert_same(ours, theirs, ordered=False)


def test_dict_rows_and_tuple_rows(client: Any, spark: Any) -> None:
    """Rows as objects keyed by column name (missing keys are null, other cases of a name
    match; a key naming no column is a PlanError, tests/unit/test_inputs.py) and as tuples,
    mixed in one input."""
    from tests.support.tables import assert_same

    rows = [{"a": 1, "B": "x"}, {"b": "y"}, (3, "z"), [4, None]]
    ours = client.execute([], data=rows, schema=[("a", "int"), ("b", "string")])
    theirs = spark.createDataFrame([(1, "x"), (None, "y"), (3, "z"), (4, None)], "a int, b string").toArrow()
    assert_same(ours, theirs, ordered=False)


def test_zero_rows_keep_the_schema(client: Any) -> None:
    ours = client.execute([], data=[], schema=[("a", "int"), ("d", "decimal(5,1)"), ("m", "map<string,date>")])
    assert ours.num_rows == 0
    assert [str(t) for t in ours.schema.types] == ["int32", "decimal128(5, 1)", "map<string, date32[day]>"]


def test_variant_columns_against_pysparks_variant_values(client: Any, spark: Any) -> None:
    """A variant column takes any JSON value (nested too); PySpark's oracle builds the same
    rows from VariantVal.parseJson of the JSON text. Compared as Arrow (the binary encoding)
    and, with SQL NULLs among the values, as JSON text (PySpark's toArrow cannot convert a
    null variant nested in an array: it casts to non-nullable fields)."""
    import json

    from pyspark.sql import functions as F
    from pyspark.sql.types import VariantVal

    from tests.support.tables import assert_same

    values = [{"a": 1, "b": [1, 2.5, "x", None]}, "str", 12345678901234567890, -0.25, True, []]
    schema = [("i", "int"), ("v", "variant"), ("av", "array<variant>"), ("sv", "struct<v:variant>")]
    ddl = "i int, v variant, av array<variant>, sv struct<v:variant>"

    def var(v: Any) -> Any:
        return None if v is None else VariantVal.parseJson(json.dumps(v))

    rows = [[i, v, [v], {"v": v}] for i, v in enumerate(values)]
    theirs = spark.createDataFrame([(i, var(v), [var(v)], (var(v),)) for i, v in enumerate(values)], ddl)
    assert_same(client.execute([], data=rows, schema=schema), theirs.toArrow(), ordered=False)

    with_nulls = [*values, None]
    rows = [[i, v, [v, None], {"v": v}] for i, v in enumerate(with_nulls)]
    theirs = spark.createDataFrame([(i, var(v), [var(v), None], (var(v),)) for i, v in enumerate(with_nulls)], ddl)
    as_json = [
        {
            "op": "select",
            "payload": ["i", *({"name": c, "expr": {"fn": "to_json", "args": [c]}} for c in ("v", "av", "sv"))],
        }
    ]
    assert_same(
        client.execute(as_json, data=rows, schema=schema),
        theirs.select("i", *(F.to_json(c).alias(c) for c in ("v", "av", "sv"))).toArrow(),
        ordered=False,
    )


@pytest.mark.parametrize("neighbour", [None, 0], ids=["column-wise", "per-value"])
def test_date_and_timestamp_strings_mean_the_same_on_either_path(client: Any, spark: Any, neighbour: Any) -> None:
    """Plain ISO strings go to Arrow column-wise; an integer (epoch microseconds) beside them
    sends the whole column down the per-value path. Both equal PySpark's values."""
    from tests.support.tables import assert_same

    strings = [
        "2024-03-01T12:30",
        "2024-03-01 12:30:05.5",
        "0001-01-01T00:00:00",
        "9999-12-31T23:59:59.999999",
        "2024-02-29",
    ]
    stamps = [
        dt.datetime(2024, 3, 1, 12, 30),
        dt.datetime(2024, 3, 1, 12, 30, 5, 500000),
        dt.datetime(1, 1, 1),
        dt.datetime(9999, 12, 31, 23, 59, 59, 999999),
        dt.datetime(2024, 2, 29),
    ]
    dates = ["2024-02-29", "0001-01-01", "9999-12-31", "1970-01-01", "2000-01-01"]
    rows = [[i, s, s, d] for i, (s, d) in enumerate(zip(strings, dates))]
    py = [(i, s.replace(tzinfo=UTC), s, dt.date.fromisoformat(d)) for i, (s, d) in enumerate(zip(stamps, dates))]
    if neighbour is not None:
        rows.append([9, neighbour, neighbour, {"year": 1970, "month": 1, "day": 1}])
        py.append((9, dt.datetime(1970, 1, 1, tzinfo=UTC), dt.datetime(1970, 1, 1), dt.date(1970, 1, 1)))
    ours = client.execute(
        [], data=rows, schema=[("i", "int"), ("t", "timestamp"), ("n", "timestamp_ntz"), ("d", "date")]
    )
    theirs = spark.createDataFrame(py, "i int, t timestamp, n timestamp_ntz, d date").toArrow()
    assert_same(ours, theirs, ordered=False)
