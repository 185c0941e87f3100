"""Inline rows → Arrow: fast and slow paths agree, bad values are located."""

from __future__ import annotations

import datetime as dt
import decimal
from typing import Any

import pyarrow as pa
import pytest

from connect_plan.data import Field, rows_to_arrow
from connect_plan.errors import ErrorDetail
from connect_plan.types import parse_type


def convert(rows: Any, *cols: tuple[str, str]) -> tuple[pa.Table, list[ErrorDetail]]:
    errors: list[ErrorDetail] = []
    fields = [Field(n, parse_type(t), f"/s/{i}") for i, (n, t) in enumerate(cols)]
    return rows_to_arrow(rows, fields, "/rows", errors), errors


@pytest.mark.parametrize(
    "type_,values,expected",
    [
        ("int", [1, None, 3], [1, None, 3]),
        ("int", ["1", 2.0, " 3 "], [1, 2, 3]),
        ("double", [1, 2.5, "3.5"], [1.0, 2.5, 3.5]),
        ("string", ["a", 1, True, None, [1], {"k": 1}], ["a", "1", "true", None, "[1]", '{"k": 1}']),
        ("boolean", [True, "false", "TRUE"], [True, False, True]),
        ("date", ["2024-01-02", dt.date(2020, 1, 1), {"year": 2021, "month": 2, "day": 3}], [dt.date(2024, 1, 2), dt.date(2020, 1, 1), dt.date(2021, 2, 3)]),
        ("timestamp_ntz", ["2024-01-02T03:04:05.5", "2024-01-02 03:04", 0], [dt.datetime(2024, 1, 2, 3, 4, 5, 500000), dt.datetime(2024, 1, 2, 3, 4), dt.datetime(1970, 1, 1)]),
        ("decimal(5,2)", [1.005, "2.5", 3], [decimal.Decimal("1.01"), decimal.Decimal("2.50"), decimal.Decimal("3.00")]),
        ("binary", ["aGk=", b"raw"], [b"hi", b"raw"]),
        ("array<int>", [[1, "2"], "[3]", 4], [[1, 2], [3], [4]]),
        ("map<string,int>", [{"a": "1"}, '{"b": 2}'], [[("a", 1)], [("b", 2)]]),
        ("struct<a:int,b:string>", [{"a": "1"}, [2, "x"]], [{"a": 1, "b": None}, {"a": 2, "b": "x"}]),
    ],
)
def test_values(type_: str, values: list[Any], expected: list[Any]) -> None:
    table, errors = convert([[v] for v in values], ("c", type_))
    assert errors == []
    assert table.column("c").to_pylist() == expected


def test_zoned_timestamps_become_utc_instants() -> None:
    table, errors = convert([["2024-01-02T03:00:00+02:00"], ["2024-01-02T01:00:00Z"], ["2024-01-02T01:00:00"]], ("t", "timestamp"))
    assert not errors
    assert len(set(table.column("t").to_pylist())) == 1


@pytest.mark.parametrize(
    "type_,value,message",
    [
        ("int", "abc", "expected an integer"),
        ("int", True, "expected an integer, got a boolean"),
        ("int", 1.5, "non-integral"),
        ("tinyint", 300, "out of range"),
        ("double", "x", "expected a number"),
        ("double", False, "boolean"),
        ("boolean", 1, "expected true or false"),
        ("date", "2024-02-30", "not a valid calendar date"),
        ("date", "01/02/2024", "YYYY-MM-DD"),
        ("timestamp_ntz", "2024-01-02T00:00:00Z", "cannot carry a time zone"),
        ("decimal(3,1)", 1000, "does not fit"),
        ("binary", "not base64!", "base64"),
        ("map<string,int>", [1], "expected an object"),
        ("struct<a:int>", {"b": 1}, "unknown struct field"),
    ],
)
def test_bad_values_are_located(type_: str, value: Any, message: str) -> None:
    _, errors = convert([[1, None], [2, value]], ("id", "int"), ("c", type_))
    assert [(e.code, e.loc) for e in errors] == [("row_value", "/rows/1/1")]
    assert message in errors[0].message and "'c'" in errors[0].message


def test_fast_path_result_equals_slow_path() -> None:
    fast, _ = convert([[i, f"s{i}", i * 0.5] for i in range(1000)], ("a", "bigint"), ("b", "string"), ("c", "double"))
    slow, _ = convert([[str(i), f"s{i}", str(i * 0.5)] for i in range(1000)], ("a", "bigint"), ("b", "string"), ("c", "double"))
    assert fast.equals(slow)


def test_error_count_is_bounded() -> None:
    _, errors = convert([["x"] for _ in range(1000)], ("a", "int"))
    assert len(errors) == 20
