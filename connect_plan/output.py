"""Results as the command line writes them: a terminal table, JSON, CSV, parquet.

Every Spark type has one written form, chosen by its Arrow type (not guessed from Python
values), the same in every text format:

* nested values (arrays, maps, structs) are JSON text — a map is a JSON object whose keys are
  strings (a non-string key is its own JSON text), an array a JSON list;
* ``variant`` is its JSON text; ``binary`` is base64; dates and timestamps are ISO 8601;
  decimals keep their digits (a JSON string, so no precision is lost);
* intervals are ISO 8601 durations: ``P1Y2M`` (year-month), ``P1DT2H3M4S`` (day-time);
* JSON has no NaN or infinity: the JSON format writes them as ``null``; the table writes
  ``NaN``, ``Infinity``, ``-Infinity`` (Spark's spellings), CSV Arrow's ``nan``, ``inf``, ``-inf``.

CSV keeps Arrow's own writer for flat columns and writes each nested, binary, interval or
variant column as text in the form above. Parquet keeps every type, except that a year-month
interval (which parquet cannot hold) is written as its number of months (``int32``).
"""

from __future__ import annotations

import base64
import datetime as dt
import decimal
import io
import json
import math
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from .arrow_types import has_month_intervals, variant_shaped, without_months

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = [
    "Preview",
    "csv_ready",
    "csv_schema",
    "format_table",
    "iso_duration",
    "json_rows",
    "parquet_ready",
    "parquet_schema",
    "text_cell",
    "with_readable_intervals",
]


def _without_month_intervals(batch: pa.RecordBatch) -> tuple[pa.RecordBatch, set[str]]:
    """The batch with year-month interval columns as ``int32`` months (same buffers, no copy),
    and the names of the top-level columns that held such intervals."""
    import pyarrow as pa

    changed = {f.name for f in batch.schema if has_month_intervals(f.type)}
    if not changed:
        return batch, changed
    schema = pa.schema([without_months(f) for f in batch.schema], batch.schema.metadata)
    _, array_capsule = batch.__arrow_c_array__()
    return pa.RecordBatch._import_from_c_capsule(schema.__arrow_c_schema__(), array_capsule), changed


def with_readable_intervals(batches: Iterable[pa.RecordBatch]) -> Iterator[tuple[pa.RecordBatch, set[str]]]:
    for batch in batches:
        yield _without_month_intervals(batch)


# ------------------------------------------------------------------ one value


def iso_duration(value: dt.timedelta) -> str:
    """A day-time interval as ISO 8601: ``P1DT2H3M4.5S``, ``-PT1S``, ``PT0S``."""
    micros = (value.days * 86_400 + value.seconds) * 1_000_000 + value.microseconds
    sign = "-" if micros < 0 else ""
    micros = abs(micros)
    days, rest = divmod(micros, 86_400_000_000)
    hours, rest = divmod(rest, 3_600_000_000)
    minutes, rest = divmod(rest, 60_000_000)
    seconds, fraction = divmod(rest, 1_000_000)
    time = ""
    if hours:
        time += f"{hours}H"
    if minutes:
        time += f"{minutes}M"
    if seconds or fraction or not (days or time):
        time += f"{seconds}.{fraction:06d}".rstrip("0").rstrip(".") + "S"
    return f"{sign}P{f'{days}D' if days else ''}{'T' + time if time else ''}"


def _iso_months(months: int) -> str:
    sign = "-" if months < 0 else ""
    years, rest = divmod(abs(months), 12)
    if not years:
        return f"{sign}P{rest}M"
    return f"{sign}P{years}Y{f'{rest}M' if rest else ''}"


def _float_text(v: float) -> str:
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "Infinity" if v > 0 else "-Infinity"
    return repr(v)


def _converter(t: pa.DataType, *, months: bool = False, variant: bool = False) -> Callable[[Any], Any]:
    """A function from one Python value of Arrow type ``t`` (``to_pylist``) to its JSON-safe
    form: what the JSON format writes, and what the other text formats print as JSON text."""
    import pyarrow as pa

    if months:
        return lambda v: None if v is None else _iso_months(int(v))
    if variant or variant_shaped(t):
        return _variant_json
    if pa.types.is_map(t):
        key, item = _converter(t.key_type), _converter(t.item_type)

        def to_object(v: Any) -> Any:
            if v is None:
                return None
            out = {}
            for k, x in v:
                k = key(k)
                out[k if isinstance(k, str) else json.dumps(k, ensure_ascii=False)] = item(x)
            return out

        return to_object
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        element = _converter(t.value_type)
        return lambda v: None if v is None else [element(x) for x in v]
    if pa.types.is_struct(t):
        fields = [(t.field(i).name, _converter(t.field(i).type)) for i in range(t.num_fields)]
        return lambda v: None if v is None else {name: conv(v.get(name)) for name, conv in fields}
    if pa.types.is_floating(t):
        return lambda v: None if v is None or math.isnan(v) or math.isinf(v) else v
    if pa.types.is_decimal(t):
        return lambda v: None if v is None else str(v)
    if pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t):
        return lambda v: None if v is None else base64.b64encode(v).decode()
    if pa.types.is_duration(t):
        return lambda v: None if v is None else iso_duration(v)
    if pa.types.is_timestamp(t) or pa.types.is_date(t) or pa.types.is_time(t):
        return lambda v: None if v is None else v.isoformat()
    return _plain


def _plain(v: Any) -> Any:
    if isinstance(v, (dt.datetime, dt.date, dt.time)):
        return v.isoformat()
    if isinstance(v, decimal.Decimal):
        return str(v)
    if isinstance(v, bytes):
        return base64.b64encode(v).decode()
    if isinstance(v, dt.timedelta):
        return iso_duration(v)
    return v


def _variant_json(v: Any) -> Any:
    if v is None:
        return None
    from .spark_proto import variant_utils

    return json.loads(variant_utils().to_json(v["value"], v["metadata"]))


def _columns(batch: pa.RecordBatch, months: set[str]) -> list[Callable[[Any], Any]]:
    return [_converter(f.type, months=f.name in months, variant=variant_shaped(f)) for f in batch.schema]


def text_cell(value: Any, converted: Any) -> str:
    """One cell of the table or of a CSV text column: ``value`` is the raw Python value,
    ``converted`` its JSON-safe form."""
    if value is None:
        return "null"
    if isinstance(value, float):
        return _float_text(value)
    if isinstance(converted, (dict, list)):
        return json.dumps(converted, ensure_ascii=False, allow_nan=False)
    if isinstance(converted, bool):
        return "true" if converted else "false"
    return str(converted)


# ------------------------------------------------------------------ formats


def json_rows(batches: Iterable[pa.RecordBatch]) -> Iterator[dict[str, Any]]:
    """Each row as a JSON-safe object (column name → value)."""
    for batch, months in with_readable_intervals(batches):
        convs = _columns(batch, months)
        names = batch.schema.names
        cols = [[conv(v) for v in col.to_pylist()] for col, conv in zip(batch.columns, convs)]
        for r in range(batch.num_rows):
            yield {name: col[r] for name, col in zip(names, cols)}


def _csv_native(t: pa.DataType) -> bool:
    import pyarrow as pa

    return bool(
        pa.types.is_integer(t)
        or pa.types.is_floating(t)
        or pa.types.is_boolean(t)
        or pa.types.is_string(t)
        or pa.types.is_large_string(t)
        or pa.types.is_date(t)
        or pa.types.is_timestamp(t)
        or pa.types.is_time(t)
        or pa.types.is_decimal(t)
        or pa.types.is_null(t)
    )


def csv_ready(batch: pa.RecordBatch) -> pa.RecordBatch:
    """The batch with every column Arrow's CSV writer cannot write (nested, binary, interval,
    variant) as a string column of its text form; flat columns are passed through."""
    import pyarrow as pa

    batch, months = _without_month_intervals(batch)
    if all(_csv_native(f.type) and f.name not in months for f in batch.schema):
        return batch
    arrays, fields = [], []
    for f, col in zip(batch.schema, batch.columns):
        if _csv_native(f.type) and f.name not in months:
            arrays.append(col)
            fields.append(f)
            continue
        conv = _converter(f.type, months=f.name in months, variant=variant_shaped(f))
        arrays.append(pa.array([None if v is None else text_cell(v, conv(v)) for v in col.to_pylist()], pa.string()))
        fields.append(pa.field(f.name, pa.string()))
    return pa.RecordBatch.from_arrays(arrays, schema=pa.schema(fields))


def csv_schema(schema: pa.Schema) -> pa.Schema:
    """The schema :func:`csv_ready` batches have."""
    import pyarrow as pa

    return pa.schema(
        [f if _csv_native(f.type) else pa.field(f.name, pa.string()) for f in schema],
    )


def parquet_ready(batch: pa.RecordBatch) -> pa.RecordBatch:
    """The batch as parquet can hold it: year-month intervals as ``int32`` months."""
    return _without_month_intervals(batch)[0]


def parquet_schema(schema: pa.Schema) -> pa.Schema:
    import pyarrow as pa

    return pa.schema([without_months(f) for f in schema], schema.metadata)


def format_table(table: pa.Table, max_rows: int = 1000, footer: str = "") -> str:
    """The table as a grid for a terminal (wide characters such as 東京 take two cells), at
    most ``max_rows`` rows, then a line with the row count and ``footer``."""
    header = list(table.column_names)
    rows: list[list[str]] = []
    shown = table.slice(0, max_rows)
    for batch, months in with_readable_intervals(shown.to_batches()):
        convs = _columns(batch, months)
        cols = [[text_cell(v, conv(v)) for v in col.to_pylist()] for col, conv in zip(batch.columns, convs)]
        rows.extend(map(list, zip(*cols)) if cols else ([] for _ in range(batch.num_rows)))
    lines: list[str] = []
    if header:
        drawn = _grid(header, rows) if all(map(str.isprintable, _cells(header, rows))) else None
        lines = drawn if drawn is not None else _rich_grid(header, rows)
    more = f", {table.num_rows - shown.num_rows} not shown" if table.num_rows > shown.num_rows else ""
    lines.append(f"({table.num_rows} row{'s' if table.num_rows != 1 else ''}{more}{footer})")
    return "\n".join(lines)


def _cells(header: list[str], rows: list[list[str]]) -> Iterator[str]:
    yield from header
    for row in rows:
        yield from row


def _grid(header: list[str], rows: list[list[str]]) -> list[str] | None:
    """The grid rich draws (:func:`_rich_grid`: an ASCII2 box, one space of padding, left
    aligned), for cells of printable text only, where it is widths and padding: with rich's
    own cell widths, without importing rich's console (~35 ms of a 0.5 s cold start). None
    for a cell of only zero-width characters (a lone combining mark or skin-tone modifier,
    which rich leaves out); cells with line breaks, tabs or other control or format
    characters are not given here. Either way rich lays them out
    (tests/unit/test_output_grid.py holds the two equal)."""
    from rich.cells import cell_len

    widths = [cell_len(name) for name in header]
    lens = [[cell_len(cell) for cell in row] for row in rows]
    if any(not n and cell for cells, ns in ((header, widths), *zip(rows, lens)) for cell, n in zip(cells, ns)):
        return None
    for row in lens:
        widths = [max(w, n) for w, n in zip(widths, row)]
    rule = "+" + "+".join("-" * (w + 2) for w in widths) + "+"

    def line(cells: list[str], cell_lens: list[int]) -> str:
        return ("|" + "|".join(f" {c}{' ' * (w - n)} " for c, n, w in zip(cells, cell_lens, widths)) + "|").rstrip()

    out = [rule, line(header, [cell_len(name) for name in header]), rule]
    out.extend(line(row, n) for row, n in zip(rows, lens))
    out.append(rule)
    return out


def _rich_grid(header: list[str], rows: list[list[str]]) -> list[str]:
    """The grid as rich lays it out (a cell may span lines, tabs expand...)."""
    from rich import box
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    grid = Table(box=box.ASCII2, header_style=None, highlight=False, show_edge=True)
    for name in header:
        grid.add_column(Text(name), no_wrap=True, overflow="ignore")
    for row in rows:
        grid.add_row(*(Text(cell) for cell in row))
    buf = io.StringIO()
    console = Console(
        file=buf,
        width=1_000_000,
        color_system=None,
        force_terminal=False,
        emoji=False,
        markup=False,
        highlight=False,
        soft_wrap=True,
    )
    console.print(grid)
    return [line.rstrip() for line in buf.getvalue().splitlines()]


# ------------------------------------------------------------------ previews


class Preview:
    """A result's batches bounded as ``run --max-rows/--max-bytes`` shows them, and what was
    left out. The source must hold one row more than ``max_rows`` when there are more (the
    command asks the server for ``max_rows + 1``), so that a cut is known, not guessed.
    ``max_bytes`` cuts the batch that crosses the budget and reads one more batch to say
    how much follows; the rest of the result is not read (its execution is released)."""

    def __init__(self, batches: Iterable[pa.RecordBatch], max_rows: int | None, max_bytes: int | None) -> None:
        self._batches = batches
        self.max_rows = max_rows
        self.max_bytes = max_bytes
        self.shown = 0
        self.cut_by: str | None = None
        self.left_out = 0
        self.maybe_more = False

    def __iter__(self) -> Iterator[pa.RecordBatch]:
        from .client.execute import head_within

        rows_left = self.max_rows
        budget = self.max_bytes
        source = iter(self._batches)
        for batch in source:
            if rows_left is not None and batch.num_rows > rows_left:
                self.cut_by, self.maybe_more = f"--max-rows {self.max_rows}", True
                batch = batch.slice(0, rows_left)
                rows_left = 0
            if budget is not None and batch.nbytes > budget:
                head = head_within(batch, budget)
                self.cut_by = f"--max-bytes {self.max_bytes}"
                self.left_out += batch.num_rows - head.num_rows
                following = next(source, None)
                if following is not None:
                    self.left_out += following.num_rows
                    self.maybe_more = True
                batch = head
                budget = 0
            elif budget is not None:
                budget -= batch.nbytes
            if batch.num_rows:
                self.shown += batch.num_rows
                yield batch
            if self.cut_by is not None:
                return

    def note(self) -> str:
        """What was left out (empty when nothing was)."""
        if self.cut_by is None:
            return ""
        if self.cut_by.startswith("--max-rows"):
            return f"preview cut at {self.cut_by}: more rows not shown"
        more = f"at least {self.left_out}" if self.maybe_more else str(self.left_out)
        return f"preview cut at {self.cut_by}: {more} more row{'s' if more != '1' else ''} not shown"
