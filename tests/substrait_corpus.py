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
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.substrait_producers import PRODUCER_BUGS as _TPCH_BUGS

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
    #: producer → id → the SQL its plan was made for, where it is the producer's own (ibis' TPC-H:
    #: ibis' expressions, recorded with ibis' SQL for them)
    own_queries: dict[str, dict[str, str]] = field(default_factory=dict)

    def sql(self, producer: str, qid: str) -> str:
        """The SQL text whose answer ``producer``'s plan ``qid`` must give."""
        return self.own_queries.get(producer, {}).get(qid) or self.queries[qid]


#: (suite, producer) whose ``<producer>/<id>.sql`` is the SQL its plan must answer (ibis' TPC-H:
#: ibis plans its own expressions, recorded with ibis' SQL for them in Spark's dialect). Elsewhere
#: that file is the text the producer was given in its own dialect (the recorder's DIALECT table:
#: DuckDB's regexp_matches for regexp_like...), which Spark SQL need not run: the oracle stays
#: ``<suite>/queries/<id>.sql``.
OWN_SQL = frozenset({("tpch", "ibis")})


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
        if (name, producer) in OWN_SQL:
            suite.own_queries[producer] = {p.stem: p.read_text() for p in sorted(d.glob("*.sql"))}
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
    integer and a float compare as numbers; a bool never equals a number; a date equals a
    timestamp at its midnight."""
    if isinstance(u, bool) or isinstance(v, bool):
        return type(u) is type(v) and u == v
    if isinstance(u, datetime.date) and isinstance(v, datetime.date) and type(u) is not type(v):
        # a date and a timestamp at its midnight are the same day (DuckDB's date_trunc of a date
        # is a date, Spark SQL's a timestamp: the plan's type is checked by the result contract)
        day, stamp = (u, v) if isinstance(v, datetime.datetime) else (v, u)
        return isinstance(stamp, datetime.datetime) and stamp.time() == datetime.time(0) and stamp.date() == day
    if isinstance(u, decimal.Decimal) and isinstance(v, decimal.Decimal):
        unit = max(decimal.Decimal(1).scaleb(int(d.as_tuple().exponent)) for d in (u, v))
        return abs(u - v) <= unit or math.isclose(float(u), float(v), rel_tol=1e-6)
    if isinstance(u, (int, float, decimal.Decimal)) and isinstance(v, (int, float, decimal.Decimal)):
        if (isinstance(u, float) and math.isinf(u)) or (isinstance(v, float) and math.isinf(v)):
            return u == v
        unit = max((10.0 ** int(d.as_tuple().exponent) for d in (u, v) if isinstance(d, decimal.Decimal)), default=0.0)
        return math.isclose(float(u), float(v), rel_tol=1e-6, abs_tol=max(1e-9, unit))
    return bool(u == v)


def is_ordered(sql: str) -> bool:
    """A features query whose comment starts with ``ordered:`` is compared row by row in order (its
    ORDER BY has no ties); every other query as a multiset."""
    return query_comment(sql).startswith("ordered:")


def difference(ours: Any, theirs: Any, *, ordered: bool = False) -> str | None:
    """None when ``ours`` gives Spark SQL's answer ``theirs``, else how it differs, in one line:
    the same number of columns, the same rows as a multiset (every query of the features suite
    that orders its rows has no ties, but TPC-DS's do: rows are compared in any order), each value
    :func:`close` to Spark's; in order when ``ordered`` (:func:`is_ordered`). Column names and types are not compared here: a plan's names are its
    producer's (Isthmus upper-cases them), and its types are its producer's (the result contract,
    issue 31 item 1, checks them against the plan)."""
    if ours.num_columns != theirs.num_columns:
        return f"{ours.num_columns} columns, Spark SQL {theirs.num_columns}"
    if ours.num_rows != theirs.num_rows:
        return f"{ours.num_rows} rows, Spark SQL {theirs.num_rows}"
    if ordered:
        a = [tuple(r) for r in zip(*([_norm(v) for v in c.to_pylist()] for c in ours.columns))]
        b = [tuple(r) for r in zip(*([_norm(v) for v in c.to_pylist()] for c in theirs.columns))]
    else:
        a, b = rows(ours), rows(theirs)
    for i, (x, y) in enumerate(zip(a, b)):
        for j, (u, v) in enumerate(zip(x, y)):
            if not close(u, v):
                where = "in order" if ordered else "sorted"
                return f"row {i} ({where}) column {j} ({theirs.column_names[j]}): {u!r}, Spark SQL {v!r}"
    return None


# ------------------------------------------------------------------ null placement of the oracle

#: SortField.SortDirection (JSON name or number) → (ascending, nulls first)
_DIRECTIONS: dict[Any, tuple[bool, bool]] = {
    "SORT_DIRECTION_ASC_NULLS_FIRST": (True, True),
    "SORT_DIRECTION_ASC_NULLS_LAST": (True, False),
    "SORT_DIRECTION_DESC_NULLS_FIRST": (False, True),
    "SORT_DIRECTION_DESC_NULLS_LAST": (False, False),
    1: (True, True),
    2: (True, False),
    3: (False, True),
    4: (False, False),
}


def result_order(plan: Any) -> list[tuple[bool, bool]] | None:
    """(ascending, nulls first) of each field of the sort that orders the plan's result: the
    root relation's first sort, reached through projects and fetches only (a LIMIT over an ORDER
    BY); None when there is none or a field's direction is not one of the four (clustered, a
    comparison function). ``plan``: JSON text, a parsed JSON object or binary protobuf."""
    if isinstance(plan, (bytes, bytearray)) or (isinstance(plan, str) and not plan.lstrip().startswith("{")):
        from google.protobuf.json_format import MessageToDict

        from connect_plan.formats.substrait.proto import parse_substrait

        plan = MessageToDict(parse_substrait(bytes(plan) if not isinstance(plan, str) else plan))
    elif isinstance(plan, str):
        plan = json.loads(plan)
    roots = [r["root"] for r in plan.get("relations", ()) if "root" in r]
    rel = roots[0].get("input", {}) if len(roots) == 1 else {}
    while rel:
        kind, body = next(iter(rel.items()))
        if kind == "sort":
            found = [_DIRECTIONS.get(s.get("direction")) for s in body.get("sorts", ())]
            return [f for f in found if f is not None] if all(found) and found else None
        if kind not in ("project", "fetch"):
            return None
        rel = body.get("input", {})
    return None


def _masked(sql: str) -> str:
    """``sql`` lower-cased, of the same length, with what is inside parentheses and quotes
    written as ``_`` and comments as blanks: what is left is the statement's top level."""
    out = list(sql.lower())
    depth, i, n = 0, 0, len(sql)
    while i < n:
        ch = sql[i]
        if ch in "'\"`":
            end = sql.find(ch, i + 1)
            end = n if end < 0 else end + 1
            out[i:end] = "_" * (end - i)
            i = end
            continue
        if sql.startswith("--", i) or sql.startswith("/*", i):
            if ch == "-":
                stop = sql.find("\n", i)
                end = n if stop < 0 else stop
            else:
                stop = sql.find("*/", i + 2)
                end = n if stop < 0 else stop + 2
            out[i:end] = " " * (end - i)
            i = end
            continue
        if ch == "(":
            depth += 1
        if depth:
            out[i] = "_"
        if ch == ")":
            depth -= 1
        i += 1
    return "".join(out)


def with_plan_null_order(sql: str, plan: Any) -> str:
    """Spark SQL's text for the oracle of ``plan``: ``sql`` with the plan's NULL placement on
    each item of its top-level ORDER BY that leaves the placement to the engine.

    An ORDER BY item without NULLS FIRST/LAST means each engine's default: Spark's is NULLS FIRST
    ascending and NULLS LAST descending, DataFusion's and Calcite's (Isthmus) the reverse, and a
    producer writes its own default into the plan. Both answers are right, and under a LIMIT they
    keep different rows (TPC-DS q12 and q33 at sf 0.2): the oracle is asked the question the plan
    answers. Only where the text leaves the choice open: an explicit NULLS FIRST/LAST is kept, so
    a plan that loses one is still caught. The items are matched to the plan's sort fields by
    position, and only when their count and every direction agree; otherwise (or when the plan has
    no result order) ``sql`` is returned unchanged and the comparison is as strict as before.
    The edit appends to the items in place: the rest of the text stays byte for byte."""
    order = result_order(plan)
    if not order:
        return sql
    flat = _masked(sql)
    # the last top-level ORDER BY (a window's or a subquery's are inside parentheses)
    matches = list(re.finditer(r"\border\s+by\b", flat))
    if not matches:
        return sql
    start = matches[-1].end()
    tail = re.search(r"\b(limit|offset)\b|;", flat[start:])
    end = start + tail.start() if tail else len(flat)
    commas = [k for k in range(start, end) if flat[k] == ","]
    bounds = list(zip([start, *(k + 1 for k in commas)], [*commas, end]))
    if len(bounds) != len(order):
        return sql
    edits: list[tuple[int, str]] = []
    for (a, b), (ascending, nulls_first) in zip(bounds, order):
        item = flat[a:b].strip()
        if re.search(r"\bnulls\s+(first|last)$", item):
            continue  # the text's own choice: kept
        descending = re.search(r"\bdesc$", item) is not None
        if descending == ascending:
            return sql  # not the plan's sort of this ORDER BY
        if nulls_first != descending:
            continue  # the plan's placement is Spark's default
        # after the item's last character (trailing blanks skipped)
        edits.append((a + len(flat[a:b].rstrip()), " NULLS FIRST" if nulls_first else " NULLS LAST"))
    for at, text in reversed(edits):
        sql = sql[:at] + text + sql[at:]
    return sql


# ------------------------------------------------------------------ causes and producer bugs


@dataclass(frozen=True)
class Cause:
    """A known reason why plans do not give Spark SQL's answer, for the census and the test's
    xfails: it names a plan when the plan's outcome is ``outcome``, its producer is one of
    ``producers`` (all when empty) and ``pattern`` (a regular expression) is found in its error
    details, or when the plan is listed in ``plans`` (``producer:id`` or ``suite/producer:id``)."""

    name: str
    outcome: str
    explanation: str
    pattern: str = ""
    producers: tuple[str, ...] = ()
    plans: tuple[str, ...] = ()

    def matches(self, suite: str, producer: str, qid: str, result: dict[str, Any]) -> bool:
        if result["outcome"] != self.outcome:
            return False
        if self.producers and producer not in self.producers:
            return False
        if self.plans:
            return f"{producer}:{qid}" in self.plans or f"{suite}/{producer}:{qid}" in self.plans
        import re

        return bool(self.pattern) and any(re.search(self.pattern, d) for d in result.get("details", []))


def _bugs(suite: str, producer: str, ids: str, why: str) -> dict[tuple[str, str, str], str]:
    return {(suite, producer, qid): why for qid in ids.split()}


_DUCKDB_SETS_DROPPED = (
    "DuckDB 1.1.3 writes GROUPING SETS / ROLLUP / CUBE as one grouping of every key (the sets are "
    "dropped; GROUPING() then refers to no column); its own consumer (from_substrait) gives connect_plan's answer"
)
_DUCKDB_SET_OPS = (
    "DuckDB 1.1.3 writes {a} and {b} as byte-identical plans ({op}): one of the two cannot mean its SQL; "
    "per the spec {op} is {a}{consumer}"
)
_DUCKDB_UNION = (
    " (its own consumer reads the op as UNION DISTINCT, and so gives 8 rows for both plans of "
    "set_union_all_nulls and set_union_distinct_nulls: DuckDB's SQL answers 21 and 8)"
)
_IBIS = (
    "ibis 9.5's parse_sql + ibis-substrait 4.0.1 make a plan that does not mean the SQL ({what}); DuckDB's "
    "consumer reads the plan as connect_plan does"
)

_ISTHMUS_AVG = (
    "Isthmus 0.5 (Calcite) declares AVG of an integer column an integer (avg:i32 with output type i32, read in "
    "the plan): the spec's avg of integers truncates partial values, and connect_plan computes that (sum div "
    "count: 44 where Spark SQL's avg, fractional, says 44.5); tests/integration/test_substrait_functions.py "
    "holds the truncation to the spec"
)

_ISNAN_NULL = (
    "the plan's isnan is its producer's and the spec's (is_nan): NULL for NULL, where Spark SQL's isnan(NULL) "
    "is false (so NOT isnan(x) keeps a NULL row in Spark SQL, not in the plan); DataFusion's and DuckDB's own "
    "engines give connect_plan's answer (isnan(NULL) is NULL in both); "
    "tests/integration/test_substrait_conformance.py holds is_nan to the spec"
)

#: (suite, producer, id) → how the plan's meaning differs from its SQL, and the proof
PRODUCER_BUGS: dict[tuple[str, str, str], str] = {
    **_bugs("features", "datafusion", "math_nan_isnan math_nan_aggregate", _ISNAN_NULL),
    **_bugs("features", "duckdb", "math_nan_isnan math_nan_aggregate", _ISNAN_NULL),
    ("features", "datafusion", "grp_grouping_sets_single"): (
        "DataFusion 55 writes GROUP BY GROUPING SETS ((g, b)) as an AggregateRel of one grouping, which has "
        "no grouping id in any reading (the spec's or DataFusion's own), and refers to its measure as if it "
        "had one: field 3 of the aggregate's 3 columns (read in the plan). DataFusion's own consumer panics "
        "on it (index out of bounds: the len is 3 but the index is 3), DuckDB's refuses it (Positional "
        "reference 4 out of range)"
    ),
    **_bugs(
        "features",
        "datafusion",
        "set_intersect_all set_except_all",
        "DataFusion 55 plans INTERSECT ALL / EXCEPT ALL as a LEFT_SEMI / LEFT_ANTI join (duplicates kept as "
        "they come): its own SQL engine gives the same wrong answer (10 and 2 rows; Spark SQL 6 and 6)",
    ),
    **_bugs(
        "features",
        "datafusion",
        "sub_not_in_with_null sub_not_in_no_null",
        "DataFusion 55 writes NOT IN (subquery) as a plain LEFT_ANTI join: NOT IN's NULL semantics are lost "
        "(a NULL probe or a NULL in the subquery keeps rows); DataFusion's own engine runs a null-aware anti "
        "join that Substrait cannot express, so its SQL answers right and its plan does not",
    ),
    **_bugs(
        "features",
        "duckdb",
        "grp_cube_avg_decimal grp_cube_two grp_grouping_sets_basic grp_grouping_sets_count_distinct "
        "grp_grouping_sets_overlapping grp_rollup_having grp_rollup_one grp_rollup_three grp_rollup_two "
        "grp_grouping_arith grp_grouping_fn_rollup grp_grouping_id_cube grp_grouping_order_by",
        _DUCKDB_SETS_DROPPED,
    ),
    **_bugs(
        "features",
        "duckdb",
        "agg_filter_sum agg_filter_count_grouped",
        "DuckDB 1.1.3 drops an aggregate's FILTER (WHERE ...); its own consumer gives connect_plan's answer",
    ),
    **_bugs(
        "features",
        "duckdb",
        "set_union_distinct_nulls set_union_in_subquery set_union_order_limit set_union_strings_empty "
        "set_union_three set_union_two_columns",
        _DUCKDB_SET_OPS.format(a="UNION ALL", b="UNION", op="SET_OP_UNION_ALL", consumer=_DUCKDB_UNION),
    ),
    ("features", "duckdb", "set_intersect_all"): _DUCKDB_SET_OPS.format(
        a="INTERSECT", b="INTERSECT ALL", op="SET_OP_INTERSECTION_PRIMARY", consumer=""
    ),
    ("features", "duckdb", "set_except_all"): _DUCKDB_SET_OPS.format(
        a="EXCEPT", b="EXCEPT ALL", op="SET_OP_MINUS_PRIMARY", consumer=""
    ),
    ("features", "duckdb", "lit_dates_timestamps"): (
        "DuckDB 1.1.3 writes TIMESTAMP '2024-02-29 23:59:59' as the string literal '2024-02-29 23:59:59' "
        "(read in the plan): the plan's column is a string; its own consumer returns strings too"
    ),
    **_bugs(
        "features",
        "duckdb",
        "lit_booleans lit_nulls_typed",
        "DuckDB 1.1.3 names a constant column by the constant's text, not by the SQL's alias: RelRoot.names "
        "['true', 'false', 'false'] for a, b2, c, and ['NULL', 'NULL', 'NULL', 'NULL'] for a, b2, c, d (read "
        "in the plan); connect_plan refuses the repeated name",
    ),
    **_bugs(
        "features",
        "duckdb",
        "dt_timestamp_plus_hours dt_timestamp_minus_minutes",
        "DuckDB 1.1.3 writes an hour/minute INTERVAL literal that means another duration (08:30 + 5 hours "
        "comes back 08:43:40.130816); its own consumer gives connect_plan's answer",
    ),
    ("features", "isthmus", "dt_date_plus_days"): (
        "Isthmus 0.5 writes INTERVAL '3' DAY as 30 days (2024-01-15 + 3 days comes back 2024-02-14); "
        "DuckDB's consumer gives connect_plan's answer"
    ),
    ("features", "isthmus", "ord_offset_only"): (
        "Isthmus 0.5 writes OFFSET without LIMIT as FetchRel count 0 (no rows); DuckDB's consumer gives "
        "connect_plan's answer (0 rows)"
    ),
    ("features", "isthmus", "win_range_current_to_unbounded"): (
        "Isthmus 0.5 writes UNBOUNDED FOLLOWING as an offset of 0 (following {}) with no bounds type: the "
        "frame it writes is CURRENT ROW .. 0 FOLLOWING (read in the plan)"
    ),
    ("features", "isthmus", "set_intersect_all"): (
        "Isthmus 0.5 writes INTERSECT ALL as SET_OP_INTERSECTION_MULTISET, which the spec defines as the "
        "distinct intersection (the _ALL op keeps duplicates)"
    ),
    ("features", "isthmus", "set_except_all"): (
        "Isthmus 0.5 writes EXCEPT ALL as SET_OP_MINUS_MULTISET, which the spec defines as the primary input's "
        "rows not in every secondary input (no SQL equivalent; how many copies it keeps unsaid), not EXCEPT ALL's "
        "max(0, m - n) copies (refused by name)"
    ),
    **_bugs(
        "features",
        "isthmus",
        "case_nested case_searched_null_branch case_simple_no_else case_simple_null_operand case_then_null_first",
        "Calcite types a CASE of string literals as CHAR(n) (the SQL standard) and Isthmus writes the literals "
        "blank-padded ('not-b '): the plan means padded strings, Spark SQL's VARCHAR does not pad",
    ),
    **_bugs(
        "features",
        "ibis",
        "join_comma_filter join_cross join_derived_aggregate join_empty_right join_inner_eq join_left_non_equi "
        "join_left_nulls join_left_on_filter join_left_where_filter join_multi_key join_non_equi_between "
        "join_non_equi_lt join_right join_using sub_not_in_select_list_null sub_scalar_in_where "
        "dt_join_date_timestamp",
        _IBIS.format(what="the select list over a join is dropped: every column of both inputs comes out"),
    ),
    **_bugs(
        "features",
        "ibis",
        "grp_cube_avg_decimal grp_cube_two grp_grouping_arith grp_grouping_fn_rollup grp_grouping_id_cube "
        "grp_grouping_sets_basic grp_grouping_sets_count_distinct grp_grouping_sets_overlapping "
        "grp_grouping_sets_single grp_rollup_expression_key grp_rollup_one grp_rollup_three grp_rollup_two",
        _IBIS.format(what="GROUP BY GROUPING SETS / ROLLUP / CUBE keeps only the measures"),
    ),
    **_bugs(
        "features",
        "ibis",
        "agg_count_distinct agg_count_distinct_grouped agg_count_distinct_two_aggs agg_distinct_and_plain "
        "agg_distinct_select agg_count_star_vs_column join_left_aggregate",
        _IBIS.format(what="COUNT(DISTINCT x) and SELECT DISTINCT lose the DISTINCT; COUNT(x) counts NULLs"),
    ),
    **_bugs(
        "features",
        "ibis",
        "ord_multi_key_mixed ord_nulls_last_desc",
        _IBIS.format(what="every sort is written NULLS FIRST: the SQL's NULLS LAST is lost (read in the plan)"),
    ),
    ("features", "ibis", "math_decimal_arith"): (
        "ibis-substrait 4.0.1 declares d1 + d2, d1 - d2 and d1 * d2 (decimal(5,2) with decimal(18,4)) with "
        "the output type decimal(5,2), the left operand's (read in the plan): a product of scales 2 and 4 has "
        "scale 6, so the declared type cannot hold -0.000350 (connect_plan's answer, 0.0000, is neither)"
    ),
    **_bugs("features", "isthmus", "agg_avg_int", _ISTHMUS_AVG),
    **_bugs("tpcds", "isthmus", "q07 q22 q26", _ISTHMUS_AVG),
    ("features", "isthmus", "lit_decimals"): (
        "Isthmus 0.5 (Calcite's default type system caps DECIMAL precision at 19) writes CAST(0.1 AS "
        "DECIMAL(38, 20)) with the type decimal(19, 20), scale above precision, which no engine has"
    ),
    **_bugs("tpcds", "duckdb", "q05 q18 q22", _DUCKDB_SETS_DROPPED),
    ("tpcds", "duckdb", "q09"): (
        "DuckDB 1.1.3's plan compares a string column where the query compares a count (its scalar "
        "subqueries decorrelated into cross joins): Spark fails casting 'AAAAAAAABAAAAAAA' to BIGINT, and "
        "DuckDB's own consumer fails on the same plan (Cannot compare values of type VARCHAR and INTEGER_LITERAL)"
    ),
    # TPC-H: the live TPC-H test's list (DuckDB's NOT LIKE; ibis' plans of its own TPC-H expressions)
    **{("tpch", producer, f"q{q:02d}"): why for (producer, q), why in _TPCH_BUGS.items()},
    **_bugs(
        "features",
        "ibis",
        "ord_limit ord_limit_offset ord_offset_only",
        _IBIS.format(what="ORDER BY before LIMIT / OFFSET is lost or OFFSET is dropped"),
    ),
}


#: every known cause; the first that matches names a plan
CAUSES: tuple[Cause, ...] = (
    Cause(
        "Isthmus: a multi-set aggregate that reads both with and without its set index",
        "refused",
        "Isthmus 0.5 writes an AggregateRel of several grouping sets without the spec's trailing set-index "
        "column and its plans name no version; where the plan's references and RelRoot.names fit both readings "
        "and the two mean different tables (a ProjectRel's emit over the aggregate), nothing in the plan tells "
        "which one it means",
        pattern=r"the plan reads both with and without it, the two mean different tables",
        producers=("isthmus",),
    ),
)
