"""JSON rows -> Arrow without pyarrow's pandas probe (issue 17): the arrays built from buffers
equal ``pa.array``'s, and the values ``pa.array`` refuses are refused alike."""

from __future__ import annotations

import random
from typing import Any

import pyarrow as pa
import pytest

from connect_plan.arrow_types import inline_arrow_type
from connect_plan.data import buffers
from connect_plan.types import parse_type
from tests.support.tables import convert


@pytest.fixture(autouse=True)
def _without_pandas(monkeypatch: pytest.MonkeyPatch) -> None:
    """This process has pandas imported; the buffers path is the one taken without it."""
    monkeypatch.setattr(buffers, "_pandas_imported", lambda: False)


_VALUES: dict[str, list[Any]] = {
    "tinyint": [0, 1, -128, 127, None],
    "smallint": [0, -32768, 32767, None, 5],
    "int": [0, -(2**31), 2**31 - 1, None, 7],
    "bigint": [0, -(2**63), 2**63 - 1, None, 1],
    "double": [0.0, -1.5, float("inf"), float("-inf"), 1e308, 5e-324, None, 3, -(2**53), 2**53],
    "boolean": [True, False, None],
    "string": ["", "a", "Tromsø", "日本語", "🙂", "x" * 300, None],
}


@pytest.mark.parametrize("name", sorted(_VALUES))
@pytest.mark.parametrize("seed", range(8))
def test_columns_equal_pa_array(name: str, seed: int) -> None:
    rng = random.Random(seed)
    n = rng.choice([0, 1, 2, 7, 8, 9, 63, 64, 65, 1000])
    values = [rng.choice(_VALUES[name]) for _ in range(n)]
    if seed == 0:
        values = [None] * n
    table, errors = convert(name, values)
    assert errors == []
    expected = pa.array(values, type=inline_arrow_type(parse_type(name)))
    column = table.column("c").combine_chunks() if n else table.column("c")
    assert column.type == expected.type
    assert column.null_count == expected.null_count
    assert column.to_pylist() == expected.to_pylist()
    if n:
        assert buffers._from_buffers(values, name, expected.type, set(map(type, values))) is not None  # the path taken
        column.validate(full=True)
        assert column.equals(expected)


@pytest.mark.parametrize(
    ("name", "bad"),
    [
        ("tinyint", 128),
        ("smallint", -32769),
        ("int", 2**31),
        ("bigint", 2**63),
        ("string", "\ud800"),
    ],
)
def test_values_pa_array_refuses_are_reported(name: str, bad: Any) -> None:
    with pytest.raises((pa.ArrowInvalid, OverflowError, UnicodeError)):
        pa.array([bad], type=inline_arrow_type(parse_type(name)))
    _, errors = convert(name, [None, bad])
    assert [e.loc for e in errors] == ["/rows/1/0"]


def test_an_int_a_double_cannot_hold_exactly_takes_the_per_value_path() -> None:
    """pa.array refuses 2**53 + 1 for a double; the per-value path rounds it, as before."""
    table, errors = convert("double", [None, 2**53 + 1, 0.5])
    assert errors == []
    assert table.column("c").to_pylist() == [None, float(2**53 + 1), 0.5]
