"""A LEFT SEMI join on equalities sent as Spark SQL's own text would reach Spark: a filter by an
IN subquery.

Producers decorrelate ``x IN (SELECT ...)`` and ``EXISTS (... WHERE inner = outer)`` into a semi
join before writing the plan (DataFusion, DuckDB); Spark SQL keeps the subquery in the filter
until late in its optimizer (``RewritePredicateSubquery`` runs after the operator
optimisations) and rewrites it then into the same semi join. Meanwhile the filter is a
*constraint* of its relation: ``InferFiltersFromConstraints`` copies it onto every column the
plan equates with a needle, and the copy is pushed through joins and into aggregates. A semi
join sent as a join is not a constraint, so nothing is inferred from it.

TPC-H q20 is the measured case (sf 1, Spark 4.3): DataFusion writes ``partsupp ⋉ part`` (the
``ps_partkey IN (SELECT p_partkey ...)``) as a semi join, and the correlated
``0.5 * sum(l_quantity)`` as a semi join with an aggregate of lineitem grouped by (partkey,
suppkey). Sent as joins, Spark aggregates every 1994 lineitem row (7.0E+5 groups); sent as a
filter by an IN subquery, Spark infers ``l_partkey IN (SELECT p_partkey ...)`` through the
equality ``ps_partkey = l_partkey``, pushes it under the aggregate, and aggregates only the
lineitem rows of the 'forest%' parts (7.6E+3 groups), as it does for the SQL text.

The equivalence, for a semi join whose condition is ``a_1 = b_1 AND ... AND a_n = b_n`` with each
``a_i`` an expression of the left input's columns only and each ``b_i`` of the right input's
only: the semi join keeps a left row ``l`` iff some right row ``r`` makes every ``a_i(l) =
b_i(r)`` TRUE. ``(a_1, ..., a_n) IN (SELECT b_1, ..., b_n FROM R)`` is TRUE iff some row of
the subquery compares equal on every column, NULL iff none does but a comparison is NULL, and
FALSE otherwise; a filter keeps exactly the rows where it is TRUE. So the filter keeps the same
rows, each once, in the left input's order and columns. NULLs: ``=`` with a NULL is never TRUE,
in both forms. A null-safe ``<=>`` (``is_not_distinct_from``) matches NULL to NULL, which IN
does not: such a condition stays a join, as does any other conjunct (a ``>``, an OR, a
condition that reads both sides in one operand or neither side), an anti join (NOT IN is
null-aware, an anti join is not), a condition that refers to an enclosing query's columns, or
one holding a subquery.
"""

from __future__ import annotations

from ... import ir
from .state import Converter, Rel

__all__ = ["semi_join"]


def semi_join(c: Converter, left: Rel, right: Rel, cond: ir.Expr | None, loc: str) -> bool:
    """``left ⋉ right`` on ``cond`` as a filter of ``left`` by an IN subquery over ``right``,
    when the condition is equalities only (module doc): True when the steps are appended to
    ``left``, False when the caller is to send the join as it is."""
    pairs = equi_pairs(cond, set(left.names), set(right.names))
    if pairs is None:
        return False
    keys = [c.fresh() for _ in pairs]
    right.steps.append(
        ir.Select(
            c.step_index(),
            "join.semi",
            loc,
            tuple(ir.SelectItem(b, k, loc) for (_, b), k in zip(pairs, keys)),
        )
    )
    right.names = keys
    needles = tuple(a for a, _ in pairs)
    left.steps.append(ir.Filter(c.step_index(), "join.semi", loc, ir.Subquery("in", right.plan(), needles, loc)))
    return True


def equi_pairs(cond: ir.Expr | None, left: set[str], right: set[str]) -> list[tuple[ir.Expr, ir.Expr]] | None:
    """``cond`` as (left operand, right operand) of each of its conjuncts when every conjunct is
    an ``=`` between an expression of ``left``'s columns only and one of ``right``'s only (in
    either order); None otherwise (module doc)."""
    if cond is None:
        return None
    pairs: list[tuple[ir.Expr, ir.Expr]] = []
    for conjunct in _conjuncts(cond):
        if not isinstance(conjunct, ir.Call) or conjunct.fn != "==" or len(conjunct.args) != 2:
            return None
        x, y = conjunct.args
        sides = _side(x, left, right), _side(y, left, right)
        if sides == ("left", "right"):
            pairs.append((x, y))
        elif sides == ("right", "left"):
            pairs.append((y, x))
        else:
            return None
    return pairs


def _conjuncts(expr: ir.Expr) -> list[ir.Expr]:
    if isinstance(expr, ir.Call) and expr.fn == "and" and not expr.distinct:
        return [part for arg in expr.args for part in _conjuncts(arg)]
    return [expr]


def _side(expr: ir.Expr, left: set[str], right: set[str]) -> str | None:
    """ "left" or "right" when ``expr`` reads columns of that input only (at least one), else None
    (both, neither, an enclosing query's column, a subquery, a lambda)."""
    names: set[str] = set()
    for node in ir.walk(expr):
        if isinstance(node, ir.Col):
            names.add(node.name)
        elif isinstance(node, (ir.Subquery, ir.Lambda, ir.LambdaVar, ir.Star)):
            return None
    if names and names <= left:
        return "left"
    if names and names <= right:
        return "right"
    return None
