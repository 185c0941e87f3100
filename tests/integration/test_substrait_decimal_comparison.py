"""A decimal column compared with a double literal (ibis' TPC-H q06: ``l_discount BETWEEN 0.05 AND
0.07`` with fp64 bounds) gives Spark's answer for the double comparison, row for row, whether or
not connect_plan sends it as the decimal comparison Spark pushes into a scan
(connect_plan/formats/substrait/comparisons.py): every comparison of columns of several decimal
types, boundary values, negatives and NULLs with doubles that are exactly one of the column's
values, their neighbouring doubles, midpoints and values out of range, against Spark SQL's
``CAST(c AS DOUBLE) op x``."""

from __future__ import annotations

import decimal
import math
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.support.substrait_plans import projection_plan

pytestmark = pytest.mark.slow

#: column → its decimal type
TYPES = {"a": (15, 2), "b": (15, 0), "c": (7, 3), "d": (15, 15), "e": (3, 1)}
#: columns the plan declares decimal(15, 2) whose table holds another type, and their values: the
#: comparison keeps the plan's meaning (Spark's answer for the double comparison) there too
MISSTATED: dict[str, tuple[pa.DataType, list[Any]]] = {
    "f": (pa.float64(), [0.05, math.nextafter(0.05, 1), math.nextafter(0.05, -1), 0.0451, 0.0549, -0.05, 0.07, 1.5]),
    "g": (pa.int64(), [0, 1, -1, 2, 10**14, -(10**14), 2**62]),
    "h": (
        pa.decimal128(12, 4),
        [decimal.Decimal(v) for v in ("0.0500", "0.0501", "0.0499", "0.0451", "-0.0500", "0.0700")],
    ),
}
OPS = {"lt": "<", "lte": "<=", "gt": ">", "gte": ">="}
SQL_OPS = {**OPS, "equal": "="}


def _values(p: int, s: int) -> list[decimal.Decimal | None]:
    one = decimal.Decimal(1).scaleb(-s)
    top = (10**p - 1) * one
    picks = [top, -top, top - one, -top + one, decimal.Decimal(0), one, -one]
    picks += [decimal.Decimal("0.05"), decimal.Decimal("0.07"), decimal.Decimal("-0.05"), decimal.Decimal("1.5")]
    return [v.quantize(one) for v in picks if abs(v.quantize(one)) <= top] + [None]


def _literals(values: list[decimal.Decimal | None]) -> list[float]:
    out: list[float] = [0.0, -0.0, 0.055, 1e20, -1e20]
    for v in values:
        if v is not None:
            x = float(v)
            out += [x, math.nextafter(x, math.inf), math.nextafter(x, -math.inf)]
    return sorted(set(out), key=lambda x: (x, math.copysign(1, x)))


def _table() -> pa.Table:
    rows = max(len(_values(*t)) for t in TYPES.values())
    cols = {}
    for name, (p, s) in TYPES.items():
        vs = _values(p, s)
        cols[name] = pa.array(vs + [None] * (rows - len(vs)), pa.decimal128(p, s))
    for name, (t, vs) in MISSTATED.items():
        cols[name] = pa.array((vs + [None] * rows)[:rows], t)
    cols["id"] = pa.array(range(rows), pa.int64())
    return pa.table(cols)


def _plan(table: pa.Table, exprs: list[tuple[str, str, list[float]]]) -> dict[str, Any]:
    names = list(table.column_names)
    types = []
    for f in table.schema:
        if f.name in MISSTATED:
            types.append({"decimal": {"precision": 15, "scale": 2, "nullability": "NULLABILITY_NULLABLE"}})
        elif pa.types.is_decimal(f.type):
            types.append(
                {
                    "decimal": {
                        "precision": f.type.precision,
                        "scale": f.type.scale,
                        "nullability": "NULLABILITY_NULLABLE",
                    }
                }
            )
        else:
            types.append({"i64": {"nullability": "NULLABILITY_NULLABLE"}})
    fns = sorted({fn for fn, _, _ in exprs})
    anchor = {fn: k + 1 for k, fn in enumerate(fns)}

    def call(fn: str, col: str, xs: list[float]) -> dict[str, Any]:
        args = [
            {
                "value": {
                    "selection": {"directReference": {"structField": {"field": names.index(col)}}, "rootReference": {}}
                }
            }
        ]
        args += [{"value": {"literal": {"fp64": x}}} for x in xs]
        return {
            "scalarFunction": {
                "functionReference": anchor[fn],
                "outputType": {"bool": {"nullability": "NULLABILITY_NULLABLE"}},
                "arguments": args,
            }
        }

    functions = [
        (anchor[fn], "/functions_comparison.yaml", f"{fn}:any_any" + ("_any" if fn == "between" else "")) for fn in fns
    ]
    return projection_plan(names, types, [call(fn, col, xs) for fn, col, xs in exprs], functions)


def _cases() -> list[tuple[str, str, list[float]]]:
    out = []
    for name, t in TYPES.items():
        xs = _literals(_values(*t))
        for fn in (*OPS, "equal"):
            out += [(fn, name, [x]) for x in xs]
        out += [("between", name, [lo, hi]) for lo, hi in zip(xs, xs[1:] + xs[:1])]
    xs = _literals(_values(15, 2))
    for name in MISSTATED:
        for fn in (*OPS, "equal"):
            out += [(fn, name, [x]) for x in xs]
    return out


def _sql(fn: str, col: str, xs: list[float]) -> str:
    lit = [f"CAST('{x!r}' AS DOUBLE)" for x in xs]
    c = f"CAST({col} AS DOUBLE)"
    if fn == "between":
        return f"{c} BETWEEN {lit[0]} AND {lit[1]}"
    return f"{c} {SQL_OPS[fn]} {lit[0]}"


def test_decimal_double_comparisons_give_spark_sqls_answer(client: Any, spark: Any, tmp_path: Path) -> None:
    from connect_plan.formats.substrait import parse_substrait_plan

    table = _table()
    path = tmp_path / "t.parquet"
    pq.write_table(table, path)
    cases = _cases()
    plan = _plan(table, cases)
    tables = {"t": {"files": [str(path)], "format": "parquet"}}
    # the rewrite happened where it may: the plan holds decimal literals where the double is a value
    sent = repr(parse_substrait_plan(plan, tables))
    assert sent.count("Primitive(name='decimal'") > 100, "no comparison was rewritten"
    ours = client.execute(plan, tables=tables).sort_by("id")
    spark.read.parquet(str(path)).createOrReplaceTempView("decimal_double_t")
    exprs = ", ".join(f"{_sql(*e)} AS r{k}" for k, e in enumerate(cases))
    theirs = spark.sql(f"SELECT id, {exprs} FROM decimal_double_t ORDER BY id").toArrow()
    assert ours.num_rows == theirs.num_rows == table.num_rows
    for k, (fn, col, xs) in enumerate(cases):
        a, b = ours.column(k + 1).to_pylist(), theirs.column(k + 1).to_pylist()
        assert a == b, (fn, col, xs, table.column(col).to_pylist(), a, b)


def test_the_decimal_comparison_is_pushed_into_the_scan(client: Any, tmp_path: Path) -> None:
    # Spark SQL's own shape for ``a BETWEEN 0.05 AND 0.07``: both bounds among the scan's pushed filters
    table = _table()
    path = tmp_path / "t.parquet"
    pq.write_table(table, path)
    plan = _plan(table, [("between", "a", [0.05, 0.07])])
    project = plan["relations"][0]["root"]["input"]["project"]
    condition = project.pop("expressions")[0]
    project["common"]["emit"]["outputMapping"] = [0]
    plan["relations"][0]["root"] = {
        "input": {"filter": {"input": project["input"], "condition": condition}},
        "names": list(table.column_names),
    }
    text = client.explain(plan, mode="formatted", tables={"t": {"files": [str(path)], "format": "parquet"}})
    pushed = next(line for line in text.splitlines() if line.startswith("PushedFilters"))
    assert "GreaterThanOrEqual(a,0.05)" in pushed and "LessThanOrEqual(a,0.07)" in pushed, pushed
