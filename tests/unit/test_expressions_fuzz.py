"""Malformed expressions never crash: parsing and translating random JSON built from the
expression language's own vocabulary either succeeds or raises PlanError (never a
KeyError, TypeError, AttributeError or RecursionError)."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from connect_plan.errors import PlanError
from connect_plan.formats.json_plan import parse_plan
from connect_plan.functions import CATALOG, SORT_FUNCTIONS
from connect_plan.translator import translate_ir

SCHEMA = [("id", "bigint"), ("s", "string"), ("arr", "array<bigint>"), ("m", "map<string,bigint>")]

NAMES = sorted(CATALOG) + sorted(SORT_FUNCTIONS) + ["nope", "otherwise", "when", "transform", "row_number", "sum"]
KEYS = [
    "fn",
    "function",
    "args",
    "op",
    "left",
    "right",
    "arg",
    "col",
    "lit",
    "var",
    "lambda",
    "params",
    "body",
    "window",
    "partition_by",
    "order_by",
    "rows_between",
    "range_between",
    "frame",
    "type",
    "otherwise",
    "udf",
    "name",
    "distinct",
    "start",
    "end",
    "values",
    "lower",
    "upper",
]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(["id", "s", "arr", "x", "*", "", "currentRow", "unboundedPreceding", "int", "year", "a.b"]),
    st.sampled_from(NAMES),
)


def objects(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    plain = st.dictionaries(st.sampled_from(KEYS), children, max_size=4)
    call = st.fixed_dictionaries(
        {"fn": st.sampled_from(NAMES), "args": st.lists(children, max_size=4)},
        optional={"window": children, "otherwise": children, "distinct": st.booleans()},
    )
    lam = st.fixed_dictionaries(
        {
            "lambda": st.fixed_dictionaries(
                {"params": st.lists(st.sampled_from(["x", "y", "id", "1"]), max_size=3), "body": children}
            )
        }
    )
    return st.one_of(plain, call, lam, st.lists(children, max_size=3))


exprs = st.recursive(scalars, objects, max_leaves=25)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(exprs)
def test_any_expression_parses_or_raises_plan_error(expr: Any) -> None:
    plan = [
        {"op": "select", "payload": [{"name": "r", "expr": expr}]},
        {"op": "groupBy", "payload": {"group_by": [], "aggs": [{"expr": expr}, {"agg": "sum", "column": expr}]}},
    ]
    try:
        translate_ir(parse_plan([], SCHEMA, plan))
    except PlanError:
        pass


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(sorted(CATALOG)), st.lists(scalars, max_size=5))
def test_every_function_with_any_scalar_arguments(name: str, args: list[Any]) -> None:
    for expr in ({"fn": name, "args": args}, {"fn": name, "args": args, "window": {"order_by": ["id"]}}):
        try:
            translate_ir(parse_plan([], SCHEMA, [{"op": "withColumn", "payload": {"name": "r", "expr": expr}}]))
        except PlanError:
            pass
