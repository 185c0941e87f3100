"""A LEFT SEMI join on equalities only is sent as a filter by an IN subquery
(connect_plan/formats/substrait/semijoins.py), from which Spark infers the filter onto the
columns equated with its needles (DataFusion's TPC-H q20); every other semi join stays a join."""

from __future__ import annotations

import json

from connect_plan import ir
from connect_plan.formats.substrait import parse_substrait_plan
from connect_plan.formats.substrait.semijoins import equi_pairs, semi_join
from connect_plan.formats.substrait.state import Converter, Rel
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


def test_datafusion_tpch_q20_part_semi_join_is_an_in_filter_and_the_aggregates_stays_a_join() -> None:
    """``partsupp ⋉ part`` on ps_partkey = p_partkey becomes ``ps_partkey IN (SELECT p_partkey
    ...)``; the semi join with the lineitem aggregate has ``ps_availqty > 0.5 * sum`` in its
    condition and stays a join; supplier ⋉ (...) on s_suppkey = ps_suppkey is an IN too."""
    steps = _steps(_plan("tpch", "datafusion", "q20"))
    ins = [s.condition for s in steps if isinstance(s, ir.Filter) and isinstance(s.condition, ir.Subquery)]
    assert [(q.kind, len(q.values)) for q in ins] == [("in", 1), ("in", 1)]
    joins = {s.how: s.condition for s in steps if isinstance(s, ir.Join)}
    assert sorted(joins) == ["inner", "left_semi"]  # supplier ⨝ nation; ⋉ the aggregate
    semi = joins["left_semi"]
    assert semi is not None and any(isinstance(x, ir.Call) and x.fn == ">" for x in ir.walk(semi))


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


def test_the_filter_keeps_the_left_columns_and_selects_the_right_keys() -> None:
    c = Converter(plan_msg=None)  # type: ignore[arg-type]
    left = Rel(ir.TableSource("l", (), "/"), [], ["a", "b", "v"], "/l")
    right = Rel(ir.TableSource("r", (), "/"), [], ["x", "y", "s"], "/r")
    assert semi_join(c, left, right, _and(_eq(_col("a"), _col("x")), _eq(_col("y"), _col("b"))), "/j")
    assert left.names == ["a", "b", "v"]
    [step] = left.steps
    assert isinstance(step, ir.Filter) and isinstance(step.condition, ir.Subquery)
    assert step.condition.kind == "in" and step.condition.values == (_col("a"), _col("b"))
    [select] = step.condition.plan.steps
    assert isinstance(select, ir.Select) and [i.expr for i in select.items] == [_col("x"), _col("y")]
    # a condition that is not equalities only: nothing appended
    other = Rel(ir.TableSource("l", (), "/"), [], ["a", "b", "v"], "/l")
    assert not semi_join(c, other, right, ir.Call(">", (_col("v"), _col("s")), "/"), "/j")
    assert other.steps == []


def test_intersect_and_anti_joins_are_left_as_written() -> None:
    """DataFusion's INTERSECT is a semi join on null-safe equalities; an anti join is NOT EXISTS
    (NOT IN would be null-aware): both stay joins."""
    for qid, how in (("set_intersect_distinct_nulls", "left_semi"), ("join_anti_not_exists", "left_anti")):
        steps = _steps(_plan("features", "datafusion", qid))
        assert any(isinstance(s, ir.Join) and s.how == how for s in steps), qid
