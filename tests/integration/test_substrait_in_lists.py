"""An OR of equalities of one expression with string constants (Isthmus' and DataFusion's spelling
of a short IN list) gives Spark SQL's answer for the OR, row for row, when connect_plan sends it as
``IN`` (connect_plan/formats/substrait/in_lists.py): string values, NULLs, the empty string,
near misses; a nested OR; a run next to other disjuncts; and columns the plan declares strings
whose table holds another type (Spark coerces the ``=`` and the ``IN`` the same way: the same
answer, or an error both ways)."""

from __future__ import annotations

import datetime
import decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from connect_plan.errors import ServerError
from tests.support.substrait_plans import projection_plan

pytestmark = pytest.mark.slow

#: column → (its arrow type, its values); every column is declared ``string`` by the plan
COLUMNS: dict[str, tuple[pa.DataType, list[Any]]] = {
    "s": (pa.string(), ["TX", "OH", "tx", "TX ", "", None, "85669", "8566", "CA", "GA"]),
    "i": (pa.int64(), [1, 2, 3, -1, 0, None, 10, 11, 12, 13]),
    "d": (pa.float64(), [1.5, 2.0, 2.5, -1.5, 0.0, None, 1e20, 3.0, 4.0, 5.0]),
    "m": (
        pa.decimal128(7, 2),
        [
            decimal.Decimal(v) if v else None
            for v in ("1.50", "2.00", "2.50", "-1.50", "0", "", "9.99", "1.00", "3.00", "4.00")
        ],
    ),
    "dt": (pa.date32(), [datetime.date(2001, 1, k + 1) if k != 5 else None for k in range(10)]),
    "b": (pa.bool_(), [True, False, None, True, False, None, True, False, True, False]),
}
#: column → constant sets its equalities use (each parses as a value of the table's type)
CONSTANTS: dict[str, list[list[str]]] = {
    "s": [["TX", "OH"], ["85669", "tx", ""], ["CA", "WA", "GA", "TX "]],
    "i": [["1", "2"], ["3", "-1", "12"]],
    "d": [["1.5", "2"], ["1e20", "-1.5", "3.0"]],
    "m": [["1.5", "2.00"], ["-1.5", "9.99"]],
    "dt": [["2001-01-01", "2001-01-03"], ["2001-01-10", "2001-01-02"]],
    "b": [["true", "false"], ["true", "true"]],
}


def _table() -> pa.Table:
    cols = {name: pa.array(vs, t) for name, (t, vs) in COLUMNS.items()}
    cols["id"] = pa.array(range(10), pa.int64())
    return pa.table(cols)


def _ref(names: list[str], col: str) -> dict[str, Any]:
    return {"selection": {"directReference": {"structField": {"field": names.index(col)}}, "rootReference": {}}}


def _fn(anchor: int, *args: dict[str, Any]) -> dict[str, Any]:
    return {
        "scalarFunction": {
            "functionReference": anchor,
            "outputType": {"bool": {"nullability": "NULLABILITY_NULLABLE"}},
            "arguments": [{"value": a} for a in args],
        }
    }


EQUAL, OR, GT = 1, 2, 3


def _cases(names: list[str]) -> list[tuple[dict[str, Any], str]]:
    """(the Substrait condition, Spark SQL's text for the same OR)."""
    out = []
    for col, sets in CONSTANTS.items():
        for ks in sets:
            eqs = [_fn(EQUAL, _ref(names, col), {"literal": {"string": k}}) for k in ks]
            sql = [f"{col} = '{k}'" for k in ks]
            out.append((_fn(OR, *eqs), " OR ".join(sql)))  # flat (Isthmus)
            nested = eqs[-1]
            for e in reversed(eqs[:-1]):
                nested = _fn(OR, e, nested)  # nested (DataFusion)
            out.append((nested, " OR ".join(sql)))
            bigger = _fn(GT, _ref(names, "id"), {"literal": {"i64": 6}})
            out.append((_fn(OR, bigger, *eqs, bigger), f"id > 6 OR {' OR '.join(sql)} OR id > 6"))
    return out


def _plan(table: pa.Table, conditions: list[dict[str, Any]]) -> dict[str, Any]:
    names = list(table.column_names)
    types = [
        {"i64": {"nullability": "NULLABILITY_NULLABLE"}}
        if n == "id"
        else {"string": {"nullability": "NULLABILITY_NULLABLE"}}
        for n in names
    ]
    functions = [
        (EQUAL, "/functions_comparison.yaml", "equal:any_any"),
        (OR, "/functions_boolean.yaml", "or:bool"),
        (GT, "/functions_comparison.yaml", "gt:any_any"),
    ]
    return projection_plan(names, types, conditions, functions)


def test_an_or_of_equalities_sent_as_in_gives_spark_sqls_answer(client: Any, spark: Any, tmp_path: Path) -> None:
    from connect_plan.formats.substrait import parse_substrait_plan

    table = _table()
    path = tmp_path / "t.parquet"
    pq.write_table(table, path)
    cases = _cases(list(table.column_names))
    plan = _plan(table, [c for c, _ in cases])
    tables = {"t": {"files": [str(path)], "format": "parquet"}}
    sent = repr(parse_substrait_plan(plan, tables))
    assert sent.count("Call(fn='in'") == len(cases), "not every OR was sent as an IN"
    ours = client.execute(plan, tables=tables).sort_by("id")
    spark.read.parquet(str(path)).createOrReplaceTempView("in_lists_t")
    exprs = ", ".join(f"({sql}) AS r{k}" for k, (_, sql) in enumerate(cases))
    theirs = spark.sql(f"SELECT id, {exprs} FROM in_lists_t ORDER BY id").toArrow()
    assert ours.num_rows == theirs.num_rows == table.num_rows
    for k, (_, sql) in enumerate(cases):
        a, b = ours.column(k + 1).to_pylist(), theirs.column(k + 1).to_pylist()
        assert a == b, (sql, a, b)


def test_a_constant_the_column_cannot_hold_fails_both_ways(client: Any, spark: Any, tmp_path: Path) -> None:
    # an integer column the plan declares a string, against 'TX': Spark SQL's OR raises, so does the IN
    table = _table()
    path = tmp_path / "t.parquet"
    pq.write_table(table, path)
    names = list(table.column_names)
    cond = _fn(OR, *(_fn(EQUAL, _ref(names, "i"), {"literal": {"string": k}}) for k in ("TX", "1")))
    spark.read.parquet(str(path)).createOrReplaceTempView("in_lists_t")
    with pytest.raises(Exception, match="CAST_INVALID_INPUT"):
        spark.sql("SELECT i = 'TX' OR i = '1' FROM in_lists_t").toArrow()
    with pytest.raises(ServerError, match="CAST_INVALID_INPUT"):
        client.execute(_plan(table, [cond]), tables={"t": {"files": [str(path)], "format": "parquet"}})
