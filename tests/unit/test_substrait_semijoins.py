"""A LEFT SEMI join on equalities only is sent as a filter by an IN subquery
(connect_plan/formats/substrait/semijoins.py), from which Spark infers the filter onto the
columns equated with its needles (DataFusion's TPC-H q20); every other semi join stays a join."""

from __future__ import annotations

import json
from typing import Any

from connect_plan import ir
from connect_plan.formats.substrait import parse_substrait_plan
from connect_plan.formats.substrait.semijoins import equi_pairs
from tests import substrait_corpus as sc


def _plan(suite: str, producer: str, qid: str) -> ir.Plan:
    return parse_substrait_plan(json.loads((sc.CORPUS / suite / producer / f"{qid}.json").read_text()))


def _all_plans(plan: ir.Plan) -> list[ir.Plan]:
    """``plan`` and every plan inside it (join inputs, subqueries), depth first."""
    out, todo = [], [plan]
    while todo:
        p = todo.pop()
        out.append(p)
        for step in p.steps:
            for value in vars(step).values():
                for v in value if isinstance(value, tuple) else (value,):
                    if isinstance(v, ir.Plan):
                        todo.append(v)
                    elif isinstance(v, ir.EXPR_CLASSES):
                        todo += [x.plan for x in ir.walk(v) if isinstance(x, ir.Subquery)]
    return out


def _steps(plan: ir.Plan) -> list[ir.Step]:
    return [s for p in _all_plans(plan) for s in p.steps]


def _col(n: str) -> ir.Col:
    return ir.Col(n, "/")


def _eq(a: ir.Expr, b: ir.Expr, fn: str = "==") -> ir.Call:
    return ir.Call(fn, (a, b), "/")


def _and(*xs: ir.Expr) -> ir.Call:
    return ir.Call("and", xs, "/")


L, R = {"a", "b", "v"}, {"x", "y", "s"}


def test_datafusion_tpch_q20_semi_joins_become_an_in_filter_and_an_inner_join() -> None:
    """``partsupp ⋉ part`` on ps_partkey = p_partkey (a filtered table) becomes an IN filter;
    the semi join with the lineitem aggregate grouped by (partkey, suppkey), on both keys and
    ``ps_availqty > 0.5 * sum``, becomes an inner join; ``supplier ⋉ (...)`` on s_suppkey =
    ps_suppkey (joins on its right) stays a semi join."""
    steps = _steps(_plan("tpch", "datafusion", "q20"))
    ins = [s.condition for s in steps if isinstance(s, ir.Filter) and isinstance(s.condition, ir.Subquery)]
    assert [(q.kind, len(q.values)) for q in ins] == [("in", 1)]
    joins = [s for s in steps if isinstance(s, ir.Join)]
    assert sorted(j.how for j in joins) == ["inner", "inner", "left_semi"]  # ⨝ nation, ⨝ the aggregate
    [agg] = [j for j in joins if any(isinstance(x, ir.Call) and x.fn == ">" for x in ir.walk(j.condition))]
    assert any(isinstance(s, ir.GroupBy) for s in agg.right.steps)


def test_datafusion_tpch_q02_min_supplycost_is_an_inner_join() -> None:
    """``ps_supplycost = (SELECT min(ps_supplycost) ... WHERE p_partkey = ps_partkey)``:
    DataFusion's semi join on p_partkey = key AND ps_supplycost = min is a scalar subquery's
    (it compares with the aggregate's value), not an IN: an inner join, as Spark SQL plans it."""
    steps = _steps(_plan("tpch", "datafusion", "q02"))
    assert not any(isinstance(s, ir.Filter) and isinstance(s.condition, ir.Subquery) for s in steps)
    assert not any(isinstance(s, ir.Join) and s.how == "left_semi" for s in steps)


# a plan of its own: t(a, b, v) ⋉ (SELECT x, [y,] sum(q) AS s FROM u GROUP BY x[, y]) ON <cond>
FUNCTIONS = {"equal": 1, "gt": 2, "and": 3, "sum": 4, "is_not_distinct_from": 5, "is_not_null": 6}


def _field(k: int) -> dict[str, Any]:
    return {"selection": {"directReference": {"structField": {"field": k}}, "rootReference": {}}}


def _call(name: str, *args: dict[str, Any]) -> dict[str, Any]:
    return {
        "scalarFunction": {
            "functionReference": FUNCTIONS[name],
            "outputType": {"bool": {"nullability": "NULLABILITY_NULLABLE"}},
            "arguments": [{"value": a} for a in args],
        }
    }


def _read(table: str, names: list[str], types: list[str]) -> dict[str, Any]:
    kinds = [{t: {"nullability": "NULLABILITY_NULLABLE"}} for t in types]
    return {"read": {"baseSchema": {"names": names, "struct": {"types": kinds}}, "namedTable": {"names": [table]}}}


def _semi_plan(cond: dict[str, Any], keys: int = 1, key_type: str = "i64", where: str = "gt") -> ir.Plan:
    """Left fields 0-2 (a i64, b i64, v fp64); right: the keys (x, then y) then s; no keys:
    u itself (x, y, q) filtered by ``q > 0`` (``where="is_not_null"``: ``x IS NOT NULL``; "":
    not filtered)."""
    u = _read("u", ["x", "y", "q"], [key_type, "i64", "fp64"])
    if where == "gt":
        u = {"filter": {"input": u, "condition": _call("gt", _field(2), {"literal": {"fp64": 0.0}})}}
    elif where:
        u = {"filter": {"input": u, "condition": _call(where, _field(0))}}
    grouped = {
        "aggregate": {
            "input": _read("u", ["x", "y", "q"], [key_type, "i64", "fp64"]),
            "groupings": [{"groupingExpressions": [_field(k) for k in range(keys)]}],
            "measures": [
                {
                    "measure": {
                        "functionReference": FUNCTIONS["sum"],
                        "outputType": {"fp64": {"nullability": "NULLABILITY_NULLABLE"}},
                        "arguments": [{"value": _field(2)}],
                    }
                }
            ],
        }
    }
    join = {
        "join": {
            "left": _read("t", ["a", "b", "v"], ["i64", "i64", "fp64"]),
            "right": grouped if keys else u,
            "expression": cond,
            "type": "JOIN_TYPE_LEFT_SEMI",
        }
    }
    plan = {
        "extensionUris": [{"extensionUriAnchor": 1, "uri": "https://example.invalid/functions.yaml"}],
        "extensions": [
            {"extensionFunction": {"extensionUriReference": 1, "functionAnchor": anchor, "name": name}}
            for name, anchor in FUNCTIONS.items()
        ],
        "relations": [{"root": {"input": join, "names": ["a", "b", "v"]}}],
    }
    return parse_substrait_plan(plan)


def _form(plan: ir.Plan) -> str:
    """How the semi join was sent: "inner", "in" or "left_semi"."""
    steps = _steps(plan)
    if any(isinstance(s, ir.Filter) and isinstance(s.condition, ir.Subquery) for s in steps):
        return "in"
    [join] = [s for s in steps if isinstance(s, ir.Join)]
    return join.how


A, B, V, X, Y, S1, S2 = (_field(k) for k in (0, 1, 2, 3, 4, 4, 5))


def test_a_semi_join_with_an_aggregate_compared_with_its_values_is_an_inner_join() -> None:
    """Every key equated (``=`` or ``<=>``: one group holds the NULLs) with a left column of
    the same declared type, and a measure read: at most one match per left row."""
    assert _form(_semi_plan(_call("and", _call("equal", A, X), _call("gt", V, S1)))) == "inner"
    assert _form(_semi_plan(_call("and", _call("equal", X, A), _call("equal", V, S1)))) == "inner"
    assert _form(_semi_plan(_call("and", _call("is_not_distinct_from", A, X), _call("gt", V, S1)))) == "inner"
    two = _call("and", _call("and", _call("equal", A, X), _call("equal", B, Y)), _call("gt", V, S2))
    assert _form(_semi_plan(two, keys=2)) == "inner"


def test_the_shapes_that_stay_or_become_an_in() -> None:
    """A key not equated (two keys, one compared): rows may match twice, the join stays; a key
    of another declared type (a cast could merge groups): stays; keys only, no measure read
    (an IN subquery with GROUP BY, TPC-H q18): stays, Spark would aggregate again where it
    infers the IN; equalities with a filtered table: an IN filter, with a residual: stays."""
    one_of_two = _call("and", _call("equal", A, X), _call("gt", V, S2))
    assert _form(_semi_plan(one_of_two, keys=2)) == "left_semi"
    other_type = _call("and", _call("equal", A, X), _call("gt", V, S1))
    assert _form(_semi_plan(other_type, key_type="fp64")) == "left_semi"
    assert _form(_semi_plan(_call("equal", A, X))) == "left_semi"
    assert _form(_semi_plan(_call("and", _call("equal", A, X), _call("equal", Y, B)), keys=0)) == "in"
    # a table not filtered, or only by IS NOT NULL: the copies Spark would infer filter nothing
    assert _form(_semi_plan(_call("equal", A, X), keys=0, where="")) == "left_semi"
    assert _form(_semi_plan(_call("equal", A, X), keys=0, where="is_not_null")) == "left_semi"
    assert _form(_semi_plan(_call("and", _call("equal", A, X), _call("gt", V, S2)), keys=0)) == "left_semi"


def test_the_equalities_are_paired_left_then_right_in_either_order() -> None:
    cond = _and(_eq(_col("a"), _col("x")), _eq(_col("y"), ir.Call("upper", (_col("b"),), "/")))
    pairs = equi_pairs(cond, L, R)
    assert pairs == [(_col("a"), _col("x")), (ir.Call("upper", (_col("b"),), "/"), _col("y"))]
    assert equi_pairs(_eq(_col("a"), _col("x")), L, R) == [(_col("a"), _col("x"))]


def test_every_other_condition_stays_a_join() -> None:
    """A residual comparison, a null-safe equality (IN never matches NULL to NULL), an operand of
    both sides or of neither, an enclosing query's column, an OR, no condition at all."""
    eq = _eq(_col("a"), _col("x"))
    for cond in (
        None,
        _and(eq, ir.Call(">", (_col("v"), _col("s")), "/")),
        _eq(_col("a"), _col("x"), "<=>"),
        _and(eq, _eq(_col("b"), _col("y"), "<=>")),
        _eq(ir.Call("+", (_col("a"), _col("x")), "/"), _col("y")),
        _eq(_col("a"), _col("b")),
        _eq(_col("a"), _col("outer_column")),
        _eq(_col("a"), ir.Lit(1, "/")),
        ir.Call("or", (eq, _eq(_col("b"), _col("y"))), "/"),
    ):
        assert equi_pairs(cond, L, R) is None, cond


def test_the_in_filter_keeps_the_left_columns_and_selects_the_right_keys() -> None:
    plan = _semi_plan(_call("and", _call("equal", A, X), _call("equal", Y, B)), keys=0)
    [step] = [s for s in plan.steps if isinstance(s, ir.Filter)]
    assert isinstance(step.condition, ir.Subquery) and step.condition.kind == "in"
    needles = step.condition.values
    assert [n.name for n in needles if isinstance(n, ir.Col)] == [n.name for n in needles] and len(needles) == 2
    select = step.condition.plan.steps[-1]
    assert isinstance(select, ir.Select) and len(select.items) == 2
    assert not any(isinstance(s, ir.Join) for s in plan.steps)


def test_intersect_and_anti_joins_are_left_as_written() -> None:
    """DataFusion's INTERSECT is a semi join on null-safe equalities; an anti join is NOT EXISTS
    (NOT IN would be null-aware): both stay joins."""
    for qid, how in (("set_intersect_distinct_nulls", "left_semi"), ("join_anti_not_exists", "left_anti")):
        steps = _steps(_plan("features", "datafusion", qid))
        assert any(isinstance(s, ir.Join) and s.how == how for s in steps), qid
