"""Plans from Sparkless, proven with Sparkless itself: each program of
``sparkless_programs`` runs (a) with PySpark's Connect DataFrame API and (b) with
Sparkless, whose ``to_logical_plan`` dump (through JSON, as a user would save it) runs on
connect_plan; both on the same server, with identical Arrow results.

Sparkless evaluates some steps eagerly (a groupBy's aggregation): the plan it dumps then
covers only the steps after them, and its input is the DataFrame the plan belongs to (its
``data``), exactly what Sparkless' own plan backend receives.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import connect_plan

from .conftest import Differential, assert_same
from .sparkless_programs import (
    DEPTS,
    DEPTS_SCHEMA,
    OPAQUE,
    PEOPLE,
    PEOPLE_SCHEMA,
    PROGRAMS,
    STRING_OPERANDS,
    Case,
    Refused,
)

sparkless = pytest.importorskip("sparkless")

pytestmark = pytest.mark.integration

_SPARKLESS_TYPES = {
    "bigint": "LongType",
    "string": "StringType",
    "double": "DoubleType",
    "boolean": "BooleanType",
}


def _schema(fields: list[tuple[str, str]]) -> list[dict[str, str]]:
    return [{"name": n, "type": t} for n, t in fields]


@pytest.fixture(scope="module")
def sl() -> Any:
    """A Sparkless session and its API (imported lazily: Sparkless is a test dependency)."""
    import sparkless.spark_types as T
    from sparkless.sql import SparkSession
    from sparkless.sql import functions as F
    from sparkless.window import Window

    session = SparkSession("connect_plan_differential")

    def frame(rows: list[tuple[Any, ...]], fields: list[tuple[str, str]]) -> Any:
        struct = T.StructType([T.StructField(n, getattr(T, _SPARKLESS_TYPES[t])()) for n, t in fields])
        return session.createDataFrame([dict(zip([n for n, _ in fields], r)) for r in rows], struct)

    class Api:
        functions, window = F, Window

    api = Api()
    api.frame = frame  # type: ignore[attr-defined]
    return api


def sparkless_dump(sl: Any, case: Case) -> tuple[list[dict[str, Any]], list[dict[str, str]], list[Any]]:
    """Run ``case`` with Sparkless; its plan, and the rows and schema of the DataFrame it belongs to."""
    from sparkless.dataframe.logical_plan import _json_safe_value, to_logical_plan

    people = sl.frame(PEOPLE, PEOPLE_SCHEMA)
    depts = sl.frame(DEPTS, DEPTS_SCHEMA)
    out = case.program(sl.functions, sl.window, people, depts)
    plan = json.loads(json.dumps(to_logical_plan(out)))
    rows = [{k: _json_safe_value(v) for k, v in r.items()} for r in out.data]
    keys = list(rows[0]) if rows else []
    # the types of its columns: Sparkless' own where it has them (an eager aggregate's
    # output), else those the inputs were made with (its _schema follows the queued steps)
    types = dict(PEOPLE_SCHEMA + DEPTS_SCHEMA)
    types.update({f.name: f.dataType.simpleString() for f in out._schema.fields})
    schema = [{"name": k, "type": types[k]} for k in keys]
    return json.loads(json.dumps(rows)), schema, plan


@pytest.mark.parametrize("case", PROGRAMS, ids=[c.id for c in PROGRAMS])
def test_sparkless_program(case: Case, sl: Any, diff: Differential) -> None:
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    rows, schema, plan = sparkless_dump(sl, case)
    ours = diff.client.execute(plan, data=rows, schema=schema)
    people = diff.df([list(r) for r in PEOPLE], _schema(PEOPLE_SCHEMA))
    depts = diff.df([list(r) for r in DEPTS], _schema(DEPTS_SCHEMA))
    theirs = case.program(F, Window, people, depts).toArrow()
    assert_same(ours, theirs, ordered=case.ordered)


def test_the_corpus_is_large_enough() -> None:
    assert len(PROGRAMS) >= 60
    assert len({c.id for c in PROGRAMS}) == len(PROGRAMS)


def test_plans_translate_offline(sl: Any) -> None:
    """Every dump at least translates without a server (no network, no guesses)."""
    for case in PROGRAMS:
        rows, schema, plan = sparkless_dump(sl, case)
        if any(s["op"] == "join" for s in plan):
            continue  # a join's output names may need the server (name_right)
        connect_plan.translate(rows, schema, plan)


# ---------------------------------------------------------------- what connect_plan refuses


@pytest.mark.parametrize("case", OPAQUE, ids=[c.id for c in OPAQUE])
def test_opaque_sparkless_nodes_are_refused(case: Refused, sl: Any) -> None:
    rows, schema, plan = sparkless_dump(sl, case)  # type: ignore[arg-type]
    with pytest.raises(connect_plan.PlanError) as info:
        connect_plan.translate(rows, schema, plan)
    (detail,) = info.value.details
    assert (detail.code, detail.loc) == (case.code, case.loc)
    assert "could not serialize" in detail.message


@pytest.mark.parametrize("case", STRING_OPERANDS, ids=[c.id for c in STRING_OPERANDS])
def test_string_operands_are_never_read_as_literals(case: Refused, sl: Any, diff: Differential) -> None:
    """Sparkless 3.31 dumps F.col("dept") == "IT" with "IT" as a column: a located error that
    says so, before any network call (Spark would fail too: there is no column IT)."""
    rows, schema, plan = sparkless_dump(sl, case)  # type: ignore[arg-type]
    with pytest.raises(connect_plan.PlanError) as info:
        connect_plan.validate(rows, schema, plan)
    (detail,) = info.value.details
    assert (detail.code, detail.loc) == (case.code, case.loc)
    assert "Sparkless writes a plain string operand as a column reference" in detail.message
    assert '{"lit": ' in detail.message


# ---------------------------------------------------------------- Sparkless 4.0.0's shapes

# Sparkless 4.0.0 (eddiethedean/sparkless tag v4.0.0) is not on PyPI as a plan emitter
# (the 4.x package there is robin-sparkless' PyO3 one), so its shapes are written out here
# as its logical_plan.py / robin_plan.py emit them, each beside the PySpark program it dumps.


def _c(name: str) -> dict[str, Any]:
    return {"type": "column", "name": name}


def _l(value: Any) -> dict[str, Any]:
    return {"type": "literal", "value": value}


def _op(op: str, left: Any, right: Any = None) -> dict[str, Any]:
    return {"type": "op", "op": op, "left": left, "right": right}


SPARKLESS4: list[tuple[str, list[dict[str, Any]], Any, bool]] = [
    (
        "case_when",
        [
            {
                "op": "withColumn",
                "payload": {
                    "name": "band",
                    "expression": {
                        "type": "case_when",
                        "conditions": [
                            [_op(">", _c("age"), _l(40)), _l("old")],
                            [_op(">", _c("age"), _l(30)), _l("mid")],
                        ],
                        "default": _l("young"),
                    },
                },
            }
        ],
        lambda F, W, df: df.withColumn(
            "band", F.when(F.col("age") > 40, "old").when(F.col("age") > 30, "mid").otherwise("young")
        ),
        False,
    ),
    (
        "robin_when",
        [
            {
                "op": "withColumn",
                "payload": {
                    "name": "band",
                    "expression": {
                        "op": "when",
                        "branches": [[{"op": "gt", "left": {"col": "age"}, "right": {"lit": 40}}, {"lit": "old"}]],
                        "default": {"lit": "young"},
                    },
                },
            }
        ],
        lambda F, W, df: df.withColumn("band", F.when(F.col("age") > 40, "old").otherwise("young")),
        False,
    ),
    (
        "isin",
        [{"op": "filter", "payload": {"condition": _op("isin", _c("age"), [29, 45])}}],
        lambda F, W, df: df.filter(F.col("age").isin(29, 45)),
        False,
    ),
    (
        "between",
        [
            {
                "op": "filter",
                "payload": {
                    "condition": _op("between", _c("age"), {"type": "between_bounds", "lower": 30, "upper": 40})
                },
            }
        ],
        lambda F, W, df: df.filter(F.col("age").between(30, 40)),
        False,
    ),
    (
        "string_literal_comparison",
        [{"op": "filter", "payload": {"condition": _op("==", _c("dept"), _l("IT"))}}],
        lambda F, W, df: df.filter(F.col("dept") == "IT"),
        False,
    ),
    (
        "robin_alias",
        [
            {
                "op": "select",
                "payload": {
                    "columns": [
                        {"col": "name"},
                        {
                            "op": "alias",
                            "left": {"op": "add", "left": {"col": "age"}, "right": {"lit": 1}},
                            "right": {"lit": "next"},
                        },
                    ]
                },
            }
        ],
        lambda F, W, df: df.select("name", (F.col("age") + 1).alias("next")),
        False,
    ),
    (
        "robin_cast",
        [
            {
                "op": "withColumn",
                "payload": {
                    "name": "s",
                    "expression": {"op": "cast", "left": {"col": "age"}, "right": {"lit": "string"}},
                },
            }
        ],
        lambda F, W, df: df.withColumn("s", F.col("age").cast("string")),
        False,
    ),
    (
        "robin_not_right_null",
        [
            {
                "op": "filter",
                "payload": {
                    "condition": {
                        "op": "not",
                        "left": {"op": "gt", "left": {"col": "age"}, "right": {"lit": 30}},
                        "right": None,
                    }
                },
            }
        ],
        lambda F, W, df: df.filter(~(F.col("age") > 30)),
        False,
    ),
    (
        "robin_function_op",
        [
            {
                "op": "withColumn",
                "payload": {"name": "u", "expression": {"op": "upper", "left": {"col": "name"}, "right": None}},
            }
        ],
        lambda F, W, df: df.withColumn("u", F.upper("name")),
        False,
    ),
    (
        "robin_window_object",
        [
            {
                "op": "withColumn",
                "payload": {
                    "name": "rn",
                    "expression": {
                        "window": {
                            "function": "row_number",
                            "column": None,
                            "partition_by": ["dept"],
                            "order_by": [{"name": "salary", "descending": True}, {"name": "id", "descending": False}],
                            "alias": "rn",
                        }
                    },
                },
            }
        ],
        lambda F, W, df: df.withColumn(
            "rn", F.row_number().over(W.partitionBy("dept").orderBy(F.col("salary").desc(), "id"))
        ),
        False,
    ),
    (
        "window_rows_between",
        [
            {
                "op": "withColumn",
                "payload": {
                    "name": "moving",
                    "expression": {
                        "type": "window",
                        "function": "sum",
                        "column": "salary",
                        "partition_by": ["dept"],
                        "order_by": [{"name": "id", "descending": False}],
                        "rows_between": [-1, 0],
                        "range_between": None,
                        "alias": None,
                    },
                },
            }
        ],
        lambda F, W, df: df.withColumn(
            "moving", F.sum("salary").over(W.partitionBy("dept").orderBy("id").rowsBetween(-1, 0))
        ),
        False,
    ),
    (
        "agg_str",
        [
            {
                "op": "groupBy",
                "payload": {
                    "columns": [_c("dept")],
                    "aggs": [{"type": "agg_str", "expr": "sum(age)"}, {"type": "agg_str", "expr": "count(*)"}],
                },
            }
        ],
        lambda F, W, df: df.groupBy("dept").agg({"age": "sum", "*": "count"}),
        False,
    ),
    (
        "structured_aggs",
        [
            {
                "op": "groupBy",
                "payload": {
                    "columns": [_c("dept")],
                    "aggs": [
                        {"func": "avg", "column": "salary", "alias": "avg_salary"},
                        {"func": "count", "column": "*", "alias": "n"},
                    ],
                },
            }
        ],
        lambda F, W, df: df.groupBy("dept").agg(F.avg("salary").alias("avg_salary"), F.count("*").alias("n")),
        False,
    ),
    (
        "unary_minus_and_power",
        [{"op": "withColumn", "payload": {"name": "x", "expression": _op("**", _op("-", _c("age")), _l(2))}}],
        lambda F, W, df: df.withColumn("x", (-F.col("age")) ** 2),
        False,
    ),
]


@pytest.mark.parametrize("plan,program,ordered", [c[1:] for c in SPARKLESS4], ids=[c[0] for c in SPARKLESS4])
def test_sparkless4_shapes(plan: list[dict[str, Any]], program: Any, ordered: bool, diff: Differential) -> None:
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    schema = _schema(PEOPLE_SCHEMA)
    diff.check([list(r) for r in PEOPLE], schema, plan, lambda df: program(F, Window, df), ordered=ordered)
