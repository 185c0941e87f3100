"""The team's Substrait corpus (tests/data/substrait/): its data, its layout, and how a plan's
answer is judged against Spark SQL's.

Layout (shared by scripts/record_substrait_corpus.py, which writes it, scripts/substrait_corpus.py,
which measures connect_plan on it, and tests/integration/test_substrait_corpus.py)::

    tests/data/substrait/<suite>/queries/<id>.sql        the SQL given to the producers; Spark SQL's oracle
    tests/data/substrait/<suite>/<producer>/<id>.json    the producer's plan (Substrait JSON, superset schema)
    tests/data/substrait/<suite>/<producer>/<id>.sql     a producer's dialect variant of the text, if any
    tests/data/substrait/<suite>/<producer>/errors.json  {id: the producer's own error}
    tests/data/substrait/<suite>/manifest.json           producer versions, data, counts

Data is never committed: ``features`` is made here with pyarrow (:func:`features_tables`, small and
deterministic), ``tpcds`` and ``tpch`` by DuckDB 1.1.3's ``dsdgen``/``dbgen`` (deterministic too).
"""

from __future__ import annotations

import datetime
import decimal
import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "data" / "substrait"
SUITES = ("features", "tpcds", "tpch")
PRODUCERS = ("datafusion", "duckdb", "isthmus", "ibis")

#: Spark session settings for the oracle (Spark SQL on the same server) and connect_plan's session.
#: - UTC: the answers do not depend on the machine's zone.
#: - TIMESTAMP_NTZ: a bare ``TIMESTAMP`` in SQL means *without time zone* in the SQL standard and in
#:   every producer here (DataFusion, DuckDB, Calcite), and a plan's ``timestamp`` is Substrait's
#:   zone-less type; Spark SQL alone reads ``TIMESTAMP '...'`` as its local-zone type unless told so.
#: - doubleQuotedIdentifiers: DuckDB's TPC-DS texts quote aliases with double quotes (ANSI SQL).
SPARK_CONF = {
    "spark.sql.session.timeZone": "UTC",
    "spark.sql.timestampType": "TIMESTAMP_NTZ",
    "spark.sql.ansi.doubleQuotedIdentifiers": "true",
}


# ------------------------------------------------------------------ data


def _d(text: str | None) -> decimal.Decimal | None:
    return None if text is None else decimal.Decimal(text)


def _date(text: str | None) -> datetime.date | None:
    return None if text is None else datetime.date.fromisoformat(text)


def _ts(text: str | None) -> datetime.datetime | None:
    return None if text is None else datetime.datetime.fromisoformat(text)


def features_arrow() -> dict[str, Any]:
    """The features suite's tables as Arrow tables: ``t`` (every type but timestamp, NULLs in every
    nullable column, duplicates), ``tm`` (``t``'s ids with a timestamp each: apart, because Isthmus
    0.5 refuses every timestamp column, ``unsupported timestamp precision``), ``u`` (the other side of joins, set operations and subqueries: keys that
    overlap ``t``'s, NULL keys, duplicates) and ``e`` (``u``'s schema, no rows). ``id`` is unique
    and never NULL in each, so ``ORDER BY id`` has no ties. NaN appears only in ``t.fn``."""
    import pyarrow as pa

    nan = float("nan")
    # fmt: off
    t_rows = [
        # id g     k     ti    si     ii     bi             d1        d2            d3                    f4     f8       fn    s             b      dt
        (1, "a",  10,   1,    100,   1000,  10000000000,   "1.25",   "100.5000",   "1.0000000001",       1.5,   1.25,    1.0,  "apple",      True,  "2024-01-15"),
        (2, "a",  10,   -2,   -200,  -20,   -5,            "-3.50",  "0.0001",     "-12345.6789012345",  -2.25, -0.5,    nan,  " pad ",      False, "2024-02-29"),
        (3, "b",  20,   3,    300,   None,  7,             "0.00",   None,         "99999999.9999999999", 0.0,  0.0,     None, "",           None,  "2023-12-31"),
        (4, "b",  None, None, None,  4,     None,          None,     "-7.2500",    None,                 None,  None,    2.5,  None,         True,  None),
        (5, None, 30,   5,    500,   5,     5,             "9.99",   "12.3456",    "0.5000000000",       3.25,  1e10,    nan,  "Ünïcödé ß",  True,  "2024-07-04"),
        (6, "c",  30,   6,    -600,  6,     600,           "-0.01",  "5.0000",     "2.2500000000",       -0.5,  -1e-3,   3.0,  "banana",     False, "2024-03-01"),
        (7, "a",  None, 7,    700,   7,     -7,            "5.55",   "-0.0001",    "-1.0000000000",      7.75,  2.5,     None, "a_b%c",      None,  "2024-01-15"),
        (8, "",   40,   -8,   800,   -8,    8,             "8.80",   "8.8000",     "8.8000000000",       8.0,   -3.75,   -1.0, "Apple",      True,  "2025-12-31"),
        (9, None, 10,   9,    None,  9,     90,            "-9.99",  "9.9999",     "9.9999999999",       9.5,   9.0,     4.0,  "xyzzy",      False, "2024-02-28"),
        (10, "c", 20,   10,   1000,  None,  100,           "10.00",  "10.0000",    "10.0000000000",      -10.0, 10.5,    nan,  "  both  ",   True,  "2024-05-05"),
        (11, "b", 50,   -11,  1100,  11,    -11,           "1.10",   "-11.1100",   "-11.1100000000",     11.25, -11.0,   5.0,  "b",          None,  "2023-06-15"),
        (12, "a", None, 12,   -1200, 12,    None,          "12.12",  "12.1200",    "12.1200000000",      None,  12.25,   None, "aaa",        False, "2024-12-25"),
    ]
    tm_rows = [
        (1, "2024-01-15 08:30:00"),
        (2, "2024-02-29 23:59:59"),
        (3, "2023-12-31 00:00:00"),
        (4, None),
        (5, "2024-07-04 12:00:00.123456"),
        (6, "2024-03-01 01:02:03"),
        (7, "2024-01-15 08:30:00"),
        (8, "2025-12-31 23:00:00"),
        (9, "2024-02-28 00:00:01"),
        (10, "2024-05-05 05:05:05"),
        (11, "2023-06-15 18:45:30"),
        (12, None),
    ]
    u_rows = [
        # id k     g     v     s
        (1, 10,   "a",  1,    "apple"),
        (2, 10,   "a",  1,    "apple"),
        (3, 20,   "b",  2,    "banana"),
        (4, None, "b",  None, None),
        (5, 60,   "z",  6,    "zebra"),
        (6, None, None, 7,    ""),
        (7, 30,   "c",  3,    "Apple"),
        (8, 70,   "",   8,    "xyzzy"),
        (9, 60,   "z",  6,    "zebra"),
    ]
    # fmt: on
    t_schema = pa.schema(
        [
            pa.field("id", pa.int32(), nullable=False),
            ("g", pa.string()),
            ("k", pa.int64()),
            ("ti", pa.int8()),
            ("si", pa.int16()),
            ("ii", pa.int32()),
            ("bi", pa.int64()),
            ("d1", pa.decimal128(5, 2)),
            ("d2", pa.decimal128(18, 4)),
            ("d3", pa.decimal128(38, 10)),
            ("f4", pa.float32()),
            ("f8", pa.float64()),
            ("fn", pa.float64()),
            ("s", pa.string()),
            ("b", pa.bool_()),
            ("dt", pa.date32()),
        ]
    )
    u_schema = pa.schema(
        [
            pa.field("id", pa.int32(), nullable=False),
            ("k", pa.int64()),
            ("g", pa.string()),
            ("v", pa.int32()),
            ("s", pa.string()),
        ]
    )
    conv: list[Callable[[Any], Any]] = [
        *(lambda x: x for _ in range(7)),
        _d,
        _d,
        _d,
        *(lambda x: x for _ in range(5)),
        _date,
    ]
    t_cols = [[conv[i](row[i]) for row in t_rows] for i in range(len(t_schema))]
    u_cols = [[row[i] for row in u_rows] for i in range(len(u_schema))]
    tm_schema = pa.schema([pa.field("id", pa.int32(), nullable=False), ("ts", pa.timestamp("us"))])
    tm_cols = [[row[0] for row in tm_rows], [_ts(row[1]) for row in tm_rows]]
    return {
        "t": pa.table(t_cols, schema=t_schema),
        "tm": pa.table(tm_cols, schema=tm_schema),
        "u": pa.table(u_cols, schema=u_schema),
        "e": u_schema.empty_table(),
    }


def features_tables(root: Path) -> dict[str, str]:
    """The features tables written as parquet files under ``root``: name → path."""
    import pyarrow.parquet as pq

    root.mkdir(parents=True, exist_ok=True)
    out = {}
    for name, table in features_arrow().items():
        path = root / f"{name}.parquet"
        pq.write_table(table, path)
        out[name] = str(path)
    return out


def duckdb_tables(root: Path, suite: str, scale: float = 0.01) -> tuple[dict[str, str], dict[str, str]]:
    """TPC-DS or TPC-H data (DuckDB's statically linked generators) as parquet files under ``root``,
    and the suite's query texts: (name → path, id → SQL). Ids are ``q01``...``q99``."""
    import duckdb

    root.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect()
    gen, listing = ("dsdgen", "tpcds_queries") if suite == "tpcds" else ("dbgen", "tpch_queries")
    con.sql(f"CALL {gen}(sf={scale})")
    files = {}
    for (name,) in con.sql("SHOW TABLES").fetchall():
        path = root / f"{name}.parquet"
        con.sql(f"COPY {name} TO '{path}' (FORMAT parquet)")
        files[name] = str(path)
    queries = {f"q{int(n):02d}": q for n, q in con.sql(f"SELECT query_nr, query FROM {listing}()").fetchall()}
    con.close()
    return files, queries


def suite_tables(suite: str, root: Path) -> dict[str, str]:
    """The suite's data as parquet files under ``root`` (made once; kept if already there)."""
    marker = root / "tables.json"
    if marker.exists():
        return dict(json.loads(marker.read_text()))
    files = features_tables(root) if suite == "features" else duckdb_tables(root, suite)[0]
    marker.write_text(json.dumps(files, sort_keys=True))
    return files


def sources(files: dict[str, str]) -> dict[str, Any]:
    """connect_plan's ``tables=`` mapping for these files."""
    return {name: {"files": [path], "format": "parquet"} for name, path in files.items()}


# ------------------------------------------------------------------ reading the corpus


@dataclass
class Suite:
    name: str
    queries: dict[str, str]
    #: producer → id → plan JSON text
    plans: dict[str, dict[str, str]] = field(default_factory=dict)
    #: producer → id → the producer's error
    errors: dict[str, dict[str, str]] = field(default_factory=dict)
    manifest: dict[str, Any] = field(default_factory=dict)


def query_comment(sql: str) -> str:
    """The one-line comment a features query starts with (what it checks)."""
    first = sql.lstrip().splitlines()[0] if sql.strip() else ""
    return first[2:].strip() if first.startswith("--") else ""


def read_suite(name: str, base: Path = CORPUS) -> Suite:
    root = base / name
    queries = {p.stem: p.read_text() for p in sorted((root / "queries").glob("*.sql"))}
    suite = Suite(name, queries)
    manifest = root / "manifest.json"
    if manifest.exists():
        suite.manifest = json.loads(manifest.read_text())
    for producer in PRODUCERS:
        d = root / producer
        if not d.is_dir():
            continue
        suite.plans[producer] = {p.stem: p.read_text() for p in sorted(d.glob("*.json")) if p.name != "errors.json"}
        errors = d / "errors.json"
        suite.errors[producer] = json.loads(errors.read_text()) if errors.exists() else {}
    return suite


# ------------------------------------------------------------------ answers


def _norm(v: Any) -> Any:
    """A value as compared: NaN equal to NaN; a zoned timestamp as its UTC wall time (the session
    zone is UTC; Spark returns its local-zone type where a plan may say zone-less)."""
    if isinstance(v, float) and math.isnan(v):
        return "NaN"
    if isinstance(v, datetime.datetime) and v.tzinfo is not None:
        return v.astimezone(datetime.timezone.utc).replace(tzinfo=None)
    if isinstance(v, list):
        return [_norm(x) for x in v]
    if isinstance(v, dict):
        return {k: _norm(x) for k, x in v.items()}
    return v


def _key(v: Any) -> tuple[Any, ...]:
    if v is None:
        return (0,)
    if isinstance(v, bool):
        return (1, int(v))
    if isinstance(v, (int, float, decimal.Decimal)):
        return (2, round(float(v), 2))
    if v == "NaN":
        return (3,)
    return (4, type(v).__name__, str(v))


def rows(table: Any) -> list[tuple[Any, ...]]:
    """The table's rows as tuples of compared values, as a sorted multiset."""
    cols = [[_norm(v) for v in c.to_pylist()] for c in table.columns]
    return sorted((tuple(r) for r in zip(*cols)), key=lambda r: tuple(_key(v) for v in r))


def close(u: Any, v: Any) -> bool:
    """Equal, or numbers (decimal or float) to 1e-6 relative or one unit of a decimal's last digit:
    a plan's types are its producer's (DuckDB and DataFusion divide decimals as doubles where Spark
    SQL keeps a decimal of scale 6; engines round or truncate that last digit differently). An
    integer and a float compare as numbers; a bool never equals a number."""
    if isinstance(u, bool) or isinstance(v, bool):
        return type(u) is type(v) and u == v
    if isinstance(u, decimal.Decimal) and isinstance(v, decimal.Decimal):
        unit = max(decimal.Decimal(1).scaleb(int(d.as_tuple().exponent)) for d in (u, v))
        return abs(u - v) <= unit or math.isclose(float(u), float(v), rel_tol=1e-6)
    if isinstance(u, (int, float, decimal.Decimal)) and isinstance(v, (int, float, decimal.Decimal)):
        if (isinstance(u, float) and math.isinf(u)) or (isinstance(v, float) and math.isinf(v)):
            return u == v
        unit = max((10.0 ** int(d.as_tuple().exponent) for d in (u, v) if isinstance(d, decimal.Decimal)), default=0.0)
        return math.isclose(float(u), float(v), rel_tol=1e-6, abs_tol=max(1e-9, unit))
    return bool(u == v)


def difference(ours: Any, theirs: Any) -> str | None:
    """None when ``ours`` gives Spark SQL's answer ``theirs``, else how it differs, in one line:
    the same number of columns, the same rows as a multiset (every query of the features suite
    that orders its rows has no ties, but TPC-DS's do: rows are compared in any order), each value
    :func:`close` to Spark's. Column names and types are not compared here: a plan's names are its
    producer's (Isthmus upper-cases them), and its types are its producer's (the result contract,
    issue 31 item 1, checks them against the plan)."""
    if ours.num_columns != theirs.num_columns:
        return f"{ours.num_columns} columns, Spark SQL {theirs.num_columns}"
    if ours.num_rows != theirs.num_rows:
        return f"{ours.num_rows} rows, Spark SQL {theirs.num_rows}"
    a, b = rows(ours), rows(theirs)
    for i, (x, y) in enumerate(zip(a, b)):
        for j, (u, v) in enumerate(zip(x, y)):
            if not close(u, v):
                return f"row {i} (sorted) column {j} ({theirs.column_names[j]}): {u!r}, Spark SQL {v!r}"
    return None
