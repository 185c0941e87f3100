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
        (
            "date",
            ["2024-01-02", dt.date(2020, 1, 1), {"year": 2021, "month": 2, "day": 3}],
            [dt.date(2024, 1, 2), dt.date(2020, 1, 1), dt.date(2021, 2, 3)],
        ),
        (
            "timestamp_ntz",
            ["2024-01-02T03:04:05.5", "2024-01-02 03:04", 0],
            [dt.datetime(2024, 1, 2, 3, 4, 5, 500000), dt.datetime(2024, 1, 2, 3, 4), dt.datetime(1970, 1, 1)],
        ),
        (
            "decimal(5,2)",
            [1.005, "2.5", 3],
            [decimal.Decimal("1.01"), decimal.Decimal("2.50"), decimal.Decimal("3.00")],
        ),
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
    table, errors = convert(
        [["2024-01-02T03:00:00+02:00"], ["2024-01-02T01:00:00Z"], ["2024-01-02T01:00:00"]], ("t", "timestamp")
    )
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


def test_values_of_object_rows_are_located_by_key() -> None:
    rows = [{"id": 1, "c": "x"}, [2, "nope"], {"c": "y", "id": "bad"}]
    _, errors = convert(rows, ("id", "int"), ("c", "date"))
    assert [e.loc for e in errors] == ["/rows/0/c", "/rows/1/1", "/rows/2/id", "/rows/2/c"]


def test_fast_path_result_equals_slow_path() -> None:
    fast, _ = convert([[i, f"s{i}", i * 0.5] for i in range(1000)], ("a", "bigint"), ("b", "string"), ("c", "double"))
    slow, _ = convert(
        [[str(i), f"s{i}", str(i * 0.5)] for i in range(1000)], ("a", "bigint"), ("b", "string"), ("c", "double")
    )
    assert fast.equals(slow)


D = decimal.Decimal
#: per type: values of the Python types a column may send to Arrow in one call (the fast
#: path), valid and invalid, edge cases included; and one value that sends its whole
#: column down the per-value path (the slow path)
FAST_SLOW: list[tuple[str, list[Any], Any]] = [
    (
        "date",
        [
            "2024-02-29",
            "2023-02-29",
            "2024-13-01",
            "2024-1-2",
            "20240102",
            " 2024-01-02 ",
            "2024-01-02T00:00",
            "0000-01-01",
            "0001-01-01",
            "9999-12-31",
            "10000-01-01",
            "+2024-01-02",
            "",
            "２０２４-０１-０２",
            dt.date(2024, 1, 2),
        ],
        {"year": 2000, "month": 1, "day": 1},
    ),
    *(
        (
            ts,
            [
                "2024-03-01T12",
                "2024-03-01 12",
                "2024-03-01T12:30",
                "2024-03-01 12:30",
                "2024-03-01T12:30:05",
                "2024-03-01 12:30:05.5",
                "2024-03-01T12:30:05.123456",
                "2024-03-01T12:30:05.1234567",
                "2024-03-01T12:30:05.123456789",
                "2024-03-01T12:30:05.",
                "2024-03-01",
                "2024-03-01T24:00:00",
                "2024-03-01T12:60",
                "2024-03-01T12:30:60",
                "2024-02-30T00:00",
                "2024-03-01t12:30",
                "2024-03-01T1230",
                "2024-03-01T12:30:05,5",
                "2024-03-01T12:30:05Z",
                "2024-03-01T12:30:05+02:00",
                "2024-03-01T12:30:05 -0130",
                " 2024-03-01T12:30 ",
                "0001-01-01T00:00:00",
                "9999-12-31T23:59:59.999999",
                "0000-01-01",
                "",
                "now",
            ],
            0,
        )
        for ts in ("timestamp", "timestamp_ntz")
    ),
    (
        "decimal(5,2)",
        [
            D("1.5"),
            D("1.005"),
            D("-1.005"),
            D("999.99"),
            D("999.995"),
            D("1000"),
            D("-0"),
            D("1E+2"),
            D("1E-10"),
            D("NaN"),
            D("Infinity"),
            D("123.4"),
        ],
        1.5,
    ),
    (
        "decimal(38,10)",
        [D("1234567890123456789012345678.0123456789"), D("1E+28"), D("0.00000000005"), D("-0.00000000005")],
        1.5,
    ),
    ("boolean", [True, False], "true"),
    ("binary", [b"", b"\x00\xff", b"abc"], "aGk="),
    ("string", ["", " ", "ü", "漢字", "\x00", "a\nb", "😀", "\ud800"], 1),
    ("tinyint", [0, 127, -128, 128, -129], "1"),
    ("int", [0, 2**31 - 1, -(2**31), 2**31, -(2**31) - 1], "1"),
    ("bigint", [2**63 - 1, -(2**63), 2**63, 10**30], "1"),
    ("double", [0, -0.0, 1.5, 1e308, 2**53 + 1, 2**63 + 1, 10**400, float("nan"), float("inf"), -float("inf")], "1"),
    ("float", [1.5, 1e300, 3.4e38, 2**24 + 1, 1e-50, float("nan")], "1"),
]


def _outcome(rows: list[list[Any]], type_: str) -> tuple[bool, str]:
    """(row 0 valid, its value) of a one-column conversion."""
    table, errors = convert(rows, ("c", type_))
    if any(e.loc in ("/rows/0/0", "/rows") for e in errors):
        return False, ""
    return True, repr(_plain(table.column("c"))[0])


def _plain(col: Any) -> list[Any]:
    """Python values, dates and timestamps as their Arrow integers (any year compares)."""
    if pa.types.is_timestamp(col.type) or pa.types.is_date(col.type):
        col = col.cast(pa.int64() if pa.types.is_timestamp(col.type) else pa.int32())
    return list(col.to_pylist())


@pytest.mark.parametrize(
    "type_,values,slow_forcer", FAST_SLOW, ids=[f"{t}-{i}" for i, (t, _, _) in enumerate(FAST_SLOW)]
)
def test_a_values_validity_and_result_do_not_depend_on_its_neighbours(
    type_: str, values: list[Any], slow_forcer: Any
) -> None:
    """Each value alone (its column converted by Arrow in one call where the types allow)
    and beside a value that needs the per-value path: accepted or refused alike, and the
    same result when accepted. Whole columns of the valid values agree too."""
    valid = []
    for v in values:
        alone = _outcome([[v]], type_)
        beside = _outcome([[v], [slow_forcer]], type_)
        assert alone == beside, f"{v!r}: alone {alone}, beside {slow_forcer!r} {beside}"
        if alone[0]:
            valid.append(v)
    fast, errors = convert([[v] for v in valid], ("c", type_))
    slow, slow_errors = convert([[v] for v in valid] + [[slow_forcer]], ("c", type_))
    assert errors == [] and slow_errors == []
    assert [repr(x) for x in _plain(fast.column("c"))] == [repr(x) for x in _plain(slow.column("c"))[:-1]]


def test_timestamp_strings_accepted_are_the_documented_ones() -> None:
    ok = [
        "2024-03-01",
        "2024-03-01T12:30",
        "2024-03-01 12:30:05",
        "2024-03-01T12:30:05.123456789",
        "2024-03-01T12:30:05Z",
        "2024-03-01 12:30:05 +02:00",
        "2024-03-01T12:30:05-0130",
        " 2024-03-01T12:30 ",
    ]
    bad = ["2024-03-01T12", "2024-03-01T12:30:05.", "2024-03-01t12:30", "2024-03-01T12:30:05,5", "03/01/2024"]
    for v in ok:
        assert _outcome([[v]], "timestamp")[0], v
    for v in bad:
        assert not _outcome([[v]], "timestamp")[0], v


def test_error_count_is_bounded() -> None:
    _, errors = convert([["x"] for _ in range(1000)], ("a", "int"))
    assert len(errors) == 20
