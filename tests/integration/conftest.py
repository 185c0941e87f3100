"""The differential harness: our plan vs. the same query built with PySpark's own
Connect DataFrame API, on the same server, compared as Arrow tables."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import pyarrow as pa
import pytest

from connect_plan.formats.json_plan import parse_plan


def arrow_input(rows: Any, schema: Any) -> pa.Table:
    """The Arrow table connect_plan builds for inline rows (the oracle gets the same)."""
    return parse_plan(rows, schema, []).source.table


def _norm(v: Any) -> Any:
    if isinstance(v, float) and math.isnan(v):
        return "NaN"
    if isinstance(v, list):
        return [_norm(x) for x in v]
    if isinstance(v, dict):
        return {k: _norm(x) for k, x in v.items()}
    if isinstance(v, tuple):
        return tuple(_norm(x) for x in v)
    return v


def rows_of(table: pa.Table) -> list[list[Any]]:
    cols = [c.to_pylist() for c in table.columns]
    return [_norm(list(r)) for r in zip(*cols)] if cols else []


def assert_same(ours: pa.Table, theirs: pa.Table, *, ordered: bool) -> None:
    assert ours.schema.names == theirs.schema.names, (ours.schema.names, theirs.schema.names)
    assert ours.schema.types == theirs.schema.types, f"\nours:   {ours.schema}\ntheirs: {theirs.schema}"
    a, b = rows_of(ours), rows_of(theirs)
    if not ordered:
        a, b = sorted(a, key=repr), sorted(b, key=repr)
    assert a == b


class Differential:
    """``check(rows, schema, plan, oracle)`` runs the plan through connect_plan and
    ``oracle(df)`` through PySpark (``df`` built from the same Arrow input) and compares."""

    def __init__(self, client: Any, spark: Any) -> None:
        self.client = client
        self.spark = spark
        self.cases = 0

    def df(self, rows: Any, schema: Any) -> Any:
        # The oracle's input is the identical Arrow table in a LocalRelation, so both sides
        # start from the same Spark types (createDataFrame would re-infer some of them).
        from pyspark.sql.connect.dataframe import DataFrame
        from pyspark.sql.connect.plan import LocalRelation

        return DataFrame(LocalRelation(arrow_input(rows, schema)), self.spark)

    def check(
        self, rows: Any, schema: Any, plan: Sequence[Any], oracle: Callable[[Any], Any], *, ordered: bool = False
    ) -> pa.Table:
        ours = self.client.execute(list(plan), data=rows, schema=schema)
        theirs = oracle(self.df(rows, schema)).toArrow()
        assert_same(ours, theirs, ordered=ordered)
        self.cases += 1
        return ours


@pytest.fixture(scope="session")
def diff(client: Any, spark: Any) -> Differential:
    return Differential(client, spark)
