"""Arrow tables as the tests compare them: rows with NaN made comparable, the same input
table on both sides of a differential check, rows converted as a plan's inline rows are."""

from __future__ import annotations

import math
from typing import Any

import pyarrow as pa

from connect_plan.data import Field, rows_to_arrow
from connect_plan.errors import ErrorDetail
from connect_plan.formats.json_plan import parse_plan
from connect_plan.types import parse_type


def arrow_input(rows: Any, schema: Any) -> pa.Table:
    """The Arrow table connect_plan builds for inline rows (a differential oracle gets the same)."""
    return parse_plan(rows, schema, []).source.table


def convert(name: str, values: list[Any]) -> tuple[pa.Table, list[ErrorDetail]]:
    """One column of type ``name`` holding ``values``, converted as inline rows are, with
    the problems found."""
    errors: list[ErrorDetail] = []
    table = rows_to_arrow([[v] for v in values], [Field("c", parse_type(name), "/schema/0")], "/rows", errors)
    return table, errors


def norm(v: Any) -> Any:
    """``v`` with every NaN made equal to every other (``"NaN"``), inside lists, dicts and tuples."""
    if isinstance(v, float) and math.isnan(v):
        return "NaN"
    if isinstance(v, list):
        return [norm(x) for x in v]
    if isinstance(v, dict):
        return {k: norm(x) for k, x in v.items()}
    if isinstance(v, tuple):
        return tuple(norm(x) for x in v)
    return v


def rows_of(table: pa.Table) -> list[list[Any]]:
    cols = [c.to_pylist() for c in table.columns]
    return [norm(list(r)) for r in zip(*cols)] if cols else []


def assert_same(ours: pa.Table, theirs: pa.Table, *, ordered: bool) -> None:
    """The same names, types and rows (in order when ``ordered``)."""
    assert ours.schema.names == theirs.schema.names, (ours.schema.names, theirs.schema.names)
    assert ours.schema.types == theirs.schema.types, f"\nours:   {ours.schema}\ntheirs: {theirs.schema}"
    a, b = rows_of(ours), rows_of(theirs)
    if not ordered:
        a, b = sorted(a, key=repr), sorted(b, key=repr)
    assert a == b
