"""Batched differential checks of expressions: many plan expressions in one ``select``
against the same expressions built with ``pyspark.sql.functions``, one round trip each.

A family is a dataset plus cases ``X(id, plan_expression, oracle)``; the oracle is a
zero-argument callable returning a PySpark Column (built lazily, so PySpark's functions
resolve to their Connect versions once a session exists). Each output column is compared
for type and values; a failure lists the case ids that differ. If the batch fails on the
server, each case is run on its own to name the culprits.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from connect_plan.errors import ServerError
from tests.support.tables import norm


@dataclass(frozen=True)
class X:
    id: str
    plan: Any
    oracle: Callable[[], Any]


def _column(table: pa.Table, i: int) -> tuple[pa.DataType, list[Any]]:
    col = table.column(i)
    return col.type, [norm(v) for v in col.to_pylist()]


def check_cases(diff: Any, rows: Any, schema: Any, cases: Sequence[X], *, step: str = "select") -> int:
    """Run the cases in one plan; return how many were compared."""
    ids = [c.id for c in cases]
    assert len(set(ids)) == len(ids), "duplicate case ids"
    try:
        ours, theirs = _run(diff, rows, schema, cases, step)
    except ServerError as exc:
        culprits = []
        for c in cases:
            try:
                _run(diff, rows, schema, [c], step)
            except Exception as one:  # collected into the failure message
                culprits.append(f"{c.id}: {str(one).splitlines()[0][:300]}")
        raise AssertionError(
            f"the batch failed on the server: {exc}\nfailing cases:\n  " + "\n  ".join(culprits)
        ) from exc
    assert ours.schema.names == theirs.schema.names, (ours.schema.names, theirs.schema.names)
    bad = []
    for c in cases:
        j = ours.schema.get_field_index(c.id)
        (ot, ov), (tt, tv) = _column(ours, j), _column(theirs, j)
        if ot != tt:
            bad.append(f"{c.id}: type {ot} != {tt}")
        elif ov != tv:
            bad.append(f"{c.id}: values {ov[:6]} != {tv[:6]}")
    assert not bad, "cases differ from PySpark:\n  " + "\n  ".join(bad)
    diff.cases += len(cases)
    return len(cases)


def _run(diff: Any, rows: Any, schema: Any, cases: Sequence[X], step: str) -> tuple[pa.Table, pa.Table]:
    df = diff.df(rows, schema)
    if step == "select":
        plan = [{"op": "select", "payload": [{"name": c.id, "expr": c.plan} for c in cases]}]
        oracle = df.select(*[c.oracle().alias(c.id) for c in cases])
    else:  # one withColumn step per case, as a plan would add columns
        plan = [{"op": "withColumn", "payload": {"name": c.id, "expr": c.plan}} for c in cases]
        oracle = df
        for c in cases:
            oracle = oracle.withColumn(c.id, c.oracle())
    ours = diff.client.execute(plan, data=rows, schema=schema)
    return ours, oracle.toArrow()
