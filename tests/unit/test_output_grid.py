"""The terminal table's grid: drawn without rich's console for printable text, by rich for
the rest; both must give what rich draws (rich is the oracle: the grid used to be rich's alone)."""

from __future__ import annotations

import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from connect_plan.output import _grid, _rich_grid, format_table

# printable text with what makes widths interesting: wide (CJK, emoji), combining marks,
# zero-width joiners, spaces at the ends; and text rich lays out itself (line breaks, tabs,
# control and format characters)
_WIDE = st.sampled_from(
    ["東京", "😀", "e\u0301", "👩\u200d💻", "ｗ", "ﾊﾟ", " ", "|", "+", "-", "Tromsø", "🏻", "\u0301", "\ufe0f", "👍🏻"]
)
_TEXT = st.lists(st.one_of(st.text(max_size=4), _WIDE), max_size=4).map("".join)
_ODD = st.sampled_from(["a\nb", "\t", "x\ry", "\x1b[31m", "\u200b", "\x00", "a\u2028b"])


@settings(max_examples=400, deadline=None)
@given(
    header=st.lists(_TEXT, min_size=1, max_size=4),
    body=st.lists(st.lists(_TEXT, min_size=4, max_size=4), max_size=5),
)
def test_the_grid_of_printable_text_is_riches(header: list[str], body: list[list[str]]) -> None:
    def printable(cell: str) -> str:
        return "".join(c if c.isprintable() else "?" for c in cell)

    header = [printable(c) for c in header]
    rows = [[printable(c) for c in row[: len(header)]] for row in body]
    drawn = _grid(header, rows)
    if drawn is None:  # left to rich only for a cell of zero-width characters alone
        from rich.cells import cell_len

        assert any(cell and not cell_len(cell) for cell in [*header, *(c for row in rows for c in row)])
    else:
        assert drawn == _rich_grid(header, rows)


@settings(max_examples=100, deadline=None)
@given(odd=_ODD, other=_TEXT)
def test_text_rich_lays_out_itself_goes_to_rich(odd: str, other: str) -> None:
    table = pa.table({"a": [odd, other], "b": [other, "x"]})
    assert format_table(table).splitlines() == [*_rich_grid(["a", "b"], [[odd, other], [other, "x"]]), "(2 rows)"]


def test_a_cell_of_only_zero_width_characters_is_left_to_rich() -> None:
    for cell in ("🏻", "\u0301", "\ufe0f"):  # rich leaves these out of the cell
        assert _grid(["a"], [[cell]]) is None
        assert format_table(pa.table({"a": [cell]})).splitlines()[:5] == [*_rich_grid(["a"], [[cell]])]


def test_empty_tables() -> None:
    assert format_table(pa.table({"a": pa.array([], pa.int64())})).splitlines() == [
        "+---+",
        "| a |",
        "+---+",
        "+---+",
        "(0 rows)",
    ]
    assert format_table(pa.table({})) == "(0 rows)"
