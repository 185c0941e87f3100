"""The producers' own function spellings on Spark, held to the producers' own engines: each SQL
text below is planned live by DuckDB 1.1.3 or DataFusion 55, the plan runs through connect_plan
on Spark, and the answer must be the producer engine's own answer to the same text on the same
data (tests/substrait_corpus.difference: same rows, numbers to 1e-6, NaN equal to NaN). The data
holds the edge values where the engines differ from Spark's functions: NULLs, NaN, -0.0 and
infinities, zero divisors and shifts out of range, a backslash, '%' and '_' in strings, line
breaks (a regex '.' and '$'), U+0130 and a capital sigma (lower case), a character outside the
BMP. Where the producer's engine fails the query, connect_plan's answer must be a failure too.

Spark SQL is not the oracle here: the plan means what its producer's engine computes (DuckDB's
x % 0 is NULL, its sign of NaN 0, DataFusion's log(2, 0) -inf...). The corpus
(test_substrait_corpus.py) holds the same functions to Spark SQL's answer on everyday SQL."""

from __future__ import annotations

import datetime
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests import substrait_corpus as sc

pytestmark = pytest.mark.slow

NAN, INF = float("nan"), float("inf")
_TS = datetime.datetime(2024, 1, 15, 8, 30)
# fmt: off
ROWS = [
    # id  s             n     x          f      b      d                             ts
    (1,  "abc",        3,    40,        -3.5,  True,  datetime.date(2024, 1, 15),   _TS),
    (2,  "a\\b",       0,    7,         -0.0,  False, datetime.date(2024, 2, 29),   _TS + datetime.timedelta(days=45, hours=15, minutes=29, seconds=59)),
    (3,  "a%b",        1,    -7,        0.0,   None,  datetime.date(2023, 12, 31),  _TS + datetime.timedelta(days=-15, hours=-8, minutes=-30)),
    (4,  "ABC",        -1,   0,         2.0,   True,  datetime.date(2024, 3, 3),    _TS + datetime.timedelta(hours=3, seconds=1)),
    (5,  "\u0130stanbul", 31, 1,        NAN,   True,  datetime.date(2024, 12, 31),  _TS + datetime.timedelta(days=171, microseconds=123456)),
    (6,  "\u03a3\u0391\u03a3", 62, 5,   INF,   False, datetime.date(2025, 1, 1),    _TS + datetime.timedelta(days=46)),
    (7,  "x\ny",       7,    -1,        -INF,  None,  datetime.date(2024, 7, 4),    None),
    (8,  "x\ry",       2,    2**62,     8.0,   True,  None,                         _TS),
    (9,  "",           None, None,      0.5,   False, datetime.date(2024, 1, 1),    _TS),
    (10, None,         5,    3,         None,  True,  datetime.date(2024, 5, 5),    _TS),
    (11, "a\U0001f600b", 64, 100,       1.0,   None,  datetime.date(2024, 2, 28),   _TS),
    (12, "aaab",       -8,   12345,     100.0, False, datetime.date(2020, 6, 30),   _TS),
]
# fmt: on
SCHEMA = pa.schema(
    [
        pa.field("id", pa.int32(), nullable=False),
        ("s", pa.string()),
        ("n", pa.int32()),
        ("x", pa.int64()),
        ("f", pa.float64()),
        ("b", pa.bool_()),
        ("d", pa.date32()),
        ("ts", pa.timestamp("us")),
    ]
)

#: name → SQL: DuckDB's own names (||, %, ~~*, like_escape, position, regexp_matches,
#: regexp_replace, date_trunc, dayofyear, log, <<, >>, constant_or_null, sign, unary minus) and
#: its untyped NULLs
DUCKDB: dict[str, str] = {
    "concat": "select id, s || '|' || cast(n as varchar) as r from e",
    "null_literals": "select id, case when n > 0 then n else null end as a, nullif(n, 0) as c, n in (1, null) as i "
    "from e",
    "null_in_arithmetic": "select id, x + null as a, s = null as c from e",
    "mod_integer": "select id, x % n as r from e",
    "mod_double": "select id, f % 2.5 as a, f % 0.0 as z from e",
    "like_backslash": "select id from e where s like 'a\\%'",
    "like_escape": "select id from e where s like 'a#%b' escape '#' or s like '#_%' escape '#'",
    # DuckDB lower-cases U+0130 to "i" and a final capital sigma to "σ" (Java: "i" + U+0307, "ς")
    "ilike": "select id, s ilike 'a%' as a, s ilike '%\u03c3' as g, s ilike 'istanbul' as i, s ilike 'x_y' as u from e",
    "position": "select id, position('b' in s) as r, position('' in s) as z from e",
    "regexp_matches": "select id, regexp_matches(s, '^a.b$') as a, regexp_matches(s, 'x.y') as l, "
    "regexp_matches(s, '\\d|\\w\\s') as c from e",
    "regexp_replace_first": "select id, regexp_replace(s, '^a+', 'X') as r from e",
    "regexp_replace_every": "select id, regexp_replace(s, '(a)', '<\\1>', 'g') as r from e",
    "date_trunc": "select id, date_trunc('month', d) as m, date_trunc('week', d) as w, date_trunc('quarter', d) as q, "
    "date_trunc('hour', ts) as h, date_trunc('day', ts) as dd, date_trunc('year', ts) as y from e",
    "dayofyear": "select id, dayofyear(d) as r, extract(doy from d) as r2 from e",
    "log": "select id, log(2, f) as a, log(f) as b from e where f > 0",
    "shift_right": "select id, x >> n as r from e",
    "shift_left": "select id, x << n as r from e where x between 0 and 100 and n between 0 and 20",
    "sign": "select id, sign(f) as a, sign(x) as b, sign(n) as c from e",
    "negation": "select id, -x as a, -f as b, -n as c from e",
    "constant_or_null": "select id, constant_or_null(true, n, f) as r from e",
}

#: DuckDB fails these (a logarithm of 0 or of a negative; a left shift of a negative or by 64):
#: so must Spark
DUCKDB_FAILS: dict[str, str] = {
    "log_domain": "select log(2, f) from e where f <= 0",
    "shift_negative": "select x << 1 from e where x < 0",
    "shift_out_of_range": "select x << n from e where n = 64",
    "shift_overflow": "select x << n from e where id = 8",
}

#: name → SQL: DataFusion's own names (str_concat, btrim, strpos, is_true..., logb, signum,
#: date_trunc, extract doy, regex_match, regexp_replace, var, ntile) and its simple CASE
DATAFUSION: dict[str, str] = {
    "str_concat": "select id, s || '|' || s as r from e",
    "btrim": "select id, btrim(s) as a, btrim(s, 'a') as c from e",
    "strpos": "select id, strpos(s, 'b') as r, strpos(s, '') as z from e",
    "is_true": "select id, b is true as t, b is not true as nt, b is false as f2, b is not false as nf from e",
    "logb": "select id, log(2.0, f) as a, log(1.0, f) as c, log(f, 8.0) as g from e",
    "signum": "select id, signum(f) as a, signum(n) as c from e",
    "date_trunc": "select id, date_trunc('month', d) as m, date_trunc('week', d) as w, date_trunc('hour', ts) as h, "
    "date_trunc('minute', ts) as mi from e",
    "extract_doy": "select id, extract(doy from d) as r from e",
    "regex": "select id, s ~ '^a.b$' as a, s !~ 'x.y' as c from e",
    "regexp_replace": "select id, regexp_replace(s, '^a+', 'X') as a, regexp_replace(s, '(b)', '[\\1]', 'g') as c "
    "from e",
    "var": "select var(f) as v, var(n) as w from e where f between -10 and 10",
    "ntile": "select id, ntile(5) over (order by id) as r from e",
    "simple_case": "select id, case n when 1 then 'one' when 0 then 'zero' else 'other' end as r, "
    "case s when 'abc' then 1 end as r2 from e",
}


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    path = tmp_path_factory.mktemp("substrait-functions") / "e.parquet"
    pq.write_table(pa.Table.from_pylist([dict(zip(SCHEMA.names, r)) for r in ROWS], SCHEMA), path)
    return {"e": str(path)}


@pytest.fixture(scope="module")
def duckdb_con(tables: dict[str, str]) -> Any:
    pytest.importorskip("duckdb_extension_substrait")
    from tests.substrait_producers import duckdb_with_tables

    con = duckdb_with_tables(tables)
    yield con
    con.close()


@pytest.fixture(scope="module")
def datafusion_ctx(tables: dict[str, str]) -> Any:
    datafusion = pytest.importorskip("datafusion")
    ctx = datafusion.SessionContext()
    ctx.register_parquet("e", tables["e"])
    return ctx


def _microseconds(table: pa.Table) -> pa.Table:
    """DataFusion's nanosecond timestamps as microseconds (Spark's), for comparing values."""
    fields = [
        pa.field(f.name, pa.timestamp("us", f.type.tz)) if pa.types.is_timestamp(f.type) else f for f in table.schema
    ]
    return table.cast(pa.schema(fields))


def _ours(client: Any, plan: bytes, tables: dict[str, str]) -> Any:
    return client.execute(plan, tables=sc.sources(tables))


@pytest.mark.parametrize("name", sorted(DUCKDB))
def test_duckdb_function_gives_duckdbs_answer(name: str, duckdb_con: Any, tables: Any, client: Any) -> None:
    sql = DUCKDB[name]
    plan = duckdb_con.get_substrait(sql, enable_optimizer=True).fetchone()[0]
    theirs = duckdb_con.sql(sql).arrow()
    diff = sc.difference(_ours(client, plan, tables), theirs)
    assert diff is None, diff


@pytest.mark.parametrize("name", sorted(DUCKDB_FAILS))
def test_where_duckdb_fails_spark_fails(name: str, duckdb_con: Any, tables: Any, client: Any) -> None:
    import duckdb

    from connect_plan.errors import ServerError

    sql = DUCKDB_FAILS[name]
    plan = duckdb_con.get_substrait(sql, enable_optimizer=True).fetchone()[0]
    with pytest.raises(duckdb.OutOfRangeException):
        duckdb_con.sql(sql).arrow()
    with pytest.raises(ServerError, match="USER_RAISED_EXCEPTION"):
        _ours(client, plan, tables)


@pytest.mark.parametrize("name", sorted(DATAFUSION))
def test_datafusion_function_gives_datafusions_answer(name: str, datafusion_ctx: Any, tables: Any, client: Any) -> None:
    from datafusion.substrait import Serde

    sql = DATAFUSION[name]
    plan = Serde.serialize_to_plan(sql, datafusion_ctx).encode()
    theirs = _microseconds(datafusion_ctx.sql(sql).to_arrow_table())
    diff = sc.difference(_ours(client, plan, tables), theirs)
    assert diff is None, diff


def _measure(name: str, out: str, *, where: bool = False) -> dict[str, Any]:
    column = {"selection": {"directReference": {"structField": {"field": 2}}, "rootReference": {}}}
    m: dict[str, Any] = {
        "measure": {
            "functionReference": 1 if name.startswith("sum0") else 2,
            "arguments": [{"value": column}],
            "outputType": {out: {"nullability": "NULLABILITY_NULLABLE"}},
        }
    }
    if where:  # FILTER (WHERE id > 100): no row
        m["filter"] = {
            "scalarFunction": {
                "functionReference": 3,
                "arguments": [
                    {"value": {"selection": {"directReference": {"structField": {}}, "rootReference": {}}}},
                    {"value": {"literal": {"i32": 100}}},
                ],
            }
        }
    return m


def test_the_specs_sum0_and_integer_avg(tables: Any, client: Any) -> None:
    """No producer at hand writes these (Isthmus writes avg:i32 -> i32, tests/data/substrait):
    sum0 of no values is 0, avg of integers the truncated integer average, FILTER applied to
    both aggregates avg is made of."""
    i32 = {"i32": {"nullability": "NULLABILITY_NULLABLE"}}
    plan = {
        "extensionUrns": [{"extensionUrnAnchor": 1, "urn": "extension:io.substrait:functions_arithmetic"}],
        "extensions": [
            {"extensionFunction": {"extensionUrnReference": 1, "functionAnchor": 1, "name": "sum0:i32"}},
            {"extensionFunction": {"extensionUrnReference": 1, "functionAnchor": 2, "name": "avg:i32"}},
            {"extensionFunction": {"extensionUrnReference": 1, "functionAnchor": 3, "name": "gt:i32_i32"}},
        ],
        "relations": [
            {
                "root": {
                    "names": ["s0", "s0_none", "a", "a_none"],
                    "input": {
                        "aggregate": {
                            "input": {
                                "read": {
                                    "baseSchema": {
                                        "names": ["id", "s", "n"],
                                        "struct": {"types": [i32, {"string": {}}, i32]},
                                    },
                                    "namedTable": {"names": ["e"]},
                                }
                            },
                            "groupings": [{}],
                            "measures": [
                                _measure("sum0:i32", "i64"),
                                _measure("sum0:i32", "i64", where=True),
                                _measure("avg:i32", "i32"),
                                _measure("avg:i32", "i32", where=True),
                            ],
                        }
                    },
                }
            }
        ],
    }
    ours = _ours(client, plan, tables).to_pylist()
    n = [r[2] for r in ROWS if r[2] is not None]
    truncated = int(sum(n) / len(n))  # toward zero, as the spec's avg of integers
    assert ours == [{"s0": sum(n), "s0_none": 0, "a": truncated, "a_none": None}]
    assert truncated != sum(n) / len(n)  # the data makes truncation visible
