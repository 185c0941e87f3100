"""A scalar subquery's plan ends in its aggregate (connect_plan/formats/substrait/subqueries.py):
no renaming projection of connect_plan's own above it, and a producer's projection over a global
aggregate folded into it, so that Spark decorrelates it without a domain join. The recorded plans
of Isthmus (TPC-H q02: a rename; TPC-DS q30: ``avg(...) * 1.2``) and the cases left as written."""

from __future__ import annotations

import json

from connect_plan import ir
from connect_plan.formats.substrait import parse_substrait_plan
from connect_plan.formats.substrait.state import Converter, Rel
from connect_plan.formats.substrait.subqueries import scalar_subquery_plan
from connect_plan.types import Primitive
from tests import substrait_corpus as sc


def _scalar_subqueries(plan: ir.Plan) -> list[ir.Plan]:
    out = []
    for step in plan.steps:
        for value in vars(step).values():
            exprs = value if isinstance(value, tuple) else (value,)
            for e in exprs:
                if isinstance(e, ir.EXPR_CLASSES):
                    out += [x.plan for x in ir.walk(e) if isinstance(x, ir.Subquery) and x.kind == "scalar"]
    return out


def _plan(suite: str, producer: str, qid: str) -> ir.Plan:
    return parse_substrait_plan(json.loads((sc.CORPUS / suite / producer / f"{qid}.json").read_text()))


def test_isthmus_tpch_q02_subquery_ends_in_its_aggregate() -> None:
    [sub] = _scalar_subqueries(_plan("tpch", "isthmus", "q02"))
    last = sub.steps[-1]
    assert isinstance(last, ir.Agg) and len(last.aggs) == 1
    assert isinstance(last.aggs[0].expr, ir.Call) and last.aggs[0].expr.fn == "min"


def test_isthmus_tpcds_q30_projection_over_the_aggregate_is_folded_into_it() -> None:
    [sub] = _scalar_subqueries(_plan("tpcds", "isthmus", "q30"))
    last = sub.steps[-1]
    assert isinstance(last, ir.Agg) and len(last.aggs) == 1
    expr = last.aggs[0].expr
    assert isinstance(expr, ir.Call) and expr.fn == "*"
    assert isinstance(expr.args[0], ir.Call) and expr.args[0].fn == "avg"


def _rel(*steps: ir.Step, names: list[str]) -> Rel:
    return Rel(ir.TableSource("t", (), "/"), list(steps), names, "/")


def _agg(*items: tuple[str, ir.Expr]) -> ir.Agg:
    return ir.Agg(1, "aggregate", "/", tuple(ir.AggItem(e, n, "/") for n, e in items))


SUM = ir.Call("sum", (ir.Col("x", "/"),), "/")
CNT = ir.Call("count", (ir.Lit(1, "/"),), "/")


def test_folds_and_keeps() -> None:
    c = Converter(plan_msg=None)  # type: ignore[arg-type]
    # a projection over the aggregate's outputs: folded
    two = ir.Lit(2, "/", Primitive("int"))
    rel = _rel(
        _agg(("s", SUM), ("n", CNT)),
        ir.WithColumn(2, "project", "/", "r", ir.Call("+", (ir.Col("s", "/"), ir.Col("n", "/")), "/")),
        ir.WithColumn(
            3, "project", "/", "q", ir.Cast(ir.Call("*", (ir.Col("r", "/"), two), "/"), Primitive("bigint"), "/")
        ),
        names=["q"],
    )
    plan = scalar_subquery_plan(c, rel, "/")
    [agg] = plan.steps
    assert isinstance(agg, ir.Agg)
    assert agg.aggs == (
        ir.AggItem(
            ir.Cast(ir.Call("*", (ir.Call("+", (SUM, CNT), "/"), two), "/"), Primitive("bigint"), "/"), "q", "/"
        ),
    )
    # one of the aggregate's outputs: the aggregate of that one
    plan = scalar_subquery_plan(c, _rel(_agg(("s", SUM), ("n", CNT)), names=["n"]), "/")
    assert plan.steps == (_agg(("n", CNT)),)
    # already the one output: unchanged
    plan = scalar_subquery_plan(c, _rel(_agg(("s", SUM)), names=["s"]), "/")
    assert plan.steps == (_agg(("s", SUM)),)


def test_leaves_alone_what_it_cannot_fold_exactly() -> None:
    c = Converter(plan_msg=None)  # type: ignore[arg-type]
    outer = ir.WithColumn(2, "project", "/", "r", ir.Call("+", (ir.Col("s", "/"), ir.Col("_outer", "/")), "/"))
    having = ir.Filter(2, "filter", "/", ir.Call(">", (ir.Col("s", "/"), ir.Lit(1, "/")), "/"))
    grouped = ir.GroupBy(1, "aggregate", "/", "groupby", (ir.Col("k", "/"),), (ir.AggItem(SUM, "s", "/"),))
    for rel in (
        _rel(_agg(("s", SUM)), outer, names=["r"]),  # an outer reference: not an output of the aggregate
        _rel(_agg(("s", SUM)), having, names=["s"]),  # a filter after the aggregate
        _rel(grouped, names=["s"]),  # a grouped aggregate (no global aggregate)
    ):
        before = list(rel.steps)
        plan = scalar_subquery_plan(c, rel, "/")
        assert list(plan.steps[: len(before)]) == before and isinstance(plan.steps[-1], ir.Select)
