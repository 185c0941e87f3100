"""A scalar subquery's plan in the shape Spark decorrelates best: its aggregate at the top.

Spark decorrelates a correlated scalar subquery whose plan ends in an aggregate by pulling the
correlated equalities up into a join with the outer query (what it makes of TPC-H q02's
``ps_supplycost = (SELECT min(ps_supplycost) ... WHERE p_partkey = ps_partkey ...)`` written
as SQL). Any projection above that aggregate, even one that only renames its column
(``SELECT m FROM (SELECT min(x) AS m ...)``), makes it decorrelate through a *domain join*
instead: the outer query's plan up to the subquery is run a second time, grouped by the
correlated columns, and joined in (measured on Spark 4.3: two more joins and an aggregate in
TPC-H q02). Spark SQL's own text never has that projection: its analyzer puts ``avg(x) * 1.2``
into the aggregate's output.

connect_plan wrote one such projection itself (a subquery's columns freshly named), and
Isthmus writes a ProjectRel over the AggregateRel for every expression over an aggregate
(TPC-DS q30's ``avg(ctr_total_return) * 1.2``). :func:`scalar_subquery_plan` writes the
aggregate last: an output the aggregate names already is not renamed, and projections after
a global aggregate whose expressions use only its outputs are folded into it (an aggregate's
output may be any expression of its aggregates; over no rows it is evaluated on the empty
aggregates, as the projection was).
"""

from __future__ import annotations

from collections.abc import Mapping

from ... import ir
from .state import Converter, Rel

__all__ = ["scalar_subquery_plan"]


def scalar_subquery_plan(c: Converter, rel: Rel, loc: str) -> ir.Plan:
    """The plan of a scalar subquery over ``rel`` (one visible column): ``rel`` with its global
    aggregate last where that is the same plan, else with its column freshly named."""
    folded = _aggregate_last(rel)
    if folded is not None:
        return ir.Plan(rel.source, folded, rel.loc)
    return c.materialize(rel, loc, "subquery").plan()


def _aggregate_last(rel: Rel) -> tuple[ir.Step, ...] | None:
    """``rel``'s steps ending in its global aggregate (of one output, ``rel``'s column), with
    the projections after it folded in; None where that cannot be done exactly."""
    [name] = rel.names
    at = max((k for k, s in enumerate(rel.steps) if isinstance(s, ir.Agg)), default=None)
    if at is None:
        return None
    agg = rel.steps[at]
    assert isinstance(agg, ir.Agg)
    known: dict[str, ir.Expr] = {}
    for item in agg.aggs:
        if item.alias is None:
            return None
        known[item.alias] = item.expr
    for step in rel.steps[at + 1 :]:
        if not isinstance(step, ir.WithColumn):
            return None
        expr = _inline(step.expr, known)
        if expr is None:
            return None
        known[step.name] = expr
    if name not in known:
        return None
    if at == len(rel.steps) - 1 and [i.alias for i in agg.aggs] == [name]:
        return tuple(rel.steps)  # already the aggregate's one output
    top = ir.Agg(agg.index, agg.op, agg.loc, (ir.AggItem(known[name], name, agg.loc),))
    return (*rel.steps[:at], top)


def _inline(e: ir.Expr, known: Mapping[str, ir.Expr]) -> ir.Expr | None:
    """``e`` with each column replaced by its expression in ``known``; None where ``e`` uses a
    column not there (an outer reference, a column the aggregate does not output) or a kind of
    expression not listed here (windows, subqueries, lambdas...: left as written)."""
    if isinstance(e, ir.Col):
        return known.get(e.name) if e.side is None else None
    if isinstance(e, ir.Lit):
        return e
    if isinstance(e, ir.Cast):
        inner = _inline(e.expr, known)
        return None if inner is None else ir.Cast(inner, e.to, e.loc, e.mode)
    if isinstance(e, ir.Call):
        args = [_inline(a, known) for a in e.args]
        if any(a is None for a in args):
            return None
        return ir.Call(e.fn, tuple(a for a in args if a is not None), e.loc, distinct=e.distinct)
    if isinstance(e, ir.When):
        branches = []
        for cond, value in e.branches:
            cc, vv = _inline(cond, known), _inline(value, known)
            if cc is None or vv is None:
                return None
            branches.append((cc, vv))
        otherwise = None
        if e.otherwise is not None:
            otherwise = _inline(e.otherwise, known)
            if otherwise is None:
                return None
        return ir.When(tuple(branches), otherwise, e.loc)
    return None
